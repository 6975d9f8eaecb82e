import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSimulator } from '../../../simulator/index.js';
import type { Message, ToolResultBlock } from '../../../kernel/index.js';
import {
  httpClient, loggedRequests, plannedResponder, runPrompt, strategyKernel, tokensOf, withoutMarkers, writeAgentsMd, writeLines,
} from '../../../testing/strategy.js';
import breakpoints from '../../cache/breakpoints/index.js';
import breakDetector, { detectorRecords } from '../../cache/break-detector/index.js';
import memoryFiles from '../../memory-files/index.js';
import microcompact, {
  CLEARABLE_TOOLS, clearOldResults, distinctiveWords, microcompactStats, placeholderFor, pruneSelection, referencedSelection, unclearedCount, workingSetSelection,
  type MicrocompactRecord,
} from './index.js';
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

describe('keepFiles: the working set a clearing keeps', () => {
  // t1 reads a.ts, t2 reads b.ts (large), t3 reads c.ts, t4 edits a.ts, t5..t6 run commands.
  const history = (): Message[] => {
    const h: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
    const call = (id: string, name: string, input: Record<string, unknown>, out: string) => {
      h.push({ role: 'assistant', content: [{ type: 'tool_use', id, name, input }] });
      h.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: out }] });
    };
    call('t1', 'Read', { file_path: 'a.ts' }, 'a'.repeat(4_000));
    call('t2', 'read', { path: 'b.ts' }, 'b'.repeat(40_000));
    call('t3', 'Read', { file_path: 'c.ts' }, 'c'.repeat(4_000));
    call('t4', 'Edit', { file_path: 'a.ts', old_string: 'x', new_string: 'y' }, 'ok');
    call('t5', 'Bash', { command: 'ls' }, 'd'.repeat(400));
    call('t6', 'Bash', { command: 'pwd' }, 'e'.repeat(400));
    return h;
  };
  const tools = ['Read', 'Edit', 'Bash'];

  it('keeps the latest read of the most recently used files that fit the budget, whatever case the read tool is spelt in', () => {
    const h = history();
    const o = { maxFiles: 5, perFileTokens: 5_000, totalTokens: 50_000, readTools: ['Read'] };
    // b.ts (10,000 tokens) is over the per-file limit; a.ts (edited last) and c.ts are kept.
    expect(clearOldResults(h, tools, 1, workingSetSelection(h, 1, o)).cleared).toEqual(['t2', 't4', 't5']);
    // One file: only the most recently used (a.ts, by its edit).
    expect(clearOldResults(h, tools, 1, workingSetSelection(h, 1, { ...o, maxFiles: 1 })).cleared).toEqual(['t2', 't3', 't4', 't5']);
    // A larger per-file limit admits b.ts; a total of 1,500 tokens admits a.ts (1,000) but then neither c.ts nor b.ts.
    expect(clearOldResults(h, tools, 1, workingSetSelection(h, 1, { ...o, perFileTokens: 20_000 })).cleared).toEqual(['t4', 't5']);
    expect(clearOldResults(h, tools, 1, workingSetSelection(h, 1, { ...o, totalTokens: 1_500 })).cleared).toEqual(['t2', 't3', 't4', 't5']);
    // maxFiles 0 is the plain rule.
    expect(clearOldResults(h, tools, 1, workingSetSelection(h, 1, { ...o, maxFiles: 0 })).cleared).toEqual(clearOldResults(h, tools, 1).cleared);
  });
});

describe('keepReferenced: results the model is still using', () => {
  const history = (said: string): Message[] => {
    const h: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
    const read = (id: string, file: string, text: string) => {
      h.push({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: file } }] });
      h.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] });
    };
    read('t1', 'config.ts', 'export function parseConfigFile(path) {}\nexport const load_user_settings = () => readSettings();\n'.repeat(20));
    read('t2', 'notes.md', 'Plain words about the weather and nothing else of interest here.\n'.repeat(20));
    read('t3', 'other.ts', 'export function renderThemePreview() {}\nconst previewWidthPx = 80;\n'.repeat(20));
    h.push({ role: 'assistant', content: [{ type: 'text', text: said }] });
    h.push({ role: 'user', content: [{ type: 'text', text: 'next' }] });
    return h;
  };
  const o = { turns: 20, minWords: 2, totalTokens: 10_000 };
  // The plain rule with keepRecent 1: all but the newest result.
  const plain = () => (results: readonly { m: number; b: number; id: string }[]) => results.slice(0, results.length - 1);

  it('keeps an older result whose distinctive words the model wrote since, and clears the rest', () => {
    const h = history('I will change parseConfigFile so that load_user_settings is called once.');
    expect(clearOldResults(h, ['Read'], 1, referencedSelection(h, o, plain())).cleared).toEqual(['t2']);
  });

  it('needs minWords different words: one shared word, or common words, keep nothing', () => {
    const one = history('parseConfigFile it is.');
    expect(clearOldResults(one, ['Read'], 1, referencedSelection(one, o, plain())).cleared).toEqual(['t1', 't2']);
    const h = history('The weather and nothing else.');
    expect(clearOldResults(h, ['Read'], 1, referencedSelection(h, o, plain())).cleared).toEqual(['t1', 't2']);
  });

  it('reads the string values of tool inputs (a newline is no part of a word) and never keeps an error result', () => {
    const h = history('');
    h[h.length - 2] = { role: 'assistant', content: [{ type: 'tool_use', id: 'w', name: 'Bash', input: { command: 'grep -n parseConfigFile\nload_user_settings src' } }] };
    expect(clearOldResults(h, ['Read'], 1, referencedSelection(h, o, plain())).cleared).toEqual(['t2']);
    const failed = h.map((m, i) => (i === 2 ? { ...m, content: [{ ...(m.content[0] as ToolResultBlock), is_error: true }] } : m));
    expect(clearOldResults(failed, ['Read'], 1, referencedSelection(failed, o, plain())).cleared).toEqual(['t1', 't2']);
  });

  it('distinctive words: identifiers with a capital inside, an underscore or a digit; paths and their last part; file names; letters beyond ASCII', () => {
    expect([...distinctiveWords('see kernel/hooks.ts, then parseConfig(x) and load_user_settings; e.g. plain words, i.e. none; größeBerechnen and v2parser')].sort())
      .toEqual(['größeBerechnen', 'hooks.ts', 'kernel/hooks.ts', 'load_user_settings', 'parseConfig', 'v2parser'].sort());
    // An absolute path matches the same path written relative (its components and last part); a
    // one-letter file name is not distinctive.
    expect([...distinctiveWords('/work/main/kernel/hooks.ts:12 ./src/a.ts')].sort()).toEqual(['hooks.ts', 'src/a.ts', 'work/main/kernel/hooks.ts']);
    // A long run of one character is one word (split once, no backtracking).
    expect([...distinctiveWords('1'.repeat(100_000))]).toEqual([]);
    expect([...distinctiveWords(`x${'1'.repeat(100_000)}`)]).toHaveLength(1);
  });

  it('respects the token budget and counts only what the model wrote after the result', () => {
    const h = history('parseConfigFile and load_user_settings');
    expect(clearOldResults(h, ['Read'], 1, referencedSelection(h, { ...o, totalTokens: 100 }, plain())).cleared).toEqual(['t1', 't2']);
    // The same words written before the result was read do not count.
    const early: Message[] = [h[0]!, { role: 'assistant', content: [{ type: 'text', text: 'parseConfigFile and load_user_settings' }] }, { role: 'user', content: [{ type: 'text', text: 'ok' }] }, ...h.slice(1, 7)];
    expect(clearOldResults(early, ['Read'], 1, referencedSelection(early, o, plain())).cleared).toEqual(['t1', 't2']);
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

  it('count trigger with keepReferenced: results kept as in use do not make it clear one result per turn', async () => {
    const ids = ['alphaParser1 betaLoader_2', 'gammaWriter3 deltaReader_4', 'epsilonCache5 zetaStore_6'];
    ids.forEach((words, i) => writeFileSync(join(dir, `k${i + 1}.ts`), `${words.split(' ').map((w) => `export const ${w} = 1;`).join('\n')}\n`.repeat(10)));
    for (let i = 1; i <= 6; i++) writeLines(dir, `u${i}.txt`, 20, `u${i}`);
    const using = { type: 'text' as const, text: `Using ${ids.join(' ')}.` };
    const turns = [read('k1.ts'), read('k2.ts'), read('k3.ts')];
    for (let i = 1; i <= 6; i++) turns.push([using, { type: 'tool_use' as const, name: 'Read', input: { file_path: `u${i}.txt` } }]);
    const simulator = createSimulator({ responder: plannedResponder([...turns, [{ type: 'text', text: 'Done.' }]]) });
    const { client } = await httpClient(simulator, join(home, 'requests.jsonl'));
    const kernel = await strategyKernel({
      cwd: dir, client,
      plugins: [{ plugin: microcompact, options: { trigger: 'count', countTrigger: 3, keepRecent: 1, keepReferenced: { totalTokens: 10_000 } } }],
    });
    try {
      const { result } = await runPrompt(kernel, 'Read them all.');
      expect(result.terminalReason).toBe('end_turn');
      const passes = kernel.transcript.pluginData<MicrocompactRecord>('compaction/microcompact');
      // The three key files stay in use; the old u-files are cleared in batches, never one by one.
      expect(passes.length).toBeGreaterThan(0);
      for (const p of passes) expect(p.cleared.length).toBeGreaterThan(3 - 1);
    } finally {
      await kernel.close();
    }
  });

  it('idle trigger with keepReferenced: a result the model wrote about since stays, the others are cleared', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-01T10:00:00Z'));
    writeFileSync(join(dir, 'config.ts'), 'export function parseConfigFile(path: string) {}\nexport const load_user_settings = () => 1;\n'.repeat(30));
    for (const f of ['f2', 'f3']) writeLines(dir, `${f}.txt`, 60, f);
    const simulator = createSimulator({
      responder: plannedResponder([read('config.ts'), read('f2.txt'), read('f3.txt'), [{ type: 'text', text: 'parseConfigFile reads the path; load_user_settings returns 1.' }], [{ type: 'text', text: 'Still here.' }]]),
    });
    const log = join(home, 'requests.jsonl');
    const { client } = await httpClient(simulator, log);
    const kernel = await strategyKernel({
      cwd: dir, client,
      plugins: [
        { plugin: microcompact, options: { trigger: 'idle', keepRecent: 1, keepReferenced: { totalTokens: 10_000 } } },
        { plugin: breakpoints },
      ],
    });
    try {
      await runPrompt(kernel, 'Read the three files.');
      vi.setSystemTime(new Date('2026-03-01T10:06:00Z'));
      const { result } = await runPrompt(kernel, 'Anything else?');
      expect(result.terminalReason).toBe('end_turn');
      const after = loggedRequests(log)[4]!.body;
      // config.ts (referenced by the model's answer) and f3 (the newest) stay; f2 is cleared.
      expect(after.messages[1].content[1].input).toEqual({ file_path: 'config.ts' });
      expect(after.messages[2].content[0].content[0].text).toContain('parseConfigFile');
      expect(after.messages[4].content[0].content[0].text).toMatch(/^\[Old tool result cleared to save context: Read f2\.txt/);
      expect(after.messages[6].content[0].content[0].text).toMatch(/^ {5}1\tf3 line 0000/);
      expect(microcompactStats(kernel)).toMatchObject({ passes: 1, cleared: 1 });
    } finally {
      await kernel.close();
    }
  });
});
