/**
 * Unicode sanitisation for text that crosses a trust boundary (MCP results, fetched pages, hook
 * output): normalise to NFKC, then remove format (Cf), private-use (Co) and
 * unassigned (Cn) characters, plus the zero-width, bidi-control and BOM ranges; repeat until the
 * text stops changing, at most 10 passes. This removes invisible instructions such as Unicode
 * Tag characters (U+E0000–U+E007F), which a model reads and a person does not see.
 */

/** Most passes (Claude Code's MAX_ITERATIONS = 10). */
export const MAX_SANITIZE_PASSES = 10;

/**
 * Made on first use, not when the module loads: V8 parses a pattern when it makes the RegExp, and
 * resolving these Unicode property classes from ICU is work a run does not need before its first
 * request.
 */
let invisible: RegExp | undefined;

/** What one sanitisation did. */
export interface SanitizeResult {
  text: string;
  /** Characters removed or folded, counted as the length difference (UTF-16 code units). */
  removed: number;
  /** Passes run (1 when the text was already clean). */
  passes: number;
}

/** Sanitises one string. */
export function sanitizeText(input: string, maxPasses = MAX_SANITIZE_PASSES): SanitizeResult {
  let text = input;
  let passes = 0;
  while (passes < maxPasses) {
    passes++;
    invisible ??= /[\p{Cf}\p{Co}\p{Cn}\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF\uE000-\uF8FF]/gu;
    const next = text.normalize('NFKC').replace(invisible, '');
    if (next === text) break;
    text = next;
  }
  return { text, removed: Math.max(0, input.length - text.length), passes };
}

/** Sanitises strings inside any JSON-like value: array items, and object keys as well as values. */
export function sanitizeDeep<T>(value: T, maxPasses = MAX_SANITIZE_PASSES): T {
  if (typeof value === 'string') return sanitizeText(value, maxPasses).text as T;
  if (Array.isArray(value)) return value.map((v) => sanitizeDeep(v, maxPasses)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[sanitizeText(k, maxPasses).text] = sanitizeDeep(v, maxPasses);
    return out as T;
  }
  return value;
}
