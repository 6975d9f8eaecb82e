/**
 * The hook table: every lifecycle event of a rein run, in the order the loop reaches it.
 *
 * Plugins tap with their plugin name; staged hooks take a `stage` from the constants below. The
 * table is frozen: a plugin's own hooks go through `createHooksGetter`.
 *
 * Guard hooks (`permission`, `permissionRequest`, `preToolUse`, `spawn`) fail closed: a tap that
 * throws denies the call. A throw elsewhere ends the run with `plugin_error` naming the plugin and
 * the hook, except: `stop` and `compact` (a notice), `postToolUse` (the result becomes an error),
 * `apiError` (the error surfaces), and `postToolUseFailure`, the last `turnEnd`, `runEnd` and
 * `sessionEnd` (the run or the closing goes on, and the result stands: a run that succeeded still
 * exits 0). An `event` tap (a printer, metrics) that throws ends the run too, once the other `event`
 * taps have seen that event: catch what a failed write may throw. A failed `permission`,
 * `preToolUse`, `postToolUse`, `postToolUseFailure`, last `turnEnd`, `runEnd` or `sessionEnd` tap
 * also puts a warning notice naming the plugin and the hook in the run's events (the printer writes
 * warnings to stderr); the model's text does not name it.
 */
import {
  AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncBailHook, SyncHook, SyncWaterfallHook,
} from 'tapable';
import type {
  ApiErrorDecision, ApiErrorInfo, CompactRequest, CompactResult, ContextState, OutputCut, OutputCutDecision, PathAccess, PermissionAsk,
  PermissionQuery, PostCompact, PostToolUse, PreCompact, PreToolUse, ResponseInfo, RunContext,
  RunEndInfo, RunInfo, SessionEndInfo, SessionInfo, SpawnRequest, StopDecision, StopInfo, SubagentInfo, SubprocessInfo, SystemSection, ToolBatch, ToolCallOutcome, ToolFailure,
  TurnEndInfo, UserPrompt,
} from './hook-payloads.js';
import type { AgentEvent, MessageRequest, PermissionDecision, StreamEvent, ToolDefinition } from './types.js';

/** Stages of the `context` hook, light to heavy: a later stage acts only if the cheaper ones did not free enough. */
export const CONTEXT_STAGE = Object.freeze({
  /** Per-message tool-result budget. */
  RESULT_BUDGET: 100,
  /** Drop the oldest whole turns. */
  SNIP: 200,
  /** Clear old tool results. */
  MICROCOMPACT: 300,
  /** Full summary compaction. */
  AUTOCOMPACT: 500,
  /** Messages added at the tail once the history is final (notifications). */
  NOTIFICATIONS: 600,
});

/** Stages of the `request` hook. Cache breakpoints come last so they see the final bytes. */
export const REQUEST_STAGE = Object.freeze({
  /** Prepend the `<system-reminder>` user-context message. */
  USER_CONTEXT: 100,
  /** Betas, `context_management`, max_tokens overrides. */
  PARAMS: 300,
  /** `cache_control` markers (`cache/breakpoints`). */
  CACHE_BREAKPOINTS: 1000,
});

/** Stages of the `permission` hook (first answer wins, so earlier stages take precedence). */
export const PERMISSION_STAGE = Object.freeze({
  /** Deny rules and never-auto-allowed paths: nothing earlier may allow. */
  DENY_RULES: -100,
  /** Ask rules. */
  ASK_RULES: -50,
  /** Hooks and policies that may deny or ask (shell PreToolUse `permissionDecision`). */
  POLICY: 0,
  /** Allow rules. */
  ALLOW_RULES: 100,
  /** The permission mode's own answer. */
  MODE: 200,
});

/** `permissionRequest` stages, so answerers of different plugin families are asked in a known order. */
export const PERMISSION_REQUEST_STAGE = Object.freeze({
  /** dontAsk mode: every ask is denied before anyone is asked. */
  DONT_ASK: -1000,
  /** Shell and SDK PermissionRequest hooks. */
  HOOKS: -100,
  /** Host callbacks (`canUseTool`) and the prompt tool. */
  HOST: 0,
});

/**
 * What to do instead, when a `request` tap wrote to a message of the request's list: those are the
 * history's frozen API forms (kernel/loop/request.ts), and V8's TypeError alone ("Cannot add
 * property 1, object is not extensible") does not say so.
 */
function frozenHint(hook: string, cause: Error): string {
  return hook === 'request' && cause instanceof TypeError && /read[ -]only|not extensible|frozen/.test(cause.message)
    ? ' (the messages of params.messages are read-only: replace one with withReplacedMessages)'
    : '';
}

/** A tap threw: `plugin` is the tap's name, `hook` the hook's, `message` the tap's own. */
export class HookTapError extends Error {
  override name = 'HookTapError';
  constructor(readonly plugin: string, readonly hook: string, cause: unknown) {
    super(cause instanceof Error ? cause.message + frozenHint(hook, cause) : String(cause), { cause });
  }

  /** `plugin "x" failed in its turnStart tap: <message>`. */
  describe(): string {
    return `plugin "${this.plugin}" failed in its ${this.hook} tap: ${this.message}`;
  }
}

/** Errors that are not the tap's fault: they pass through unchanged. */
const PASS_THROUGH = new Set(['HookTapError', 'TranscriptWriteError', 'SessionError']);

function asTapError(hook: string, plugin: string, err: unknown): unknown {
  return err instanceof Error && PASS_THROUGH.has(err.name) ? err : new HookTapError(plugin, hook, err);
}

/** Wraps a tap's function so what it throws (or rejects with) names the plugin and the hook. */
function namedTap<T extends { type: string; name: string; fn: (...args: any[]) => any }>(hook: string, tap: T): T {
  const fn = tap.fn;
  const fail = (err: unknown) => asTapError(hook, tap.name, err);
  if (tap.type === 'async') {
    return { ...tap, fn: (...args: any[]) => {
      const callback = args[args.length - 1] as (err?: unknown, result?: unknown) => void;
      args[args.length - 1] = (err: unknown, result: unknown) => callback(err ? fail(err) : err, result);
      try {
        return fn(...args);
      } catch (err) {
        callback(fail(err));
      }
    } };
  }
  if (tap.type === 'promise') {
    return { ...tap, fn: (...args: any[]) => {
      let r;
      try {
        r = fn(...args);
      } catch (err) {
        // As a rejection: thrown inside tapable's `.then` chain it would be lost and the hook never settle.
        return Promise.reject(fail(err));
      }
      // A thenable, not `.then`: tapable only calls `.then(ok, bad)`, and this adds no promise per call.
      return r && typeof r.then === 'function'
        ? { then: (ok: (v: unknown) => unknown, bad?: (e: unknown) => unknown) => r.then(ok, bad && ((err: unknown) => bad(fail(err)))) }
        : r;
    } };
  }
  return { ...tap, fn: (...args: any[]) => {
    try {
      return fn(...args);
    } catch (err) {
      throw fail(err);
    }
  } };
}

const eventFailures = new WeakMap<object, unknown>();

/** The first error an `event` tap threw since the last call (the other taps still saw the event), or undefined. */
export function takeEventFailure(hooks: KernelHooks): unknown {
  const f = eventFailures.get(hooks);
  eventFailures.delete(hooks);
  return f;
}

/** Creates a fresh, frozen hook table. One per kernel. Every tap that throws throws a HookTapError. */
export function createHooks() {
  const hooks = createHookTable();
  for (const [name, hook] of Object.entries(hooks)) {
    const register = name === 'event'
      ? (tap: any) => {
        const wrapped = namedTap(name, tap);
        return { ...wrapped, fn: (event: unknown) => {
          try {
            wrapped.fn(event);
          } catch (err) {
            if (!eventFailures.has(hooks)) eventFailures.set(hooks, err);
          }
        } };
      }
      : (tap: any) => namedTap(name, tap);
    (hook as { intercept(i: { register(tap: any): any }): void }).intercept({ register });
  }
  return hooks;
}

function createHookTable() {
  return Object.freeze({
    // Session and run: `sessionStart` once per session (new or resumed), the rest once per run().
    /** The session's first run begins (`source`: startup or resume). */
    sessionStart: new AsyncSeriesHook<[SessionInfo, RunContext]>(['session', 'ctx']),
    /** A `run()` begins (each user message of a reused agent). */
    runStart: new AsyncSeriesHook<[RunInfo, RunContext]>(['run', 'ctx']),
    /** A user message enters. Waterfall: rewrite `content`, add context, or set `blocked`. */
    userPromptSubmit: new AsyncSeriesWaterfallHook<[UserPrompt, RunContext]>(['prompt', 'ctx']),
    // Turn: one model round trip.
    /** A model round trip begins (`ctx.turn` is its number, from 1). Observe. */
    turnStart: new AsyncSeriesHook<[RunContext]>(['ctx']),
    // Context: the history before each request.
    /** Staged waterfall over the history before each request (CONTEXT_STAGE). Return the new state. */
    context: new AsyncSeriesWaterfallHook<[ContextState, RunContext]>(['state', 'ctx']),
    /** A compaction is about to run. Set `cancel` to skip it. */
    preCompact: new AsyncSeriesWaterfallHook<[PreCompact, RunContext]>(['compaction', 'ctx']),
    /** Produce the compacted history. Bail: the first strategy that answers wins. */
    compact: new AsyncSeriesBailHook<[CompactRequest, RunContext], CompactResult | undefined>(['request', 'ctx']),
    /** A compaction produced the new history. Restore state: push blocks to `attachments` (put after the summary). */
    postCompact: new AsyncSeriesHook<[PostCompact, RunContext]>(['compaction', 'ctx']),
    // Request and response.
    /** Waterfall over the system prompt sections. May run more than once per request: no side effects. */
    systemPrompt: new AsyncSeriesWaterfallHook<[SystemSection[], RunContext]>(['sections', 'ctx']),
    /** Waterfall over the `tools` param: filter, sort, defer. Runs more than once per request, like `systemPrompt`: no side effects. */
    toolDefinitions: new SyncWaterfallHook<[ToolDefinition[], RunContext]>(['tools', 'ctx']),
    /**
     * Staged waterfall over the final request params (REQUEST_STAGE). The messages and blocks are
     * the history's own: a tap that changes one returns a copy, never changes it in place (the
     * `anthropic` model client sends a message object it sent before as the bytes it sent then).
     * The `messages` list itself is the request's own while the waterfall runs: a tap replaces
     * messages in it with `withReplacedMessages`, which records the places (request-messages.ts).
     */
    request: new AsyncSeriesWaterfallHook<[MessageRequest, RunContext]>(['params', 'ctx']),
    /** Each server-sent event of the response, as it arrives. Observe only. */
    streamEvent: new SyncHook<[StreamEvent, RunContext]>(['event', 'ctx']),
    /** A request failed. Bail: `retry` (with a delay), `fallback` (to a model) or `surface`. */
    apiError: new AsyncSeriesBailHook<[ApiErrorInfo, RunContext], ApiErrorDecision | undefined>(['failure', 'ctx']),
    /** An assistant message is complete, with its usage. Record, detect cache breaks. */
    response: new AsyncSeriesHook<[ResponseInfo, RunContext]>(['response', 'ctx']),
    /** A response stopped at max_tokens. Bail: `escalate` (same request, higher cap), `resume` (a prompt to go on) or `end`; no answer ends the run. */
    outputCut: new AsyncSeriesBailHook<[OutputCut, RunContext], OutputCutDecision | undefined>(['cut', 'ctx']),
    /** The model ended its turn without tool calls. Bail: `block` for one more turn, `prevent`, or `limit` (end as `max_turns`). */
    stop: new AsyncSeriesBailHook<[StopInfo, RunContext], StopDecision | undefined>(['stop', 'ctx']),
    // Tools: permission, the call, its result.
    /** An assistant message's tool calls are about to run. Bail: run them (`runToolCall`) and answer their outcomes in call order; no answer runs them one at a time. */
    toolBatch: new AsyncSeriesBailHook<[ToolBatch, RunContext], ToolCallOutcome[] | undefined>(['batch', 'ctx']),
    /** Before a tool runs. Staged bail (PERMISSION_STAGE): allow, deny or ask; first answer wins. */
    permission: new AsyncSeriesBailHook<[PermissionQuery, RunContext], PermissionDecision | undefined>(['call', 'ctx']),
    /** A decision was `ask`. Bail: answer allow or deny; no answer denies (headless). */
    permissionRequest: new AsyncSeriesBailHook<[PermissionAsk, RunContext], PermissionDecision | undefined>(['ask', 'ctx']),
    /** A running tool meets one more path inside an allowed call (a walk). Bail: a reason leaves it out. Sync, once per file. */
    pathAccess: new SyncBailHook<[PathAccess], string | undefined>(['access']),
    /** Permission granted, the tool is about to run. Waterfall: rewrite `input`, or set `blocked`. */
    preToolUse: new AsyncSeriesWaterfallHook<[PreToolUse, RunContext]>(['call', 'ctx']),
    /** A child process (a Bash command, a shell hook) is about to start. Waterfall: wrap it (sandbox), change its env; a throw stops it. */
    spawn: new AsyncSeriesWaterfallHook<[SpawnRequest, RunContext]>(['process', 'ctx']),
    /** A tool ran. Waterfall: rewrite `output`, add context. */
    postToolUse: new AsyncSeriesWaterfallHook<[PostToolUse, RunContext]>(['result', 'ctx']),
    /** A tool failed (threw, or returned an error); `postToolUse` follows as for any call. Observe. */
    postToolUseFailure: new AsyncSeriesHook<[ToolFailure, RunContext]>(['failure', 'ctx']),
    // Subagents.
    /** A child agent (the Task tool) starts. Observe, limit. */
    subagentStart: new AsyncSeriesHook<[SubagentInfo, RunContext]>(['subagent', 'ctx']),
    /** A child agent finished, with its result. */
    subagentStop: new AsyncSeriesHook<[SubagentInfo, RunContext]>(['subagent', 'ctx']),
    // End: of the turn, the run, the session.
    /** A round trip ended with a transition. Observe. */
    turnEnd: new AsyncSeriesHook<[TurnEndInfo, RunContext]>(['turn', 'ctx']),
    /** A `run()` ended (also on error), before the `result` event: add to the result, stop the run's work. */
    runEnd: new AsyncSeriesHook<[RunEndInfo, RunContext]>(['run', 'ctx']),
    /** The session ends: once, when the kernel is closed after a run. Flush. */
    sessionEnd: new AsyncSeriesHook<[SessionEndInfo, RunContext]>(['session', 'ctx']),
    // Beside the loop: child processes and the event stream.
    /** A child process is about to start. Waterfall over the environment it inherits from rein: remove what it must not see. */
    subprocessEnv: new SyncWaterfallHook<[Record<string, string>, SubprocessInfo]>(['env', 'child']),
    /** Every AgentEvent, in order. Printers and metrics tap this. */
    event: new SyncHook<[AgentEvent]>(['event']),
  });
}

/** The kernel's hook table type. */
export type KernelHooks = ReturnType<typeof createHookTable>;
export type HookName = keyof KernelHooks;

/** Names of all hooks, in loop order. */
export const HOOK_NAMES: readonly HookName[] = Object.freeze(Object.keys(createHookTable()) as HookName[]);

/**
 * A getter of a plugin's own hooks per kernel (webpack 5's `getHooks(compilation)` pattern).
 *
 * @example
 * const getMyHooks = createHooksGetter(() => ({ beforeDeploy: new AsyncSeriesHook<[string]>(['target']) }));
 * getMyHooks(kernel).beforeDeploy.tapPromise('x', async (t) => { ... });
 */
export function createHooksGetter<K extends object, H extends object>(factory: () => H): (kernel: K) => H {
  const map = new WeakMap<K, H>();
  return (kernel: K) => {
    let hooks = map.get(kernel);
    if (!hooks) {
      hooks = Object.freeze(factory());
      map.set(kernel, hooks);
    }
    return hooks;
  };
}
