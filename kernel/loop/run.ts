/**
 * The loop as a state machine: one iteration per model request, each ending in a named transition
 * (continue or terminal), recorded and emitted before the loop acts on it.
 *
 *   budget check → turnStart → context (staged) → build request (systemPrompt, toolDefinitions,
 *   request) → model call (streamEvent; apiError decides retries) → response →
 *   max_tokens: outputCut (escalate, resume or end); no tool_use: stop hooks → end
 *   tool_use:    tools (permission, preToolUse, call, postToolUse) → tool results → max turns → next
 */
import type { RunContext } from '../hook-payloads.js';
import type { Kernel } from '../kernel.js';
import { DEFAULT_MAX_TOKENS } from '../kernel.js';
import { callModel, type CallResult } from '../model/call.js';
import { ModelRequestError, type ModelRequest } from '../model/client.js';
import {
  addUsage, type ContentBlock, type ContinueReason, type Message, type PermissionDenial, type QuerySource,
  type RunResult, type TerminalReason, type ToolUseBlock, type Usage,
} from '../types.js';
import { buildRequest } from './request.js';
import { replaceHistory, runCompaction } from './compact.js';
import { ABORTED_RESULT_TEXT, abortedOutcome, runToolCalls, tapFailureNotice } from './tools.js';
import { HookTapError } from '../hooks.js';
import { Incremental } from '../incremental.js';

/** `pause_turn` continuations in a row before `model_error` (rein's bound, so a server cannot loop forever). */
export const MAX_PAUSE_TURNS = 10;

/** The tool_result given, on resume, for a call the previous process was running when it stopped. */
export const INTERRUPTED_CALL_TEXT =
  'The previous run stopped while this tool call was running, so its result was not recorded. The call may have completed: check its effects before running it again.';

/** The tool_result given for calls left pending when a plugin's failure ended the run. */
export const PLUGIN_FAILED_CALL_TEXT =
  'The run ended (a plugin failed) while this tool call was pending, so its result was not recorded. The call may have run: check its effects before running it again.';

/** Stop-hook blocks in a row before `stop_hook_limit` (`limits.maxStopHookBlocks`); a tool call resets the count. */
export const MAX_STOP_HOOK_BLOCKS = 8;

export interface RunInput {
  /** The user message. */
  prompt: string | ContentBlock[];
  signal?: AbortSignal;
  /** Overrides `limits.maxTurns` for this run. */
  maxTurns?: number;
}

/** What the loop carries from one iteration to the next. */
export interface RunState {
  /** Main-loop requests made in this run. */
  turn: number;
  usage: Usage;
  sideUsage: Partial<Record<QuerySource, Usage>>;
  costUsd: number;
  denials: PermissionDenial[];
  numRequests: number;
  model: string;
  /** performance.now() at the start of the run, ms. */
  started: number;
  signal: AbortSignal;
  /** Set once the terminal transition is recorded. */
  ended?: boolean;
  /** The run's turn limit, when it has one (set when the loop starts). */
  maxTurns?: number;
}

/** Variables only the state machine touches. */
interface LoopVars {
  /** The cap an `outputCut` escalation set for the rest of the run. */
  maxTokensOverride?: number;
  /** Resume turns after a cut output so far. */
  resumes: number;
  reactiveCompacted: boolean;
  stopHookActive: boolean;
  /** Stop-hook blocks since the model last called a tool. */
  stopBlocks: number;
  lastText: string;
  /** `pause_turn` continuations in a row. */
  pauses: number;
}

function ctxOf(kernel: Kernel, state: RunState): RunContext {
  const ctx: RunContext = { kernel, sessionId: kernel.sessionId, cwd: kernel.cwd, turn: state.turn, model: state.model, signal: state.signal };
  if (state.maxTurns !== undefined) ctx.maxTurns = state.maxTurns;
  if (kernel.parent) ctx.parent = kernel.parent;
  return ctx;
}

function textOf(content: readonly ContentBlock[]): string {
  return content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('');
}

function newMessage(role: 'user' | 'assistant', content: ContentBlock[], meta?: Message['meta']): Message {
  return meta ? { role, content, meta: { ...meta, at: Date.now() } } : { role, content, meta: { at: Date.now() } };
}

/** Answers every tool_use of a last assistant message with `text` (a crash or abort before the results). */
export function closeDanglingToolUses(kernel: Kernel, text: string): void {
  const last = kernel.messages[kernel.messages.length - 1];
  if (!last || last.role !== 'assistant') return;
  const uses = last.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
  if (!uses.length) return;
  kernel.appendMessage(newMessage('user', uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: [{ type: 'text', text }], is_error: true })), { meta: true, source: 'kernel' }));
}

/**
 * Runs one user message to a terminal transition (a tap that throws: `plugin_error`). Throws
 * TranscriptWriteError and SessionError.
 */
export async function runLoop(kernel: Kernel, state: RunState, input: RunInput): Promise<RunResult> {
  const run = new Run(kernel, state, input);
  try {
    return await run.loop();
  } catch (err) {
    if (err instanceof Error && (err.name === 'TranscriptWriteError' || err.name === 'SessionError')) throw err;
    if (state.ended) throw err;
    if (state.signal.aborted) {
      closeDanglingToolUses(kernel, ABORTED_RESULT_TEXT);
      return run.finish('aborted', abortDetail(state.signal));
    }
    if (err instanceof HookTapError) {
      closeDanglingToolUses(kernel, PLUGIN_FAILED_CALL_TEXT);
      return run.finish('plugin_error', err.describe());
    }
    throw err;
  }
}

/**
 * One run's state machine. Its phases are methods, not closures made per run: V8 keeps the
 * optimised code of a function made once, but a closure made afresh for each run (an async one
 * above all) loses its optimised code at the next full garbage collection, so a long-lived process
 * (`rein worker`, a `rein bench` thread, a stream-json host) compiled the loop again every few runs
 * (`node --trace-opt --trace-gc`: a recompilation after each Mark-Compact, tens of ms each).
 */
class Run {
  readonly preset: Kernel['preset'];
  readonly maxTurns: number;
  readonly maxBudget: number;
  readonly baseMaxTokens: number;
  readonly maxStopBlocks: number;
  readonly v: LoopVars = { resumes: 0, reactiveCompacted: false, stopHookActive: false, stopBlocks: 0, lastText: '', pauses: 0 };
  readonly transcript: Kernel['transcript'];
  readonly ctx0: RunContext;

  constructor(readonly kernel: Kernel, readonly state: RunState, readonly input: RunInput) {
    const preset = (this.preset = kernel.preset);
    this.maxTurns = input.maxTurns ?? preset.limits?.maxTurns ?? Infinity;
    if (Number.isFinite(this.maxTurns)) state.maxTurns = this.maxTurns;
    this.maxBudget = preset.limits?.maxBudgetUsd ?? Infinity;
    this.baseMaxTokens = preset.model?.maxTokens ?? DEFAULT_MAX_TOKENS;
    this.maxStopBlocks = preset.limits?.maxStopHookBlocks ?? MAX_STOP_HOOK_BLOCKS;
    this.transcript = kernel.transcript; // opens or creates the session (and replays a resumed history)
    this.ctx0 = ctxOf(kernel, state);
  }

  async finish(reason: TerminalReason, detail?: string): Promise<RunResult> {
    const { kernel, state, v, transcript } = this;
    const transition = { kind: 'terminal' as const, reason, turn: state.turn, detail };
    // Recorded once: a second interrupt may have written it already (Kernel.endNow).
    if (!state.ended) {
      state.ended = true;
      transcript.append({ type: 'transition', transition });
    }
    try {
      kernel.emit({ type: 'transition', transition });
    } catch { /* an event tap that fails cannot stop the run from ending */ }
    // The run ends whatever these taps do: a failure is a warning naming the plugin, and the
    // result (and so the exit status of a run that succeeded) stays what the loop decided.
    await kernel.hooks.turnEnd.promise({ turn: state.turn, reason, terminal: reason }, ctxOf(kernel, state))
      .catch((err: unknown) => tapFailureNotice(kernel, 'turnEnd', err, 'the run ends as it was ending'));
    const result: RunResult = {
      sessionId: kernel.sessionId,
      terminalReason: reason,
      ...(detail ? { terminalDetail: detail } : {}),
      isError: reason !== 'end_turn',
      text: v.lastText,
      numTurns: state.turn,
      durationMs: Math.round(performance.now() - state.started),
      usage: state.usage,
      sideUsage: state.sideUsage,
      totalCostUsd: state.costUsd,
      permissionDenials: state.denials,
      numRequests: state.numRequests,
      model: state.model,
    };
    kernel.session.lastResult = result;
    await kernel.hooks.runEnd.promise({ sessionId: kernel.sessionId, run: kernel.session.runs, result }, ctxOf(kernel, state))
      .catch((err: unknown) => tapFailureNotice(kernel, 'runEnd', err, 'the run\'s result stands'));
    return result;
  }

  async next(reason: ContinueReason, detail?: string): Promise<void> {
    const { kernel, state, transcript } = this;
    const transition = { kind: 'continue' as const, reason, turn: state.turn, detail };
    transcript.append({ type: 'transition', transition });
    kernel.emit({ type: 'transition', transition });
    await kernel.hooks.turnEnd.promise({ turn: state.turn, reason }, ctxOf(kernel, state));
  }

  async loop(): Promise<RunResult> {
    const { kernel, state, input, transcript, ctx0 } = this;
    // The tools the model is offered: the registry through `toolDefinitions`, so a tool a plugin
    // leaves out of the request (a bare name in `permissions.deny`) is not announced either.
    const offered = kernel.hooks.toolDefinitions.call(kernel.tools.definitions(), ctx0).map((t) => t.name);
    kernel.emit({ type: 'session_start', sessionId: kernel.sessionId, model: state.model, tools: offered, cwd: kernel.cwd, simulated: kernel.client.kind === 'simulator', resumed: kernel.resumed });
    for (const d of transcript.damaged) kernel.emit({ type: 'notice', level: 'warn', source: 'session', message: `${transcript.file}:${d.line}: ${d.problem}; the line was skipped` });
    for (const r of transcript.repairs) kernel.emit({ type: 'notice', level: 'warn', source: 'session', message: `${transcript.file}: ${r}` });
    for (const n of transcript.notices ?? []) kernel.emit({ type: 'notice', level: 'warn', source: 'session', message: `${transcript.file}: ${n}` });
    // Once per session: a reused agent's later runs start only a run.
    if (!kernel.session.started) {
      kernel.session.started = true;
      await kernel.hooks.sessionStart.promise({ sessionId: kernel.sessionId, cwd: kernel.cwd, resumed: kernel.resumed, source: kernel.resumed ? 'resume' : 'startup' }, ctx0);
    }
    await kernel.hooks.runStart.promise({ sessionId: kernel.sessionId, run: ++kernel.session.runs }, ctx0);
    closeDanglingToolUses(kernel, INTERRUPTED_CALL_TEXT);

    // The user message.
    const prompt = await kernel.hooks.userPromptSubmit.promise(
      { content: typeof input.prompt === 'string' ? [{ type: 'text', text: input.prompt }] : input.prompt, additionalContext: [] },
      ctx0,
    );
    if (prompt.blocked) return this.finish('prompt_blocked', prompt.blocked);
    const userContent: ContentBlock[] = [...prompt.content, ...(prompt.additionalContext ?? []).map((t) => ({ type: 'text' as const, text: t }))];
    const userMessage = newMessage('user', userContent);
    kernel.appendMessage(userMessage);
    kernel.emit({ type: 'user_message', message: userMessage });

    for (;;) {
      const end = await this.turn();
      if (end) return end;
    }
  }

  // One turn of the loop, in three async functions (a result ends the run, undefined starts the
  // next turn) rather than one: V8 never inlines an async function into another, so when an object
  // of a shape a phase has not seen yet throws its optimised code away (a deopt), only that phase is
  // compiled again, not the whole loop (tens of ms of compiler time each time, `node --trace-opt`).
  async turn(): Promise<RunResult | undefined> {
    const { kernel, state, v, transcript, preset, maxBudget, baseMaxTokens } = this;
    if (state.signal.aborted) return this.finish('aborted', abortDetail(state.signal));
    if (state.costUsd >= maxBudget) return this.finish('budget_exhausted', `spent $${state.costUsd.toFixed(4)} of $${maxBudget}`);
    state.turn++;
    const ctx = ctxOf(kernel, state);
    await kernel.hooks.turnStart.promise(ctx);

    // A changed history is recorded before it is sent.
    const before = kernel.messages;
    const shaped = await kernel.hooks.context.promise({ messages: before, tokensFreed: 0 }, ctx);
    if (shaped.messages !== kernel.messages) recordContext(kernel, shaped.messages);
    if (shaped.terminal) return this.finish(shaped.terminal.reason, shaped.terminal.detail);

    const maxTokens = v.maxTokensOverride ?? baseMaxTokens;
    let params: ModelRequest;
    try {
      params = await buildRequest(kernel, { messages: kernel.messages, model: state.model, maxTokens }, ctx);
    } catch (err) {
      if (err instanceof HookTapError) return this.finish('plugin_error', err.describe());
      return this.finish('model_error', `building the request failed: ${(err as Error).message}`);
    }
    kernel.emit({ type: 'request', turn: state.turn, model: params.model, source: 'main_loop' });

    let call;
    try {
      call = await callModel(params, {
        client: kernel.client, hooks: kernel.hooks, fit: kernel.services.fitRequest, ctx, source: ctx.parent ? 'subagent' : 'main_loop',
        fallbackModel: preset.model?.fallbackModel, idleTimeoutMs: kernel.streamIdleTimeoutMs,
        onEvent: (e) => { kernel.hooks.streamEvent.call(e, ctx); kernel.emit({ type: 'stream_event', event: e }); },
        onFallback: (_from, to, p) => { state.model = to; return stripThinking(p); },
        emit: (e) => kernel.emit(e),
      });
    } catch (err) {
      if (!(err instanceof ModelRequestError)) throw err;
      if (err.info.kind === 'aborted' || state.signal.aborted) return this.finish('aborted', abortDetail(state.signal));
      if (err.info.promptTooLong) {
        // One reactive compaction, then the same turn again. Stop hooks never run here.
        if (!v.reactiveCompacted) {
          v.reactiveCompacted = true;
          const r = await runCompaction(kernel, 'reactive', ctx);
          if (r) { state.turn--; await this.next('reactive_compact', err.info.message); return undefined; }
        }
        return this.finish('prompt_too_long', err.info.message);
      }
      return this.finish('model_error', err.info.message);
    }

    const message = call.message;
    const usage = message.usage as unknown as Usage;
    state.numRequests++;
    addUsage(state.usage, usage);
    state.costUsd += kernel.services.costUsd(message.model ?? params.model, usage);
    kernel.forwardUsage('subagent', message.model ?? params.model, usage);
    const client = kernel.client.checkpoint?.();
    transcript.append({ type: 'response', turn: state.turn, model: message.model ?? params.model, usage, stopReason: message.stop_reason, requestId: call.requestId, at: call.sentAt, source: 'main_loop', ...(client ? { client } : {}), ...(kernel.client.kind === 'simulator' ? { simulated: true as const } : {}) });
    await kernel.hooks.response.promise({ request: call.params, message, usage, stopReason: message.stop_reason, source: 'main_loop', durationMs: call.durationMs, at: call.sentAt }, ctx);

    return this.reply(call, ctx);
  }

  /** The response of `call` into the history, and what it asks for: the tools it calls, or the end of the turn. */
  async reply(call: CallResult, ctx: RunContext): Promise<RunResult | undefined> {
    const { kernel, state, v, maxTurns, maxStopBlocks } = this;
    const message = call.message;
    const usage = message.usage as unknown as Usage;
    const content = message.content as unknown as ContentBlock[];
    const toolUses = content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    // A tool_use id the history already has cannot be answered (the API would refuse the next request).
    const reused = reusedToolUseId(kernel, kernel.messages, toolUses);
    if (reused) return this.finish('model_error', `the response reuses tool_use id ${reused} from an earlier message, so its calls were not run`);

    // Output cut by max_tokens: the `outputCut` hook may send the identical request again with a
    // higher cap, or keep what was written and ask the model to go on; else the run ends.
    if (message.stop_reason === 'max_tokens') {
      const cut = await kernel.hooks.outputCut.promise({ request: call.params, message, escalated: v.maxTokensOverride !== undefined, resumes: v.resumes }, ctx);
      if (cut?.action === 'escalate') {
        v.maxTokensOverride = cut.maxTokens;
        state.turn--;
        await this.next('max_output_tokens_escalate', `max_tokens ${call.params.max_tokens} → ${cut.maxTokens}`);
        return undefined;
      }
      // Keep what was written (thinking and text verbatim); a cut tool_use cannot be run.
      const kept = content.filter((b) => b.type !== 'tool_use');
      const assistant = newMessage('assistant', kept.length ? kept : [{ type: 'text', text: '(no output)' }]);
      kernel.appendMessage(assistant);
      v.lastText = textOf(kept) || v.lastText;
      kernel.emit({ type: 'assistant_message', message: assistant, usage, stopReason: message.stop_reason, model: message.model, requestId: call.requestId, id: message.id, stopSequence: message.stop_sequence ?? null });
      if (cut?.action !== 'resume') return this.finish('max_output_tokens', cut?.detail ?? `the reply was cut at max_tokens ${call.params.max_tokens}`);
      v.resumes++;
      kernel.appendMessage(newMessage('user', [{ type: 'text', text: cut.prompt }], { meta: true, source: 'max_output_tokens' }));
      await this.next('max_output_tokens_resume', cut.detail);
      return undefined;
    }

    // The reply goes into the history exactly as received (thinking blocks and signatures verbatim).
    const assistant = newMessage('assistant', content);
    kernel.appendMessage(assistant);
    v.lastText = textOf(content) || v.lastText;
    kernel.emit({ type: 'assistant_message', message: assistant, usage, stopReason: message.stop_reason, model: message.model, requestId: call.requestId, id: message.id, stopSequence: message.stop_sequence ?? null });

    if (toolUses.length === 0 && message.stop_reason === 'pause_turn') {
      // The API paused a long server-side turn: sending the conversation back as it is (the paused
      // assistant message last) lets it go on. https://platform.claude.com/docs/en/agents-and-tools/tool-use/server-tools
      if (++v.pauses > MAX_PAUSE_TURNS) return this.finish('model_error', `the API paused the turn ${MAX_PAUSE_TURNS} times in a row (stop_reason pause_turn)`);
      if (state.turn >= maxTurns) return this.finish('max_turns');
      await this.next('pause_turn', `continuation ${v.pauses} of at most ${MAX_PAUSE_TURNS}`);
      return undefined;
    }
    v.pauses = 0;

    if (toolUses.length === 0) {
      if (message.stop_reason === 'refusal') return this.finish('refusal');
      let decision;
      try {
        decision = await kernel.hooks.stop.promise({ message: assistant, stopReason: message.stop_reason, stopHookActive: v.stopHookActive }, ctx);
      } catch (err) {
        kernel.emit({ type: 'notice', level: 'warn', source: 'stop', message: `a stop hook failed: ${(err as Error).message}` });
      }
      if (decision?.action === 'prevent') return this.finish('stop_hook_prevented', decision.reason);
      if (decision?.action === 'limit') return this.finish('max_turns', decision.detail);
      if (decision?.action === 'block') {
        if (v.stopBlocks >= maxStopBlocks) {
          return this.finish('stop_hook_limit', `stop hooks blocked the end of the turn ${v.stopBlocks} times in a row (limits.maxStopHookBlocks: ${maxStopBlocks}); last reason: ${decision.reason}`);
        }
        v.stopBlocks++;
        v.stopHookActive = true;
        kernel.appendMessage(newMessage('user', [{ type: 'text', text: decision.reason }], { meta: true, source: 'stop' }));
        if (state.turn >= maxTurns) return this.finish('max_turns', `the turn limit (${maxTurns}) was reached as a stop hook asked for one more turn: ${decision.reason}`);
        await this.next('stop_hook_blocked', decision.reason);
        return undefined;
      }
      return this.finish('end_turn');
    }
    v.stopHookActive = false;
    v.stopBlocks = 0;

    return this.tools(toolUses, ctx);
  }

  /** Runs the reply's tool calls and puts their results into the history. */
  async tools(toolUses: ToolUseBlock[], ctx: RunContext): Promise<RunResult | undefined> {
    const { kernel, state, maxTurns } = this;
    // Tools.
    let outcome;
    if (state.signal.aborted) {
      outcome = { results: toolUses.map((u) => abortedOutcome(u).block), denials: [], additionalContext: [] as string[], preventContinuation: undefined };
    } else {
      outcome = await runToolCalls(kernel, toolUses, ctx);
    }
    state.denials.push(...outcome.denials);
    const resultContent: ContentBlock[] = [...outcome.results, ...outcome.additionalContext.map((t) => ({ type: 'text' as const, text: t }))];
    const results = newMessage('user', resultContent);
    kernel.appendMessage(results);
    kernel.emit({ type: 'tool_results', message: results });
    if (state.signal.aborted) return this.finish('aborted', abortDetail(state.signal));
    if (outcome.interrupt) return this.finish('permission_interrupted', outcome.interrupt);
    if (outcome.preventContinuation) return this.finish('hook_stopped', outcome.preventContinuation);
    if (state.turn >= maxTurns) return this.finish('max_turns');
    await this.next('tool_results');
    return undefined;
  }
}

/** What aborted the run, when the abort gave a reason of its own (`interrupted by SIGTERM`). */
function abortDetail(signal: AbortSignal): string | undefined {
  const r: unknown = signal.reason;
  return r instanceof Error && r.name !== 'AbortError' && r.message ? r.message : undefined;
}

/**
 * `(history, uses)` → the first id of `uses`, in history order, that a tool_use of `history` has.
 * Incremental: a call reads only the messages added since the previous one.
 */
export function reusedToolUseIds(): (history: readonly Message[], uses: readonly ToolUseBlock[]) => string | undefined {
  let blocks = 0;
  const known = new Incremental<Message, Map<string, number>>({
    init: () => { blocks = 0; return new Map(); },
    add: (ids, m) => {
      if (m.role !== 'assistant') return;
      for (const b of m.content) if (b.type === 'tool_use' && !ids.has((b as ToolUseBlock).id)) ids.set((b as ToolUseBlock).id, blocks++);
    },
  });
  return (history, uses) => {
    if (!uses.length) return undefined;
    const ids = known.update(history);
    let first: { id: string; at: number } | undefined;
    for (const u of uses) {
      const at = ids.get(u.id);
      if (at !== undefined && (!first || at < first.at)) first = { id: u.id, at };
    }
    return first?.id;
  };
}

const reusedIdLookups = new WeakMap<Kernel, ReturnType<typeof reusedToolUseIds>>();

/** The first id of `uses` that a tool_use of an earlier message of the kernel's history already has. */
function reusedToolUseId(kernel: Kernel, history: readonly Message[], uses: readonly ToolUseBlock[]): string | undefined {
  let lookup = reusedIdLookups.get(kernel);
  if (!lookup) reusedIdLookups.set(kernel, (lookup = reusedToolUseIds()));
  return lookup(history, uses);
}

/** Records a `context` pass's history: messages only added at the end are appended, any other change replaces it. */
function recordContext(kernel: Kernel, messages: Message[]): void {
  const old = kernel.messages;
  const appended = messages.length > old.length && old.every((m, i) => messages[i] === m);
  if (!appended) return replaceHistory(kernel, messages, 'context');
  for (const m of messages.slice(old.length)) kernel.appendMessage(m);
}

/** A fallback request drops thinking blocks: their signatures are bound to the model that wrote them. */
function stripThinking(params: ModelRequest): ModelRequest {
  return {
    ...params,
    messages: params.messages.map((m) => (Array.isArray(m.content) && m.role === 'assistant'
      ? { ...m, content: m.content.filter((b) => b.type !== 'thinking' && b.type !== 'redacted_thinking') }
      : m)),
  };
}
