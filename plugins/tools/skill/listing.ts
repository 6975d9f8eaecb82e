/**
 * The skill listing the model sees: one line per skill, `- name: description`, within a budget of
 * 1% of the context window in characters. The listing is only for discovery (the Skill tool loads
 * the whole body when called), so long descriptions are cut rather than paid for on every request.
 *
 * Constants are Claude Code's (its Skill tool's prompt module): 1% of the window at 4 characters
 * per token (8,000 characters for a 200,000-token window), at most 250 characters per description,
 * and descriptions shorter than 20 characters are not worth keeping.
 */

/** Share of the context window the listing may take. */
export const SKILL_BUDGET_CONTEXT_PERCENT = 0.01;
/** Characters per token used to turn the share into characters. */
export const CHARS_PER_TOKEN = 4;
/** Longest description kept in a listing entry, characters. */
export const MAX_LISTING_DESC_CHARS = 250;
/** Below this many characters per description, the listing gives names only. */
export const MIN_LISTING_DESC_CHARS = 20;

/** The listing's budget, characters, for a context window of `contextWindow` tokens. */
export function listingBudget(contextWindow: number): number {
  return Math.floor(contextWindow * CHARS_PER_TOKEN * SKILL_BUDGET_CONTEXT_PERCENT);
}

export interface ListingEntry {
  name: string;
  description: string;
}

/**
 * The levels, tried in order: 1 full entries (each description capped at 250 characters), 2 every
 * description cut to the same length so the whole fits (when that length is at least 20), 3 names only.
 */
export type ListingLevel = 1 | 2 | 3;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

/** The entries' lines within `budget` characters (the lines and their newlines), and the level used. */
export function formatListing(entries: readonly ListingEntry[], budget: number): { lines: string; level: ListingLevel } {
  const full = entries.map((e) => `- ${e.name}: ${cut(e.description, MAX_LISTING_DESC_CHARS)}`).join('\n');
  if (full.length <= budget) return { lines: full, level: 1 };
  // Each entry costs `- name: ` plus its newline besides the description.
  const overhead = entries.reduce((n, e) => n + `- ${e.name}: `.length + 1, 0);
  const maxDesc = Math.floor((budget - overhead) / Math.max(1, entries.length));
  if (maxDesc >= MIN_LISTING_DESC_CHARS) {
    return { lines: entries.map((e) => `- ${e.name}: ${cut(e.description, Math.min(maxDesc, MAX_LISTING_DESC_CHARS))}`).join('\n'), level: 2 };
  }
  return { lines: entries.map((e) => `- ${e.name}`).join('\n'), level: 3 };
}

/** The names a listing text announces (for a resumed session: what the model was already told). */
export function listedNames(text: string): string[] {
  return [...text.matchAll(/^- ([^\s:]+(?::[^\s:]+)*?)(?::\s|$)/gm)].map((m) => m[1]!);
}
