/**
 * Matching one Bash rule specifier against the canonical text of a command part:
 * - exact: `npm test` matches only `npm test`;
 * - legacy prefix `cmd:*`: the text is the prefix, or the prefix followed by a space and anything
 *   (`git:*` matches `git add .`, never `gitk`);
 * - wildcard: `*` matches any run of characters, `\*` a literal star; a pattern whose only star is a
 *   trailing ` *` also matches the bare command (`git *` matches `git`).
 * Exact and prefix specifiers are themselves parsed as shell words, so `Bash(git commit -m "x")`
 * and the command `git commit -m 'x'` have the same canonical text.
 */
import type { RiskyOption } from './options.js';
import { parseCommand } from './parse.js';
import type { ShellWord } from './words.js';

export type ShellMatcher = (
  | { kind: 'exact'; text: string }
  | { kind: 'prefix'; prefix: string }
  | { kind: 'wildcard'; pattern: string; re: RegExp }
) & {
  /**
   * How many leading words of a matching command the rule writes out literally (all of them for
   * an exact rule; the prefix's words; the words before a wildcard's first `*`). Risky options
   * (shell/options.ts) are covered only inside these words.
   */
  literalWords: number;
  /** The literal text of a wildcard pattern, for options written after its first `*`. */
  literal?: string;
};

const ESCAPED_STAR = '\u0001';
const ESCAPED_BACKSLASH = '\u0002';

/** The canonical text of a rule's command words, or the trimmed text when it is not one simple command. */
function canonicalSpec(spec: string): string {
  const parsed = parseCommand(spec);
  if (parsed.ok && parsed.parts.length === 1 && parsed.parts[0]!.allow !== undefined && !parsed.parts[0]!.writes.length) return parsed.parts[0]!.allow;
  return spec.trim().replace(/\s+/g, ' ');
}

/** Words in canonical text (words.ts quotes a word with spaces in single quotes, `'` as `'\\''`). */
function countWords(canonicalText: string): number {
  const t = canonicalText.trim();
  if (!t) return 0;
  let n = 1;
  let quoted = false;
  for (const ch of t) {
    if (ch === "'") quoted = !quoted;
    else if (ch === ' ' && !quoted) n++;
  }
  return n;
}

/** Compiles a Bash rule specifier (the text inside `Bash(…)`). */
export function compileShellSpec(spec: string): ShellMatcher {
  const prefix = /^([\s\S]+):\*$/.exec(spec);
  if (prefix) {
    const p = canonicalSpec(prefix[1]!);
    return { kind: 'prefix', prefix: p, literalWords: countWords(p) };
  }
  const marked = spec.replace(/\\\\/g, ESCAPED_BACKSLASH).replace(/\\\*/g, ESCAPED_STAR);
  if (!marked.includes('*')) return { kind: 'exact', text: canonicalSpec(spec), literalWords: Infinity };
  const stars = marked.split('*').length - 1;
  const trimmed = marked.trim();
  const optionalTail = stars === 1 && trimmed.endsWith(' *');
  const body = optionalTail ? trimmed.slice(0, -2) : trimmed;
  const source = body.split('*').map((piece) => piece
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replaceAll(ESCAPED_STAR, '\\*')
    .replaceAll(ESCAPED_BACKSLASH, '\\\\')).join('[\\s\\S]*');
  // Whole words before the first star: `git add *` writes out two, `npm run*` one.
  const head = trimmed.slice(0, trimmed.indexOf('*'));
  const literalWords = head.endsWith(' ') ? countWords(head) : Math.max(0, countWords(head) - 1);
  return { kind: 'wildcard', pattern: spec, re: new RegExp(`^${source}${optionalTail ? '(?: [\\s\\S]*)?' : ''}$`), literalWords, literal: marked.replaceAll(ESCAPED_STAR, '*').replaceAll(ESCAPED_BACKSLASH, '\\') };
}

/**
 * True when rule `m`, which matches a part, also covers its risky options: each is inside the
 * rule's literal words, or written in a wildcard pattern's text. `outside(w)` says whether a path
 * option's value leaves the working directories (such options are risky only then).
 */
export function coversRisky(m: ShellMatcher, risky: readonly RiskyOption[] | undefined, outside: (value: ShellWord) => boolean): boolean {
  if (!risky) return true;
  return risky.every((r) => r.index < m.literalWords || (m.literal !== undefined && m.literal.includes(r.text)) || (r.path !== undefined && !outside(r.path)));
}

/** True when the canonical command text `text` matches the compiled specifier. */
export function matchShell(m: ShellMatcher, text: string): boolean {
  switch (m.kind) {
    case 'exact': return text === m.text;
    case 'prefix': return text === m.prefix || text.startsWith(`${m.prefix} `);
    case 'wildcard': return m.re.test(text);
  }
}
