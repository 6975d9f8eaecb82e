/**
 * Growth pairs: what the provider's usage says about token counts.
 *
 * Between two consecutive requests of one recorded thread, the prompt total (input + cache read +
 * cache write) grows by exactly the tokens of what entered the context in between: the previous
 * reply (a new assistant message), its tool results (a new user message) and any new prompt (a new
 * user message), less the thinking blocks the API stops counting at that request (models that drop
 * earlier-turn thinking, see `keepsEarlierThinking`). Each pair is such a (content, tokens)
 * observation; the token counter is fitted on them and checked against them.
 *
 * Pairs that say nothing about token counts are left out, with the reason: a compaction between the
 * two requests, a request without usage, and a prompt that fell by more than `RESET_DROP` at a turn
 * start (the client cleared the context or rewrote old content, which the recording does not show).
 */
import { keepsEarlierThinking } from '../../simulator/models.js';
import type { ContentBlock } from '../../kernel/types.js';
import { promptTokens, type Workload, type WorkloadStep } from '../workloads/types.js';

/** A block as it enters the request, and whether it opens a message (the per-message constant). */
export interface PairBlock {
  block: unknown;
  first: boolean;
}

export interface GrowthPair {
  workload: string;
  /** Index of the later request's step. */
  step: number;
  model: string;
  /** The later request starts a turn (it carries a prompt). */
  turnStart: boolean;
  /** Recorded growth of the prompt total, tokens (negative when thinking was dropped). */
  growth: number;
  /** Blocks that entered the context between the two requests. */
  added: PairBlock[];
  /** Thinking blocks the API stopped counting at the later request. */
  dropped: unknown[];
}

export interface PairSet {
  pairs: GrowthPair[];
  /** Pairs left out, by reason. */
  excluded: Record<string, number>;
}

/** A turn-start prompt that fell below this share of the previous one was cleared by the client. */
export const RESET_DROP = 0.7;

/** The tool_result blocks of a step's recorded results, as the replay sends them. */
export function resultBlocks(step: WorkloadStep): ContentBlock[] {
  return step.toolResults.map((r) => ({ type: 'tool_result', tool_use_id: r.toolUseId, content: r.content, ...(r.isError ? { is_error: true } : {}) }) as ContentBlock);
}

function asMessage(blocks: readonly unknown[]): PairBlock[] {
  return blocks.map((block, i) => ({ block, first: i === 0 }));
}

/** Growth pairs of one workload (a recorded thread), with the ones left out counted by reason. */
export function growthPairs(w: Workload): PairSet {
  const pairs: GrowthPair[] = [];
  const excluded: Record<string, number> = {};
  const skip = (reason: string) => { excluded[reason] = (excluded[reason] ?? 0) + 1; };
  // Thinking blocks of the turn in progress: dropped when the next turn starts (models that drop them).
  let turnThinking: unknown[] = [];
  for (let i = 1; i < w.steps.length; i++) {
    const s = w.steps[i]!;
    const p = w.steps[i - 1]!;
    if (p.prompt || p.compactionBefore) turnThinking = [];
    for (const b of p.reply) if (b.type === 'thinking' || b.type === 'redacted_thinking') turnThinking.push(b);
    if (s.compactionBefore) { skip('compaction between the requests'); turnThinking = []; continue; }
    if (!s.usage || !p.usage) { skip('a request without usage'); continue; }
    const growth = promptTokens(s.usage) - promptTokens(p.usage);
    const turnStart = s.prompt !== undefined;
    if (turnStart && promptTokens(s.usage) < RESET_DROP * promptTokens(p.usage)) { skip('context cleared by the client'); continue; }
    const added: PairBlock[] = [...asMessage(p.reply)];
    if (p.toolResults.length) added.push(...asMessage(resultBlocks(p)));
    if (s.prompt?.length) added.push(...asMessage(s.prompt.map((x) => x.block)));
    const dropped = turnStart && !keepsEarlierThinking(s.model) ? turnThinking : [];
    pairs.push({ workload: w.name, step: s.index, model: s.model, turnStart, growth, added, dropped });
  }
  return { pairs, excluded };
}

/** Growth a counter predicts for a pair, tokens. */
export function predictedGrowth(pair: GrowthPair, count: (block: unknown, first: boolean) => number): number {
  let n = 0;
  for (const a of pair.added) n += count(a.block, a.first);
  for (const d of pair.dropped) n -= count(d, false);
  return n;
}

/** Recorded growth below this is too small for a relative error to mean much, tokens. */
export const MIN_GROWTH_FOR_ERROR = 200;

/** How far predictions are from the recorded growth over a set of pairs. */
export interface GrowthError {
  pairs: number;
  /** Σ predicted / Σ recorded growth (1 = exact on aggregate). */
  ratio: number;
  /** Median |predicted − recorded| / recorded over pairs with recorded growth ≥ MIN_GROWTH_FOR_ERROR. */
  medianAbsError: number;
}

/** Aggregate ratio and median relative error of predictions against the recorded growth. */
export function growthError(pairs: readonly GrowthPair[], predicted: readonly number[]): GrowthError {
  let p = 0;
  let r = 0;
  const errors: number[] = [];
  pairs.forEach((pair, i) => {
    p += predicted[i]!;
    r += pair.growth;
    if (pair.growth >= MIN_GROWTH_FOR_ERROR) errors.push(Math.abs(predicted[i]! - pair.growth) / pair.growth);
  });
  errors.sort((a, b) => a - b);
  const mid = errors.length ? (errors.length % 2 ? errors[(errors.length - 1) / 2]! : (errors[errors.length / 2 - 1]! + errors[errors.length / 2]!) / 2) : NaN;
  return { pairs: pairs.length, ratio: r !== 0 ? p / r : NaN, medianAbsError: mid };
}
