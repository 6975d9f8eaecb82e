import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSimulator } from '../../../simulator/index.js';
import type { Message } from '../../../kernel/index.js';
import {
  httpClient, loggedRequests, plannedResponder, runPrompt, strategyKernel, tokensOf, withoutMarkers, writeAgentsMd, writeLines,
} from '../../../testing/strategy.js';
import breakpoints from '../../cache/breakpoints/index.js';
import breakDetector, { detectorRecords } from '../../cache/break-detector/index.js';
import memoryFiles from '../../memory-files/index.js';
import microcompact, { CLEARABLE_TOOLS, clearOldResults, microcompactStats, placeholderFor, pruneSelection, unclearedCount } from './index.js';
import { useTestEnv } from '../../../testing/index.js';

// A fresh working folder and REIN_HOME for every test, removed after it.
const env = useTestEnv({ prefix: 'rein-mc-' });
let dir: string;
let home: string;
beforeEach(() => {
  dir = env.dir;
  home = env.home;
});
afterEach(() => {
  vi.useRealTimers();
});

const read = (file: string) => [{ type: 'text' as const, text: `Reading ${file}.` }, { type: 'tool_use' as const, name: 'Read', input: { file_path: file } }];

describe('clearOldResults', () => {
  const history = (): Message[] => {
    const out: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
    for (let i = 1; i <= 4; i++) {
      out.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: i === 3 ? 'TodoWrite' : 'Read', input: { file_path: `f${i}.txt` } }] });
      out.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: [{ type: 'text', text: 'x'.repeat(400) }] }] });
    }
    return out;
  };

  it('clears all clearable results but the newest N, leaves other tools alone, never mutates, and is idempotent', () => {
    const h = history();
    const snapshot = JSON.stringify(h);
    const r = clearOldResults(h, ['Read'], 1);
    expect(JSON.stringify(h)).toBe(snapshot);
    expect(r.cleared).toEqual(['t1', 't2']);
    expect(r.tokens).toBe(2 * (100 - Math.ceil(placeholderFor('Read', { file_path: 'f1.txt' }, 100).length / 4)));
    expect(r.messages[2]!.content[0]).toEqual({ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: '[Old tool result cleared to save context: Read f1.txt (100 tokens). Call the tool again if you need it.]' }] });
    expect(r.messages[6]).toBe(h[6]); // TodoWrite result untouched (same object)
    expect(r.messages[8]).toBe(h[8]); // newest Read kept
    const again = clearOldResults(r.messages, ['Read'], 1);
    expect(again.cleared).toEqual([]);
    expect(again.messages).toBe(r.messages);
  });
});

describe('prune (opencode\'s pruning)', () => {
  it('keeps the newest protected tokens of output and clears the older results only when they add up to the minimum', () => {
    const h: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
    for (let i = 1; i <= 5; i++) {
      h.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'Read', input: { file_path: `f${i}` } }] });
      h.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'x'.repeat(4000) }] });
    }
    // Each result is 1,000 tokens: the newest 2 fit in 2,000 protected, the 3 older ones go.
    expect(clearOldResults(h, ['Read'], 1, pruneSelection(h, 2_000, 3_000)).cleared).toEqual(['t1', 't2', 't3']);
    // 3,000 older tokens are less than a 3,500 minimum: nothing is cleared.
    expect(clearOldResults(h, ['Read'], 1, pruneSelection(h, 2_000, 3_500)).cleared).toEqual([]);
  });
});

describe('clearable tools', () => {
  it('match by name case-insensitively, so lower-case spellings (pi, opencode) are cleared too', () => {
    const h: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
    ['read', 'bash', 'todowrite', 'Read'].forEach((name, i) => {
      h.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name, input: { file_path: `f${i}.txt` } }] });
      h.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: [{ type: 'text', text: 'x'.repeat(400) }] }] });
    });
    expect(clearOldResults(h, CLEARABLE_TOOLS, 1).cleared).toEqual(['t0', 't1']);
    expect(unclearedCount(h, CLEARABLE_TOOLS)).toBe(3);
  });
});

describe('compaction/microcompact in a session', () => {
  it('count trigger: past the count, old results become placeholders; the simulator reads the prefix up to the first cleared result', async () => {
    writeAgentsMd(dir);
    for (const f of ['f1', 'f2', 'f3', 'f4', 'f5']) writeLines(dir, `${f}.txt`, 100, f);
    const simulator = createSimulator({ responder: plannedResponder([read('f1.txt'), read('f2.txt'), read('f3.txt'), read('f4.txt'), read('f5.txt'), [{ type: 'text', text: 'Done.' }]]) });
    const log = join(home, 'requests.jsonl');
    const { client } = await httpClient(simulator, log);
    const kernel = await strategyKernel({
      cwd: dir, client,
      plugins: [
        { plugin: memoryFiles, options: { userDirs: [home] } },
        { plugin: microcompact, options: { trigger: 'count', countTrigger: 3, keepRecent: 2 } },
        { plugin: breakpoints },
        { plugin: breakDetector },
      ],
    });
    try {
      const { result } = await runPrompt(kernel, 'Read the five files.');
      expect(result.terminalReason).toBe('end_turn');
      const reqs = loggedRequests(log).map((r) => r.body);
      expect(reqs).toHaveLength(6);
      // Request 5 is the first with 4 uncleared results (> 3): f1 and f2 are cleared, f3 and f4 kept.
      const before = reqs[3]!;
      const after = reqs[4]!;
      expect(before.messages).toHaveLength(8);
      expect(after.messages).toHaveLength(10);
      const resultText = (m: { content: { content: { text: string }[] }[] }) => m.content[0]!.content[0]!.text;
      expect(resultText(before.messages[3])).toMatch(/^ {5}1\tf1 line 0000/);
      const f1Tokens = tokensOf(before.messages[3]);
      expect(after.messages[3].content).toEqual([{ type: 'tool_result', tool_use_id: before.messages[3].content[0].tool_use_id, content: [{ type: 'text', text: placeholderFor('Read', { file_path: 'f1.txt' }, f1Tokens) }] }]);
      expect(resultText(after.messages[5])).toMatch(/^\[Old tool result cleared to save context: Read f2\.txt/);
      expect(after.messages[7]).toEqual(withoutMarkers(before.messages[7])); // f3 kept (the tail marker moved on)
      expect(resultText(after.messages[9])).toMatch(/^ {5}1\tf4 line 0000/); // f4 kept
      // Everything before the first cleared result is byte-identical.
      expect(after.messages.slice(0, 3)).toEqual(before.messages.slice(0, 3));
      expect(microcompactStats(kernel)).toMatchObject({ passes: 1, cleared: 2 });

      // Usage: the cache is read up to the end of the prompt (the first request's tail marker; the
      // next entries all contain f1's old result), the rest is written.
      const usage = loggedRequests(log)[4]!.usage!;
      const prefix = tokensOf(after.tools) + tokensOf(after.system) + tokensOf(after.messages[0]) + tokensOf(after.messages[1]);
      expect(usage.cache_read_input_tokens).toBe(prefix);
      const total = tokensOf(after.tools) + tokensOf(after.system) + after.messages.reduce((n: number, m: { content: unknown[] }) => n + tokensOf(m), 0);
      expect(usage.cache_creation_input_tokens).toBe(total - prefix);
      // The detector reports the drop as expected, not as a break.
      const verdicts = detectorRecords(kernel).map((r) => r.verdict.kind);
      expect(verdicts[4]).toBe('expected');
      expect(verdicts).not.toContain('break');
    } finally {
      await kernel.close();
    }
  });

  it('idle trigger: after a gap longer than the 5-minute TTL the old results are cleared before the cold request', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-01T10:00:00Z'));
    writeAgentsMd(dir);
    for (const f of ['f1', 'f2', 'f3']) writeLines(dir, `${f}.txt`, 60, f);
    const simulator = createSimulator({ responder: plannedResponder([read('f1.txt'), read('f2.txt'), read('f3.txt'), [{ type: 'text', text: 'Read.' }], [{ type: 'text', text: 'Still here.' }]]) });
    const log = join(home, 'requests.jsonl');
    const { client } = await httpClient(simulator, log);
    const kernel = await strategyKernel({
      cwd: dir, client,
      plugins: [
        { plugin: memoryFiles, options: { userDirs: [home] } },
        { plugin: microcompact, options: { trigger: 'idle', keepRecent: 1 } },
        { plugin: breakpoints },
        { plugin: breakDetector },
      ],
    });
    try {
      await runPrompt(kernel, 'Read the three files.');
      expect(microcompactStats(kernel)!.passes).toBe(0);
      vi.setSystemTime(new Date('2026-03-01T10:06:00Z'));
      const { result } = await runPrompt(kernel, 'Anything else?');
      expect(result.terminalReason).toBe('end_turn');
      const reqs = loggedRequests(log);
      const before = reqs[3]!.body;
      const after = reqs[4]!.body;
      // Two of the three Read results are cleared; the newest stays.
      expect(microcompactStats(kernel)).toMatchObject({ passes: 1, cleared: 2 });
      expect(after.messages[3].content[0].content[0].text).toMatch(/^\[Old tool result cleared to save context: Read f1\.txt/);
      expect(after.messages[5].content[0].content[0].text).toMatch(/^\[Old tool result cleared to save context: Read f2\.txt/);
      expect(after.messages[7]).toEqual(withoutMarkers(before.messages[7]));
      // The cache had expired: nothing is read, the smaller prompt is written whole.
      const total = tokensOf(after.tools) + tokensOf(after.system) + after.messages.reduce((n: number, m: { content: unknown[] }) => n + tokensOf(m), 0);
      expect(reqs[4]!.usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: total, input_tokens: 0 });
      expect(detectorRecords(kernel)[4]!.verdict.kind).toBe('expected');
    } finally {
      await kernel.close();
    }
  });
});
