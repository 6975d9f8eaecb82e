/**
 * The benchmark's measurements: one record per model request, and the per-run summary computed
 * from them. Token counts are tokens, costs USD, times ms.
 */

/** One model request as measured (simulated for replays, as reported by the provider for recordings). */
export interface RequestMetrics {
  /** 1-based position among the run's requests. */
  n: number;
  /** Who sent it: `main_loop`, `subagent`, `compact`, `classifier`, `title`, `side`. */
  source: string;
  /** The workload step this request replays (main requests), when it is one. */
  step?: number;
  /** true: the replayed agent asked for a request the recording does not have (answered with an empty reply). */
  synthetic?: boolean;
  /** Request time on the run's clock, ms since the epoch. */
  at: number;
  model: string;
  /** Uncached input (after the last cache breakpoint). */
  input: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  output: number;
  /** Whole prompt: input + cacheRead + cacheWrite5m + cacheWrite1h. */
  promptTokens: number;
  /**
   * Prompt tokens the ideal cache reads: min(prompt, max(previous prompt of the thread, cache read)),
   * from usage alone, the same for recordings and replays (see efficiency.ts).
   */
  seenTokens: number;
  costUsd: number;
  /** Input-side cost as billed, USD (everything but output). */
  inputCostUsd: number;
  /** Input-side cost with ideal caching of the same request sequence, USD, never above `inputCostUsd` (see efficiency.ts). */
  idealInputCostUsd: number;
  /** Set when the request broke the cache (see breaks.ts): the cause. */
  breakCause?: string;
  /** Cache-read tokens lost against the previous request, when it broke the cache. */
  breakTokens?: number;
  /** The API cleared more tool uses at this request than at the previous one (`context_management`): a clearing. */
  apiClearing?: boolean;
  /** Needed-later recall at this step (main requests whose recorded reply used earlier facts; recall.ts). */
  recall?: { needed: number; recalled: number };
  /** What getting back the facts this step lost would cost: extra requests, tokens re-sent, USD (refetch.ts). */
  refetch?: { requests: number; tokens: number; costUsd: number };
}

/** A compaction, or another rewrite of the history by a context strategy. */
export interface CompactionMetrics {
  /** `compaction` (the compact hook ran) or `context-edit` (a context-stage strategy rewrote the history). */
  kind: 'compaction' | 'context-edit';
  /** Strategy name (`compact:auto:summary`, the plugin, ...), when known. */
  strategy: string;
  /** Requests made before it, in the run. */
  afterRequest: number;
  /** Estimated history tokens before and after. */
  tokensBefore: number;
  tokensAfter: number;
  /** Wall time the strategy took, ms (includes a summary request through the in-process simulator). */
  latencyMs?: number;
  /** Facts retained (see retention.ts); absent when none were seen. */
  retention?: RetentionCounts;
  /**
   * Files put back after the compaction, with the recorded step whose tool call gave the version
   * restored (replay/workspace.ts); step null when the file did not come from the replay's workspace.
   * A path the agent resolved inside the replay's folder is given as the recording's (resolved
   * against the recorded cwd), so two runs report the same paths.
   */
  restoredFiles?: { path: string; step: number | null; tokens: number }[];
  /** Tokens of the replay's extractive summary for this compaction (calibrated counter), when it wrote one. */
  summaryTokens?: number;
  /** Its budget: the request's max_tokens capped by the size model (replay/summary.ts), tokens. */
  summaryBudget?: number;
  /** Needed-later recall of the main requests after it, up to the next compaction or rewrite (recall.ts). */
  recall?: { needed: number; recalled: number };
}

/** Facts seen before a compaction and how many of them are still in the context after it. */
export interface RetentionCounts {
  files: { seen: number; kept: number };
  identifiers: { seen: number; kept: number };
  instructions: { seen: number; kept: number };
}

/** Difference between the replay's token counter and the provider's count on the same content. */
export interface EstimateError {
  /** The counter compared (`calibrated`, `bytes`). */
  counter: string;
  /** Consecutive request pairs compared (prompt growth between them). */
  pairs: number;
  /** Σ counted growth / Σ recorded growth (1 = exact; < 1 underestimates). */
  inputRatio: number;
  /** Median |estimated − recorded| / recorded over pairs whose recorded growth is ≥ 200 tokens. */
  inputMedianAbsError: number;
  /** Replies compared (the estimate of the reply content vs the recorded output_tokens). */
  replies: number;
  /** Σ estimated output / Σ recorded output. */
  outputRatio: number;
}

export interface RunSummary {
  requests: number;
  /** Requests the recording did not have (the preset asked for more than was recorded). */
  syntheticRequests: number;
  input: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  output: number;
  costUsd: number;
  /** cacheRead / all prompt tokens. */
  cacheReadShare: number;
  /** Ideal input-side cost / actual input-side cost (1 = no caching loss, never above 1; efficiency.ts). */
  cacheEfficiency: number;
  /** Cache breaks by cause. */
  breaks: Record<string, number>;
  /** Cache-read tokens lost at breaks. */
  breakTokens: number;
  compactions: { count: number; contextEdits: number; tokensFreed: number; ratio: number | null };
  /** Largest prompt of a main request, tokens. */
  peakContext: number;
  /** Shares retained over all compactions (null when nothing was compacted). */
  retention: { files: number | null; identifiers: number | null; instructions: number | null };
  /**
   * Needed-later recall: facts the recorded replies used that the sent context still held, over the
   * facts they used that entered the conversation earlier (recall.ts); null when no step needed any
   * or the accounting was off.
   */
  recall: number | null;
  /** Facts needed and recalled, summed over the run's requests. */
  recallCounts: { needed: number; recalled: number };
  /** Re-fetches charged for lost facts (refetch.ts): extra requests, tokens re-sent, their cost in USD. */
  refetch: { requests: number; tokens: number; costUsd: number };
  /** Closed-loop cost estimate: `costUsd` plus what re-fetching every lost fact would cost, USD. */
  closedLoopCostUsd: number;
  /** Clearings: history rewrites by a context strategy (`compactions.contextEdits`) plus clearings the API made (`context_management`). */
  clearings: number;
}
