/**
 * The model provider registry and client selection. `model.provider` in the preset names the
 * provider; the built-in ones are
 *   - `anthropic` (the default): the Messages API with `ANTHROPIC_API_KEY` (sent as `x-api-key`)
 *     or `ANTHROPIC_AUTH_TOKEN` (sent as `Authorization: Bearer`), at `ANTHROPIC_BASE_URL` when it is
 *     set (a gateway, a `rein sim serve`). With none of the three set: the built-in demo on the
 *     embedded simulator, and the CLI says so;
 *   - `simulator`: rein's simulator, embedded, playing `--sim FILE` or the built-in demo.
 * A plugin adds one with `providers: { name: { create } }`. `--sim FILE` picks the simulator
 * whatever the preset names. The embedded simulator listens on an ephemeral 127.0.0.1 port and is
 * spoken to through the same SDK client as the API, so both paths run the same code.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError } from '../lib/errors.js';
import { PluginError } from '../kernel/plugin.js';
import { createAnthropicClient } from '../lib/model/anthropic.js';
import type { ModelClient } from '../kernel/model/client.js';
import type { ModelProvider, ProviderChoice, ProviderContext } from '../kernel/model/provider.js';

/** How the model client was chosen (`Agent.client`). */
export type ClientChoice = ProviderChoice;

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
  /** `model.provider`; default `anthropic`. */
  provider?: string;
  /** Providers plugins declared, by name, each with its plugin's options. */
  providers?: ReadonlyMap<string, { provider: ModelProvider; options: unknown; plugin: string }>;
  /**
   * The embedded simulator's last checkpoint in a resumed session. With the same scenario file, the
   * scenario goes on from the turn the session reached; with any, ids stay unique.
   */
  resumeFrom?: SimulatorCheckpoint;
  /** The last client checkpoint of a resumed session, as a plugin's provider gets it. */
  checkpoint?: Record<string, unknown>;
}

/** Errors that already say what the user should fix. */
const INPUT_ERRORS = new Set(['PresetError', 'PluginError', 'SessionError', 'ScenarioError', 'InputError']);

/** The embedded simulator, with `--sim FILE`'s scenario or else the built-in demo. */
async function simulatorChoice(ctx: ProviderContext): Promise<ClientChoice> {
  const log = ctx.env.REIN_SIM_LOG ? resolve(ctx.cwd, ctx.env.REIN_SIM_LOG) : undefined;
  const from = ctx.resumeFrom ? simulatorCheckpoint([{ type: 'response', client: ctx.resumeFrom }]) : undefined;
  if (ctx.sim) {
    const { loadScenario } = await import('../simulator/scenario.js');
    const file = resolve(ctx.cwd, ctx.sim);
    checkScenarioFile(ctx.sim, file);
    const scenario = loadScenario(file);
    const sameScript = from?.scenario === file;
    const startAt = from ? { mainTurns: sameScript ? from.mainTurns : 0, messages: from.messages, requests: from.requests } : undefined;
    const client = await embeddedSimulator({ scenario, ...(startAt ? { startAt } : {}) }, { scenarioFile: file, log });
    const where = sameScript && from.mainTurns > 0 ? `, from turn ${from.mainTurns + 1} (the session got to turn ${from.mainTurns})` : '';
    return { client, kind: 'simulator', notice: `running against the embedded simulator with scenario ${ctx.sim}${where}` };
  }
  const { createDemoResponder } = await import('../simulator/responders/demo.js');
  const startAt = from ? { messages: from.messages, requests: from.requests } : undefined;
  const client = await embeddedSimulator({ responder: createDemoResponder(), ...(startAt ? { startAt } : {}) }, { log });
  return { client, kind: 'demo', notice: 'running the built-in demo against the embedded simulator (pass --sim FILE to play a scenario)' };
}

/** The providers rein has without a plugin, by `model.provider` name. */
export const BUILTIN_PROVIDERS: Readonly<Record<string, ModelProvider>> = Object.freeze({
  anthropic: {
    description: 'the Messages API: ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, at ANTHROPIC_BASE_URL if set; the embedded demo when none is set',
    async create(ctx: ProviderContext): Promise<ClientChoice> {
      const { env } = ctx;
      if (env.ANTHROPIC_API_KEY || env.ANTHROPIC_AUTH_TOKEN || env.ANTHROPIC_BASE_URL) {
        return { client: createAnthropicClient({ apiKey: env.ANTHROPIC_API_KEY || undefined, authToken: env.ANTHROPIC_AUTH_TOKEN || undefined, baseURL: env.ANTHROPIC_BASE_URL || undefined, env }), kind: 'api' };
      }
      const demo = await simulatorChoice(ctx);
      return { ...demo, notice: 'no ANTHROPIC_API_KEY is set: running the built-in demo against the embedded simulator (set the key to use the real API, or pass --sim FILE)' };
    },
  },
  simulator: {
    description: 'rein\'s simulator, embedded: the --sim scenario, or the built-in demo',
    create: simulatorChoice,
  },
});

/** True when selectClient would start the embedded simulator for these options. */
export function usesEmbeddedSimulator(opts: Pick<SelectOptions, 'sim' | 'env' | 'provider'>): boolean {
  const name = opts.provider ?? 'anthropic';
  return Boolean(opts.sim) || name === 'simulator' || (name === 'anthropic' && !opts.env.ANTHROPIC_API_KEY && !opts.env.ANTHROPIC_AUTH_TOKEN && !opts.env.ANTHROPIC_BASE_URL);
}

/**
 * Picks the client through the provider `opts.provider` names (see the module comment). Throws
 * InputError for an unknown provider, a `--sim` path that is missing, not a regular file or too
 * large, ScenarioError for a scenario that does not validate, and whatever a plugin's provider throws.
 * `REIN_SIM_LOG=FILE` makes the embedded simulator append every request it answers to FILE (JSONL).
 */
export async function selectClient(opts: SelectOptions): Promise<ClientChoice> {
  const name = opts.sim ? 'simulator' : (opts.provider ?? 'anthropic');
  const checkpoint = opts.checkpoint ?? (opts.resumeFrom ? { simulator: opts.resumeFrom } : undefined);
  const ctx: ProviderContext = { env: opts.env, cwd: opts.cwd, ...(opts.sim ? { sim: opts.sim } : {}), ...(checkpoint ? { resumeFrom: checkpoint } : {}) };
  const builtin = BUILTIN_PROVIDERS[name];
  if (builtin && opts.sim && opts.provider && !BUILTIN_PROVIDERS[opts.provider]) {
    // The preset names a plugin's provider, which --sim leaves out: say so, or the user wonders why it is never asked.
    const choice = await builtin.create(ctx, {});
    return { ...choice, notice: `${choice.notice} (--sim plays on it in place of model.provider ${opts.provider})` };
  }
  if (builtin) return builtin.create(ctx, {});
  const added = opts.providers?.get(name);
  if (added) {
    try {
      return await added.provider.create(ctx, added.options);
    } catch (err) {
      // The plugin's failure, said as it said it (a missing URL, say), not as rein's own.
      if (err instanceof Error && INPUT_ERRORS.has(err.name)) throw err;
      throw new PluginError(added.plugin, err instanceof Error ? err.message : String(err), undefined, { cause: err });
    }
  }
  const known = [...Object.keys(BUILTIN_PROVIDERS), ...(opts.providers?.keys() ?? [])];
  throw new InputError(`model.provider: no provider is named "${name}" (known: ${known.join(', ')}); a plugin adds one with \`providers\``);
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
  // No proxy: the simulator is on loopback, in this process.
  const client = createAnthropicClient({ apiKey: 'simulator', baseURL: server.url, kind: 'simulator', env: {}, onClose: () => server.close() });
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
