/**
 * Helpers for model clients that turn an HTTP failure into the kernel's `ApiError`: the
 * `retry-after` header and the API's "prompt is too long" 400
 * (https://docs.anthropic.com/en/api/errors).
 */

/** Parses a `retry-after` header (seconds, or an HTTP date) into ms. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** True for the API's 400 "prompt is too long" (Claude Code: `prompt_too_long`). */
export function isPromptTooLong(status: number | undefined, message: string): boolean {
  return (status === 400 || status === 413) && /prompt is too long|too many tokens|context.{0,20}(window|length)/i.test(message);
}
