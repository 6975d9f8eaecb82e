/**
 * Per-model prices of the Claude API, used to turn usage into dollars (run results, budgets, the
 * benchmark's cost columns).
 *
 * Source: Anthropic's pricing page (anthropic.com/pricing, "Claude API" table, and the pricing
 * section of platform.claude.com/docs "Prompt caching"), as listed in November 2025. Prompt-cache
 * multipliers of the base input price: 5-minute write 1.25×, 1-hour write 2×, read 0.1×. Models
 * released after that table (Opus 4.6+, Sonnet 4.6) are priced like their family's latest listed
 * member; update the table when the page changes.
 *
 * Model ids match by prefix, longest first, so date-suffixed ids (`claude-sonnet-4-5-20250929`)
 * and aliases (`claude-sonnet-4-5`) price the same.
 */

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Cache write with the 5-minute TTL (1.25 × input). */
  cacheWrite5m: number;
  /** Cache write with the 1-hour TTL (2 × input). */
  cacheWrite1h: number;
  /** Cache read (0.1 × input). */
  cacheRead: number;
}

/** Multipliers of the base input price (platform.claude.com/docs prompt-caching, "Pricing"). */
export const CACHE_WRITE_5M_MULTIPLIER = 1.25;
export const CACHE_WRITE_1H_MULTIPLIER = 2;
export const CACHE_READ_MULTIPLIER = 0.1;

/**
 * Above this many input tokens (input + cache write + cache read) in one request, models with
 * long-context pricing (Sonnet 4.x with the 1M-context beta) bill input at 2× and output at 1.5×
 * (pricing page, "Long context pricing").
 */
export const LONG_CONTEXT_THRESHOLD_TOKENS = 200_000;

/** Rounds to 1e-6 USD per MTok so derived prices print as listed (0.3, not 0.30000000000000004). */
const tidy = (x: number) => Math.round(x * 1e6) / 1e6;

function price(input: number, output: number): ModelPrice {
  return {
    input,
    output,
    cacheWrite5m: tidy(input * CACHE_WRITE_5M_MULTIPLIER),
    cacheWrite1h: tidy(input * CACHE_WRITE_1H_MULTIPLIER),
    cacheRead: tidy(input * CACHE_READ_MULTIPLIER),
  };
}

interface PriceEntry {
  prefix: string;
  family: string;
  price: ModelPrice;
  longContext?: boolean;
}

/** The table, USD per million tokens (input / output as listed; cache columns derived). */
export const PRICE_TABLE: readonly PriceEntry[] = Object.freeze([
  { prefix: 'claude-opus-4-8', family: 'opus-4.5+', price: price(5, 25) },
  { prefix: 'claude-opus-4-7', family: 'opus-4.5+', price: price(5, 25) },
  { prefix: 'claude-opus-4-6', family: 'opus-4.5+', price: price(5, 25) },
  { prefix: 'claude-opus-4-5', family: 'opus-4.5+', price: price(5, 25) },
  { prefix: 'claude-opus-4-1', family: 'opus-4', price: price(15, 75) },
  { prefix: 'claude-opus-4', family: 'opus-4', price: price(15, 75) },
  { prefix: 'claude-sonnet-4-6', family: 'sonnet-4', price: price(3, 15), longContext: true },
  { prefix: 'claude-sonnet-4-5', family: 'sonnet-4', price: price(3, 15), longContext: true },
  { prefix: 'claude-sonnet-4', family: 'sonnet-4', price: price(3, 15), longContext: true },
  { prefix: 'claude-3-7-sonnet', family: 'sonnet-3.7', price: price(3, 15) },
  { prefix: 'claude-haiku-4-5', family: 'haiku-4.5', price: price(1, 5) },
  { prefix: 'claude-3-5-haiku', family: 'haiku-3.5', price: price(0.8, 4) },
  { prefix: 'claude-3-haiku', family: 'haiku-3', price: price(0.25, 1.25) },
].sort((a, b) => b.prefix.length - a.prefix.length));

/** Prices used for a model the table does not know (Sonnet 4.x's). */
export const FALLBACK_PRICE: ModelPrice = price(3, 15);

export interface PriceLookup {
  price: ModelPrice;
  /** Family name from the table, or `unknown`. */
  family: string;
  /** false: the model is not in the table and Sonnet prices were used. */
  known: boolean;
  /** The family has long-context pricing above LONG_CONTEXT_THRESHOLD_TOKENS. */
  longContext: boolean;
}

/** Looks a model id up by prefix (longest match). Unknown ids get Sonnet prices and `known: false`. */
export function priceFor(model: string): PriceLookup {
  const id = model.replace(/\[1m\]$/i, '');
  for (const entry of PRICE_TABLE) {
    if (id.startsWith(entry.prefix)) {
      return { price: entry.price, family: entry.family, known: true, longContext: entry.longContext ?? false };
    }
  }
  return { price: FALLBACK_PRICE, family: 'unknown', known: false, longContext: false };
}

/** The usage fields that cost money (a subset of the API's `usage`), tokens. */
export interface BillableUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
}

export interface Cost {
  /** Total, USD. */
  usd: number;
  /** Per usage class, USD. */
  breakdown: { input: number; output: number; cacheWrite5m: number; cacheWrite1h: number; cacheRead: number };
  /** false: the model was unknown and Sonnet prices were used. */
  known: boolean;
  family: string;
  /** Long-context rates applied (more than 200,000 input tokens on a model that has them). */
  longContext: boolean;
}

/**
 * Cost of one response's usage, USD. When `cache_creation` (the 5m/1h split) is absent, every
 * cache-write token is billed at the 5-minute rate. Never throws; unknown models are flagged.
 */
export function costUsd(model: string, usage: BillableUsage): Cost {
  const lookup = priceFor(model);
  const write = usage.cache_creation_input_tokens ?? 0;
  const read = usage.cache_read_input_tokens ?? 0;
  const w1h = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  const w5m = usage.cache_creation ? (usage.cache_creation.ephemeral_5m_input_tokens ?? 0) : write;
  const totalInput = usage.input_tokens + write + read;
  const longContext = lookup.longContext && totalInput > LONG_CONTEXT_THRESHOLD_TOKENS;
  const inMul = longContext ? 2 : 1;
  const outMul = longContext ? 1.5 : 1;
  const p = lookup.price;
  const M = 1_000_000;
  const breakdown = {
    input: (usage.input_tokens * p.input * inMul) / M,
    output: (usage.output_tokens * p.output * outMul) / M,
    cacheWrite5m: (w5m * p.cacheWrite5m * inMul) / M,
    cacheWrite1h: (w1h * p.cacheWrite1h * inMul) / M,
    cacheRead: (read * p.cacheRead * inMul) / M,
  };
  const usd = breakdown.input + breakdown.output + breakdown.cacheWrite5m + breakdown.cacheWrite1h + breakdown.cacheRead;
  return { usd, breakdown, known: lookup.known, family: lookup.family, longContext };
}
