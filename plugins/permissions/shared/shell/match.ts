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
import { parseCommand } from './parse.js';

export type ShellMatcher =
  | { kind: 'exact'; text: string }
  | { kind: 'prefix'; prefix: string }
  | { kind: 'wildcard'; pattern: string; re: RegExp };

const ESCAPED_STAR = '\u0001';
const ESCAPED_BACKSLASH = '\u0002';

/** The canonical text of a rule's command words, or the trimmed text when it is not one simple command. */
function canonicalSpec(spec: string): string {
  const parsed = parseCommand(spec);
  if (parsed.ok && parsed.parts.length === 1 && parsed.parts[0]!.allow !== undefined && !parsed.parts[0]!.writes.length) return parsed.parts[0]!.allow;
  return spec.trim().replace(/\s+/g, ' ');
}

/** Compiles a Bash rule specifier (the text inside `Bash(…)`). */
export function compileShellSpec(spec: string): ShellMatcher {
  const prefix = /^([\s\S]+):\*$/.exec(spec);
  if (prefix) return { kind: 'prefix', prefix: canonicalSpec(prefix[1]!) };
  const marked = spec.replace(/\\\\/g, ESCAPED_BACKSLASH).replace(/\\\*/g, ESCAPED_STAR);
  if (!marked.includes('*')) return { kind: 'exact', text: canonicalSpec(spec) };
  const stars = marked.split('*').length - 1;
  const trimmed = marked.trim();
  const optionalTail = stars === 1 && trimmed.endsWith(' *');
  const body = optionalTail ? trimmed.slice(0, -2) : trimmed;
  const source = body.split('*').map((piece) => piece
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replaceAll(ESCAPED_STAR, '\\*')
    .replaceAll(ESCAPED_BACKSLASH, '\\\\')).join('[\\s\\S]*');
  return { kind: 'wildcard', pattern: spec, re: new RegExp(`^${source}${optionalTail ? '(?: [\\s\\S]*)?' : ''}$`) };
}

/** True when the canonical command text `text` matches the compiled specifier. */
export function matchShell(m: ShellMatcher, text: string): boolean {
  switch (m.kind) {
    case 'exact': return text === m.text;
    case 'prefix': return text === m.prefix || text.startsWith(`${m.prefix} `);
    case 'wildcard': return m.re.test(text);
  }
}
