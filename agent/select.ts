/**
 * Chooses the model client for a run:
 *   1. `--sim FILE`: rein's simulator, embedded, playing that scenario;
 *   2. `ANTHROPIC_API_KEY` set: the real API (or `ANTHROPIC_BASE_URL` if set);
 *   3. `ANTHROPIC_BASE_URL` set without a key: that server (a `rein sim serve`, say);
 *   4. otherwise: the embedded simulator playing the built-in demo, and the CLI says so.
 * The embedded simulator listens on an ephemeral 127.0.0.1 port and is spoken to through the same
 * SDK client as the real API, so both paths run the same code.
 */
import { statSync } from 'node:fs';
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

/** What the embedded simulator keeps in the transcript with each response (`ModelClient.checkpoint`). */
export interface SimulatorCheckpoint {
  /** The scenario file played (absolute), when there was one. */
  scenario?: string;
  mainTurns: number;
  messages: number;
  requests: number;
}

/** Largest scenario file read, bytes (rein's bound: a scenario is a script of turns, not data). */
export const MAX_SCENARIO_BYTES = 16 * 1024 * 1024;

export interface SelectOptions {
  sim?: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * The embedded simulator's last checkpoint in a resumed session. With the same scenario file, the
   * scenario goes on from the turn the session reached; with any, ids stay unique.
   */
  resumeFrom?: SimulatorCheckpoint;
}

/**
 * Picks the client (see the module comment). Throws InputError for a `--sim` path that is missing,
 * not a regular file or too large, and ScenarioError for a scenario that does not validate.
 * `REIN_SIM_LOG=FILE` makes the embedded simulator append every request it answers to FILE (JSONL).
 */
export async function selectClient(opts: SelectOptions): Promise<ClientChoice> {
  const log = opts.env.REIN_SIM_LOG ? resolve(opts.cwd, opts.env.REIN_SIM_LOG) : undefined;
  if (opts.sim) {
    const { loadScenario } = await import('../simulator/scenario.js');
    const file = resolve(opts.cwd, opts.sim);
    checkScenarioFile(opts.sim, file);
    const scenario = loadScenario(file);
    const from = opts.resumeFrom;
    const sameScript = from?.scenario === file;
    const startAt = from ? { mainTurns: sameScript ? from.mainTurns : 0, messages: from.messages, requests: from.requests } : undefined;
    const client = await embeddedSimulator({ scenario, ...(startAt ? { startAt } : {}) }, { scenarioFile: file, log });
    const where = sameScript && from.mainTurns > 0 ? `, from turn ${from.mainTurns + 1} (the session got to turn ${from.mainTurns})` : '';
    return { client, kind: 'simulator', notice: `running against the embedded simulator with scenario ${opts.sim}${where}` };
  }
  if (opts.env.ANTHROPIC_API_KEY) {
    return { client: createAnthropicClient({ apiKey: opts.env.ANTHROPIC_API_KEY, baseURL: opts.env.ANTHROPIC_BASE_URL }), kind: 'api' };
  }
  if (opts.env.ANTHROPIC_BASE_URL) {
    return { client: createAnthropicClient({ apiKey: 'no-key', baseURL: opts.env.ANTHROPIC_BASE_URL }), kind: 'api' };
  }
  const { createDemoResponder } = await import('../simulator/responders/demo.js');
  const startAt = opts.resumeFrom ? { messages: opts.resumeFrom.messages, requests: opts.resumeFrom.requests } : undefined;
  const client = await embeddedSimulator({ responder: createDemoResponder(), ...(startAt ? { startAt } : {}) }, { log });
  return { client, kind: 'demo', notice: 'no ANTHROPIC_API_KEY is set: running the built-in demo against the embedded simulator (set the key to use the real API, or pass --sim FILE)' };
}

/** A `--sim` path that is no readable scenario file: said before anything reads it (a FIFO would block). */
function checkScenarioFile(given: string, file: string): void {
  let st;
  try {
    st = statSync(file);
  } catch {
    throw new InputError(`scenario file ${given} does not exist (looked for ${file})`);
  }
  if (st.isDirectory()) throw new InputError(`scenario file ${given} is a directory (${file}); --sim takes a scenario YAML file`);
  if (!st.isFile()) throw new InputError(`scenario file ${given} is not a regular file (${file}); --sim takes a scenario YAML file`);
  if (st.size > MAX_SCENARIO_BYTES) throw new InputError(`scenario file ${given} is ${st.size} bytes; scenarios are limited to ${MAX_SCENARIO_BYTES} bytes`);
}

/**
 * Starts the simulator on 127.0.0.1 and returns an SDK client pointed at it; `close()` stops it.
 * The client's checkpoint is the simulator's counters (and `scenarioFile`), so a resumed session
 * continues the script. `log`: a JSONL file that receives every request.
 */
export async function embeddedSimulator(
  options: import('../simulator/simulator.js').SimulatorOptions,
  extra: { scenarioFile?: string; log?: string } = {},
): Promise<ModelClient> {
  const { createSimulator } = await import('../simulator/simulator.js');
  const { startSimServer } = await import('../simulator/server.js');
  const simulator = createSimulator(options);
  const server = await startSimServer({ simulator, port: 0, ...(extra.log ? { log: extra.log } : {}) });
  const client = createAnthropicClient({ apiKey: 'simulator', baseURL: server.url, kind: 'simulator', onClose: () => server.close() });
  const checkpoint = (): Record<string, unknown> => {
    const { mainTurns, messages, requests } = simulator.stats;
    const c: SimulatorCheckpoint = { ...(extra.scenarioFile ? { scenario: extra.scenarioFile } : {}), mainTurns, messages, requests };
    return { simulator: c };
  };
  return { ...client, checkpoint };
}

/** The embedded simulator's last checkpoint in a transcript's responses, if any. */
export function simulatorCheckpoint(entries: readonly { type: string; client?: Record<string, unknown> }[]): SimulatorCheckpoint | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const c = entries[i]!.type === 'response' ? entries[i]!.client?.simulator as SimulatorCheckpoint | undefined : undefined;
    if (c && typeof c.mainTurns === 'number' && typeof c.messages === 'number') return { ...c, requests: typeof c.requests === 'number' ? c.requests : 0 };
  }
  return undefined;
}
