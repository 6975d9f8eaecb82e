import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REQUEST_STAGE } from '../../kernel/hooks.js';
import type { ModelRequest } from '../../kernel/model/client.js';
import { definePlugin } from '../../kernel/plugin.js';
import { createSimulator } from '../../simulator/simulator.js';
import { Transcript } from '../../kernel/session/transcript.js';
import { runCli } from '../../testing/support.js';
import { httpClient, plannedResponder, runPrompt, strategyKernel, writeAgentsMd, writeLines } from '../../testing/strategy.js';
import breakDetector from '../../plugins/cache/break-detector/index.js';
import breakpoints from '../../plugins/cache/breakpoints/index.js';
import memoryFiles from '../../plugins/memory-files/index.js';
import { explainTranscript, renderExplanation } from './cache.js';
import { useTestEnv } from '../../testing/index.js';

// A fresh working folder and REIN_HOME for every test, removed after it.
const env = useTestEnv({ prefix: 'rein-explain-' });
let dir: string;
let home: string;
beforeEach(() => {
  dir = env.dir;
  home = env.home;
});
afterEach(() => {
  vi.useRealTimers();
});

/** Changes the system prompt on the 4th request: a client-side cache break. */
const driftingSystem = definePlugin({
  name: 'test/drifting-system',
  apply(kernel) {
    let n = 0;
    kernel.hooks.request.tap({ name: 'test/drifting-system', stage: REQUEST_STAGE.PARAMS }, (p) => {
      n++;
      const params = p as ModelRequest;
      return { ...params, system: [{ type: 'text', text: n >= 4 ? 'You are a helpful agent. Now: 12:01.' : 'You are a helpful agent. Now: 12:00.' }] };
    });
  },
});

describe('rein cache explain', () => {
  it('explains each request: first write, reads, a client break naming the part, a TTL expiry', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-06-01T09:00:00Z'));
    writeAgentsMd(dir);
    for (let i = 0; i < 4; i++) writeLines(dir, `f${i}.txt`, 150, `f${i}`);
    const turns = [0, 1, 2, 3].map((i) => [{ type: 'text' as const, text: `Reading f${i}.` }, { type: 'tool_use' as const, name: 'Read', input: { file_path: `f${i}.txt` } }]);
    const simulator = createSimulator({ responder: plannedResponder([...turns, [{ type: 'text', text: 'Done.' }], [{ type: 'text', text: 'Back.' }]]) });
    const { client } = await httpClient(simulator);
    const kernel = await strategyKernel({
      cwd: dir, client, sessionId: 'explain-1',
      plugins: [{ plugin: memoryFiles, options: { userDirs: [home] } }, { plugin: driftingSystem }, { plugin: breakpoints }, { plugin: breakDetector }],
    });
    try {
      await runPrompt(kernel, 'Read four files.');
      vi.setSystemTime(new Date('2026-06-01T09:10:00Z'));
      await runPrompt(kernel, 'Still there?');
    } finally {
      await kernel.close();
    }
    const t = Transcript.open('explain-1', { cwd: dir });
    const x = explainTranscript(t);
    expect(x.requests).toHaveLength(6);
    expect(x.requests[0]!.why).toMatch(/^first request observed: wrote \d[\d,]* new tokens to the cache$/);
    expect(x.requests[1]!.why).toMatch(/^read [\d,]+ cached tokens; wrote [\d,]+ new tokens to the cache$/);
    expect(x.requests[3]!.breakCause).toBe('client');
    expect(x.requests[3]!.why).toMatch(/^CACHE BREAK, cause client: system prompt changed \(\+0 chars\); read [\d,]+ of the [\d,]+ tokens the previous request cached/);
    expect(x.requests[5]!.breakCause).toBe('ttl');
    expect(x.requests[5]!.why).toMatch(/5-minute TTL expired \(prompt unchanged, 10\.0 min since the previous response\)/);
    expect(x.totals.breaks).toEqual({ client: 1, ttl: 1 });
    expect(x.totals.costUsd).toBeCloseTo(x.requests.reduce((n, q) => n + q.costUsd, 0), 10);
    const text = renderExplanation(x);
    expect(text.split('\n')[0]).toBe('session explain-1');
    expect(text).toContain('breaks: client 1, ttl 1; compactions: 0');

    // The real CLI reads the same transcript by path.
    vi.useRealTimers();
    const cli = await runCli(['cache', 'explain', t.file], { cwd: dir, env: { REIN_HOME: home } });
    expect(cli.code).toBe(0);
    expect(cli.stdout).toBe(text);
    const json = await runCli(['cache', 'explain', t.file, '--json'], { cwd: dir, env: { REIN_HOME: home } });
    expect(JSON.parse(json.stdout).totals.breaks).toEqual({ client: 1, ttl: 1 });
    const missing = await runCli(['cache', 'explain', 'no-such-session'], { cwd: dir, env: { REIN_HOME: home } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^rein: no session no-such-session/);
  });
});
