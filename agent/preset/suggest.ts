/**
 * "Did you mean" for unknown keys, plugin names, enum values and tool names.
 */
import { distance } from 'fastest-levenshtein';

/** True when `a` is `b` with two adjacent characters swapped (`modle` / `model`): one typo, not two. */
function isTransposition(a: string, b: string): boolean {
  if (a.length !== b.length || a === b) return false;
  let i = 0;
  while (a[i] === b[i]) i++;
  return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}

/**
 * The candidate closest to `word`, or undefined when none is close enough. Close enough: a
 * case-insensitive match, or an edit distance (a swap of two adjacent letters counting as one edit)
 * of at most a third of the longer word (min 1, max 3), so `modle` → `model` but `base` suggests nothing.
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDist = Infinity;
  for (const c of candidates) {
    if (c === word) continue;
    if (c.toLowerCase() === lower) return c;
    const d = isTransposition(lower, c.toLowerCase()) ? 1 : distance(lower, c.toLowerCase());
    if (d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.min(3, Math.max(1, Math.floor(Math.max(word.length, best.length) / 3)));
  return bestDist <= limit ? best : undefined;
}

/** `; did you mean "x"?` or ''. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const c = closest(word, candidates);
  return c === undefined ? '' : `; did you mean "${c}"?`;
}
