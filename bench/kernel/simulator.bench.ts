/**
 * Simulator benchmarks: prompt-cache accounting of one 200-message request, and a whole
 * 500-request session replayed through the engine (what a benchmark replay costs per preset).
 */
import type { Bench } from 'tinybench';
import { accountRequest } from '../../simulator/accounting.js';
import { PromptCache } from '../../simulator/cache.js';
import { createSimulator } from '../../simulator/simulator.js';

const model = 'claude-sonnet-4-5';

/** A coding-agent-shaped request: 20 tools, a 3-block system prompt, `messages` messages of tool turns. */
export function syntheticRequest(messages: number, salt = 0) {
  const tools = Array.from({ length: 20 }, (_, i) => ({
    name: `Tool${i}`,
    description: `Tool number ${i}. `.repeat(40),
    input_schema: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'number' } }, required: ['path'] },
  }));
  const system = [
    { type: 'text', text: 'You are a coding agent. '.repeat(200), cache_control: { type: 'ephemeral' } },
    { type: 'text', text: 'Project rules. '.repeat(300), cache_control: { type: 'ephemeral' } },
  ];
  const msgs: Array<{ role: 'user' | 'assistant'; content: Array<Record<string, unknown>> }> = [
    { role: 'user', content: [{ type: 'text', text: `Fix the failing tests (${salt}).` }] },
  ];
  for (let i = 1; i < messages; i++) {
    if (i % 2 === 1) {
      msgs.push({ role: 'assistant', content: [{ type: 'text', text: `Step ${i}: reading.` }, { type: 'tool_use', id: `t${i}`, name: 'Tool1', input: { path: `src/file${i}.ts` } }] });
    } else {
      msgs.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i - 1}`, content: `line of file ${i}\n`.repeat(100) }] });
    }
  }
  const last = msgs[msgs.length - 1]!.content;
  last[last.length - 1] = { ...last[last.length - 1], cache_control: { type: 'ephemeral' } };
  return { model, max_tokens: 16000, tools, system, messages: msgs };
}

/** Replays a growing `requests`-request session through a fresh simulator; returns the elapsed ms. */
export function replaySession(requests: number): number {
  const full = syntheticRequest(2 * requests + 1);
  const sim = createSimulator();
  const t0 = performance.now();
  for (let n = 1; n <= requests; n++) {
    const messages = full.messages.slice(0, 2 * n - 1).map((m, i, all) => {
      if (i !== all.length - 1) return m;
      const content = m.content.slice();
      content[content.length - 1] = { ...content[content.length - 1], cache_control: { type: 'ephemeral' } };
      return { ...m, content };
    });
    sim.handle({ ...full, messages }, { now: n * 10_000, headers: { 'x-rein-source': 'main_loop' } });
  }
  return performance.now() - t0;
}

/**
 * Adds the simulator tasks to `bench`. A whole 500-request replay is too long for a tinybench
 * task; time it once with `replaySession(500)` (ms).
 */
export async function run(bench: Bench): Promise<void> {
  const req = syntheticRequest(200);
  const cache = new PromptCache();
  let now = 0;
  bench.add('simulator: cache accounting, 200-message request (blocks seen before)', () => {
    now += 1000;
    accountRequest(cache, req, { now, minCacheableTokens: 1024 });
  });
  let fresh = structuredClone(req);
  bench.add('simulator: cache accounting, 200-message request (all blocks new objects)', () => {
    now += 1000;
    accountRequest(cache, fresh, { now, minCacheableTokens: 1024 });
  }, { beforeEach: () => { fresh = structuredClone(req); } });
  const sim = createSimulator();
  bench.add('simulator: handle(), 200-message request', () => {
    now += 1000;
    sim.handle(req, { now });
  });
  bench.add('simulator: replay of a 100-request session', () => {
    replaySession(100);
  });
}
