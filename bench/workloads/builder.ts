/**
 * Builds workload steps from a recording read in order. Importers translate their format's entries
 * into four calls: a reply block (grouped into one request by response id), a tool result, a user
 * prompt part, a recorded compaction. The builder pairs results with the request whose reply made
 * the call, attaches prompts to the request that follows them, and keeps the clock monotonic.
 */
import type { ContentBlock } from '../../kernel/types.js';
import {
  newStats, skip, type ImportStats, type PromptPart, type RecordedCompaction, type RecordedEffort, type RecordedThinking, type RecordedUsage, type Workload,
  type WorkloadFormat, type WorkloadStep,
} from './types.js';

/** One reply block of a recorded request. */
export interface ReplyPiece {
  /** Response id: blocks with the same id belong to one request. */
  responseId: string;
  block?: ContentBlock;
  model: string;
  /** ms since the epoch when the request was sent (or the reply logged, if that is all there is). */
  at: number;
  usage?: RecordedUsage;
  stopReason?: string | null;
}

export class StepBuilder {
  readonly steps: WorkloadStep[] = [];
  readonly stats: ImportStats;
  readonly notes: string[] = [];
  private pendingPrompt: PromptPart[] = [];
  private pendingCompaction: RecordedCompaction | undefined;
  private current: WorkloadStep | undefined;
  private readonly byToolUse = new Map<string, WorkloadStep>();
  private lastInputAt: number | undefined;
  private clock = -Infinity;
  private thinking: RecordedThinking | undefined;
  private effort: RecordedEffort | undefined;
  private aborted = 0;

  constructor(stats?: ImportStats) {
    this.stats = stats ?? newStats();
  }

  /** Time of the latest user-side entry (a prompt or tool result), used as the next request's send time. */
  inputAt(at: number | undefined): void {
    if (at !== undefined && Number.isFinite(at)) this.lastInputAt = at;
  }

  /** A block of a recorded reply. A new response id opens a new step. */
  reply(piece: ReplyPiece, line?: number): void {
    let step = this.current;
    if (!step || step.responseId !== piece.responseId) {
      const sent = this.lastInputAt !== undefined && this.lastInputAt <= piece.at ? this.lastInputAt : piece.at;
      this.clock = Math.max(this.clock, Number.isFinite(sent) ? sent : this.clock);
      step = {
        index: this.steps.length,
        reply: [],
        stopReason: null,
        model: piece.model,
        toolResults: [],
        at: Number.isFinite(this.clock) ? this.clock : 0,
        responseId: piece.responseId,
      };
      if (this.pendingPrompt.length) step.prompt = this.pendingPrompt;
      if (this.pendingCompaction) step.compactionBefore = this.pendingCompaction;
      if (this.thinking) step.thinking = this.thinking;
      if (this.effort) step.effort = this.effort;
      if (this.aborted) { step.abortedBefore = this.aborted; this.aborted = 0; }
      this.pendingPrompt = [];
      this.pendingCompaction = undefined;
      this.lastInputAt = undefined;
      this.steps.push(step);
      this.current = step;
    }
    if (piece.block) {
      step.reply.push(piece.block);
      if (piece.block.type === 'tool_use') this.byToolUse.set((piece.block as { id: string }).id, step);
    }
    if (piece.usage) step.usage = piece.usage;
    if (piece.stopReason) step.stopReason = piece.stopReason;
    void line;
  }

  /** A tool result. Returns false (and counts a skip) when no earlier reply made that call. */
  toolResult(toolUseId: string, content: ContentBlock[], isError: boolean, line?: number): boolean {
    const step = this.byToolUse.get(toolUseId);
    if (!step) {
      skip(this.stats, 'tool result without a matching tool call', line);
      return false;
    }
    const use = step.reply.find((b) => b.type === 'tool_use' && (b as { id: string }).id === toolUseId) as { name: string } | undefined;
    if (step.toolResults.some((r) => r.toolUseId === toolUseId)) {
      skip(this.stats, 'duplicate tool result', line);
      return false;
    }
    step.toolResults.push({ toolUseId, toolName: use?.name ?? 'unknown', content, isError });
    return true;
  }

  /** The thinking parameter from the next request on (until changed). */
  setThinking(t: RecordedThinking | undefined): void {
    this.thinking = t;
  }

  /** The effort from the next request on (until changed; undefined: the API default). */
  setEffort(e: RecordedEffort | undefined): void {
    this.effort = e;
  }

  /** The thinking parameter in effect, if the recording told. */
  currentThinking(): RecordedThinking | undefined {
    return this.thinking;
  }

  /** A request the user aborted (or that failed) before the next one. */
  abortedRequest(): void {
    this.aborted++;
  }

  /** User content for the next request. */
  prompt(part: PromptPart): void {
    this.pendingPrompt.push(part);
  }

  /** The recording compacted its context here. */
  compaction(c: RecordedCompaction): void {
    this.pendingCompaction = { ...this.pendingCompaction, ...c };
  }

  /** The summary of the compaction just recorded (it arrives on its own line after the marker). */
  compactionSummary(summary: string): void {
    if (this.pendingCompaction) this.pendingCompaction.summary = summary;
    else this.pendingCompaction = { trigger: 'auto', summary };
  }

  /** Finishes: counts what was left pending and returns the workload. */
  finish(meta: Omit<Workload, 'steps' | 'stats' | 'notes' | 'model' | 'timed'> & { model?: string; timed?: boolean; notes?: string[] }): Workload {
    if (this.pendingPrompt.length) {
      this.stats.skipped['user content after the last request'] = (this.stats.skipped['user content after the last request'] ?? 0) + this.pendingPrompt.length;
    }
    if (this.pendingCompaction) this.notes.push(`a ${this.pendingCompaction.trigger} compaction after the last request is not replayed (no request follows it)`);
    const model = meta.model ?? mostCommon(this.steps.map((s) => s.model)) ?? 'claude-sonnet-4-5';
    const timed = meta.timed ?? true;
    return { ...meta, model, timed, steps: this.steps, stats: this.stats, notes: [...(meta.notes ?? []), ...this.notes] };
  }
}

/** The most frequent value, or undefined for an empty list (ties: the first seen). */
export function mostCommon(values: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  let best: string | undefined;
  let bestN = 0;
  for (const v of values) {
    const n = (counts.get(v) ?? 0) + 1;
    counts.set(v, n);
    if (n > bestN) { best = v; bestN = n; }
  }
  return best;
}

/**
 * Whether recorded timestamps can drive a clock: false when the requests are packed tighter than
 * one per `minMsPerRequest` on average (a session re-opened elsewhere gets its timestamps rewritten
 * into a few seconds; no real agent answers that fast).
 */
export function timestampsUsable(steps: readonly WorkloadStep[], minMsPerRequest = 1_000): boolean {
  if (steps.length < 3) return true;
  const span = steps[steps.length - 1]!.at - steps[0]!.at;
  return span >= minMsPerRequest * (steps.length - 1);
}

/** Parses an ISO-8601 timestamp (or ms number) to ms; NaN when absent or invalid. */
export function parseTime(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return Date.parse(value);
  return NaN;
}

/** Which formats carry the provider's own usage on every request. */
export const FORMATS_WITH_USAGE: readonly WorkloadFormat[] = ['claude-code', 'claude-code-stream-json', 'harbor-atif', 'pi'];
