/**
 * Per-model facts the simulator needs: the minimum cacheable prefix length and the context window.
 * Model ids match by prefix, longest first, so date-suffixed ids behave like their alias.
 */
import { acceptsLongContext, CONTEXT_1M_BETA, LONG_CONTEXT_MODELS, LONG_CONTEXT_WINDOW, STANDARD_CONTEXT_WINDOW } from '../lib/index.js';

/**
 * Minimum cacheable prefix, tokens, by model-id prefix. A breakpoint whose prefix is shorter is
 * ignored: no write, no read, no error (platform.claude.com/docs prompt-caching, "Cache
 * limitations"; per-model figures from the orq.ai docs and the clawdemy cheatsheet):
 * Opus 4.5/4.6/4.7 and Haiku 4.5 = 4,096; Sonnet 4.5, Sonnet 4, Sonnet 3.7, Opus 4/4.1 = 1,024;
 * Haiku 3/3.5 = 2,048. Sonnet 4.6 = 2,048: sources disagree (1,024 in the cookbook), 2,048 is what
 * was observed on the wire. Override per simulator with `minCacheableTokens`.
 */
export const MIN_CACHEABLE_TOKENS: readonly (readonly [prefix: string, tokens: number])[] = Object.freeze([
  ['claude-opus-4-7', 4096],
  ['claude-opus-4-6', 4096],
  ['claude-opus-4-5', 4096],
  ['claude-haiku-4-5', 4096],
  ['claude-sonnet-4-6', 2048],
  ['claude-3-5-haiku', 2048],
  ['claude-3-haiku', 2048],
  ['claude-sonnet-4-5', 1024],
  ['claude-sonnet-4', 1024],
  ['claude-3-7-sonnet', 1024],
  ['claude-opus-4-1', 1024],
  ['claude-opus-4', 1024],
] as const).slice().sort((a, b) => b[0].length - a[0].length);

/** Minimum used for a model the table does not know, tokens (the Sonnet/Opus 4 figure). */
export const DEFAULT_MIN_CACHEABLE_TOKENS = 1024;

/** The minimum cacheable prefix of `model`, tokens. */
export function minCacheableTokens(model: string): number {
  for (const [prefix, tokens] of MIN_CACHEABLE_TOKENS) if (model.startsWith(prefix)) return tokens;
  return DEFAULT_MIN_CACHEABLE_TOKENS;
}

export { CONTEXT_1M_BETA, LONG_CONTEXT_MODELS, LONG_CONTEXT_WINDOW };

/** Standard context window, tokens (platform.claude.com/docs "Context windows"). */
export const DEFAULT_CONTEXT_WINDOW = STANDARD_CONTEXT_WINDOW;

/** The context window of `model` given the request's betas, tokens. */
export function contextWindow(model: string, betas: ReadonlySet<string>): number {
  if (betas.has(CONTEXT_1M_BETA) && acceptsLongContext(model)) return LONG_CONTEXT_WINDOW;
  return DEFAULT_CONTEXT_WINDOW;
}

/**
 * Models that keep the thinking blocks of earlier assistant turns in their context by default:
 * Claude Opus 4.5 and later Opus models, Sonnet 4.6 and later, and the generations after them
 * (https://platform.claude.com/docs/en/build-with-claude/extended-thinking, "Thinking block
 * preservation in Claude Opus 4.5 and later"; per-model table at
 * https://platform.claude.com/docs/en/build-with-claude/thinking#thinking-block-preservation-by-model).
 * Earlier models (Sonnet 4.5, Sonnet 4, Opus 4/4.1, Sonnet 3.7) and the Haiku models drop them: only
 * the thinking of the assistant turn in progress stays in context
 * (https://platform.claude.com/docs/en/build-with-claude/context-windows, "the context window with
 * extended thinking").
 */
export const KEEPS_EARLIER_THINKING: readonly string[] = Object.freeze([
  'claude-opus-4-5', 'claude-opus-4-6', 'claude-opus-4-7', 'claude-opus-4-8', 'claude-opus-5',
  'claude-sonnet-4-6', 'claude-sonnet-5', 'claude-fable', 'claude-mythos',
]);

/** Models known to drop earlier-turn thinking (the rest of the Claude 3.7 and 4 families, every Haiku). */
export const DROPS_EARLIER_THINKING: readonly string[] = Object.freeze([
  'claude-sonnet-4-5', 'claude-sonnet-4', 'claude-opus-4-1', 'claude-opus-4', 'claude-3-7-sonnet', 'claude-haiku', 'claude-3',
]);

/**
 * True when `model` keeps earlier-turn thinking blocks by default. Matching is by id prefix,
 * longest first; a model neither list knows is taken to be newer, and newer models keep them.
 */
export function keepsEarlierThinking(model: string): boolean {
  let best = '';
  let keep = true;
  for (const p of KEEPS_EARLIER_THINKING) if (model.startsWith(p) && p.length > best.length) { best = p; keep = true; }
  for (const p of DROPS_EARLIER_THINKING) if (model.startsWith(p) && p.length > best.length) { best = p; keep = false; }
  return keep;
}
