import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, definePlugin, type Kernel, type Usage } from '../../../kernel/index.js';
import { cacheCostModel, costUsd, setCacheClock } from '../../../lib/index.js';
import { createSimulator } from '../../../simulator/index.js';
import { httpClient, loggedRequests, plannedResponder, runPrompt, strategyKernel, writeAgentsMd } from '../../../testing/strategy.js';
import { virtualClock, type VirtualClock } from '../../../testing/clock.js';
import { useTestEnv } from '../../../testing/index.js';
import memoryFiles from '../../memory-files/index.js';
import systemPrompt from '../../system-prompt/index.js';
import breakpoints from '../breakpoints/index.js';
import keepalive, { keepaliveStats, type KeepaliveRecord } from './index.js';

const env = useTestEnv({ prefix: 'rein-keepalive-' });
let dir: string;
let home: string;
beforeEach(() => {
  dir = env.dir;
  home = env.home;
});

const MODEL = 'claude-sonnet-4-6';
const TOOL_SECONDS = 360;

/** A tool whose call takes `seconds` on the virtual clock (a test suite running six minutes). */
function slowTools(clock: VirtualClock, seconds: number) {
  return definePlugin({
    name: 'test/slow-tool',
    apply(kernel) {
      kernel.tools.register(defineTool<{ suite: string }>({
        name: 'RunTests',
        description: 'Runs the test suite and reports failures.',
        inputSchema: z.object({ suite: z.string() }),
        isReadOnly: () => true,
        async call(input) {
          await clock.advance(seconds * 1000);
          return `suite ${input.suite}: 412 passed`;
        },
      }), 'test');
    },
  });
}

/** One session: ask, a six-minute tool call, the answer. Returns the run's cost and what was sent. */
async function session(withKeepalive: boolean, seconds = TOOL_SECONDS, turns = [
  [{ type: 'tool_use' as const, name: 'RunTests', input: { suite: 'all' } }],
  [{ type: 'text' as const, text: 'All 412 tests pass.' }],
]) {
  writeAgentsMd(dir, 6_000);
  const clock = virtualClock();
  const simulator = createSimulator({ responder: plannedResponder(turns), clock: () => clock.now() });
  const log = join(home, `requests-${withKeepalive}-${seconds}.jsonl`);
  const { client } = await httpClient(simulator, log);
  const kernel: Kernel = await strategyKernel({
    cwd: dir,
    client,
    preset: { model: { name: MODEL, maxTokens: 8_000, contextWindow: 200_000 } },
    plugins: [
      { plugin: memoryFiles, options: { userDirs: [home] } },
      { plugin: systemPrompt, options: { date: '2026-01-01', userContext: { platform: false, git: false } } },
      { plugin: breakpoints, options: { layout: 'tools+system+tail' } },
      { plugin: slowTools(clock, seconds) },
      ...(withKeepalive ? [{ plugin: keepalive }] : []),
    ],
  });
  setCacheClock(kernel, clock);
  const model = cacheCostModel(kernel);
  let firstCached = 0;
  kernel.hooks.response.tap('test', () => { if (model.snapshot?.requests === 1) firstCached = model.snapshot.cachedTokens; });
  try {
    const { result } = await runPrompt(kernel, 'Run the whole test suite and tell me the result.');
    const records = kernel.transcript.pluginData<KeepaliveRecord>('cache/keepalive');
    return { kernel, result, requests: loggedRequests(log), firstCached, records, cost: model.model, stats: keepaliveStats(kernel) };
  } finally {
    await kernel.close();
  }
}

describe('cache/keepalive', () => {
  it('turns the re-write after a six-minute tool call into reads, saving what the cost model predicted (±5%)', async () => {
    const without = await session(false);
    const withKa = await session(true);
    // Without: the second request comes 6 minutes after the first, past the 5-minute TTL: a full re-write.
    expect(without.requests).toHaveLength(2);
    expect(without.requests[1]!.usage!.cache_read_input_tokens).toBe(0);
    expect(without.requests[1]!.usage!.cache_creation_input_tokens).toBeGreaterThan(without.firstCached);
    // With: one keep-alive at 4.5 minutes (the TTL less the 30 s margin) reads the whole prefix …
    expect(withKa.requests.map((r) => r.source)).toEqual(['main_loop', 'side', 'main_loop']);
    const side = withKa.requests[1]!;
    expect(side.body.max_tokens).toBe(1);
    expect(side.usage!.cache_read_input_tokens).toBe(withKa.firstCached);
    // … and the second request reads it again instead of writing it.
    expect(withKa.requests[2]!.usage!.cache_read_input_tokens).toBe(withKa.firstCached);
    expect(withKa.records).toMatchObject([{ sent: true, elapsedSeconds: 270, ttl: '5m', waiting: 'tool:runtests', prefixTokens: withKa.firstCached }]);
    // The side request has its own usage line.
    expect(withKa.result.sideUsage.side).toMatchObject({ cache_read_input_tokens: withKa.firstCached, output_tokens: 1 });
    expect(without.result.sideUsage.side).toBeUndefined();

    const measured = without.result.totalCostUsd - withKa.result.totalCostUsd;
    const predicted = -withKa.cost.keepAliveOutcome(MODEL, { prefixTokens: withKa.firstCached, ttl: '5m', keepAliveAtSeconds: [270], nextRequestAtSeconds: TOOL_SECONDS });
    expect(measured).toBeGreaterThan(0);
    expect(Math.abs(measured - predicted) / predicted).toBeLessThanOrEqual(0.05);
    // The sum of the usage lines is the run's cost: nothing is billed outside them.
    const billed = withKa.requests.reduce((s, r) => s + costUsd(MODEL, r.usage as unknown as Usage).usd, 0);
    expect(withKa.result.totalCostUsd).toBeCloseTo(billed, 9);
  });

  it('sends nothing when the tool call ends within the TTL', async () => {
    const r = await session(true, 120);
    expect(r.requests.map((q) => q.source)).toEqual(['main_loop', 'main_loop']);
    expect(r.records).toEqual([]);
  });

  it('does not keep the cache warm through a person\'s idle time unless the preset allows it', async () => {
    const r = await session(true, 1, [[{ type: 'text', text: 'Nothing to run.' }]]);
    expect(r.requests.map((q) => q.source)).toEqual(['main_loop']);
    expect(r.stats).toMatchObject({ sent: 0, skipped: 0 });
  });
});
