/**
 * A workload: one recorded (or generated) agent session as the benchmark replays it. Each step is one
 * model request of the recording: what entered the context before it (a user prompt, or nothing when
 * the request follows tool results), the reply the model gave, the results of that reply's tool
 * calls, when it was sent, and the provider's own usage when the recording has it.
 *
 * Importers build workloads from files (Claude Code, pi, SWE-agent, OpenHands, Harbor ATIF); the
 * generator builds them from a spec string. Replay feeds them through a preset (bench/replay/).
 */
import type { ContentBlock } from '../../kernel/types.js';

/** Formats an importer can read. */
export type WorkloadFormat =
  | 'claude-code'
  | 'claude-code-stream-json'
  | 'harbor-atif'
  | 'pi'
  | 'swe-agent'
  | 'openhands'
  | 'generator'
  | 'scenario';

/**
 * Usage as the provider reported it for one recorded request, tokens.
 * `input` is the uncached tail; the prompt size is `input + cacheRead + cacheWrite5m + cacheWrite1h`.
 */
export interface RecordedUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
}

/** One text (or image) part of what a user message carried. */
export interface PromptPart {
  block: ContentBlock;
  /**
   * true: typed by a person (an instruction). false: injected by the client (caveats, slash-command
   * wrappers, command output, reminders). The retention proxy tracks typed parts only.
   */
  typed: boolean;
}

/** The result of one tool call as recorded. `content` is what the model saw. */
export interface RecordedToolResult {
  toolUseId: string;
  toolName: string;
  content: ContentBlock[];
  isError: boolean;
}

/** A compaction the recording client performed before a step (its summary request is not logged). */
export interface RecordedCompaction {
  trigger: 'auto' | 'manual';
  /** Context size that triggered it as the client reported it, tokens, when known. */
  tokensBefore?: number;
  /** The summary text, when the recording kept it. */
  summary?: string;
}

/**
 * The `thinking` parameter a recorded request was sent with, as far as the recording tells (Claude
 * Code's `thinkingMetadata` level, pi's thinking level). Budgets follow each client's mapping.
 */
export type RecordedThinking = { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' } | { type: 'disabled' };

/**
 * The `output_config.effort` a recorded request was sent with, as far as the recording tells (Claude
 * Code's `/effort` and `/model` command output, pi's thinking level on a model with adaptive
 * thinking). Absent: the recording sent none, so the API's default (`high`) applied.
 */
export type RecordedEffort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface WorkloadStep {
  /** 0-based position in the workload. */
  index: number;
  /**
   * User content entering before this request. Present when a prompt (typed or injected) precedes
   * the request; absent when the request follows the previous step's tool results.
   */
  prompt?: PromptPart[];
  /** The recorded reply (content blocks in API shape: text, thinking, tool_use). */
  reply: ContentBlock[];
  /** The recorded stop_reason (`tool_use`, `end_turn`, `max_tokens`, ...), or null when unknown. */
  stopReason: string | null;
  /** Model that answered, as recorded. */
  model: string;
  /** Results of the reply's tool_use calls, in recorded order (missing results are allowed). */
  toolResults: RecordedToolResult[];
  /** When the request was sent on the recording's clock, ms since the epoch. */
  at: number;
  /** Provider-reported usage, when the recording has it. */
  usage?: RecordedUsage;
  /** The recording compacted its context just before this step. */
  compactionBefore?: RecordedCompaction;
  /** Recorded response id (`msg_…`), when known. */
  responseId?: string;
  /** The thinking parameter in effect for this request, when the recording tells. */
  thinking?: RecordedThinking;
  /** The effort in effect for this request, when the recording tells (see RecordedEffort). */
  effort?: RecordedEffort;
  /** Requests the user aborted (or that failed) just before this one, billed nothing and kept out of the context. */
  abortedBefore?: number;
}

/** A line or entry an importer did not turn into a step, with why. */
export interface SkipNote {
  /** 1-based line in the file, when the entry came from a line. */
  line?: number;
  reason: string;
}

/** What an importer read and what it left out. Every skipped line is counted, with a reason. */
export interface ImportStats {
  /** Physical lines (or top-level JSON values for JSON files) read. */
  lines: number;
  /** JSON entries parsed (can exceed `lines` when two objects share a line). */
  entries: number;
  /** Lines that could not be parsed as JSON. */
  malformed: number;
  /** Skip counts by reason (malformed lines, client bookkeeping, aborted requests, ...). */
  skipped: Record<string, number>;
  /** The first few skipped lines, for the report. */
  examples: SkipNote[];
}

/**
 * A child agent the workload starts live: the replay runs the preset's own Task tool for this
 * call, and the child's requests go to the same simulator (the same prompt cache) as the parent's,
 * answered with these steps in order (its tool calls with their recorded results).
 */
export interface LiveChild {
  /** The parent's Task tool_use id that starts the child. */
  toolUseId: string;
  /** A label for tables: the Task call's description, else the tool_use id. */
  name: string;
  /** The child's own requests: reply and tool results (no prompts: the Task call's prompt starts it). */
  steps: WorkloadStep[];
}

export interface Workload {
  /** Short name for tables: the file name without extension, or the generator spec. */
  name: string;
  format: WorkloadFormat;
  /** Absolute path of the source file, when imported. */
  path?: string;
  /** The recording client and version, e.g. `claude-code 2.0.50`, `pi`. */
  client?: string;
  /** Session id as recorded (Claude Code `sessionId`, pi session `id`). */
  sessionId?: string;
  /** The model of most steps. */
  model: string;
  /** Working directory of the recorded session, when known. */
  cwd?: string;
  /** true for a subagent transcript (Claude Code `isSidechain`, stream-json `parent_tool_use_id`). */
  sidechain: boolean;
  /** Subagent id (Claude Code `agentId`). */
  agentId?: string;
  /** The parent's tool_use id that started this subagent, when known. */
  parentToolUseId?: string;
  steps: WorkloadStep[];
  /** Children started live at Task calls of the steps (scripted workloads), when any. */
  children?: LiveChild[];
  /** false when the recorded timestamps cannot drive the clock (absent, or known to be compressed). */
  timed: boolean;
  /** Remarks the report should show (compressed timestamps, warm-up stub, ...). */
  notes: string[];
  stats: ImportStats;
}

/** An empty ImportStats. */
export function newStats(): ImportStats {
  return { lines: 0, entries: 0, malformed: 0, skipped: {}, examples: [] };
}

/** How many example skip notes an ImportStats keeps. */
export const MAX_SKIP_EXAMPLES = 10;

/** Counts a skipped line under `reason`, keeping the first few as examples. */
export function skip(stats: ImportStats, reason: string, line?: number): void {
  stats.skipped[reason] = (stats.skipped[reason] ?? 0) + 1;
  if (stats.examples.length < MAX_SKIP_EXAMPLES) stats.examples.push(line === undefined ? { reason } : { line, reason });
}

/** Total skipped lines over all reasons. */
export function skippedCount(stats: ImportStats): number {
  return Object.values(stats.skipped).reduce((a, b) => a + b, 0);
}

/** Prompt size of a recorded request, tokens. */
export function promptTokens(u: RecordedUsage): number {
  return u.input + u.cacheRead + u.cacheWrite5m + u.cacheWrite1h;
}

/** The tool_use blocks of a reply. */
export function toolUsesOf(reply: readonly ContentBlock[]): { id: string; name: string; input: unknown }[] {
  return reply.filter((b) => b.type === 'tool_use') as unknown as { id: string; name: string; input: unknown }[];
}
