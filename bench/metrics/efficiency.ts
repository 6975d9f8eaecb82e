/**
 * Cost and cache efficiency of requests.
 *
 * **Cache efficiency** = Σ ideal input cost / Σ actual input cost over a run's requests, where both
 * sides are computed from usage alone, so recordings (whose requests are not in the file) and
 * replays are measured by the same formula. Output tokens do not depend on caching and are left out.
 *
 * Actual input cost: uncached input + 0.1× cache read + 1.25× 5-minute write + 2× 1-hour write, at
 * the model's input price (Anthropic's prompt-caching prices, lib/pricing.ts).
 *
 * Ideal input cost, per request of one thread (the main conversation, one subagent, the summary
 * requests, ...), with P its prompt tokens and R its cache read:
 * - seen S = min(P, max(P of the previous request of the thread, R)): the prompt is taken to extend
 *   the previous one, and what the cache returned was sent before (by this thread or another);
 *   a prompt rewritten by a compaction or a clearing therefore counts as seen, so every rewrite
 *   is a loss, whoever caused it;
 * - of the rest, the part the next request of the thread sends again (up to its S) is written once
 *   at 1.25×, and the part never sent again is billed once at 1× (not caching it is cheapest);
 * - ideal = 0.1× S + 1.25× re-sent + 1× sent once, TTL ignored, and never more than the request's
 *   actual cost (a read of a prefix another thread cached can beat the ideal's write).
 * So the ratio is at most 1 by construction: 1 is a run that paid nothing for caching beyond the
 * unavoidable first write. A cache that expired during an idle gap is a loss only a longer TTL
 * avoids; `bench/presets/ttl-1h.yaml` is that comparison row.
 */
import { CACHE_READ_MULTIPLIER, CACHE_WRITE_1H_MULTIPLIER, CACHE_WRITE_5M_MULTIPLIER, costUsd, priceFor } from '../../lib/pricing.js';

/** Input-side usage of one request, tokens. */
export interface InputUsage {
  input: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  output: number;
}

const M = 1_000_000;

/** Full cost of a request, USD (lib/pricing.ts rates, long-context rates included). */
export function requestCost(model: string, u: InputUsage): number {
  return costUsd(model, {
    input_tokens: u.input,
    output_tokens: u.output,
    cache_read_input_tokens: u.cacheRead,
    cache_creation_input_tokens: u.cacheWrite5m + u.cacheWrite1h,
    cache_creation: { ephemeral_5m_input_tokens: u.cacheWrite5m, ephemeral_1h_input_tokens: u.cacheWrite1h },
  }).usd;
}

/** Input-side cost as billed at base rates, USD: input + 0.1× read + 1.25× 5m write + 2× 1h write. */
export function actualInputCost(model: string, u: InputUsage): number {
  const p = priceFor(model).price.input;
  return (p * (u.input + CACHE_READ_MULTIPLIER * u.cacheRead + CACHE_WRITE_5M_MULTIPLIER * u.cacheWrite5m + CACHE_WRITE_1H_MULTIPLIER * u.cacheWrite1h)) / M;
}

/** What the ideal needs of a request: its thread, model, prompt, cache read and actual input cost. */
export interface IdealInput {
  /** Requests with the same thread key form one conversation (the request `source` for replays). */
  source: string;
  model: string;
  promptTokens: number;
  cacheRead: number;
  inputCostUsd: number;
  /** Set by `applyIdealCosts`. */
  seenTokens: number;
  /** Set by `applyIdealCosts`. */
  idealInputCostUsd: number;
}

/**
 * Fills `seenTokens` and `idealInputCostUsd` of every request (in run order), thread by thread, by
 * the definition in the module comment.
 */
export function applyIdealCosts(requests: readonly IdealInput[]): void {
  const byThread = new Map<string, IdealInput[]>();
  for (const r of requests) {
    let t = byThread.get(r.source);
    if (!t) { t = []; byThread.set(r.source, t); }
    t.push(r);
  }
  for (const thread of byThread.values()) {
    let prevPrompt = 0;
    for (const r of thread) {
      r.seenTokens = Math.min(r.promptTokens, Math.max(prevPrompt, r.cacheRead));
      prevPrompt = r.promptTokens;
    }
    thread.forEach((r, i) => {
      const next = thread[i + 1]?.seenTokens ?? 0;
      const resent = Math.max(0, Math.min(r.promptTokens, next) - r.seenTokens);
      const once = r.promptTokens - r.seenTokens - resent;
      const p = priceFor(r.model).price.input;
      const ideal = (p * (CACHE_READ_MULTIPLIER * r.seenTokens + CACHE_WRITE_5M_MULTIPLIER * resent + once)) / M;
      r.idealInputCostUsd = Math.min(ideal, r.inputCostUsd);
    });
  }
}

/** Σ ideal / Σ actual over requests; 1 when nothing was billed. Never above 1 (see the module comment). */
export function efficiencyOf(requests: ReadonlyArray<{ inputCostUsd: number; idealInputCostUsd: number }>): number {
  let actual = 0;
  let ideal = 0;
  for (const r of requests) { actual += r.inputCostUsd; ideal += r.idealInputCostUsd; }
  return actual > 0 ? ideal / actual : 1;
}

/** The definition in one sentence, for reports. */
export const EFFICIENCY_DEFINITION =
  'Cache efficiency = ideal / actual input cost, from usage alone, the same for recordings and replays: ' +
  'the ideal reads at 0.1× what an earlier request of the thread sent or the cache returned, writes once at 1.25× what the next request sends again, ' +
  'and bills the rest once at 1× (TTL ignored, never above the actual cost, so the ratio is at most 1)';
