import { writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseScenario } from '../../../simulator/index.js';
import { createSimulator } from '../../../simulator/index.js';
import { estimateBlockTokens, estimateSystemTokens, estimateToolTokens } from '../../../lib/index.js';
import { httpClient, loggedRequests, notices, runPrompt, strategyKernel, withoutMarkers } from '../../../testing/strategy.js';
import breakpoints from '../../cache/breakpoints/index.js';
import memoryFiles from '../../memory-files/index.js';
import systemPrompt from '../../system-prompt/index.js';
import autoCompact, { autoCompactStats } from './index.js';
import { SUMMARIZER_SYSTEM, summaryMessageText } from './prompt.js';
import { computeThresholds } from '../shared/threshold.js';
import { useTestEnv } from '../../../testing/index.js';

// A fresh working folder and REIN_HOME for every test, removed after it.
const env = useTestEnv({ prefix: 'rein-auto-' });
let dir: string;
let home: string;
beforeEach(() => {
  dir = env.dir;
  home = env.home;
});

/** A file of `lines` lines of 39 characters + newline (10 tokens a line before numbering). */
function writeLines(name: string, lines: number, tag: string): void {
  writeFileSync(join(dir, name), Array.from({ length: lines }, (_, i) => `${tag} line ${String(i).padStart(4, '0')} ${'x'.repeat(39 - tag.length - 11)}`).join('\n') + '\n');
}

describe('thresholds', () => {
  it('follows window − min(max output, 20,000) − 13,000, with warning 20,000 below and blocking at effective − 3,000', () => {
    expect(computeThresholds({ contextWindow: 200_000, maxOutputTokens: 64_000 })).toMatchObject({ threshold: 167_000, warning: 147_000, blocking: 177_000, effective: 180_000 });
    expect(computeThresholds({ contextWindow: 200_000, maxOutputTokens: 8_192 })).toMatchObject({ threshold: 178_808, blocking: 188_808 });
    expect(computeThresholds({ contextWindow: 200_000, maxOutputTokens: 64_000, threshold: { ratio: 0.5 } }).threshold).toBe(100_000);
    expect(computeThresholds({ contextWindow: 200_000, maxOutputTokens: 64_000, threshold: { tokens: 123_456 } }).threshold).toBe(123_456);
  });
});

const SCENARIO = `
model: claude-sonnet-4-6
turns:
  - reply: [{ text: "Reading a." }, { tool_use: { name: Read, input: { file_path: a.txt } } }]
  - reply: [{ text: "Reading b." }, { tool_use: { name: Read, input: { file_path: b.txt } } }]
  - reply: [{ text: "Reading c." }, { tool_use: { name: Read, input: { file_path: c.txt } } }]
  - reply: [{ text: "All three files are read." }]
side:
  - match: { source: compact }
    reply: [{ text: "<analysis>scratch notes</analysis>\\n<summary>\\n1. Requests and intent: read a, b and c.\\n</summary>" }]
`;

describe('compaction/auto in a session', () => {
  it('crosses the threshold, summarises with no tools, keeps the prompt, restores the files, and the simulator accounts the new prefix', async () => {
    writeLines('a.txt', 100, 'a');
    writeLines('b.txt', 100, 'b');
    writeLines('c.txt', 100, 'c');
    // Project instructions of 2,500 tokens: the pinned message the cached prefix runs through.
    writeFileSync(join(dir, 'AGENTS.md'), `# Project rules\n${'Keep every change small and tested. '.repeat(280)}\n`);
    const simulator = createSimulator({ scenario: parseScenario(SCENARIO, 'auto.yaml') });
    const log = join(home, 'requests.jsonl');
    const { client } = await httpClient(simulator, log);
    const kernel = await strategyKernel({
      cwd: dir, client, sessionId: 'auto-1',
      plugins: [
        { plugin: memoryFiles, options: { userDirs: [home] } },
        { plugin: systemPrompt, options: { date: '2026-01-15', userContext: { platform: false, git: false } } },
        { plugin: autoCompact, options: { triggerTokens: 6_500, warningOffsetTokens: 1_500, restore: { maxFiles: 1 } } },
        { plugin: breakpoints, options: { layout: 'tools+system+tail' } },
      ],
    });
    try {
      const { events, result } = await runPrompt(kernel, 'Read a.txt, b.txt and c.txt.');
      expect(result.terminalReason).toBe('end_turn');
      const reqs = loggedRequests(log);
      // 4 main-loop requests and 1 summary request, in this order: 3 turns, the summary, the 4th turn.
      expect(reqs.map((r) => r.source)).toEqual(['main_loop', 'main_loop', 'main_loop', 'compact', 'main_loop']);

      const compact = events.find((e) => e.type === 'compact');
      expect(compact).toMatchObject({ type: 'compact', trigger: 'auto', strategy: 'compaction/auto' });
      expect(autoCompactStats(kernel)).toMatchObject({ compactions: 1, failures: 0, breakerOpen: false });
      // One warning between 5,000 and the threshold, before the compaction.
      const said = notices(events, 'compaction/auto');
      expect(said[0]).toBe('auto-compaction at 6500 tokens (warning at 5000, blocking at 189000, window 200000)');
      expect(said.filter((m) => /^context at \d+ of 200000 tokens; auto-compaction at 6500, blocking at 189000$/.test(m))).toHaveLength(1);
      // Both are routine: the thresholds at debug (never printed), the warning at info (only with -v),
      // since a compaction will run; neither is a warning.
      const levels = events.flatMap((e) => (e.type === 'notice' && e.source === 'compaction/auto' ? [e.level] : []));
      expect(levels.slice(0, 2)).toEqual(['debug', 'info']);

      // The summary request: no tools, rein's summariser system prompt, a transcript and the instructions.
      const summaryReq = reqs[3]!.body;
      expect(summaryReq.tools).toBeUndefined();
      expect(summaryReq.system).toEqual([{ type: 'text', text: SUMMARIZER_SYSTEM }]);
      const transcript: string = summaryReq.messages[0].content[0].text;
      expect(transcript.startsWith('<transcript>\nUser:\nRead a.txt, b.txt and c.txt.\n\nAssistant:\nReading a.\n[called Read {"file_path":"a.txt"}]')).toBe(true);
      expect(transcript).toContain('[Read result]\n     1\ta line 0000');
      expect(transcript).toContain('characters left out');
      expect(summaryReq.messages[0].content[1].text).toContain('<summary> block, with these numbered sections');

      // Before: the third request holds the whole history (memory, prompt, 2 rounds).
      const before = reqs[2]!.body;
      expect(before.messages).toHaveLength(6);
      expect(before.messages[0].content[1].text).toContain('Contents of ' + join(dir, 'AGENTS.md'));
      // After: the pinned memory message (with the session reminder in front) and the prompt, both
      // verbatim, then one message with the summary (analysis stripped), the newest file read back,
      // and the tool list.
      const after = reqs[4]!.body;
      expect(after.messages).toHaveLength(3);
      expect(after.messages[0]).toEqual(before.messages[0]);
      expect(after.messages[1]).toEqual(before.messages[1]);
      const num = (tag: string) => Array.from({ length: 100 }, (_, i) => `${String(i + 1).padStart(6)}\t${tag} line ${String(i).padStart(4, '0')} ${'x'.repeat(39 - tag.length - 11)}`).join('\n');
      // Only the most recently read file comes back (maxFiles: 1).
      const restored = `File ${join(dir, 'c.txt')}:\n${num('c')}`;
      expect(after.messages[2]).toEqual({
        role: 'user',
        content: [
          { type: 'text', text: summaryMessageText('1. Requests and intent: read a, b and c.') },
          { type: 'text', text: `These files were read before the summary; here is their current content, so they need not be read again:\n\n${restored}` },
          { type: 'text', text: 'Tools available in this session: Grep, Read.', cache_control: { type: 'ephemeral' } },
        ],
      });
      // Same tools and system bytes before and after: the cached prefix through the prompt survives.
      expect(after.tools).toEqual(before.tools);
      expect(after.system).toEqual(before.system);

      // The simulator reads tools + system + memory + prompt from cache (the first request's tail
      // marker wrote that prefix) and writes the new summary message.
      const blocks = (m: { content: unknown[] }) => m.content.reduce((n: number, b: unknown) => n + estimateBlockTokens(b), 0);
      const prefix = after.tools.reduce((n: number, t: unknown) => n + estimateToolTokens(t), 0) + estimateSystemTokens(after.system)
        + blocks(after.messages[0]) + blocks(after.messages[1]);
      const summaryMsg = blocks(after.messages[2]);
      expect(reqs[4]!.usage).toMatchObject({ cache_read_input_tokens: prefix, cache_creation_input_tokens: summaryMsg, input_tokens: 0 });
    } finally {
      await kernel.close();
    }
  });

  it('enabled: false never compacts: no summary request even far over the threshold', async () => {
    writeLines('a.txt', 100, 'a');
    writeLines('b.txt', 100, 'b');
    writeLines('c.txt', 100, 'c');
    const simulator = createSimulator({ scenario: parseScenario(SCENARIO, 'auto.yaml') });
    const log = join(home, 'requests.jsonl');
    const { client } = await httpClient(simulator, log);
    const kernel = await strategyKernel({ cwd: dir, client, plugins: [{ plugin: autoCompact, options: { enabled: false, triggerTokens: 1_000 } }] });
    try {
      const { events, result } = await runPrompt(kernel, 'Read a.txt, b.txt and c.txt.');
      expect(result.terminalReason).toBe('end_turn');
      expect(loggedRequests(log).map((r) => r.source)).toEqual(['main_loop', 'main_loop', 'main_loop', 'main_loop']);
      expect(events.some((e) => e.type === 'compact')).toBe(false);
      expect(notices(events, 'compaction/auto')[0]).toMatch(/auto-compaction is off/);
    } finally {
      await kernel.close();
    }
  });
});

describe('compaction/auto failure handling', () => {
  it('summaries that do not shrink the context trip the breaker after 3 failures; the run then ends at the blocking limit, never looping', async () => {
    // 6,000 tokens of pinned instructions dominate the context; the history beside them is small, and
    // every summary (2,500 tokens) is bigger than what it replaces.
    writeFileSync(join(dir, 'AGENTS.md'), `# Rules\n${'Follow the house style in every file. '.repeat(650)}\n`);
    for (let i = 0; i < 12; i++) writeLines(`f${i}.txt`, 60, `f${i}`);
    const turns = Array.from({ length: 12 }, (_, i) => `  - reply: [{ text: "Reading f${i}." }, { tool_use: { name: Read, input: { file_path: f${i}.txt } } }]`).join('\n');
    const yaml = `model: claude-sonnet-4-6\nturns:\n${turns}\n  - reply: [{ text: "Done." }]\nside:\n  - match: { source: compact }\n    reply: [{ text: "<summary>${'summary words '.repeat(700)}</summary>" }]\n`;
    const simulator = createSimulator({ scenario: parseScenario(yaml, 'breaker.yaml') });
    const log = join(home, 'requests.jsonl');
    const { client } = await httpClient(simulator, log);
    const kernel = await strategyKernel({
      cwd: dir, client,
      preset: { model: { name: 'claude-sonnet-4-6', maxTokens: 4_000, contextWindow: 20_000 } },
      plugins: [
        { plugin: memoryFiles, options: { userDirs: [home] } },
        { plugin: autoCompact, options: { triggerTokens: 8_000 } },
      ],
    });
    try {
      const { events, result } = await runPrompt(kernel, 'Read all the files.');
      const sources = loggedRequests(log).map((r) => r.source);
      // Exactly three summary attempts, then none.
      expect(sources.filter((s) => s === 'compact')).toHaveLength(3);
      // One attempt before each request once over the threshold, then only main-loop requests.
      const third = sources.lastIndexOf('compact');
      expect(sources.slice(third + 1).length).toBeGreaterThan(0);
      expect(sources.slice(third + 1).every((s) => s === 'main_loop')).toBe(true);
      expect(sources.slice(sources.indexOf('compact'), third + 1)).toEqual(['compact', 'main_loop', 'compact', 'main_loop', 'compact']);
      const stats = autoCompactStats(kernel)!;
      // Each attempt either failed (not 5% smaller) or shrank the history but left the context over the
      // threshold: no progress either way.
      expect(stats).toMatchObject({ failures: 3, consecutiveFailures: 3, breakerOpen: true });
      expect(stats.compactions).toBe(stats.noProgress);
      expect(stats.skippedByBreaker).toBeGreaterThan(0);
      const msgs = notices(events, 'compaction/auto');
      expect(msgs.filter((m) => m.startsWith('auto-compaction stopped for this session after 3 failures in a row'))).toHaveLength(1);
      expect(events.filter((e) => e.type === 'notice' && e.source === 'compact' && /is not at least 5% smaller/.test(e.message))).toHaveLength(3 - stats.noProgress);
      // The context keeps growing to the blocking limit (20,000 − 4,000 − 3,000 = 13,000): the run ends there.
      expect(result.terminalReason).toBe('blocking_limit');
      expect(result.numRequests).toBeLessThan(12);
      // The breaker's state is in the transcript, so a resumed session keeps it.
      expect(kernel.transcript.pluginData('compaction/auto')).toContainEqual({ breakerOpen: true });
    } finally {
      await kernel.close();
    }
  });
});

describe('summaryRequest: cached-prefix', () => {
  /** The three-file scenario with a 2,500-token AGENTS.md, compacting at 6,000 tokens with the cached-prefix request. */
  const cachedPrefixKernel = async (extra: Record<string, unknown> = {}) => {
    writeFileSync(join(dir, 'AGENTS.md'), `# Project rules\n${'Keep every change small and tested. '.repeat(280)}\n`);
    writeLines('a.txt', 100, 'a');
    writeLines('b.txt', 100, 'b');
    writeLines('c.txt', 100, 'c');
    const simulator = createSimulator({ scenario: parseScenario(SCENARIO, 'auto.yaml') });
    const log = join(home, 'requests.jsonl');
    const { client } = await httpClient(simulator, log);
    const kernel = await strategyKernel({
      cwd: dir, client,
      plugins: [
        { plugin: memoryFiles, options: { userDirs: [home] } },
        { plugin: autoCompact, options: { triggerTokens: 6_000, summaryRequest: 'cached-prefix', restore: { maxFiles: 0 }, ...extra } },
        { plugin: breakpoints },
      ],
    });
    return { kernel, log };
  };

  it('continues the last main-loop request, so the conversation is read from cache instead of sent again', async () => {
    const { kernel, log } = await cachedPrefixKernel();
    try {
      const { result } = await runPrompt(kernel, 'Read a.txt, b.txt and c.txt.');
      expect(result.terminalReason).toBe('end_turn');
      const reqs = loggedRequests(log);
      expect(reqs.map((r) => r.source)).toEqual(['main_loop', 'main_loop', 'main_loop', 'compact', 'main_loop']);
      const lastMain = reqs[2]!.body;
      const summary = reqs[3]!.body;
      // Same tools and system, the last request's messages exactly as sent (its tail marker included),
      // the reply and results added since, then the instructions.
      expect(summary.tools).toEqual(lastMain.tools);
      expect(summary.system).toEqual(lastMain.system);
      expect(summary.messages.slice(0, lastMain.messages.length)).toEqual(lastMain.messages);
      expect(summary.messages).toHaveLength(lastMain.messages.length + 3);
      expect(summary.messages.at(-1).content[0].text).toContain('You cannot call tools in this reply');
      // The simulator reads the whole previous prompt from cache; only the new part is uncached.
      const prevTotal = reqs[2]!.usage!.input_tokens! + reqs[2]!.usage!.cache_creation_input_tokens! + reqs[2]!.usage!.cache_read_input_tokens!;
      expect(reqs[3]!.usage).toMatchObject({ cache_read_input_tokens: prevTotal, cache_creation_input_tokens: 0 });
      expect(autoCompactStats(kernel)).toMatchObject({ compactions: 1, summaryRequests: 1 });
    } finally {
      await kernel.close();
    }
  });

  it('with keepRecentTokens: still continues the whole last request from cache, says where the kept tail starts, and the tail follows the summary verbatim', async () => {
    const { kernel, log } = await cachedPrefixKernel({ keepRecentTokens: 1_500 });
    try {
      const { result } = await runPrompt(kernel, 'Read a.txt, b.txt and c.txt.');
      expect(result.terminalReason).toBe('end_turn');
      const reqs = loggedRequests(log);
      expect(reqs.map((r) => r.source)).toEqual(['main_loop', 'main_loop', 'main_loop', 'compact', 'main_loop']);
      const lastMain = reqs[2]!.body;
      const summary = reqs[3]!.body;
      const next = reqs[4]!.body;
      // The summary request is the cached-prefix one, not the transcript: same tools, the last request extended.
      expect(summary.tools).toEqual(lastMain.tools);
      expect(summary.messages.slice(0, lastMain.messages.length)).toEqual(lastMain.messages);
      expect(reqs[3]!.usage!.cache_read_input_tokens).toBeGreaterThan(0);
      expect(summary.messages.at(-1).content[0].text).toContain('The conversation from the assistant message that begins "Reading c." onwards stays verbatim after your summary');
      // The next request: the summary, then the last round (the Read of c.txt and its result) as it was.
      const texts = next.messages.map((m: { content: { type: string; text?: string }[] }) => m.content.map((b) => b.text ?? b.type).join(' '));
      const at = texts.findIndex((t: string) => t.includes('read a, b and c'));
      expect(at).toBeGreaterThanOrEqual(0);
      expect(withoutMarkers(next.messages[at + 1])).toEqual(withoutMarkers(summary.messages[summary.messages.length - 3]));
      expect(next.messages[at + 1].content[0].text).toBe('Reading c.');
      expect(next.messages[at + 2].content[0].type).toBe('tool_result');
    } finally {
      await kernel.close();
    }
  });
});
