/**
 * How far the token counter the replay uses is from the provider's own counts, on content both
 * have seen.
 *
 * The recordings lack the system prompt and tool schemas, so whole prompts cannot be compared.
 * What can: the growth of the prompt between two consecutive requests (bench/calibration/pairs.ts:
 * the previous reply, its tool results and any new prompt went in, earlier-turn thinking went out),
 * and each reply's content against its recorded `output_tokens`.
 */
import type { TokenCounter } from '../../lib/tokens/counter.js';
import { growthError, growthPairs, predictedGrowth } from '../calibration/pairs.js';
import type { Workload } from '../workloads/types.js';
import type { EstimateError } from './types.js';

export { MIN_GROWTH_FOR_ERROR } from '../calibration/pairs.js';

/** Compares `counter` with recorded usage; undefined when the workload carries no usage. */
export function estimateError(w: Workload, counter: TokenCounter): EstimateError | undefined {
  const { pairs } = growthPairs(w);
  let estOut = 0;
  let recOut = 0;
  let replies = 0;
  for (const s of w.steps) {
    if (s.usage && s.usage.output > 0 && s.reply.length) {
      for (const b of s.reply) estOut += counter.block(b, false);
      recOut += s.usage.output;
      replies++;
    }
  }
  if (!pairs.length && !replies) return undefined;
  const e = growthError(pairs, pairs.map((p) => predictedGrowth(p, (b, first) => counter.block(b, first))));
  return {
    counter: counter.name,
    pairs: e.pairs,
    inputRatio: e.ratio,
    inputMedianAbsError: e.medianAbsError,
    replies,
    outputRatio: recOut > 0 ? estOut / recOut : NaN,
  };
}
