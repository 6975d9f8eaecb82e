/**
 * The shapes the kernel passes around: messages (Messages API shaped), usage, transitions and the
 * events a run emits. Everything here is data; behaviour lives in the loop and the plugins.
 */
import type Anthropic from '@anthropic-ai/sdk';

/** A content block as the Messages API accepts it (`text`, `image`, `tool_use`, `tool_result`, `thinking`, ...). */
export type ContentBlock = Anthropic.ContentBlockParam;
export type TextBlock = Anthropic.TextBlockParam;
export type ToolUseBlock = Anthropic.ToolUseBlockParam;
export type ToolResultBlock = Anthropic.ToolResultBlockParam;
/** The `tools` request parameter entry for a client tool. */
export type ToolDefinition = Anthropic.Tool;
/** The request body of `POST /v1/messages` (streaming flag set by the client). */
export type MessageRequest = Anthropic.MessageCreateParamsNonStreaming;
/** A complete assistant response as the API returns it. */
export type ApiMessage = Anthropic.Message;
/** One server-sent event of a streaming response. */
export type StreamEvent = Anthropic.RawMessageStreamEvent;
export type StopReason = Anthropic.StopReason;

/**
 * Metadata the kernel keeps beside a message. It never reaches the API: the request builder strips it.
 * - `id`: stable id of the message in the transcript.
 * - `pinned`: compaction must keep this message verbatim (memory files, user instructions).
 * - `meta`: injected by the system (reminders, resume nudges), not typed by a person.
 * - `source`: which plugin or mechanism produced the message.
 * - `compactSummary`: the message is a compaction summary.
 */
export interface MessageMeta {
  id?: string;
  pinned?: boolean;
  meta?: boolean;
  source?: string;
  compactSummary?: boolean;
  /** ms since the epoch when the message entered the history. */
  at?: number;
}

/** A message in the kernel's history: API shape (content always an array) plus kernel metadata. */
export interface Message {
  role: 'user' | 'assistant';
  content: ContentBlock[];
  meta?: MessageMeta;
}

/**
 * Token usage exactly as the Messages API reports it (`message_start` / `message_delta` usage),
 * all counts in tokens.
 */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/** Why the loop goes on for another model request (Claude Code's continue reasons, in rein's terms). */
export type ContinueReason =
  | 'tool_results'
  | 'max_output_tokens_escalate'
  | 'max_output_tokens_resume'
  | 'reactive_compact'
  | 'stop_hook_blocked'
  | 'model_fallback'
  /** The API paused a long server-side turn (`stop_reason: pause_turn`); the conversation goes back as it is. */
  | 'pause_turn';

/** Why the loop ended (Claude Code's terminal reasons, in rein's terms). */
export type TerminalReason =
  | 'end_turn'
  | 'max_turns'
  | 'budget_exhausted'
  | 'prompt_too_long'
  | 'blocking_limit'
  | 'aborted'
  | 'model_error'
  | 'stop_hook_prevented'
  /** Stop hooks blocked the end of the turn `limits.maxStopHookBlocks` times in a row. */
  | 'stop_hook_limit'
  | 'hook_stopped'
  | 'prompt_blocked'
  | 'max_output_tokens'
  | 'refusal'
  | 'permission_interrupted'
  /** A plugin's tap threw (the detail names the plugin and the hook). */
  | 'plugin_error';

export const TERMINAL_REASONS: readonly TerminalReason[] = Object.freeze([
  'end_turn', 'max_turns', 'budget_exhausted', 'prompt_too_long', 'blocking_limit', 'aborted',
  'model_error', 'stop_hook_prevented', 'stop_hook_limit', 'hook_stopped', 'prompt_blocked', 'max_output_tokens', 'refusal',
  'permission_interrupted', 'plugin_error',
]);

export type Transition =
  | { kind: 'continue'; reason: ContinueReason; turn: number; detail?: string }
  | { kind: 'terminal'; reason: TerminalReason; turn: number; detail?: string };

/** A permission decision for one tool call. `ask` is resolved by the `permissionRequest` hook. */
export type PermissionDecision =
  | { behavior: 'allow'; updatedInput?: Record<string, unknown>; reason?: string; source?: string }
  /** `interrupt`: besides denying the call, stop the run (terminal `permission_interrupted`). */
  | { behavior: 'deny'; message: string; reason?: string; source?: string; interrupt?: boolean }
  | { behavior: 'ask'; message?: string; reason?: string; source?: string };

/** A denial as reported in the result's `permission_denials` (Claude Code's headless field). */
export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: Record<string, unknown>;
  reason: string;
}

/**
 * Everything a run emits, in order. `rein run --output-format stream-json` prints these shaped like
 * Claude Code's headless events; the `event` hook sees every one.
 */
export type AgentEvent =
  | { type: 'session_start'; sessionId: string; model: string; tools: string[]; cwd: string; simulated: boolean; resumed: boolean }
  | { type: 'user_message'; message: Message }
  | { type: 'request'; turn: number; model: string; source: QuerySource }
  | { type: 'stream_event'; event: StreamEvent }
  /** `id`: the API's message id (`msg_...`); `stopSequence`: the stop sequence that ended it, if one did. */
  | { type: 'assistant_message'; message: Message; usage: Usage; stopReason: StopReason | null; model: string; requestId?: string; id?: string; stopSequence?: string | null }
  | { type: 'tool_start'; toolUseId: string; name: string; input: unknown }
  | { type: 'tool_end'; toolUseId: string; name: string; isError: boolean; durationMs: number }
  | { type: 'tool_results'; message: Message }
  | { type: 'permission_denied'; denial: PermissionDenial }
  /** A failed request is retried: `attempt` (1-based) of `maxRetries` when the policy says, after `delayMs`. */
  | { type: 'api_retry'; attempt: number; delayMs: number; status?: number; error: string; source: QuerySource; maxRetries?: number }
  | { type: 'model_fallback'; from: string; to: string; reason: string }
  /** A compaction replaced the history; `tokensBefore` / `tokensAfter`: the context's size (tools, system, messages) before and after, tokens. */
  | { type: 'compact'; trigger: 'auto' | 'manual' | 'reactive'; tokensBefore: number; tokensAfter: number; strategy: string }
  /**
   * `debug`: routine status (a threshold, a setting kept) that text output never prints; `info`:
   * something worth knowing that happened (printed with `-v`); `warn` / `error`: always printed.
   */
  | { type: 'notice'; level: 'debug' | 'info' | 'warn' | 'error'; source: string; message: string }
  /** A Claude Code style hook (shell command, host callback) started or answered; `name` is how messages name it. */
  | { type: 'hook'; phase: 'started' | 'response'; hookId: string; name: string; event: string; outcome?: 'success' | 'error' | 'cancelled'; output?: string }
  | { type: 'transition'; transition: Transition }
  | { type: 'result'; result: RunResult };

/**
 * Which mechanism sent a model request (`hook`: a shell hook of type `prompt`). Only `main_loop` and
 * `subagent` requests retry on 529 (Claude Code: background requests give up at once to avoid
 * amplifying an overload).
 */
export type QuerySource = 'main_loop' | 'subagent' | 'compact' | 'classifier' | 'title' | 'hook' | 'side';

/** The final report of a run (the `result` event; `--output-format json` prints it). */
export interface RunResult {
  sessionId: string;
  terminalReason: TerminalReason;
  /** What ended the run, when the terminal transition says (e.g. the model error's cause). */
  terminalDetail?: string;
  isError: boolean;
  /** The text of the last assistant message. */
  text: string;
  numTurns: number;
  /** ms */
  durationMs: number;
  /** Main-loop usage summed over all requests, tokens. */
  usage: Usage;
  /** Usage of side requests (compaction, classifier, ...) by source, tokens. */
  sideUsage: Partial<Record<QuerySource, Usage>>;
  totalCostUsd: number;
  permissionDenials: PermissionDenial[];
  /** Number of model requests, main loop only. */
  numRequests: number;
  model: string;
  /**
   * The answer as JSON when the run was asked for structured output (`--json-schema`): set by the
   * plugin that asked, in a `sessionEnd` tap, before the result event is emitted.
   */
  structuredOutput?: unknown;
}

export function emptyUsage(): Usage {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
  };
}

/** Adds `b` into `a` (mutates and returns `a`). */
export function addUsage(a: Usage, b: Partial<Usage> | undefined | null): Usage {
  if (!b) return a;
  a.input_tokens += b.input_tokens ?? 0;
  a.output_tokens += b.output_tokens ?? 0;
  a.cache_creation_input_tokens += b.cache_creation_input_tokens ?? 0;
  a.cache_read_input_tokens += b.cache_read_input_tokens ?? 0;
  const cc = a.cache_creation ?? (a.cache_creation = { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 });
  cc.ephemeral_5m_input_tokens += b.cache_creation?.ephemeral_5m_input_tokens ?? 0;
  cc.ephemeral_1h_input_tokens += b.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  return a;
}
