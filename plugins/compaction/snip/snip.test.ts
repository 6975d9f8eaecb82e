import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSimulator } from '../../../simulator/index.js';
import { type Message } from '../../../kernel/index.js';
import { defaultEstimator } from '../../../lib/index.js';
import {
  httpClient, loggedRequests, plannedResponder, runPrompt, strategyKernel, tokensOf, withoutMarkers, writeAgentsMd, writeLines,
} from '../../../testing/strategy.js';
import breakpoints from '../../cache/breakpoints/index.js';
import breakDetector, { detectorRecords } from '../../cache/break-detector/index.js';
import memoryFiles from '../../memory-files/index.js';
import snip, { snipNote, snipRounds, snipStats } from './index.js';

let dir: string;
let home: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rein-snip-'));
  home = mkdtempSync(join(tmpdir(), 'rein-home-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

const read = (file: string) => [{ type: 'text' as const, text: `Reading ${file}.` }, { type: 'tool_use' as const, name: 'Read', input: { file_path: file } }];
const counter = { messageTokens: (m: Message) => defaultEstimator.message(m), messagesTokens: (ms: readonly Message[]) => ms.reduce((n, m) => n + defaultEstimator.message(m), 0) };

describe('snipRounds', () => {
  const round = (i: number): Message[] => [
    { role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'Read', input: { file_path: `f${i}` } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'x'.repeat(400) }] },
  ];
  it('drops whole rounds oldest first, keeps the pinned message, the opening prompt and the last round', () => {
    const pinned: Message = { role: 'user', content: [{ type: 'text', text: 'rules' }], meta: { pinned: true } };
    const prompt: Message = { role: 'user', content: [{ type: 'text', text: 'do it' }] };
    const h: Message[] = [pinned, prompt, ...round(1), ...round(2), ...round(3), ...round(4)];
    const r = snipRounds(h, 1_000, 500, counter);
    expect(r.dropped).toBe(6);
    expect(r.messages.map((m) => m.content[0]!.type === 'text' ? (m.content[0] as { text: string }).text : (m.content[0] as { id?: string; tool_use_id?: string }).id ?? (m.content[0] as { tool_use_id: string }).tool_use_id))
      .toEqual(['rules', 'do it', snipNote(6), 't4', 't4']);
    // Every tool_result still follows its tool_use.
    expect(r.messages[3]!.role).toBe('assistant');
  });
  it('keeps the latest prompt when the round holding it goes, and can drop rounds after it', () => {
    const h: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'first' }] }, ...round(1),
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] }, { role: 'user', content: [{ type: 'text', text: 'second' }] }, ...round(2), ...round(3)];
    const r = snipRounds(h, 10_000, 0, counter);
    // Dropped: round 1, the "done" reply, round 2; kept: "first", "second", the note, round 3.
    expect(r.dropped).toBe(5);
    const label = (m: Message) => (m.content[0]!.type === 'text' ? (m.content[0] as { text: string }).text : m.role);
    expect(r.messages.map(label)).toEqual(['first', 'second', snipNote(5), 'assistant', 'user']);
  });
});

describe('compaction/snip in a session', () => {
  it('at the threshold drops the oldest rounds down to the target; the simulator reads the prefix through the prompt', async () => {
    writeAgentsMd(dir);
    for (const f of ['f1', 'f2', 'f3', 'f4', 'f5']) writeLines(dir, `${f}.txt`, 100, f);
    const simulator = createSimulator({ responder: plannedResponder([read('f1.txt'), read('f2.txt'), read('f3.txt'), read('f4.txt'), read('f5.txt'), [{ type: 'text', text: 'Done.' }]]) });
    const log = join(home, 'requests.jsonl');
    const { client } = await httpClient(simulator, log);
    const kernel = await strategyKernel({
      cwd: dir, client,
      plugins: [
        { plugin: memoryFiles, options: { userDirs: [home] } },
        { plugin: snip, options: { triggerTokens: 7_000, targetRatio: 0.5 } },
        { plugin: breakpoints },
        { plugin: breakDetector },
      ],
    });
    try {
      const { result } = await runPrompt(kernel, 'Read the five files.');
      expect(result.terminalReason).toBe('end_turn');
      const logged = loggedRequests(log);
      const reqs = logged.map((r) => r.body);
      expect(snipStats(kernel)).toMatchObject({ snips: 1, dropped: 6, trigger: 7_000, target: 3_500 });
      const before = reqs[3]!;
      const after = reqs[4]!;
      expect(before.messages).toHaveLength(8);
      // After: memory and prompt verbatim, the note, then the newest round (Read f4 and its result).
      expect(after.messages).toHaveLength(5);
      expect(after.messages.slice(0, 2)).toEqual(before.messages.slice(0, 2));
      expect(after.messages[2]).toEqual({ role: 'user', content: [{ type: 'text', text: snipNote(6) }] });
      expect(withoutMarkers(after.messages[3])).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Reading f4.txt.' }, { type: 'tool_use', id: after.messages[3].content[1].id, name: 'Read', input: { file_path: 'f4.txt' } }] });
      expect(after.messages[4].content[0].tool_use_id).toBe(after.messages[3].content[1].id);
      // Usage: the prefix through the prompt is read; the note and the last round are written.
      const prefix = tokensOf(after.tools) + tokensOf(after.system) + tokensOf(after.messages[0]) + tokensOf(after.messages[1]);
      expect(logged[4]!.usage).toMatchObject({ cache_read_input_tokens: prefix, cache_creation_input_tokens: tokensOf(after.messages[2]) + tokensOf(after.messages[3]) + tokensOf(after.messages[4]), input_tokens: 0 });
      expect(detectorRecords(kernel)[4]!.verdict).toMatchObject({ kind: 'expected' });
    } finally {
      await kernel.close();
    }
  });
});
