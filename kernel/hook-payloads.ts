/**
 * What each hook in `hooks.ts` carries. Kept apart so the hook table itself reads as one list.
 */
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
  /** Model requests made by the main loop so far in this run (0 before the first). */
  turn: number;
  /** The model the next main-loop request goes to (changes on fallback). */
  model: string;
  /** The run's turn limit (`limits.maxTurns` or the run's own), when it has one: `turn` reaching it is the last request. */
  maxTurns?: number;
  signal: AbortSignal;
  /** Set for a child agent: the parent's session id and the Task tool_use id. */
  parent?: { sessionId: string; toolUseId: string };
  /**
   * Set when a parent's hooks decide a child agent's tool call (the Task tool forwards them): which
   * agent made the call, its session id and its type (`subagent_type`). `sessionId` stays the
   * parent's, as in Claude Code's hook input (`session_id` plus `agent_id` / `agent_type`).
   */
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

/** `runStart`: each `run()`, after `sessionStart` and before the prompt enters. */
export interface RunInfo {
  sessionId: string;
  /** Runs of this kernel so far, this one included (1 for the first). */
  run: number;
}

/** `runEnd`: each `run()`, after its terminal transition and before the `result` event. */
export interface RunEndInfo extends RunInfo {
  /** Plugins may add to it (`structuredOutput`); the caller gets this object. */
  result: RunResult;
}

/** A user message about to enter the history. Set `blocked` to refuse it (terminal `prompt_blocked`). */
export interface UserPrompt {
  content: ContentBlock[];
  blocked?: string;
  /** Extra text a hook wants the model to see with the prompt (appended as a text block). */
  additionalContext?: string[];
}

/**
 * A named part of the system prompt. `static` sections come first and are computed once per session;
 * `dynamic` ones may change between requests and sit after the boundary.
 */
export interface SystemSection {
  name: string;
  text: string;
  kind: 'static' | 'dynamic';
}

/** The history the next request is built from, passed through the staged `context` hook. */
export interface ContextState {
  messages: Message[];
  /** Estimated tokens freed by earlier stages in this pass, so later stages can account for it. */
  tokensFreed: number;
  /**
   * Set by a stage that refuses to send the request (the context is over a hard limit and nothing
   * could shrink it): the run ends with this terminal reason instead of sending.
   */
  terminal?: { reason: TerminalReason; detail?: string };
}

/** A failed model request. `attempt` counts from 1 for the first failure. */
export interface ApiErrorInfo {
  error: ApiError;
  attempt: number;
  /** 529 responses in a row for this request (reset by any other outcome). */
  consecutive529: number;
  source: QuerySource;
  model: string;
  fallbackModel?: string;
  /** True when the failed attempt streamed. */
  streamed: boolean;
}

/**
 * What the `apiError` hook answers; no answer means surface the error. A retry may say how many
 * retries the policy allows in all (`maxRetries`, reported in `api_retry` events).
 */
export type ApiErrorDecision =
  /** `maxRetries`: the retries the policy allows this failure, for progress messages ("retry 3 of 10"). */
  | { action: 'retry'; delayMs: number; stream?: boolean; maxRetries?: number }
  | { action: 'fallback'; model: string }
  | { action: 'surface' };

/** A normalised model-request failure. */
export interface ApiError {
  /** HTTP status, when there was a response. */
  status?: number;
  /** `http`: an error response; `connection`: no response; `stream_idle`: no event for the idle timeout;
   *  `stream_cut`: the stream ended before `message_stop`; `invalid_response`: a 200 whose body is no
   *  Message (not JSON, no `content` or `usage`, a malformed block, two tool_use blocks with one id);
   *  `aborted`: the run's signal fired. */
  kind: 'http' | 'connection' | 'stream_idle' | 'stream_cut' | 'invalid_response' | 'aborted';
  /** The system error code of a connection failure (`ENOTFOUND`, `ECONNREFUSED`, `ETIMEDOUT`, ...). */
  code?: string;
  /** The host (and port, when not the scheme's) the request went to. */
  host?: string;
  /** The API's `error.type` when present (`overloaded_error`, `rate_limit_error`, ...). */
  type?: string;
  message: string;
  /** From the `retry-after` header, ms. */
  retryAfterMs?: number;
  /** `x-should-retry` header, when sent. */
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
  /** ms from sending to the last event. */
  durationMs: number;
  /** The run's clock (ms since the epoch) when the request was sent. */
  at: number;
}

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
  /** Set when a permission answer denied the call with `interrupt`: why (the run stops). */
  interrupt?: string;
  additionalContext: string[];
}

/** One tool call as the permission hooks see it. */
export interface PermissionQuery {
  tool: Tool;
  toolName: string;
  input: Record<string, unknown>;
  toolUseId: string;
  /**
   * The path the call touches (`tool.filePath`), resolved once by the loop before the decision;
   * the tool then opens exactly `target.real`, so what was judged is what is opened. Absent for
   * tools without a path, and when a hook is asked outside the loop.
   */
  target?: ResolvedPath;
}

/**
 * One more path a tool is about to read (or write) inside a call that was already allowed: a file
 * met while walking a directory (Grep's search, Glob's listing). `path` is absolute and contains
 * no symbolic links (walks do not follow them).
 */
export interface PathAccess {
  toolName: string;
  toolUseId: string;
  path: string;
  access: 'read' | 'write';
}

/** A child process about to start, for the `subprocessEnv` hook. */
export interface SubprocessInfo {
  /** What starts it: `bash` (the Bash tool), `hook` (a shell hook), `mcp` (a stdio MCP server), or another plugin's own word. */
  kind: string;
  /** The command, hook event or server name, for messages. */
  name?: string;
}

/** An `ask` looking for an answer; `decision` is the ask that produced it. */
export interface PermissionAsk extends PermissionQuery {
  decision: Extract<PermissionDecision, { behavior: 'ask' }>;
}

/** A tool call about to run. Set `blocked` to refuse it (the message goes to the model). */
export interface PreToolUse {
  tool: Tool;
  toolName: string;
  toolUseId: string;
  input: Record<string, unknown>;
  blocked?: string;
  /** Stop the whole loop after this batch (terminal `hook_stopped`). */
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

/**
 * A child process about to start: `file` run with `args` in `cwd` with exactly `env`. Taps may wrap
 * it (a sandbox puts its own launcher in front and moves `file`/`args` after it) or change `env`.
 */
export interface SpawnRequest {
  /** What starts it: `bash` (the Bash tool, foreground or background) or `hook` (a shell hook). */
  purpose: 'bash' | 'hook';
  file: string;
  args: string[];
  /** Absolute working directory. */
  cwd: string;
  /** The whole environment of the process (not merged with rein's). */
  env: Record<string, string>;
  /** Set by a tap that wraps the process in a sandbox: what it is and what it allows. */
  sandbox?: SandboxInfo;
  /** Work to do after the process exited (remove files, close a proxy), in order. */
  cleanup: (() => void | Promise<void>)[];
}

/** What a sandboxed process may do, so a refused command can be explained to the model. */
export interface SandboxInfo {
  /** The plugin that wrapped it, e.g. `sandbox/bubblewrap`. */
  name: string;
  /** Absolute paths the process may write (besides its private /tmp). */
  writable: string[];
  /** `none`, `all`, or the hosts it may reach through the proxy. */
  network: 'none' | 'all' | string[];
  /**
   * Explains a finished process's output in terms of the sandbox: a note for the model when the
   * output shows the sandbox refused something (a read-only file system, a blocked host), else undefined.
   */
  explain(output: string): string | undefined;
}

/** A compaction about to happen. Set `cancel` to skip it. */
export interface PreCompact {
  trigger: 'auto' | 'manual' | 'reactive';
  instructions?: string;
  messages: Message[];
  tokens: number;
  cancel?: string;
}

/** What the `compact` hook is asked to do: produce the history that replaces `messages`. */
export interface CompactRequest {
  trigger: 'auto' | 'manual' | 'reactive';
  instructions?: string;
  messages: Message[];
  /** Estimated tokens of `messages`. */
  tokens: number;
}

/** A strategy's answer to `compact`. */
export interface CompactResult {
  messages: Message[];
  /** Estimated tokens of the new history. */
  tokensAfter: number;
  strategy: string;
  /** The summary text, when the strategy wrote one. */
  summary?: string;
}

export interface PostCompact {
  trigger: 'auto' | 'manual' | 'reactive';
  result: CompactResult;
  tokensBefore: number;
  /**
   * Blocks to put after the summary, for state the model must not lose (the task list, say): taps
   * push to it; they are added to the summary message before the new history is recorded.
   */
  attachments: ContentBlock[];
}

/** `outputCut`: a main-loop response stopped at `max_tokens`. */
export interface OutputCut {
  /** The request that was cut (its `max_tokens`, its model). */
  request: MessageRequest;
  message: ApiMessage;
  /** True when this run's cap was already raised by an `escalate`. */
  escalated: boolean;
  /** Resume turns this run has already sent after cut outputs. */
  resumes: number;
}

/**
 * `escalate`: send the identical request again with `maxTokens` (the rest of the run keeps it);
 * `resume`: keep what was written and send `prompt` as a user message; `end` (or no answer): the
 * run ends with `max_output_tokens`. `detail` goes into the transition.
 */
export type OutputCutDecision =
  | { action: 'escalate'; maxTokens: number }
  | { action: 'resume'; prompt: string; detail?: string }
  | { action: 'end'; detail?: string };

/** The model ended its turn without a tool call. */
export interface StopInfo {
  message: Message;
  stopReason: StopReason | null;
  /** True when the previous turn already continued because of a stop hook. */
  stopHookActive: boolean;
}

/** `block`: go on for one more turn with `reason` as a user message; `prevent`: end the run. */
export type StopDecision = { action: 'block'; reason: string } | { action: 'prevent'; reason: string };

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
