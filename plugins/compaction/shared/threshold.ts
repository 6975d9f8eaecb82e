/**
 * When auto-compaction fires, and the warning and blocking levels around it.
 *
 * Claude Code behaviour: the summary needs room for its own output, so
 * `effective = window − min(max output, 20,000)`; compaction fires at `effective − 13,000`; a warning
 * shows 20,000 before that; requests are refused at `effective − 3,000` (the blocking limit). On a
 * 200,000-token window with a 20,000+ output cap: threshold 167,000, warning 147,000, blocking 177,000.
 */

/** Output reserved for the summary, tokens (Claude Code's MAX_OUTPUT_TOKENS_FOR_SUMMARY = 20,000). */
export const SUMMARY_RESERVE_TOKENS = 20_000;
/** Gap between the effective window and the threshold, tokens (Claude Code's AUTOCOMPACT_BUFFER_TOKENS = 13,000). */
export const AUTOCOMPACT_BUFFER_TOKENS = 13_000;
/** The warning sits this far below the threshold, tokens (Claude Code: 20,000). */
export const WARNING_OFFSET_TOKENS = 20_000;
/** The blocking limit sits this far below the effective window, tokens (Claude Code: 3,000). */
export const BLOCKING_OFFSET_TOKENS = 3_000;
/** Context window when the preset sets none, tokens (the standard window of current Claude models). */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

/** The threshold as configured: tokens, a share of the window, or the default formula. */
export type ThresholdSetting = { tokens: number } | { ratio: number } | undefined;

export interface ThresholdInput {
  /** Context window, tokens. */
  contextWindow: number;
  /** The model's output cap for this session, tokens. */
  maxOutputTokens: number;
  threshold?: ThresholdSetting;
  summaryReserveTokens?: number;
  bufferTokens?: number;
  warningOffsetTokens?: number;
  blockingOffsetTokens?: number;
}

export interface Thresholds {
  contextWindow: number;
  /** Output reserved for the summary, tokens. */
  reserve: number;
  /** Window minus the reserve, tokens. */
  effective: number;
  /** Compaction fires when the context reaches this many tokens. */
  threshold: number;
  /** A warning is emitted from this many tokens. */
  warning: number;
  /** Requests are refused from this many tokens. */
  blocking: number;
}

/** Computes the levels. A ratio is of the whole window (`0.835` ≈ the default on a 200k window). */
export function computeThresholds(i: ThresholdInput): Thresholds {
  const reserve = Math.min(i.maxOutputTokens, i.summaryReserveTokens ?? SUMMARY_RESERVE_TOKENS);
  const effective = i.contextWindow - reserve;
  let threshold = effective - (i.bufferTokens ?? AUTOCOMPACT_BUFFER_TOKENS);
  const t = i.threshold;
  if (t && 'tokens' in t) threshold = t.tokens;
  else if (t && 'ratio' in t) threshold = Math.floor(i.contextWindow * t.ratio);
  return {
    contextWindow: i.contextWindow,
    reserve,
    effective,
    threshold,
    // A threshold smaller than the offset gets no separate warning level.
    warning: threshold - (i.warningOffsetTokens ?? WARNING_OFFSET_TOKENS) > 0 ? threshold - (i.warningOffsetTokens ?? WARNING_OFFSET_TOKENS) : threshold,
    blocking: effective - (i.blockingOffsetTokens ?? BLOCKING_OFFSET_TOKENS),
  };
}
