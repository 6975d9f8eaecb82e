import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSimulator } from '../../../simulator/index.js';
import { httpClient, loggedRequests, plannedResponder, runPrompt, strategyKernel, writeAgentsMd, writeLines, type PlannedTurn } from '../../../testing/strategy.js';
import systemPrompt from '../../system-prompt/index.js';
import memoryFiles from '../../memory-files/index.js';
import microcompact from '../../compaction/microcompact/index.js';
import autoCompact, { autoCompactStats } from '../../compaction/auto/index.js';
import breakpoints from '../breakpoints/index.js';
import detector from './index.js';
import { detectorRecords } from './index.js';
import { useTestEnv } from '../../../testing/index.js';

// A fresh working folder and REIN_HOME for every test, removed after it.
const env = useTestEnv({ prefix: 'rein-60-' });
let dir: string;
let home: string;
beforeEach(() => {
  dir = env.dir;
  home = env.home;
});

/** 59 tool turns (Reads of 320-line files, a Grep every 7th turn, parallel Reads every 10th), then an answer. */
function script(): PlannedTurn[] {
  const turns: PlannedTurn[] = [];
  for (let t = 1; t < 60; t++) {
    const f = `src/f${String(t % 20).padStart(2, '0')}.txt`;
    if (t % 7 === 0) turns.push([{ type: 'text', text: `Searching (turn ${t}).` }, { type: 'tool_use', name: 'Grep', input: { pattern: `line 00${t % 10}0`, path: 'src' } }]);
    else if (t % 10 === 0) turns.push([{ type: 'text', text: 'Reading two at once.' }, { type: 'tool_use', name: 'Read', input: { file_path: f } }, { type: 'tool_use', name: 'Read', input: { file_path: 'src/f19.txt', offset: 1, limit: 40 } }]);
    else turns.push([{ type: 'text', text: `Reading ${f} (turn ${t}).` }, { type: 'tool_use', name: 'Read', input: { file_path: f } }]);
  }
  turns.push([{ type: 'text', text: 'I have read everything; the task is done.' }]);
  return turns;
}

describe('a 60-turn session with the default preset', () => {
  it('has no cache break blamed on the client, and reads most of its input from cache', async () => {
    writeAgentsMd(dir);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'src'));
    for (let i = 0; i < 20; i++) writeLines(join(dir, 'src'), `f${String(i).padStart(2, '0')}.txt`, 320, `f${i}`);
    const simulator = createSimulator({ responder: plannedResponder(script()) });
    const log = join(home, 'requests.jsonl');
    const { client } = await httpClient(simulator, log);
    // The benchmark's default context strategy (bench/strategies/strategies.ts DEFAULT_CONTEXT_PLUGINS).
    const plugins = [
      { plugin: systemPrompt, options: { date: '2026-02-01' } },
      { plugin: memoryFiles, options: { userDirs: [home] } },
      { plugin: microcompact, options: { trigger: 'idle' } },
      { plugin: autoCompact, options: {} },
      { plugin: breakpoints, options: { layout: 'tools+system+tail', ttl: '5m' } },
      { plugin: detector, options: {} },
    ];
    const kernel = await strategyKernel({ cwd: dir, client, plugins });
    try {
      const { result } = await runPrompt(kernel, 'Read through the sources and tell me when you are done.');
      expect(result.terminalReason).toBe('end_turn');
      expect(result.numRequests).toBe(60);

      const records = detectorRecords(kernel);
      expect(records).toHaveLength(60);
      const clientBreaks = records.filter((r) => r.verdict.kind === 'break' && r.verdict.cause === 'client');
      expect(clientBreaks).toEqual([]);
      // The session is long enough to cross the default threshold once; that drop is announced.
      expect(autoCompactStats(kernel)!.compactions).toBe(1);
      expect(records.filter((r) => r.verdict.kind === 'expected')).toHaveLength(1);

      const main = loggedRequests(log).filter((r) => r.source === 'main_loop');
      expect(main).toHaveLength(60);
      let read = 0;
      let input = 0;
      for (const r of main.slice(1)) {
        const u = r.usage!;
        read += u.cache_read_input_tokens!;
        input += u.input_tokens! + u.cache_creation_input_tokens! + u.cache_read_input_tokens!;
      }
      const share = read / input;
      console.log(`60-turn default preset: cache-read share of input tokens, requests 2-60: ${(share * 100).toFixed(1)}% (${read} of ${input} tokens)`);
      expect(share).toBeGreaterThan(0.9);
    } finally {
      await kernel.close();
    }
  });
});
