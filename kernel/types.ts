/** The data the kernel passes around: messages (Messages API shaped), usage, transitions, events. */
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

/** Metadata the kernel keeps beside a message; the request builder strips it. */
export interface MessageMeta {
  /** Stable id of the message in the transcript. */
  id?: string;
  /** Compaction must keep this message verbatim (memory files, user instructions). */
  pinned?: boolean;
  /** Injected by the system (reminders, resume nudges), not typed by a person. */
  meta?: boolean;
  /** The plugin or mechanism that produced it. */
  source?: string;
  compactSummary?: boolean;
  /** ms since the epoch when the message entered the history. */
  at?: number;
}

/** A message in the history: API shape (content always an array) plus metadata. */
export interface Message {
  role: 'user' | 'assistant';
  content: ContentBlock[];
  meta?: MessageMeta;
}

/** Token usage as the Messages API reports it, tokens. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/** Why the loop goes on for another request (Claude Code's continue reasons; `pause_turn`: the API paused a server-side turn). */
export type ContinueReason =
  | 'tool_results' | 'max_output_tokens_escalate' | 'max_output_tokens_resume' | 'reactive_compact'
  | 'stop_hook_blocked' | 'model_fallback' | 'pause_turn';

/**
 * Why the loop ended (Claude Code's terminal reasons, in rein's terms). `stop_hook_limit`: stop hooks
 * blocked `limits.maxStopHookBlocks` times in a row; `plugin_error`: a tap threw (the detail names it).
 */
export const TERMINAL_REASONS = Object.freeze([
  'end_turn', 'max_turns', 'budget_exhausted', 'prompt_too_long', 'blocking_limit', 'aborted',
  'model_error', 'stop_hook_prevented', 'stop_hook_limit', 'hook_stopped', 'prompt_blocked', 'max_output_tokens', 'refusal',
  'permission_interrupted', 'plugin_error',
] as const);
export type TerminalReason = (typeof TERMINAL_REASONS)[number];

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
 * Everything a run emits, in order (the `event` hook sees every one; stream-json prints them).
 * `session_start.tools` are the names the model is offered: the registry through `toolDefinitions`.
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
  /** `debug`: never printed as text; `info`: printed with `-v`; `warn` / `error`: always. */
  | { type: 'notice'; level: 'debug' | 'info' | 'warn' | 'error'; source: string; message: string }
  /** A Claude Code style hook (shell command, host callback) started or answered; `name` is how messages name it. */
  | { type: 'hook'; phase: 'started' | 'response'; hookId: string; name: string; event: string; outcome?: 'success' | 'error' | 'cancelled'; output?: string }
  | { type: 'transition'; transition: Transition }
  | { type: 'result'; result: RunResult };

/** Which mechanism sent a model request (`hook`: a shell hook of type `prompt`). */
export type QuerySource = 'main_loop' | 'subagent' | 'compact' | 'classifier' | 'title' | 'hook' | 'side';

/** The final report of a run (the `result` event; `--output-format json` prints it). */
export interface RunResult {
  sessionId: string;
  terminalReason: TerminalReason;
  /** What ended the run, when the transition says (the model error's cause). */
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
  /** The answer as JSON when the run asked for it (`--json-schema`), set in a `runEnd` tap. */
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
