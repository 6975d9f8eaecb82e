/**
 * Builders of exact-size request parts for the simulator's tests and benchmark: with the
 * estimator's rules (text = bytes/4, JSON = bytes/2) each helper makes a block of exactly the
 * requested number of tokens, so expected usage can be written down by hand.
 */
import { estimateBlockTokens, estimateToolTokens } from '../lib/index.js';

export type CC = { type: 'ephemeral'; ttl?: '5m' | '1h' };
export const EPHEMERAL: CC = { type: 'ephemeral' };
export const ONE_HOUR: CC = { type: 'ephemeral', ttl: '1h' };

/** A text block of exactly `tokens` tokens, filled with `fill` (ASCII). */
export function text(tokens: number, fill = 'a', cache_control?: CC): { type: 'text'; text: string; cache_control?: CC } {
  const b = { type: 'text' as const, text: fill.repeat(tokens * 4).slice(0, tokens * 4), ...(cache_control ? { cache_control } : {}) };
  if (estimateBlockTokens(b) !== tokens) throw new Error(`text(${tokens}) is ${estimateBlockTokens(b)} tokens`);
  return b;
}

/** A tool definition of exactly `tokens` tokens (its JSON is 2 × tokens bytes). */
export function tool(name: string, tokens: number, cache_control?: CC): Record<string, unknown> {
  const base = { name, description: '', input_schema: { type: 'object' } };
  const pad = 2 * tokens - JSON.stringify(base).length;
  if (pad < 0) throw new Error(`tool ${name} cannot be as small as ${tokens} tokens`);
  const t = { ...base, description: 'd'.repeat(pad), ...(cache_control ? { cache_control } : {}) };
  if (estimateToolTokens(t) !== tokens) throw new Error(`tool(${tokens}) is ${estimateToolTokens(t)} tokens`);
  return t;
}

/** Sets (or replaces) `cache_control` on a copy of a block. */
export function marked<T extends object>(block: T, cache_control: CC = EPHEMERAL): T & { cache_control: CC } {
  return { ...block, cache_control };
}

export function user(...content: object[]) {
  return { role: 'user' as const, content };
}

export function assistant(...content: object[]) {
  return { role: 'assistant' as const, content };
}
