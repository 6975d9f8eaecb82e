import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLEARED_TOOL_RESULT_TEXT } from '../../../simulator/index.js';
import { createSimulator } from '../../../simulator/index.js';
import { estimateBlockTokens } from '../../../lib/index.js';
import { httpClient, loggedRequests, plannedResponder, runPrompt, strategyKernel, tokensOf, writeLines } from '../../../testing/strategy.js';
import breakDetector, { detectorRecords } from '../../cache/break-detector/index.js';
import breakpoints from '../../cache/breakpoints/index.js';
import contextEdits, { buildEdits, contextEditsOptions, contextEditsStats } from './index.js';

let dir: string;
let home: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rein-ce-'));
  home = mkdtempSync(join(tmpdir(), 'rein-home-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

const read = (file: string) => [{ type: 'text' as const, text: `Reading ${file}.` }, { type: 'tool_use' as const, name: 'Read', input: { file_path: file } }];

describe('buildEdits', () => {
  it("has Claude Code's defaults: trigger 180,000, clear at least 140,000; thinking first and kept while warm", () => {
    const o = contextEditsOptions.parse({});
    expect(buildEdits(o, false, false)).toEqual([
      { type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 180_000 }, keep: { type: 'tool_uses', value: 3 }, clear_at_least: { type: 'input_tokens', value: 140_000 } },
    ]);
    expect(buildEdits(o, true, false)[0]).toEqual({ type: 'clear_thinking_20251015', keep: 'all' });
    expect(buildEdits(o, true, true)[0]).toEqual({ type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 1 } });
    expect(() => contextEditsOptions.parse({ clearToolUses: { triggerTokens: 1000, targetTokens: 2000 } })).toThrow(/targetTokens must be below/);
  });
});

describe('compaction/context-edits in a session', () => {
  it('sends the same edits and beta on every request; past the trigger the simulator clears old results and bills the smaller prompt', async () => {
    for (const f of ['f1', 'f2', 'f3', 'f4']) writeLines(dir, `${f}.txt`, 100, f);
    const simulator = createSimulator({ responder: plannedResponder([read('f1.txt'), read('f2.txt'), read('f3.txt'), read('f4.txt'), [{ type: 'text', text: 'Done.' }]]) });
    const log = join(home, 'requests.jsonl');
    const { client } = await httpClient(simulator, log);
    const kernel = await strategyKernel({
      cwd: dir, client,
      plugins: [
        { plugin: contextEdits, options: { clearToolUses: { triggerTokens: 2_500, targetTokens: 1_500, keep: 1 } } },
        { plugin: breakpoints },
        { plugin: breakDetector },
      ],
    });
    try {
      const { result } = await runPrompt(kernel, 'Read the four files.');
      expect(result.terminalReason).toBe('end_turn');
      const logged = loggedRequests(log);
      expect(logged).toHaveLength(5);
      const edits = { edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 2_500 }, keep: { type: 'tool_uses', value: 1 }, clear_at_least: { type: 'input_tokens', value: 1_000 } }] };
      for (const r of logged) {
        expect(r.body.context_management).toEqual(edits);
        expect(r.headers['anthropic-beta']).toBe('context-management-2025-06-27');
      }
      const total = (b: Record<string, any>) => tokensOf(b.tools) + tokensOf(b.system) + (b.messages as { content: unknown[] }[]).reduce((n, m) => n + tokensOf(m), 0);
      const billed = (u: Record<string, number>) => u.input_tokens! + u.cache_creation_input_tokens! + u.cache_read_input_tokens!;
      // Before the trigger (request 2: prompt + one result, under 2,500): billed as sent.
      expect(total(logged[1]!.body)).toBeLessThan(2_500);
      expect(billed(logged[1]!.usage!)).toBe(total(logged[1]!.body));
      // Request 3 is over 2,500: the older of its two results is cleared server side, the newest kept.
      const r3 = logged[2]!.body;
      expect(total(r3)).toBeGreaterThan(2_500);
      const f1 = r3.messages[2].content[0];
      const saved = estimateBlockTokens(f1) - estimateBlockTokens({ ...f1, content: [{ type: 'text', text: CLEARED_TOOL_RESULT_TEXT }] });
      expect(billed(logged[2]!.usage!)).toBe(total(r3) - saved);
      expect(contextEditsStats(kernel)!.appliedEdits).toBe(3);
      expect(contextEditsStats(kernel)!.clearedToolUses).toBe(1 + 2 + 3);
      // The detector knows the server cleared content: no break is blamed on the client.
      expect(detectorRecords(kernel).filter((r) => r.verdict.kind === 'break' && r.verdict.cause === 'client')).toEqual([]);
    } finally {
      await kernel.close();
    }
  });
});
