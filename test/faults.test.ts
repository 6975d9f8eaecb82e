/**
 * Model-request faults through the real SDK and the simulator: what the `retry` plugin decides and
 * what the loop does with it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import retry from '../plugins/retry/index.js';
import { collect, serveScenario, simKernel, transitions, type SimHarness } from '../testing/support.js';
import { useTestEnv } from '../testing/index.js';

// A fresh working folder and REIN_HOME for every test, removed after it.
const env = useTestEnv();
let sim: SimHarness | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const fastRetry = { plugin: retry, options: { baseDelayMs: 1, maxDelayMs: 5 } };

describe('faults', () => {
  it('429 with retry-after: waits as told and retries', async () => {
    sim = await serveScenario(`
turns:
  - fault: { status: 429, retryAfter: 0.05 }
  - reply: [{ text: "ok" }]
`, env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir, plugins: [fastRetry] });
    const { events, result } = await collect(kernel, 'x');
    const retries = events.filter((e) => e.type === 'api_retry');
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, delayMs: 50, status: 429, source: 'main_loop' })]);
    expect(result.terminalReason).toBe('end_turn');
    expect(transitions(events)).toEqual(['terminal:end_turn']);
  });

  it('529 three times: switches to the fallback model and drops thinking from the retried request', async () => {
    sim = await serveScenario(`
turns:
  - reply: [{ thinking: { thinking: "hm", signature: "s1" } }, { tool_use: { name: Missing, input: {} } }]
  - fault: { status: 529 }
  - fault: { status: 529 }
  - fault: { status: 529 }
  - reply: [{ text: "answered by the fallback" }]
`, env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir, preset: { model: { name: 'claude-opus-4-6', fallbackModel: 'claude-sonnet-4-6' } }, plugins: [fastRetry] });
    const { events, result } = await collect(kernel, 'x');
    expect(events.filter((e) => e.type === 'api_retry')).toHaveLength(2);
    expect(events.find((e) => e.type === 'model_fallback')).toMatchObject({ from: 'claude-opus-4-6', to: 'claude-sonnet-4-6' });
    const reqs: any[] = sim.requests().map((r) => r.body);
    expect(reqs.map((b) => b.model)).toEqual(['claude-opus-4-6', 'claude-opus-4-6', 'claude-opus-4-6', 'claude-opus-4-6', 'claude-sonnet-4-6']);
    expect(reqs[4].messages[1].content.map((b: { type: string }) => b.type)).toEqual(['tool_use']);
    expect(reqs[3].messages[1].content.map((b: { type: string }) => b.type)).toEqual(['thinking', 'tool_use']);
    expect(result).toMatchObject({ terminalReason: 'end_turn', model: 'claude-sonnet-4-6' });
  });

  it('500: retries with backoff and succeeds', async () => {
    sim = await serveScenario(`
turns:
  - fault: { status: 500 }
  - fault: { status: 500 }
  - reply: [{ text: "ok" }]
`, env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir, plugins: [fastRetry] });
    const { events, result } = await collect(kernel, 'x');
    expect(events.filter((e) => e.type === 'api_retry').map((e) => (e as { attempt: number }).attempt)).toEqual([1, 2]);
    expect(result.terminalReason).toBe('end_turn');
  });

  it('a stream cut mid-message is retried once without streaming', async () => {
    sim = await serveScenario(`
turns:
  - reply: [{ text: "this stream will be cut" }]
    fault: { cut: { afterEvents: 2 } }
  - reply: [{ text: "complete" }]
`, env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir, plugins: [fastRetry] });
    const { events, result } = await collect(kernel, 'x');
    expect(events.filter((e) => e.type === 'api_retry')).toEqual([expect.objectContaining({ attempt: 1, delayMs: 0 })]);
    const reqs: any[] = sim.requests().map((r) => r.body);
    expect(reqs.map((b) => b.stream === true)).toEqual([true, false]);
    expect(result).toMatchObject({ terminalReason: 'end_turn', text: 'complete' });
  });

  it('an idle stream is aborted after the idle timeout and retried once without streaming', async () => {
    sim = await serveScenario(`
turns:
  - reply: [{ text: "stalls" }]
    fault: { idle: { afterEvents: 1, ms: 3000 } }
  - reply: [{ text: "complete" }]
`, env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir, plugins: [fastRetry], streamIdleTimeoutMs: 150 });
    const { events, result } = await collect(kernel, 'x');
    const retry1 = events.find((e) => e.type === 'api_retry');
    expect(retry1).toMatchObject({ attempt: 1, delayMs: 0 });
    expect((retry1 as { error: string }).error).toMatch(/no stream event for 150 ms/);
    expect(sim.requests().map((r) => r.body.stream === true)).toEqual([true, false]);
    expect(result).toMatchObject({ terminalReason: 'end_turn', text: 'complete' });
  });

  it('a 400 is not retried and ends the run with model_error naming the status', async () => {
    sim = await serveScenario(`
turns:
  - fault: { status: 400, body: "messages: bad shape" }
`, env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir, plugins: [fastRetry] });
    const { events, result } = await collect(kernel, 'x');
    expect(events.filter((e) => e.type === 'api_retry')).toHaveLength(0);
    expect(result.terminalReason).toBe('model_error');
    const t = events.find((e) => e.type === 'transition');
    expect(t?.type === 'transition' && t.transition.detail).toBe('400 invalid_request_error: messages: bad shape');
  });
});
