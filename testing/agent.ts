/**
 * Agents run the way programs run them: `createAgent` with a real preset file (or object), the real
 * SDK, and rein's simulator served on 127.0.0.1 playing a scenario written as YAML, with every
 * request the model got read back from the server's log.
 */
import { createAgent, type Agent, type AgentOptions, type PresetObject } from '../agent/agent.js';
import { type AgentEvent, type RunResult } from '../kernel/index.js';
import { createAnthropicClient } from '../lib/index.js';
import { serveScenario, type SimHarness } from './support.js';

export interface AgentRig {
  agent: Agent;
  harness: SimHarness;
  /** Runs one prompt to its result, collecting every event. */
  run(prompt: string): Promise<{ events: AgentEvent[]; result: RunResult }>;
  /** Request bodies the simulator received, in order (main loop and side requests). */
  requests(): { body: Record<string, any>; headers: Record<string, string>; source?: string; status?: number }[];
  close(): Promise<void>;
}

/**
 * An agent from `preset` (a file path or an object) talking to the simulator playing `scenario`.
 * `layers` defaults to false so nothing outside the test's folders is read. Throws what
 * `createAgent` throws (the simulator is stopped first).
 */
export async function startAgent(o: {
  cwd: string; preset: string | PresetObject; scenario: string; logDir?: string;
} & Omit<AgentOptions, 'preset' | 'cwd' | 'client'>): Promise<AgentRig> {
  const { cwd, preset, scenario, logDir, ...rest } = o;
  const harness = await serveScenario(scenario, logDir ?? cwd);
  const client = createAnthropicClient({ baseURL: harness.server.url, apiKey: 'test', kind: 'simulator' });
  let agent: Agent;
  try {
    agent = await createAgent({ layers: false, ...rest, preset, cwd, client });
  } catch (err) {
    await harness.close();
    throw err;
  }
  return {
    agent,
    harness,
    async run(prompt) {
      const events: AgentEvent[] = [];
      const run = agent.run(prompt);
      for await (const e of run) events.push(e);
      return { events, result: await run.result };
    },
    requests: () => harness.requests() as ReturnType<AgentRig['requests']>,
    async close() {
      await agent.close();
      await harness.close();
    },
  };
}
