/**
 * How far rein's token estimate (kernel/tokens/estimate.ts, characters per token) is from the
 * provider's own count, on content both have seen.
 *
 * The recordings lack the system prompt and tool schemas, so whole prompts cannot be compared. What
 * can: the growth of the prompt between two consecutive requests (the previous reply, its tool
 * results and any new prompt went in, nothing else changed when no compaction happened between),
 * and each reply's content against its recorded `output_tokens`.
 */
import { estimateBlockTokens } from '../../kernel/tokens/estimate.js';
import { promptTokens, type Workload } from '../workloads/types.js';
import type { EstimateError } from './types.js';

/** Recorded growth below this is too noisy for a relative error (tokens). */
export const MIN_GROWTH_FOR_ERROR = 200;

function sumBlocks(blocks: readonly unknown[]): number {
  let n = 0;
  for (const b of blocks) n += estimateBlockTokens(b);
  return n;
}

/** Compares estimates with recorded usage; undefined when the workload carries no usage. */
export function estimateError(w: Workload): EstimateError | undefined {
  let estGrowth = 0;
  let recGrowth = 0;
  let pairs = 0;
  const errors: number[] = [];
  let estOut = 0;
  let recOut = 0;
  let replies = 0;
  for (let i = 0; i < w.steps.length; i++) {
    const s = w.steps[i]!;
    if (s.usage && s.usage.output > 0 && s.reply.length) {
      estOut += sumBlocks(s.reply);
      recOut += s.usage.output;
      replies++;
    }
    if (i === 0) continue;
    const p = w.steps[i - 1]!;
    if (!s.usage || !p.usage || s.compactionBefore) continue;
    const rec = promptTokens(s.usage) - promptTokens(p.usage);
    if (rec <= 0) continue; // the client dropped content (thinking, a rewrite): not a like-for-like pair
    const est = sumBlocks(p.reply) + sumBlocks(p.toolResults.map((r) => ({ type: 'tool_result', tool_use_id: r.toolUseId, content: r.content }))) + sumBlocks((s.prompt ?? []).map((x) => x.block));
    estGrowth += est;
    recGrowth += rec;
    pairs++;
    if (rec >= MIN_GROWTH_FOR_ERROR) errors.push(Math.abs(est - rec) / rec);
  }
  if (!pairs && !replies) return undefined;
  errors.sort((a, b) => a - b);
  return {
    pairs,
    inputRatio: recGrowth > 0 ? estGrowth / recGrowth : NaN,
    inputMedianAbsError: errors.length ? errors[Math.floor(errors.length / 2)]! : NaN,
    replies,
    outputRatio: recOut > 0 ? estOut / recOut : NaN,
  };
}
