/**
 * The 1M-token context window: which models accept it and the beta that turns it on
 * (https://platform.claude.com/docs/en/build-with-claude/context-windows, "1M token context window").
 * Requests past 200,000 input tokens are billed at long-context rates (lib/pricing.ts).
 */

/** The beta that turns on the 1M-token window. */
export const CONTEXT_1M_BETA = 'context-1m-2025-08-07';

/** Standard context window, tokens. */
export const STANDARD_CONTEXT_WINDOW = 200_000;

/** Context window with the beta, tokens. */
export const LONG_CONTEXT_WINDOW = 1_000_000;

/** Models that accept the 1M-token window beta (by id prefix). */
export const LONG_CONTEXT_MODELS: readonly string[] = Object.freeze([
  'claude-sonnet-4', 'claude-opus-4-6', 'claude-opus-4-7', 'claude-opus-4-8',
]);

/** True when `model` accepts the 1M-token window. */
export function acceptsLongContext(model: string): boolean {
  return LONG_CONTEXT_MODELS.some((p) => model.startsWith(p));
}

/**
 * The beta a request for a `contextWindow`-token window on `model` needs: CONTEXT_1M_BETA past the
 * standard 200k on a model that accepts the 1M window, else undefined (the kernel's
 * `longContextBeta` service).
 */
export function longContextBeta(model: string, contextWindow: number): string | undefined {
  return contextWindow > STANDARD_CONTEXT_WINDOW && acceptsLongContext(model) ? CONTEXT_1M_BETA : undefined;
}
