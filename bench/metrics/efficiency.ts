/**
 * Cost and cache efficiency of requests.
 *
 * Cache efficiency is the input-side cost of the cheapest caching of the same request sequence
 * divided by the actual input-side cost. Ideal: every prompt token is written once (at the 5-minute
 * write price, 1.25× input) the first time it is sent and read (0.1×) every time after, whatever
 * the gap (TTL ignored). Actual: uncached input + 0.1× cache read + 1.25× 5-minute write + 2×
 * 1-hour write. Multipliers: Anthropic's prompt-caching pricing (kernel/pricing.ts). Output tokens
 * do not depend on caching and are left out of both sides.
 *
 * "Sent before" needs the content of the requests. A replay has it: the longest prefix of the
 * request (by the simulator's prefix hashes, tools → system → messages) that an earlier request of
 * the run sent. A recording has only usage; there the prompt is taken to extend the previous one,
 * so the seen part is min(prompt, max(previous prompt, cache read)) — the cache read covers
 * prefixes cached by other sessions.
 *
 * The ratio can exceed 1 when tokens after the last breakpoint stay uncached (billed 1×, below the
 * ideal's 1.25× write) and are never sent again.
 */
import { CACHE_READ_MULTIPLIER, CACHE_WRITE_1H_MULTIPLIER, CACHE_WRITE_5M_MULTIPLIER, costUsd, priceFor } from '../../kernel/pricing.js';

/** Input-side usage of one request, tokens. */
export interface InputUsage {
  input: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  output: number;
}

const M = 1_000_000;

/** Full cost of a request, USD (kernel/pricing.ts rates, long-context rates included). */
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

/** Input-side cost with ideal caching, USD: seen tokens read at 0.1×, the rest written at 1.25×. */
export function idealInputCost(model: string, promptTokens: number, seenTokens: number): number {
  const p = priceFor(model).price.input;
  const seen = Math.max(0, Math.min(seenTokens, promptTokens));
  return (p * (CACHE_READ_MULTIPLIER * seen + CACHE_WRITE_5M_MULTIPLIER * (promptTokens - seen))) / M;
}

/** Seen tokens of a recorded request from usage alone (see the module comment). */
export function seenFromUsage(promptTokens: number, previousPrompt: number, cacheRead: number): number {
  return Math.min(promptTokens, Math.max(previousPrompt, cacheRead));
}

/**
 * Tracks which prompt prefixes a run has sent, to find each request's seen tokens. Prefix hashes
 * chain (each covers everything before it), so when a block's hash was sent before, so was every
 * block before it: a request's seen part ends at its last block whose hash is known.
 */
export class SeenPrefixes {
  private readonly seen = new Set<string | number>();

  /** Seen tokens of a request given its blocks (hash and running token total), then records them. */
  observe(blocks: ReadonlyArray<{ hash: string | number; prefixTokens: number }>): number {
    let hit = -1;
    for (let i = blocks.length - 1; i >= 0; i--) {
      if (this.seen.has(blocks[i]!.hash)) { hit = i; break; }
    }
    for (let i = hit + 1; i < blocks.length; i++) this.seen.add(blocks[i]!.hash);
    return hit >= 0 ? blocks[hit]!.prefixTokens : 0;
  }
}

/** Σ ideal / Σ actual over requests; 1 when nothing was billed. */
export function efficiencyOf(requests: ReadonlyArray<{ inputCostUsd: number; idealInputCostUsd: number }>): number {
  let actual = 0;
  let ideal = 0;
  for (const r of requests) { actual += r.inputCostUsd; ideal += r.idealInputCostUsd; }
  return actual > 0 ? ideal / actual : 1;
}
