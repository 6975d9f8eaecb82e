/**
 * Chooses the model client for a run:
 *   1. `--sim FILE`: rein's simulator, embedded, playing that scenario;
 *   2. `ANTHROPIC_API_KEY` set: the real API (or `ANTHROPIC_BASE_URL` if set);
 *   3. `ANTHROPIC_BASE_URL` set without a key: that server (a `rein sim serve`, say);
 *   4. otherwise: the embedded simulator playing the built-in demo, and the CLI says so.
 * The embedded simulator listens on an ephemeral 127.0.0.1 port and is spoken to through the same
 * SDK client as the real API, so both paths run the same code.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError } from '../kernel/errors.js';
import { createAnthropicClient } from '../kernel/model/anthropic.js';
import type { ModelClient } from '../kernel/model/client.js';

export interface ClientChoice {
  client: ModelClient;
  /** `api`: a real (or user-chosen) endpoint; `simulator`: a scenario; `demo`: the built-in demo. */
  kind: 'api' | 'simulator' | 'demo';
  /** One line for stderr saying what the run talks to (simulated runs only). */
  notice?: string;
}

export async function selectClient(opts: { sim?: string; env: NodeJS.ProcessEnv; cwd: string }): Promise<ClientChoice> {
  if (opts.sim) {
    const { loadScenario } = await import('../simulator/scenario.js');
    const file = resolve(opts.cwd, opts.sim);
    if (!existsSync(file)) throw new InputError(`scenario file ${opts.sim} does not exist (looked for ${file})`);
    const scenario = loadScenario(file);
    const client = await embeddedSimulator({ scenario });
    return { client, kind: 'simulator', notice: `running against the embedded simulator with scenario ${opts.sim}` };
  }
  if (opts.env.ANTHROPIC_API_KEY) {
    return { client: createAnthropicClient({ apiKey: opts.env.ANTHROPIC_API_KEY, baseURL: opts.env.ANTHROPIC_BASE_URL }), kind: 'api' };
  }
  if (opts.env.ANTHROPIC_BASE_URL) {
    return { client: createAnthropicClient({ apiKey: 'no-key', baseURL: opts.env.ANTHROPIC_BASE_URL }), kind: 'api' };
  }
  const { createDemoResponder } = await import('../simulator/responders/demo.js');
  const client = await embeddedSimulator({ responder: createDemoResponder() });
  return { client, kind: 'demo', notice: 'no ANTHROPIC_API_KEY is set: running the built-in demo against the embedded simulator (set the key to use the real API, or pass --sim FILE)' };
}

/** Starts the simulator on 127.0.0.1 and returns an SDK client pointed at it; `close()` stops it. */
export async function embeddedSimulator(options: import('../simulator/simulator.js').SimulatorOptions): Promise<ModelClient> {
  const { createSimulator } = await import('../simulator/simulator.js');
  const { startSimServer } = await import('../simulator/server.js');
  const server = await startSimServer({ simulator: createSimulator(options), port: 0 });
  return createAnthropicClient({ apiKey: 'simulator', baseURL: server.url, kind: 'simulator', onClose: () => server.close() });
}
