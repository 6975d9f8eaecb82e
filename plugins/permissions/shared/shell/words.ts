/**
 * Shell words as rein sees them after parsing: the value the shell would pass to the program, with
 * any part that is only known at run time (a variable, a command substitution, arithmetic, brace
 * expansion) replaced by DYNAMIC.
 */
import type { Node } from './ast.js';

/**
 * Stands for text only known at run time. A rule's literal text never contains it, so a dynamic
 * part can only be covered by a rule's `*` or `:*` tail, never by its literal words.
 */
export const DYNAMIC = '\u0000';

export interface ShellWord {
  /** The word's value after quote removal, DYNAMIC where it is not known before run time. */
  value: string;
  /** True when some part is not known before run time. */
  dynamic: boolean;
  /** True when an unquoted `*`, `?` or `[` makes the word a filename pattern. */
  glob: boolean;
  /**
   * True when the word's first characters are known only at run time (it starts with an
   * expansion, a substitution or a pattern), so it may turn out to be an option (`-…`) or several
   * words. False when its start is literal, or comes from a source that cannot print a `-`.
   */
  lead?: boolean;
  /** Why a word is known only at run time, when the reason is not the word's own text (a `cd` earlier in the command). */
  why?: string;
}

/** Answers whether an expansion at the start of a word is known never to begin with `-` (see evalWord). */
export type LeadCheck = (part: Node) => boolean;

/** Removes backslash escapes from an unquoted literal (`\r\m` → `rm`, line continuations vanish). */
function unescapeBare(raw: string): string {
  return raw.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
}

/** Removes the escapes double quotes honour (`\$`, `` \` ``, `\"`, `\\`, `\<newline>`). */
function unescapeDouble(raw: string): string {
  return raw.replace(/\\\n/g, '').replace(/\\([$`"\\])/g, '$1');
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?',
};

/** Decodes `$'…'` (ANSI-C quoting). `exact` is false when an escape could not be decoded. */
export function decodeAnsiC(raw: string): { value: string; exact: boolean } {
  let exact = true;
  const value = raw.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (_m, e: string) => {
    const c = e[0]!;
    if (c === 'x' || c === 'u' || c === 'U') return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/[0-7]/.test(c)) return String.fromCharCode(parseInt(e, 8) & 0xff);
    if (c === 'c') { exact = false; return DYNAMIC; }
    if (c in SIMPLE_ESCAPES) return SIMPLE_ESCAPES[c]!;
    exact = false;
    return `\\${e}`;
  });
  return { value, exact };
}

/** True when an unquoted literal holds an unescaped glob character. */
function hasGlob(raw: string): boolean {
  return /[*?[]/.test(raw.replace(/\\./gs, ''));
}

/** True when an unquoted literal holds a brace expansion (`{a,b}`, `{1..3}`), whose word count is unknown. */
function hasBraceExpansion(raw: string): boolean {
  return /\{[^{}]*(,|\.\.)[^{}]*\}/.test(raw.replace(/\\./gs, ''));
}

/**
 * The word as bash's brace expansion sees it: unquoted text as written, each quoted part or
 * expansion as one neutral character (`Q`), or nothing when it is empty (`''`, `""`). Bash
 * expands braces before quote removal, and a brace expression may span quoted parts:
 * `{-e,'1e id'}` is the two words `-e` and `1e id` (bash(1), "Brace Expansion"), which a check
 * of each unquoted piece on its own does not see.
 */
function braceSkeleton(parts: readonly Node[]): string {
  return parts.map((p) => {
    if (p.type === 'Lit') return p.Value as string;
    if (p.type === 'SglQuoted') return (p.Value as string) === '' ? '' : 'Q';
    if (p.type === 'DblQuoted') return (p.Parts as Node[]).length === 0 ? '' : 'Q';
    return 'Q';
  }).join('');
}

/**
 * A tilde prefix at the start of a word (or after the `=` of a word that looks like an assignment,
 * `a=~x`) other than `~` alone or `~/`: bash replaces `~user` with that user's home directory,
 * `~+` with `$PWD`, `~-` with `$OLDPWD` and `~N` with a directory-stack entry (bash(1) "Tilde
 * Expansion"), so `> ~root/.ssh/authorized_keys` or `< ~-/.env` name files only known at run
 * time. Returns the length of the prefix, or 0. `~` and `~/…` stay literal here: rein resolves
 * them against the home directory, as bash does with `$HOME`.
 */
function tildePrefix(raw: string): number {
  const at = raw.startsWith('~') ? 0 : /^[A-Za-z_][A-Za-z0-9_]*=~/.exec(raw) ? raw.indexOf('=') + 1 : -1;
  if (at === -1) return 0;
  const rest = raw.slice(at + 1);
  const end = rest.indexOf('/');
  const name = end === -1 ? rest : rest.slice(0, end);
  return name === '' ? 0 : at + 1 + name.length;
}

/**
 * Evaluates a parsed Word node. `safeLead` tells whether an expansion that starts the word can be
 * trusted not to print a leading `-` (a loop variable over literal words, `$(git merge-base …)`).
 */
export function evalWord(word: Node, safeLead?: LeadCheck): ShellWord {
  let value = '';
  let dynamic = false;
  let glob = false;
  let lead = false;
  const parts = word.Parts as Node[];
  const first = parts[0];
  if (first) {
    if (first.type === 'Lit') {
      const v = first.Value as string;
      lead = /^[*?[]/.test(v) || (v.startsWith('{') && hasBraceExpansion(v));
    }
    else if (first.type === 'DblQuoted') {
      const inner = (first.Parts as Node[])[0];
      lead = inner !== undefined && inner.type !== 'Lit' && !safeLead?.(inner);
    } else if (first.type !== 'SglQuoted') lead = !safeLead?.(first);
  }
  for (const part of parts) {
    switch (part.type) {
      case 'Lit': {
        let raw = part.Value as string;
        const tilde = part === first ? tildePrefix(raw) : 0;
        if (tilde) {
          // `~user`, `~+`, `~-`, `~N`: a directory known only at run time.
          value += unescapeBare(raw.slice(0, raw.indexOf('~'))) + DYNAMIC;
          dynamic = true;
          raw = raw.slice(tilde);
        }
        if (hasGlob(raw)) glob = true;
        if (hasBraceExpansion(raw)) { dynamic = true; value += DYNAMIC; break; }
        value += unescapeBare(raw);
        break;
      }
      case 'SglQuoted': {
        if (part.Dollar) {
          const d = decodeAnsiC(part.Value as string);
          value += d.value;
          if (!d.exact) dynamic = true;
        } else {
          value += part.Value as string;
        }
        break;
      }
      case 'DblQuoted':
        for (const inner of part.Parts as Node[]) {
          if (inner.type === 'Lit') value += unescapeDouble(inner.Value as string);
          else { value += DYNAMIC; dynamic = true; }
        }
        break;
      default:
        // ParamExp, CmdSubst, ArithmExp, ProcSubst, ExtGlob: known only at run time.
        value += DYNAMIC;
        dynamic = true;
    }
  }
  // A brace expression spanning quoted parts: several words, the first of which may start
  // with `-` when the word starts with the brace.
  if (parts.length > 1 && parts.some((p) => p.type === 'Lit')) {
    const skeleton = braceSkeleton(parts);
    if (hasBraceExpansion(skeleton)) {
      if (!value.includes(DYNAMIC)) value += DYNAMIC;
      dynamic = true;
      if (skeleton.startsWith('{')) lead = true;
    }
  }
  return lead ? { value, dynamic, glob, lead } : { value, dynamic, glob };
}

/** A plain literal word (for words rein builds itself, such as xargs' appended arguments). */
export function literalWord(value: string): ShellWord {
  return { value, dynamic: value.includes(DYNAMIC), glob: false };
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./~^*?[\]-]+$/;

/**
 * The canonical text of a command: words joined by single spaces, a word with characters outside a
 * safe set written in single quotes. Word boundaries survive, so `git 'status; rm x'` does not read
 * as `git status; rm x` to a prefix rule.
 */
export function canonical(words: readonly ShellWord[]): string {
  return words.map((w) => quoteWord(w.value)).join(' ');
}

/**
 * The words of a canonical command text (see canonical: single spaces between words, `'…'`
 * quoting with `'\''` for a quote); the inverse of canonical.
 */
export function splitCanonical(canonicalText: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < canonicalText.length; i++) {
    const c = canonicalText[i]!;
    if (quoted) {
      if (c === "'") quoted = false;
      else cur += c;
    } else if (c === "'") quoted = true;
    else if (c === '\\' && canonicalText[i + 1] === "'") { cur += "'"; i++; }
    else if (c === ' ') { out.push(cur); cur = ''; }
    else cur += c;
  }
  out.push(cur);
  return out;
}

/** One word in canonical form. */
export function quoteWord(value: string): string {
  if (value !== '' && SAFE_WORD.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
