/** What each hook in `hooks.ts` carries (kept apart so the table reads as one list). */
import type { Kernel } from './kernel.js';
import type { ResolvedPath, Tool, ToolOutput } from './tool.js';
import type {
  ApiMessage, ContentBlock, Message, MessageRequest, PermissionDecision, PermissionDenial, QuerySource, RunResult,
  StopReason, TerminalReason, ToolResultBlock, ToolUseBlock, Usage,
} from './types.js';

/** Per-run context every loop hook receives as its last argument. */
export interface RunContext {
  kernel: Kernel;
  sessionId: string;
  /** Absolute working directory. */
  cwd: string;
  /** Main-loop requests made so far in this run (0 before the first). */
  turn: number;
  /** The model the next main-loop request goes to (changes on fallback). */
  model: string;
  /** The run's turn limit, when it has one: `turn` reaching it is the last request. */
  maxTurns?: number;
  signal: AbortSignal;
  /** Set for a child agent: the parent's session id and the Task tool_use id. */
  parent?: { sessionId: string; toolUseId: string };
  /** Set when a parent's hooks decide a child's tool call: the child's id and `subagent_type` (Claude Code's `agent_id` / `agent_type`). */
  agent?: { id: string; type: string };
}

/** `sessionStart`: once per session, before its first run. */
export interface SessionInfo {
  sessionId: string;
  cwd: string;
  resumed: boolean;
  /** `startup` for a new session, `resume` for --resume / --continue (Claude Code's SessionStart `source`). */
  source: 'startup' | 'resume';
}

/** `sessionEnd`: once, when the kernel closes a session that started. */
export interface SessionEndInfo {
  sessionId: string;
  /** The last run's result, when a run finished. */
  result?: RunResult;
  error?: unknown;
}

/** `runStart`: each `run()`, after `sessionStart`. */
export interface RunInfo {
  sessionId: string;
  /** Runs of this kernel so far, this one included. */
  run: number;
}

/** `runEnd`: each `run()`, after its terminal transition and before the `result` event. */
export interface RunEndInfo extends RunInfo {
  /** Plugins may add to it (`structuredOutput`); the caller gets this object. */
  result: RunResult;
}

/** A user message about to enter the history. `blocked` refuses it (terminal `prompt_blocked`). */
export interface UserPrompt {
  content: ContentBlock[];
  blocked?: string;
  /** Extra text for the model, appended as text blocks. */
  additionalContext?: string[];
}

/** A named part of the system prompt: `static` ones first (once per session), `dynamic` ones after the boundary. */
export interface SystemSection {
  name: string;
  text: string;
  kind: 'static' | 'dynamic';
}

/** The history the next request is built from, through the staged `context` hook. */
export interface ContextState {
  messages: Message[];
  /** Estimated tokens freed by earlier stages in this pass. */
  tokensFreed: number;
  /** Set by a stage that refuses to send (over a hard limit, nothing could shrink it): the run ends with it. */
  terminal?: { reason: TerminalReason; detail?: string };
}

/** A failed model request. `attempt` counts from 1. */
export interface ApiErrorInfo {
  error: ApiError;
  attempt: number;
  /** 529 responses in a row for this request. */
  consecutive529: number;
  source: QuerySource;
  model: string;
  fallbackModel?: string;
  /** True when the failed attempt streamed. */
  streamed: boolean;
}

/** No answer means surface. `maxRetries`: the retries the policy allows, for `api_retry` events ("retry 3 of 10"). */
export type ApiErrorDecision =
  | { action: 'retry'; delayMs: number; stream?: boolean; maxRetries?: number }
  | { action: 'fallback'; model: string }
  | { action: 'surface' };

/** A normalised model-request failure. */
export interface ApiError {
  /** HTTP status, when there was a response. */
  status?: number;
  /**
   * `http`: an error response; `connection`: none; `stream_idle`: silent past the idle timeout;
   * `stream_cut`: ended before `message_stop`; `invalid_response`: a 200 whose body is no Message;
   * `aborted`: the run's signal fired.
   */
  kind: 'http' | 'connection' | 'stream_idle' | 'stream_cut' | 'invalid_response' | 'aborted';
  /** System error code of a connection failure (`ECONNREFUSED`, ...). */
  code?: string;
  /** The host (and port, when not the scheme's) the request went to. */
  host?: string;
  /** The API's `error.type` (`overloaded_error`, `rate_limit_error`, ...). */
  type?: string;
  message: string;
  /** From the `retry-after` header, ms. */
  retryAfterMs?: number;
  /** The `x-should-retry` header, when sent. */
  shouldRetry?: boolean;
  /** True for 400 "prompt is too long". */
  promptTooLong?: boolean;
}

/** A completed model response. */
export interface ResponseInfo {
  request: MessageRequest;
  message: ApiMessage;
  usage: Usage;
  stopReason: StopReason | null;
  source: QuerySource;
  /** From sending to the last event, ms. */
  durationMs: number;
  /** When the request was sent, ms since the epoch. */
  at: number;
}

/** `outputCut`: a main-loop response stopped at `max_tokens`. */
export interface OutputCut {
  request: MessageRequest;
  message: ApiMessage;
  /** True when this run's cap was already raised by an `escalate`. */
  escalated: boolean;
  /** Resume turns this run already sent after cut outputs. */
  resumes: number;
}

/**
 * `escalate`: the identical request again with `maxTokens` (kept for the rest of the run);
 * `resume`: keep what was written and send `prompt`; `end` or no answer: terminal `max_output_tokens`.
 */
export type OutputCutDecision =
  | { action: 'escalate'; maxTokens: number }
  | { action: 'resume'; prompt: string; detail?: string }
  | { action: 'end'; detail?: string };

/** `toolBatch`: the tool calls of one assistant message, in the order the model wrote them. */
export interface ToolBatch {
  calls: readonly ToolUseBlock[];
}

/** What one tool call came to (`runToolCall`); a `toolBatch` tap answers one per call, in call order. */
export interface ToolCallOutcome {
  block: ToolResultBlock;
  /** True when the tool itself ran and failed (not a validation error, denial or cancellation). */
  toolFailed?: boolean;
  denial?: PermissionDenial;
  preventContinuation?: string;
  /** Set when a permission answer denied with `interrupt`: why (the run stops). */
  interrupt?: string;
  additionalContext: string[];
}

/** One tool call as the permission hooks see it. */
export interface PermissionQuery {
  tool: Tool;
  toolName: string;
  input: Record<string, unknown>;
  toolUseId: string;
  /** The call's path (`tool.filePath`), resolved once before the decision; the tool opens exactly `target.real`. */
  target?: ResolvedPath;
}

/** One more path a running, allowed call meets (a file in Grep's or Glob's walk): absolute, without links. */
export interface PathAccess {
  toolName: string;
  toolUseId: string;
  path: string;
  access: 'read' | 'write';
}

/** A child process about to start, for the `subprocessEnv` hook. */
export interface SubprocessInfo {
  /** `bash`, `hook`, `mcp`, or another plugin's own word. */
  kind: string;
  /** The command, hook event or server name, for messages. */
  name?: string;
}

/** An `ask` looking for an answer. */
export interface PermissionAsk extends PermissionQuery {
  decision: Extract<PermissionDecision, { behavior: 'ask' }>;
}

/** A tool call about to run. `blocked` refuses it (the message goes to the model). */
export interface PreToolUse {
  tool: Tool;
  toolName: string;
  toolUseId: string;
  input: Record<string, unknown>;
  blocked?: string;
  /** Stop the loop after this batch (terminal `hook_stopped`). */
  preventContinuation?: string;
  additionalContext: string[];
}

/** A tool call that finished. Rewrite `output` to change what the model sees. */
export interface PostToolUse {
  tool: Tool;
  toolName: string;
  toolUseId: string;
  input: Record<string, unknown>;
  output: ToolOutput;
  isError: boolean;
  durationMs: number;
  preventContinuation?: string;
  additionalContext: string[];
}

export interface ToolFailure {
  tool: Tool;
  toolName: string;
  toolUseId: string;
  input: Record<string, unknown>;
  error: string;
}

/** A child process about to start: `file` with `args` in `cwd` with exactly `env`. Taps may wrap it (a sandbox) or change `env`. */
export interface SpawnRequest {
  /** The Bash tool (foreground or background) or a shell hook. */
  purpose: 'bash' | 'hook';
  file: string;
  args: string[];
  /** Absolute working directory. */
  cwd: string;
  /** The whole environment of the process (not merged with rein's). */
  env: Record<string, string>;
  /** Set by a tap that wraps the process in a sandbox. */
  sandbox?: SandboxInfo;
  /** Work to do after the process exited, in order. */
  cleanup: (() => void | Promise<void>)[];
}

/** What a sandboxed process may do, so a refused command can be explained to the model. */
export interface SandboxInfo {
  /** The plugin that wrapped it (`sandbox/bubblewrap`). */
  name: string;
  /** Absolute paths it may write (besides its private /tmp). */
  writable: string[];
  network: 'none' | 'all' | string[];
  /** A note for the model when `output` shows the sandbox refused something, else undefined. */
  explain(output: string): string | undefined;
}

/** A compaction about to happen. `cancel` skips it. */
export interface PreCompact {
  trigger: 'auto' | 'manual' | 'reactive';
  instructions?: string;
  messages: Message[];
  tokens: number;
  cancel?: string;
}

/** Produce the history that replaces `messages` (`tokens`: their estimate). */
export interface CompactRequest {
  trigger: 'auto' | 'manual' | 'reactive';
  instructions?: string;
  messages: Message[];
  tokens: number;
}

/** A strategy's answer: the new history, its estimated tokens, and the summary if it wrote one. */
export interface CompactResult {
  messages: Message[];
  tokensAfter: number;
  strategy: string;
  summary?: string;
}

export interface PostCompact {
  trigger: 'auto' | 'manual' | 'reactive';
  result: CompactResult;
  tokensBefore: number;
  /** Blocks to put after the summary (state the model must not lose, the task list): taps push. */
  attachments: ContentBlock[];
}

/** The model ended its turn without a tool call. */
export interface StopInfo {
  message: Message;
  stopReason: StopReason | null;
  /** True when the previous turn already continued because of a stop hook. */
  stopHookActive: boolean;
}

/**
 * `block`: one more turn with `reason` as a user message; `prevent`: end the run
 * (`stop_hook_prevented`, with `reason`); `limit`: end the run as `max_turns` (with `detail`), for
 * a turn the model was made to end because the turn limit was reached (final-answer).
 */
export type StopDecision =
  | { action: 'block'; reason: string }
  | { action: 'prevent'; reason: string }
  | { action: 'limit'; detail: string };

export interface SubagentInfo {
  parentSessionId: string;
  toolUseId: string;
  preset: string;
  prompt: string;
  childSessionId: string;
  /** Set on `subagentStop`. */
  result?: RunResult;
}

export interface TurnEndInfo {
  turn: number;
  /** The transition the turn ended with. */
  reason: string;
  terminal?: TerminalReason;
}
