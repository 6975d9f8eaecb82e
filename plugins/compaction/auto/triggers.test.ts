import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PostCompact, PreCompact } from '../../../kernel/index.js';
import { parseScenario } from '../../../simulator/index.js';
import { createSimulator } from '../../../simulator/index.js';
import type { Responder } from '../../../simulator/index.js';
import { httpClient, loggedRequests, notices, plannedResponder, runPrompt, strategyKernel, writeLines, type PlannedTurn } from '../../../testing/strategy.js';
import autoCompact, { autoCompactStats } from './index.js';

let dir: string;
let home: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rein-trig-'));
  home = mkdtempSync(join(tmpdir(), 'rein-home-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

const reads = (n: number): PlannedTurn[] => Array.from({ length: n }, (_, i) => [{ type: 'text', text: `Reading f${i}.` }, { type: 'tool_use', name: 'Read', input: { file_path: `f${i}.txt` } }]);
const TOO_LONG = { status: 400, body: 'prompt is too long: 203000 tokens > 200000 maximum' };

/** Main turns from a plan; the first `failures` summary requests answer "prompt is too long". */
function responder(turns: PlannedTurn[], failures: number): Responder {
  const main = plannedResponder(turns);
  let side = 0;
  return {
    respond: (r) => main.respond(r),
    respondSide: () => (++side <= failures ? { fault: TOO_LONG } : { reply: { content: [{ type: 'text', text: '<summary>short</summary>' }] } }),
  };
}

describe('a summary request that is itself too long', () => {
  it('drops the oldest rounds covering the gap and retries', async () => {
    for (let i = 0; i < 8; i++) writeLines(dir, `f${i}.txt`, 100, `f${i}`);
    const simulator = createSimulator({ responder: responder([...reads(8), [{ type: 'text', text: 'Done.' }]], 2) });
    const log = join(home, 'requests.jsonl');
    const { client } = await httpClient(simulator, log);
    const kernel = await strategyKernel({ cwd: dir, client, plugins: [{ plugin: autoCompact, options: { triggerTokens: 9_000, restore: { maxFiles: 0 } } }] });
    try {
      const { events, result } = await runPrompt(kernel, 'Read them all.');
      expect(result.terminalReason).toBe('end_turn');
      const summaries = loggedRequests(log).filter((r) => r.source === 'compact').map((r) => r.body.messages[0].content[0].text as string);
      expect(summaries).toHaveLength(3);
      // A round is ~1,210 tokens: a 3,000-token gap drops the opening prompt and 3 rounds, then 3 rounds.
      expect(summaries[0]).toContain('Reading f0.');
      expect(summaries[1]).not.toContain('Reading f2.');
      expect(summaries[1]).toContain('Reading f3.');
      expect(summaries[2]).not.toContain('Reading f5.');
      expect(summaries[2]).toContain('Reading f6.');
      expect(notices(events, 'compaction/auto').filter((m) => m.startsWith('summary request too long'))).toEqual([
        'summary request too long; dropping the 4 oldest rounds and retrying (1 of 3)',
        'summary request too long; dropping the 3 oldest rounds and retrying (2 of 3)',
      ]);
      expect(autoCompactStats(kernel)).toMatchObject({ compactions: 1, failures: 0, summaryRequests: 3 });
    } finally {
      await kernel.close();
    }
  });

  it('gives up after 3 retries (4 requests) and counts one failure', async () => {
    for (let i = 0; i < 12; i++) writeLines(dir, `f${i}.txt`, 100, `f${i}`);
    const simulator = createSimulator({ responder: responder([...reads(12), [{ type: 'text', text: 'Done.' }]], 100) });
    const log = join(home, 'requests.jsonl');
    const { client } = await httpClient(simulator, log);
    const kernel = await strategyKernel({ cwd: dir, client, plugins: [{ plugin: autoCompact, options: { triggerTokens: 14_000, maxConsecutiveFailures: 1 } }] });
    try {
      const { events } = await runPrompt(kernel, 'Read them all.');
      expect(loggedRequests(log).filter((r) => r.source === 'compact')).toHaveLength(4);
      expect(events.some((e) => e.type === 'notice' && /still too long after 3 retries/.test(e.message))).toBe(true);
      expect(autoCompactStats(kernel)).toMatchObject({ compactions: 0, failures: 1, breakerOpen: true });
    } finally {
      await kernel.close();
    }
  });
});

describe('manual and reactive compaction', () => {
  it('kernel.compact(instructions) fires preCompact/postCompact and passes the instructions to the summary', async () => {
    for (let i = 0; i < 3; i++) writeLines(dir, `f${i}.txt`, 100, `f${i}`);
    const simulator = createSimulator({ responder: plannedResponder([...reads(3), [{ type: 'text', text: 'Read.' }], [{ type: 'text', text: 'Next.' }]]) });
    const log = join(home, 'requests.jsonl');
    const { client } = await httpClient(simulator, log);
    const kernel = await strategyKernel({ cwd: dir, client, plugins: [{ plugin: autoCompact, options: { restore: { maxFiles: 0 } } }] });
    const seen: string[] = [];
    kernel.hooks.preCompact.tap('test', (p: PreCompact) => { seen.push(`pre:${p.trigger}:${p.instructions}`); return p; });
    kernel.hooks.postCompact.tap('test', (p: PostCompact) => { seen.push(`post:${p.trigger}:${p.result.strategy}`); });
    try {
      await runPrompt(kernel, 'Read three files.');
      expect(await kernel.compact('Keep the file names.')).toBe(true);
      expect(seen).toEqual(['pre:manual:Keep the file names.', 'post:manual:compaction/auto']);
      const summaryReq = loggedRequests(log).find((r) => r.source === 'compact')!.body;
      expect(summaryReq.messages[0].content[1].text).toMatch(/Additional instructions for this summary:\nKeep the file names\.$/);
      expect(kernel.messages.map((m) => m.meta?.compactSummary ? 'summary' : m.content[0]!.type === 'text' ? (m.content[0] as { text: string }).text : '?'))
        .toEqual(['Read three files.', 'summary']);
      await runPrompt(kernel, 'What next?');
      const last = loggedRequests(log).at(-1)!.body;
      expect(last.messages).toHaveLength(3);
      expect(last.messages[2].content[0].text).toBe('What next?');
    } finally {
      await kernel.close();
    }
  });

  const reactive = `
model: claude-sonnet-4-6
turns:
  - reply: [{ text: "Reading." }, { tool_use: { name: Read, input: { file_path: f0.txt } } }]
  - fault: { status: 400, body: "prompt is too long: 250000 tokens > 200000 maximum" }
  - reply: [{ text: "Done." }]
`;

  it('after "prompt is too long" the loop compacts once and retries the turn', async () => {
    writeLines(dir, 'f0.txt', 100, 'f0');
    const log = join(home, 'requests.jsonl');
    const { client } = await httpClient(createSimulator({ scenario: parseScenario(reactive, 'reactive.yaml') }), log);
    // No files restored: with a history this short they would outweigh what the summary saves.
    const kernel = await strategyKernel({ cwd: dir, client, plugins: [{ plugin: autoCompact, options: { restore: { maxFiles: 0 } } }] });
    try {
      const { events, result } = await runPrompt(kernel, 'Read f0.');
      expect(result.terminalReason).toBe('end_turn');
      expect(loggedRequests(log).map((r) => r.source)).toEqual(['main_loop', 'main_loop', 'compact', 'main_loop']);
      expect(events.find((e) => e.type === 'compact')).toMatchObject({ trigger: 'reactive' });
    } finally {
      await kernel.close();
    }
  });

  it('with enabled: false a too-long prompt ends the run with prompt_too_long instead of compacting', async () => {
    writeLines(dir, 'f0.txt', 100, 'f0');
    const log = join(home, 'requests.jsonl');
    const { client } = await httpClient(createSimulator({ scenario: parseScenario(reactive, 'reactive.yaml') }), log);
    const kernel = await strategyKernel({ cwd: dir, client, plugins: [{ plugin: autoCompact, options: { enabled: false } }] });
    try {
      const { result } = await runPrompt(kernel, 'Read f0.');
      expect(result.terminalReason).toBe('prompt_too_long');
      expect(loggedRequests(log).map((r) => r.source)).toEqual(['main_loop', 'main_loop']);
    } finally {
      await kernel.close();
    }
  });
});
