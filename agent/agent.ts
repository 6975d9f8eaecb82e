/**
 * `createAgent()`: the one call that turns a preset into a running kernel. It loads and validates the
 * preset (layers, `extends`), resolves the plugins the preset implies and lists, picks the model
 * client (the real API with a key, rein's embedded simulator without one), and loads everything.
 */
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve, sep } from 'node:path';
import type { Plugin } from '../kernel/plugin.js';
import { parsePluginOptions, PluginError } from '../kernel/plugin.js';
import type { Kernel, KernelPreset, SubagentFactory } from '../kernel/kernel.js';
import { createKernel } from './kernel.js';
import type { RunInput } from '../kernel/loop/run.js';
import type { ModelClient } from '../kernel/model/client.js';
import { BUILTIN_PROVIDERS, selectClient, simulatorCheckpoint, usesEmbeddedSimulator, type ClientChoice, type SelectOptions, type SimulatorCheckpoint } from './select.js';
import { SessionError } from '../kernel/index.js';
import { Transcript } from '../lib/session/transcript.js';
import { PresetError, type PresetDiagnostic } from './preset/errors.js';
import { userConfigDir } from './preset/layers.js';
import { isPresetPath } from './preset/paths.js';
import { didYouMean } from './preset/suggest.js';
import { TOOL_PLUGINS, type BuiltinPluginOptions } from './plugins.js';
import type { PresetInput } from './preset/schema.js';
import type { AgentEvent, RunResult } from '../kernel/types.js';
import type { CanUseTool } from '../plugins/permissions/shared/callback.js';
import { mark, tracing } from '../lib/node/trace.js';

/** The built-in preset used when none is named (beneath the config layers). */
export const DEFAULT_PRESET = 'default';

/**
 * A preset object as `createAgent` takes it: the preset file format (`PresetInput`, the type of the
 * same zod schema agent.schema.json is generated from), with each built-in plugin's options typed
 * from that plugin's own schema. A misspelt key or a value outside an enum does not type-check.
 * Plugins of your own (`./my-plugin.ts`, an npm package) take any options object.
 */
export type PresetObject = Omit<PresetInput, 'plugins'> & {
  plugins?: { [K in keyof BuiltinPluginOptions]?: BuiltinPluginOptions[K] | boolean | null } & { [name: string]: Record<string, unknown> | boolean | null | undefined };
};

export interface AgentOptions {
  /**
   * A preset file, a built-in preset name (`minimal`, `default`, ...), or a preset object (checked
   * like a file: unknown keys, wrong types and bad plugin options throw PresetError; `extends` is
   * followed, relative to `cwd`). Default: when resuming, the preset the session was started with;
   * otherwise `default`, beneath the user, project and local config layers (which override it).
   */
  preset?: string | PresetObject;
  /** Working directory. Default: process.cwd(). */
  cwd?: string;
  /** Values that override the preset, as command-line flags do (`{ model: { name } }`, `{ limits: { maxTurns } }`). */
  overrides?: Record<string, unknown>;
  /** Read user/project/local config layers around the preset. Default true. */
  layers?: boolean;
  /** A simulator scenario file: run against the embedded simulator with this script. */
  sim?: string;
  /** A ready model client (tests, custom providers). */
  client?: ModelClient;
  /** Resume a session by id or transcript path. */
  resume?: string;
  /** Resume the newest session of this working directory. */
  continue?: boolean;
  /** With `resume` / `continue`: go on in a new session holding a copy of the old one's history. */
  forkSession?: boolean;
  /** The id of the new session (or of the fork). Default: a random UUID. */
  sessionId?: string;
  /** Claude Code settings files to read as preset layers (`--setting-sources`, `--settings`). */
  claudeSettings?: import('./preset/claude-settings.js').ClaudeSettingsOptions;
  /** Top-level preset keys `overrides` replace instead of merging into (`--strict-mcp-config`: `mcpServers`). */
  replace?: readonly string[];
  /** Extra plugins, loaded after the preset's. */
  plugins?: { plugin: Plugin; options?: unknown }[];
  /**
   * Answers permission `ask`s (the headless host callback). Without it an `ask` is denied.
   * Return `{ behavior: 'allow' }` or `{ behavior: 'deny', message }`.
   */
  canUseTool?: CanUseTool;
  /** Environment for `${VAR}` interpolation and the API key. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Set when this agent is a child (the Task tool): the parent's session id and the Task tool_use id. */
  parent?: { sessionId: string; toolUseId: string };
}

export interface Agent {
  kernel: Kernel;
  /** How the model client was chosen (real API, embedded simulator with a scenario or the demo). */
  client: ClientChoice;
  /** Runs one user message; iterate the events, or await `.result`. */
  run(prompt: RunInput['prompt'], options?: Omit<RunInput, 'prompt'>): AsyncIterable<AgentEvent> & { result: Promise<RunResult> };
  close(): Promise<void>;
}

/**
 * Creates an agent. Throws `PresetError` (bad preset, with file:line:column), `PluginError` (a plugin
 * missing, with bad options, or failing to apply), `SessionError` (no such session to resume), or a
 * scenario error (bad `--sim` file).
 */
export async function createAgent(options: AgentOptions = {}): Promise<Agent> {
  mark('createAgent');
  if (options.resume !== undefined && !options.resume.trim()) {
    throw new SessionError('--resume needs a session id or the path of a .jsonl transcript; it was given an empty value');
  }
  const cwd = resolve(options.cwd ?? process.cwd());
  const env = options.env ?? process.env;
  // The preset (a file, a built-in name or an object) is loaded and checked by the preset loader:
  // layers, `extends`, the schema, and the plugins it implies and lists, each with its options
  // validated and the file:line:col (or key, for an object) that asked for it. Named (or the
  // resumed session's): the `--preset` layer. Unnamed: `default` is the base the user, project and
  // local layers override, as `rein preset print` shows it.
  const { loadPreset } = await import('./preset/index.js');
  const spec = options.preset ?? sessionPresetRef(options, cwd, env);
  const presetRef = typeof spec === 'string' ? (isPresetPath(spec) && !spec.startsWith('~') ? resolve(cwd, spec) : spec) : undefined;
  const resolved = await loadPreset({ preset: spec as string | PresetInput | undefined, base: DEFAULT_PRESET, cwd, flags: options.overrides as never, env, layers: options.layers ?? true, claudeSettings: options.claudeSettings, replace: options.replace });
  // The files the preset came from, and the plugin code it loaded, are protected from writes by
  // the permission plugins (plugins/permissions/shared/config.ts).
  const preset: KernelPreset = { ...(resolved.preset as KernelPreset), files: resolved.files, codeFiles: resolved.code };
  const presetDir = resolved.baseDir;
  const origins: ReadonlyMap<string, { file?: string; line?: number; col?: number }> = resolved.origins;
  mark('preset and plugins loaded');
  const loaded: { plugin: Plugin; options?: unknown; origin?: string }[] = resolved.plugins.map((p) => ({ plugin: p.plugin, options: p.options, origin: p.origin }));

  let resume = options.resume;
  if (options.continue && !resume) {
    resume = Transcript.latest({ cwd, root: preset.session?.dir });
    if (!resume) throw new SessionError(`no earlier session to continue in ${cwd}`);
  }

  if (options.forkSession) {
    if (!resume) throw new SessionError('--fork-session needs a session to fork: pass --resume ID or --continue');
    resume = Transcript.fork(resume, { cwd, root: preset.session?.dir, sessionId: options.sessionId }).sessionId;
  }

  for (const p of options.plugins ?? []) loaded.push({ plugin: p.plugin, options: p.options, origin: 'createAgent({ plugins })' });

  const providerName = preset.model?.provider;
  const providers = options.client ? undefined : pluginProviders(loaded, providerName, origins);
  const embedded = !options.client && usesEmbeddedSimulator({ sim: options.sim, env, ...(providerName ? { provider: providerName } : {}) });
  const resumeFrom = embedded && resume ? resumedSimulator(resume, cwd, preset.session?.dir) : undefined;
  const checkpoint = !options.client && !embedded && resume && providers?.has(providerName ?? '') ? resumedCheckpoint(resume, cwd, preset.session?.dir) : undefined;
  const choice: ClientChoice = options.client
    ? { client: options.client, kind: options.client.kind === 'simulator' ? 'simulator' as const : 'api' as const }
    : await selectClient({ sim: options.sim, env, cwd, ...(providerName ? { provider: providerName } : {}), ...(providers ? { providers } : {}), ...(resumeFrom ? { resumeFrom } : {}), ...(checkpoint ? { checkpoint } : {}) });
  mark('model client chosen');
  let kernel: Kernel;
  let unregistered: { name: string; index: number }[] = [];
  try {
    kernel = await createKernel({ preset, presetDir, presetRef, cwd, client: choice.client, plugins: loaded, resume, sessionId: resume ? undefined : options.sessionId, parent: options.parent, subagents });
    // A name in `tools:` that no loaded plugin registered is a preset mistake, not a tool to skip.
    unregistered = (preset.tools ?? []).map((name, index) => ({ name, index })).filter((t) => !t.name.startsWith('mcp__') && !kernel.tools.has(t.name));
  } catch (err) {
    await choice.client.close();
    throw err;
  }
  mark('kernel created, plugins applied');
  // What the preset loader left out (hooks for Claude Code events rein does not fire) is said once,
  // as the session starts, where every printer shows warnings (stderr, or a stream-json notice line).
  if (resolved.warnings.length) {
    const { formatDiagnostic } = await import('./preset/index.js');
    kernel.hooks.sessionStart.tap('preset', () => {
      for (const w of resolved.warnings) kernel.emit({ type: 'notice', level: 'warn', source: 'preset', message: formatDiagnostic(w, cwd) });
    });
  }
  if (tracing) kernel.hooks.event.tap('startup-trace', (e) => { if (e.type === 'request') mark(`request ${e.turn} built`); });
  if (unregistered.length) {
    await kernel.close();
    throw unregisteredToolsError(unregistered, kernel, origins);
  }
  if (options.canUseTool) {
    // Through the permission plugin's host adapter, so an answer that rewrites the input is checked
    // against the deny rules again.
    const { answerWith } = await import('../plugins/permissions/shared/callback.js');
    answerWith(kernel, options.canUseTool, 'createAgent.canUseTool');
  }
  return {
    kernel,
    client: choice,
    run: (prompt, o) => kernel.run({ ...o, prompt }),
    close: () => kernel.close(),
  };
}

/** Child agents for the Task tool: `createAgent()` without config layers, the built-in tool plugins, and agent presets' descriptions. */
export const subagents: SubagentFactory = {
  // The Task tool builds the child's preset from the parent's (a KernelPreset, already checked).
  create: (o) => createAgent({ ...o, preset: o.preset as string | PresetObject, layers: false }),
  pluginForTool: (name) => TOOL_PLUGINS[name],
  async presetDescription(preset, cwd) {
    try {
      const { loadPreset } = await import('./preset/index.js');
      const r = await loadPreset({ preset, cwd, layers: false, plugins: false });
      return r.preset.description || undefined;
    } catch {
      return undefined;
    }
  },
};

/**
 * The error for `tools:` entries no plugin registered, at the preset line that lists them, with the
 * nearest registered name offered.
 */
function unregisteredToolsError(
  missing: { name: string; index: number }[], kernel: Kernel,
  origins: ReadonlyMap<string, { file?: string; line?: number; col?: number }> | undefined,
): Error {
  const known = kernel.tools.names();
  const diagnostics: PresetDiagnostic[] = missing.map(({ name, index }) => {
    const at = origins?.get(`tools.${index}`);
    return {
      file: at?.file ?? '<preset>', line: at?.line ?? 0, column: at?.col ?? 0, key: `tools.${index}`,
      message: `tools: "${name}" is not a tool of any loaded plugin${didYouMean(name, [...known, ...Object.keys(TOOL_PLUGINS)])} (registered: ${known.join(', ') || 'none'})`,
    };
  });
  return new PresetError(diagnostics);
}

/**
 * The providers the loaded plugins declare, by name. Throws PluginError for a name that is a
 * built-in's or another plugin's, and PresetError (at `model.provider`) for a `model.provider` that
 * neither a built-in nor a plugin provides.
 */
function pluginProviders(
  loaded: readonly { plugin: Plugin; options?: unknown }[], wanted: string | undefined,
  origins: ReadonlyMap<string, { file?: string; line?: number; col?: number }>,
): NonNullable<SelectOptions['providers']> {
  const found = new Map<string, { provider: NonNullable<Plugin['providers']>[string]; options: unknown; plugin: string }>();
  for (const { plugin, options } of loaded) {
    for (const [name, provider] of Object.entries(plugin.providers ?? {})) {
      const other = BUILTIN_PROVIDERS[name] ? 'a built-in provider' : found.has(name) ? `plugin ${found.get(name)!.plugin}'s provider` : undefined;
      if (other) throw new PluginError(plugin.name, `plugin ${plugin.name} declares the model provider "${name}", which is already ${other}; give it another name`);
      found.set(name, { provider, options: parsePluginOptions(plugin, options), plugin: plugin.name });
    }
  }
  if (wanted && !BUILTIN_PROVIDERS[wanted] && !found.has(wanted)) {
    const known = [...Object.keys(BUILTIN_PROVIDERS), ...found.keys()];
    const at = origins.get('model.provider');
    throw new PresetError([{
      file: at?.file ?? '<preset>', line: at?.line ?? 0, column: at?.col ?? 0, key: 'model.provider',
      message: `model.provider: no provider is named "${wanted}"${didYouMean(wanted, known)} (known: ${known.join(', ')}; a plugin adds one with \`providers\`)`,
    }]);
  }
  return found;
}

/** The client checkpoint last kept in a resumed session's responses (a plugin provider's), if any. */
function resumedCheckpoint(resume: string, cwd: string, root: string | undefined): Record<string, unknown> | undefined {
  try {
    return Transcript.findLast(resume, { cwd, root }, (e) => (e.type === 'response' && e.client ? e.client : undefined));
  } catch {
    // opening the session for the run reports what is wrong with it
  }
  return undefined;
}

/** Where the embedded simulator of a resumed session got to (read without taking the session's lock). */
function resumedSimulator(resume: string, cwd: string, root: string | undefined): SimulatorCheckpoint | undefined {
  try {
    return Transcript.findLast(resume, { cwd, root }, (e) => simulatorCheckpoint([e]));
  } catch {
    return undefined; // opening the session for the run reports what is wrong with it
  }
}

/**
 * The preset a resumed session was started with (from its transcript header), when the caller names
 * none: `rein run --continue` goes on with the same agent. Looked up under the default sessions root.
 *
 * A transcript is data, and must not choose code to run: a preset file (which loads plugins and
 * shell hooks) is taken from it only when it lies inside the working directory or the user's
 * config directory (links followed). Elsewhere, the user has to name it with `--preset`. Throws
 * SessionError then.
 */
function sessionPresetRef(options: AgentOptions, cwd: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!options.resume && !options.continue) return undefined;
  let ref: string | undefined;
  try {
    const id = options.resume ?? Transcript.latest({ cwd });
    ref = id ? Transcript.readHeader(id, { cwd }).presetRef : undefined;
  } catch {
    return undefined; // the resume itself reports a missing session, with the preset's own session.dir
  }
  if (typeof ref !== 'string' || !ref) return undefined;
  if (!isPresetPath(ref) || ref.startsWith('~')) return isPresetPath(ref) ? refuse(ref) : ref;
  const trusted = [cwd, userConfigDir(homedir(), env)].map(realOrSelf);
  const real = realOrSelf(resolve(cwd, ref));
  if (trusted.some((d) => real === d || real.startsWith(d.endsWith(sep) ? d : d + sep))) return ref;
  return refuse(ref);
}

function refuse(ref: string): never {
  throw new SessionError(`the session was started with the preset ${ref}, which is outside this project and your rein config directory; rein does not load it from the transcript. Pass --preset ${ref} to use it again, or another preset.`);
}

/** The path with links resolved, or as given when it does not exist. */
function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

export { PluginError };
