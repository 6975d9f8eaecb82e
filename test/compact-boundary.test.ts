/**
 * The `compact` event (stream-json `compact_boundary` pre/post tokens) reports the context's size
 * the way the threshold sees it (tools, system and messages), not the messages alone: the number
 * before is at or over the threshold that fired it, and the number after is what the next request
 * carries. Claude Code's `compactMetadata.preTokens` has the same meaning.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collect, serveScenario, simKernel, tempDir, type SimHarness } from '../testing/support.js';
import { estimateMessageTokens } from '../lib/tokens/estimate.js';
import type { AgentEvent } from '../kernel/types.js';
import autoCompact from '../plugins/compaction/auto/index.js';
import readTool from '../plugins/tools/read/index.js';

let tmp: ReturnType<typeof tempDir>;
let sim: SimHarness | undefined;
beforeEach(() => { tmp = tempDir('rein-compact-event-'); });
afterEach(async () => { await sim?.close(); sim = undefined; tmp.cleanup(); });

interface LogEntry {
  source: string;
  usage: { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number; output_tokens: number };
}
const prompt = (r: LogEntry) => r.usage.input_tokens + r.usage.cache_read_input_tokens + r.usage.cache_creation_input_tokens;

/** Compaction fires when the context reaches this many tokens. */
const TRIGGER = 3_000;

describe('the compact event', () => {
  it('reports the context size that crossed the threshold, and the size the next request carries', async () => {
    // Three files of 100 lines, 4,000 bytes (~1,000 tokens) each.
    for (const name of ['a', 'b', 'c']) writeFileSync(join(tmp.dir, `${name}.txt`), Array.from({ length: 100 }, (_, i) => `${name} line ${String(i).padStart(3, '0')} ${'x'.repeat(28)}\n`).join(''));
    sim = await serveScenario(`
turns:
  - reply: [{ text: "Reading a." }, { tool_use: { name: Read, input: { file_path: a.txt } } }]
  - reply: [{ text: "Reading b." }, { tool_use: { name: Read, input: { file_path: b.txt } } }]
  - reply: [{ text: "Reading c." }, { tool_use: { name: Read, input: { file_path: c.txt } } }]
  - reply: [{ text: "Done." }]
`, tmp.dir);
    const kernel = await simKernel(sim, {
      cwd: tmp.dir,
      plugins: [{ plugin: readTool }, { plugin: autoCompact, options: { triggerTokens: TRIGGER, restore: { maxFiles: 0 } } }],
    });
    const { events, result } = await collect(kernel, 'Read a, b and c.');
    expect(result.terminalReason).toBe('end_turn');

    const compacts = events.filter((e): e is Extract<AgentEvent, { type: 'compact' }> => e.type === 'compact');
    expect(compacts).toHaveLength(1);
    const log = sim.requests() as unknown as LogEntry[];
    const k = log.findIndex((r) => r.source === 'compact');
    const before = log[k - 1]!;
    const after = log[k + 1]!;
    expect([before.source, after.source]).toEqual(['main_loop', 'main_loop']);

    // Before: the last response's prompt and output plus the tool results since, at or over the trigger.
    const at = events.indexOf(compacts[0]!);
    const results = events.slice(0, at).findLast((e): e is Extract<AgentEvent, { type: 'tool_results' }> => e.type === 'tool_results')!;
    expect(compacts[0]!.tokensBefore).toBe(prompt(before) + before.usage.output_tokens + estimateMessageTokens(results.message));
    expect(compacts[0]!.tokensBefore).toBeGreaterThanOrEqual(TRIGGER);
    expect(prompt(before)).toBeLessThan(TRIGGER);
    // After: exactly what the next request carries.
    expect(compacts[0]!.tokensAfter).toBe(prompt(after));
    expect(compacts[0]!.tokensAfter).toBeLessThan(TRIGGER);
  });
});
