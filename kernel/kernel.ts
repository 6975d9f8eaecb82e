/** The kernel: a hook table, a tool registry, a model client, the loaded plugins, and `run()`. */
import { mkdirSync } from 'node:fs';
import { createHooks, takeEventFailure, type KernelHooks } from './hooks.js';
import type { RunContext } from './hook-payloads.js';
import { checkPluginRelations, parsePluginOptions, PluginError, type Plugin } from './plugin.js';
import type { ResolvedPath, Tool, ToolContext } from './tool.js';
import { ToolRegistry } from './tool-registry.js';
import type { ModelClient, ModelRequest } from './model/client.js';
import { callModel } from './model/call.js';
import type { SessionLog } from './session.js';
import { runLoop, type RunInput, type RunState } from './loop/run.js';
import { tapFailureNotice } from './loop/tools.js';
import { runCompaction } from './loop/compact.js';
import { addUsage, emptyUsage, type AgentEvent, type ApiMessage, type Message, type PermissionDenial, type QuerySource, type RunResult, type TerminalReason, type Usage } from './types.js';
import { Channel } from './loop/channel.js';
import { DEFAULT_SERVICES, type KernelServices } from './services.js';

/** The parts of a preset the kernel reads; plugins read the rest through `kernel.preset`. */
export interface KernelPreset {
  name?: string;
  model?: {
    provider?: string;
    name?: string;
    /** Output cap per request and context window, tokens. */
    maxTokens?: number;
    contextWindow?: number;
    fallbackModel?: string;
    thinking?: { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' } | { type: 'disabled' };
    effort?: 'low' | 'medium' | 'high' | 'max';
  };
  system?: { sections?: { name: string; text: string; kind?: 'static' | 'dynamic' }[]; append?: string };
  tools?: string[];
  limits?: { maxTurns?: number; maxBudgetUsd?: number; maxStopHookBlocks?: number };
  session?: { dir?: string };
  [key: string]: unknown;
}

/** A plugin with its validated options, as loaded into a kernel. */
export interface LoadedPlugin {
  plugin: Plugin;
  options: unknown;
  /** Where it was asked for (a preset key path or `builtin`), for error messages. */
  origin?: string;
}

export interface KernelOptions {
  preset: KernelPreset;
  /** Directory of the preset file (for `/`-anchored paths in rules). */
  presetDir?: string;
  /** Absolute working directory. Default: process.cwd(). */
  cwd?: string;
  client: ModelClient;
  /** Plugins to load, in order, with their raw options. */
  plugins: { plugin: Plugin; options?: unknown; origin?: string }[];
  /** Resume this session (an id or a store-specific reference). */
  resume?: string;
  /** Fixed id for a new session. */
  sessionId?: string;
  /** Stream idle timeout, ms. */
  streamIdleTimeoutMs?: number;
  /** Set for a child agent: the parent's session id and the Task tool_use id. */
  parent?: { sessionId: string; toolUseId: string };
  /** How the preset was named, recorded in a new session's header. */
  presetRef?: string;
  /** Starts child agents; without one, `kernel.subagents` throws. */
  subagents?: SubagentFactory;
  /** What the loop uses from outside (services.ts); each one left out gets its default. */
  services?: Partial<KernelServices>;
}

/** A child agent as the Task tool asks for one: a preset (file, built-in name or object) with overrides, the parent's client. */
export interface SubagentOptions {
  preset: string | KernelPreset;
  overrides?: Record<string, unknown>;
  cwd: string;
  client: ModelClient;
  parent: { sessionId: string; toolUseId: string };
}

/** A running child agent: its kernel, one run at a time, and `close()`. */
export interface SubagentHandle {
  kernel: Kernel;
  run(prompt: string, options?: Omit<RunInput, 'prompt'>): AsyncIterable<AgentEvent> & { result: Promise<RunResult> };
  close(): Promise<void>;
}

/** The assembly layer's side of subagents (agent/). */
export interface SubagentFactory {
  /** Creates a child agent (config layers are not read). Throws as `createAgent()` does. */
  create(options: SubagentOptions): Promise<SubagentHandle>;
  /** The built-in plugin that registers a tool (`Read` → `tools/read`), or undefined. */
  pluginForTool(name: string): string | undefined;
  /** An agent preset's `description` (relative paths from `cwd`), or undefined. Never throws. */
  presetDescription(preset: string, cwd: string): Promise<string | undefined>;
}

/** The model when the preset names none. */
export const DEFAULT_MODEL = 'claude-sonnet-4-6';

/** Output cap when the preset sets none, tokens (Claude Code's default, 8k). */
export const DEFAULT_MAX_TOKENS = 8_000;
/** Stream idle timeout, ms (Claude Code's STREAM_IDLE_TIMEOUT_MS). */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 90_000;

export class Kernel {
  readonly hooks: KernelHooks = createHooks();
  readonly tools = new ToolRegistry();
  readonly preset: KernelPreset;
  readonly presetDir: string;
  readonly cwd: string;
  readonly client: ModelClient;
  readonly plugins: LoadedPlugin[] = [];
  readonly streamIdleTimeoutMs: number;
  /** Set for a child agent (copied into every RunContext). */
  readonly parent: { sessionId: string; toolUseId: string } | undefined;
  /** State plugins share by key (see `createKernelState`). */
  readonly state = new Map<string, unknown>();
  private history: Message[] = [];
  /** Whether `history` is the kernel's own array (and so may grow in place). */
  private ownsHistory = true;
  private transcriptRef: SessionLog | undefined;
  private readonly resumeId: string | undefined;
  private readonly fixedSessionId: string | undefined;
  private readonly presetRef: string | undefined;
  private current: { state: RunState; channel: Channel<AgentEvent> } | undefined;
  /** The kernel whose run this one's spending counts toward (`shareBudget`). */
  private budgetParent: Kernel | undefined;
  private readonly closers: (() => void | Promise<void>)[] = [];
  /** Read only: `sessionStart` fired and `sessionEnd` not yet, runs begun, the last result. */
  readonly session: { started: boolean; runs: number; lastResult?: RunResult } = { started: false, runs: 0 };
  private readonly subagentFactory: SubagentFactory | undefined;
  readonly services: KernelServices;

  constructor(options: Omit<KernelOptions, 'plugins'>) {
    this.preset = options.preset;
    this.cwd = options.cwd ?? process.cwd();
    this.presetDir = options.presetDir ?? this.cwd;
    this.client = options.client;
    this.resumeId = options.resume;
    this.fixedSessionId = options.sessionId;
    this.presetRef = options.presetRef;
    this.streamIdleTimeoutMs = options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
    this.parent = options.parent;
    this.subagentFactory = options.subagents;
    this.services = { ...DEFAULT_SERVICES, ...options.services };
    if (this.preset.limits?.maxBudgetUsd !== undefined && !options.services?.costUsd) {
      throw new Error('limits.maxBudgetUsd needs prices: pass a `costUsd` service to createKernel (the `rein` entry\'s createKernel does)');
    }
  }

  /** How child agents are made. Throws when the kernel was created without a factory. */
  get subagents(): SubagentFactory {
    if (!this.subagentFactory) throw new Error('this kernel cannot start subagents: create it with createAgent(), or pass `subagents` to createKernel()');
    return this.subagentFactory;
  }

  private modelOverride: string | undefined;

  /** The main model: the one `setModel` chose, else the preset's. */
  get model(): string {
    return this.modelOverride ?? this.preset.model?.name ?? DEFAULT_MODEL;
  }

  /** Switches the main model from the next run on; undefined goes back to the preset's. */
  setModel(name: string | undefined): void {
    this.modelOverride = name;
  }

  /**
   * The conversation so far, across runs. The loop appends in place (`appendMessage`); anything
   * else assigns a new array, which the kernel never changes (the next append copies it). Messages
   * are never changed in place.
   */
  get messages(): Message[] {
    return this.history;
  }

  set messages(messages: Message[]) {
    this.history = messages;
    this.ownsHistory = false;
  }

  /** Appends one message, recording it in the transcript first. Amortised constant time. */
  appendMessage(message: Message): void {
    this.transcript.append({ type: 'message', message });
    if (!this.ownsHistory) {
      this.history = this.history.slice();
      this.ownsHistory = true;
    }
    this.history.push(message);
  }

  /** The session's record (`services.sessions`), opened (resume) or created on first use. */
  get transcript(): SessionLog {
    if (!this.transcriptRef) {
      const root = this.preset.session?.dir;
      if (this.resumeId) {
        const t = this.services.sessions.open(this.resumeId, { cwd: this.cwd, root });
        this.transcriptRef = t;
        this.history = t.replayMessages();
        this.ownsHistory = true;
        // Recorded once, so later resumes replay the same history.
        if (t.repairs.length) t.append({ type: 'history', messages: this.history, reason: `repair: ${t.repairs.join('; ')}` });
      } else {
        this.transcriptRef = this.services.sessions.create({ cwd: this.cwd, model: this.model, preset: this.preset.name, presetRef: this.presetRef, root, sessionId: this.fixedSessionId });
      }
    }
    return this.transcriptRef;
  }

  get sessionId(): string {
    return this.transcript.sessionId;
  }

  /** Directory for files the session keeps (created once, on demand). */
  sessionDir(): string {
    const dir = this.transcript.dir;
    if (this.madeSessionDir !== dir) {
      mkdirSync(dir, { recursive: true });
      this.madeSessionDir = dir;
    }
    return dir;
  }

  private madeSessionDir: string | undefined;

  /** True when this kernel resumed an existing transcript. */
  get resumed(): boolean {
    return this.resumeId !== undefined;
  }

  /** Emits an event to every `event` tap and the run's stream; a tap's failure is thrown after all saw it. */
  emit(event: AgentEvent): void {
    this.hooks.event.call(event);
    this.current?.channel.push(event);
    const failure = takeEventFailure(this.hooks);
    if (failure) throw failure;
  }

  /**
   * Records the run's terminal transition now, running no hooks (a second interrupt exits at once).
   * False when no run is in progress or it ended. Throws TranscriptWriteError.
   */
  endNow(reason: TerminalReason, detail?: string): boolean {
    const state = this.current?.state;
    if (!state || state.ended || !this.transcriptRef) return false;
    state.ended = true;
    this.transcriptRef.append({ type: 'transition', transition: { kind: 'terminal', reason, turn: state.turn, ...(detail ? { detail } : {}) } });
    return true;
  }

  /** Loads one plugin: validates options and applies it. Throws PluginError naming the plugin. */
  async use(plugin: Plugin, rawOptions?: unknown, origin?: string): Promise<void> {
    const options = parsePluginOptions(plugin, rawOptions);
    const problems = plugin.check?.(options, { preset: this.preset, presetDir: this.presetDir }) ?? [];
    if (problems.length) {
      const lines = problems.map((p) => `${p.path.length ? `${p.path.join('.')}: ` : ''}${p.message}`);
      throw new PluginError(plugin.name, `plugin ${plugin.name}${origin ? ` (${origin})` : ''}: ${lines.join('; ')}`);
    }
    try {
      await plugin.apply(this, options);
    } catch (err) {
      if (err instanceof PluginError) throw err;
      throw new PluginError(plugin.name, `plugin ${plugin.name}${origin ? ` (${origin})` : ''} failed to apply: ${(err as Error).message}`, undefined, { cause: err });
    }
    this.plugins.push({ plugin, options, origin });
  }

  /** The context a tool call gets; `call` names the tool and carries the path the decision resolved. */
  toolContext(toolUseId: string, ctx: RunContext, call: { toolName?: string; target?: ResolvedPath } = {}): ToolContext {
    const toolName = call.toolName ?? '';
    return {
      cwd: this.cwd,
      signal: ctx.signal,
      sessionId: this.sessionId,
      sessionDir: this.sessionDir(),
      toolUseId,
      kernel: this,
      notify: (message, level = 'info') => this.emit({ type: 'notice', level, source: toolUseId, message }),
      ...(call.target ? { target: call.target } : {}),
      checkPath: (path, access) => this.hooks.pathAccess.call({ toolName, toolUseId, path, access }) ?? undefined,
    };
  }

  /** The path a call of `tool` touches (`filePath`, through `services.resolvePath`), or undefined. */
  resolveTarget(tool: Tool, input: unknown): ResolvedPath | undefined {
    let p: unknown;
    try {
      p = tool.filePath?.(input);
    } catch {
      return undefined; // no path known: the call is judged without one
    }
    return typeof p === 'string' && p ? this.services.resolvePath(p, this.cwd) : undefined;
  }

  /**
   * Runs the loop on one user message to a terminal transition, yielding every event (the last is
   * `result`). Model and tool failures end the run with a terminal reason; it throws only on bugs.
   */
  run(input: RunInput): AsyncIterable<AgentEvent> & { result: Promise<RunResult> } {
    if (this.current) throw new Error('kernel.run: a run is already in progress on this kernel');
    const channel = new Channel<AgentEvent>();
    const state: RunState = {
      turn: 0,
      usage: emptyUsage(),
      sideUsage: {},
      costUsd: 0,
      denials: [],
      numRequests: 0,
      model: this.model,
      started: performance.now(),
      signal: input.signal ?? new AbortController().signal,
    };
    this.current = { state, channel };
    const result = runLoop(this, state, input).then(
      (r) => {
        try {
          this.emit({ type: 'result', result: r });
        } catch { /* a failing event tap: the stream still gets the result */ }
        channel.close();
        return r;
      },
      (err) => { channel.fail(err); throw err; },
    ).finally(() => { this.current = undefined; });
    result.catch(() => undefined);
    return Object.assign(channel.iterable(), { result });
  }

  /** The run context for hooks outside a run (manual compaction, plugin setup). */
  runContext(signal?: AbortSignal): RunContext {
    const s = this.current?.state;
    const ctx: RunContext = { kernel: this, sessionId: this.sessionId, cwd: this.cwd, turn: s?.turn ?? 0, model: s?.model ?? this.model, signal: signal ?? s?.signal ?? new AbortController().signal };
    if (this.parent) ctx.parent = this.parent;
    return ctx;
  }

  /** Compacts now (`preCompact` → `compact` → `postCompact`); false when cancelled or no strategy answered. */
  async compact(instructions?: string): Promise<boolean> {
    const r = await runCompaction(this, 'manual', this.runContext(), instructions);
    return r !== undefined;
  }

  /** Sends a side request (a summary, a verdict) through the loop's client and retry policy; its usage is the run's side usage. */
  async sideRequest(params: Omit<ModelRequest, 'model'> & { model?: string }, source: Exclude<QuerySource, 'main_loop'>, ctx?: RunContext): Promise<ApiMessage> {
    const c = ctx ?? this.runContext();
    const full = { ...params, model: params.model ?? c.model } as ModelRequest;
    const r = await callModel(full, { client: this.client, hooks: this.hooks, fit: this.services.fitRequest, ctx: c, source, idleTimeoutMs: this.streamIdleTimeoutMs, emit: (e) => this.emit(e) });
    this.addSideUsage(source, r.message.model ?? full.model, r.message.usage as Usage);
    const client = this.client.checkpoint?.();
    this.transcript.append({ type: 'response', turn: c.turn, model: r.message.model ?? full.model, usage: r.message.usage as Usage, stopReason: r.message.stop_reason, requestId: r.requestId, at: r.sentAt, source, ...(client ? { client } : {}), ...(this.client.kind === 'simulator' ? { simulated: true as const } : {}) });
    return r.message;
  }

  /** Adds usage spent outside the main loop to the current run's side usage and cost (nothing outside a run). */
  addSideUsage(source: Exclude<QuerySource, 'main_loop'>, model: string, usage: Usage): void {
    const state = this.current?.state;
    if (state) {
      addUsage((state.sideUsage[source] ??= emptyUsage()), usage);
      state.costUsd += this.services.costUsd(model, usage);
    }
    this.forwardUsage(source, model, usage);
  }

  /**
   * Makes this child agent spend from `parent`'s run: each of its requests is added to the parent
   * run's side usage and cost as it is paid (main-loop ones as `subagent`). Call before its run.
   */
  shareBudget(parent: Kernel): void {
    this.budgetParent = parent;
  }

  /** What the current run has cost so far, USD, or undefined outside a run. */
  runCostUsd(): number | undefined {
    return this.current?.state.costUsd;
  }

  /** @internal Adds a request of this kernel to the run it shares a budget with (nothing otherwise). */
  forwardUsage(source: Exclude<QuerySource, 'main_loop'>, model: string, usage: Usage): void {
    this.budgetParent?.addSideUsage(source, model, usage);
  }

  /** Records a permission denial in the current run's result and emits it (a child's, from the Task tool). */
  recordDenial(denial: PermissionDenial): void {
    this.current?.state.denials.push(denial);
    this.emit({ type: 'permission_denied', denial });
  }

  /** Registers work for `close()` (MCP servers); run in reverse order, a failing one does not stop the rest. */
  onClose(fn: () => void | Promise<void>): void {
    this.closers.push(fn);
  }

  /** Names of loaded plugins, in load order. */
  pluginNames(): string[] {
    return this.plugins.map((p) => p.plugin.name);
  }

  /** Ends the session (`sessionEnd`, once), runs the `onClose` work, closes the client and releases the session. */
  async close(): Promise<void> {
    if (this.session.started) {
      this.session.started = false;
      const ctx = { kernel: this, sessionId: this.sessionId, cwd: this.cwd, turn: 0, model: this.model, signal: new AbortController().signal, ...(this.parent ? { parent: this.parent } : {}) };
      const result = this.session.lastResult;
      // Closing goes on whatever the taps do; a failure is a warning naming the plugin, and the
      // session's last result (the exit status of its run) is not changed by it.
      await this.hooks.sessionEnd.promise({ sessionId: this.sessionId, ...(result ? { result } : {}) }, ctx)
        .catch((err: unknown) => tapFailureNotice(this, 'sessionEnd', err, 'the session was closed'));
    }
    for (const fn of this.closers.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        try {
          this.emit({ type: 'notice', level: 'warn', source: 'close', message: `cleanup failed: ${(err as Error).message}` });
        } catch { /* a failing printer cannot report it either */ }
      }
    }
    try {
      await this.client.close();
    } finally {
      this.transcriptRef?.close();
    }
  }
}

/** Creates a kernel and loads its plugins in order. Throws PluginError (bad options, `apply` threw, `requires` / `conflicts`). */
export async function createKernel(options: KernelOptions): Promise<Kernel> {
  const kernel = new Kernel(options);
  for (const { plugin, options: raw, origin } of options.plugins) await kernel.use(plugin, raw, origin);
  checkPluginRelations(kernel.plugins.map((p) => p.plugin));
  return kernel;
}
