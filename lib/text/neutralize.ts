/**
 * Neutralising untrusted text before the model reads it (a tool result: a file, a command's
 * output, a search, an MCP server's answer). Text from outside can carry what a person reviewing
 * the run does not see but the model reads:
 *
 * - terminal control sequences (ANSI CSI/OSC, `ESC[8m` hidden text) and other C0/C1 control
 *   characters; tab, line feed and carriage return stay;
 * - invisible characters: Unicode format characters (Cf: zero-width characters, bidi overrides and
 *   isolates, Tag characters U+E0000–U+E007F that spell out hidden instructions), private-use (Co)
 *   and unassigned (Cn) code points;
 * - forged context tags: text that opens or closes one of the tags rein itself puts in the
 *   conversation (`<system-reminder>`, hook context, provenance wrappers), in any spelling a model
 *   would still read as that tag (`< /system-reminder>`, `</ System_Reminder >`, fullwidth `＜`).
 *   Their `<` becomes `&lt;`.
 *
 * Nothing else changes: no normalisation of letters, so the text of a file stays comparable with
 * the file (Edit maps a match in the neutralised text back to the bytes, see `neutralizeWithMap`).
 * Sources: ECMA-48 (control functions), Unicode TR #9 (bidi controls), Unicode Tags block.
 */

/** rein's own context tags: their openings and closings inside untrusted text are neutralised. */
export const RESERVED_TAGS: readonly string[] = Object.freeze([
  'system-reminder', 'external-content', 'user-prompt-submit-hook', 'hook-context', 'hook-output', 'command-message', 'persisted-output',
]);

/** Characters a model may read as `<` (NFKC folds them to it). */
const LESS_THAN = '<\uFF1C\uFE64';
/** Separators a model may read as the `-` inside a tag name: dashes, `_`, spaces, nothing. */
const SEP = '[\\s_\\p{Pd}\\u2212]*';
/** Whitespace, also the invisible characters stripped later, between `<`, `/` and the name. */
const GAP = '[\\s\\p{Cf}]*';
const SLASH = '[/\\uFF0F\\u2215\\u2044]?';

/**
 * The patterns with Unicode property classes, built on first use rather than when the module loads:
 * V8 parses a pattern when it makes the RegExp, and resolving `\p{…}` classes (Cn alone is most of
 * Unicode) from ICU is ~2% of the instructions a `rein run` executes before its first request, which
 * neutralises nothing.
 */
let patterns: { reserved: RegExp; restore: RegExp; invisible: RegExp } | undefined;
function unicodePatterns(): { reserved: RegExp; restore: RegExp; invisible: RegExp } {
  if (patterns) return patterns;
  const tagNames = RESERVED_TAGS.map((t) => t.split('-').map((w) => [...w].map((c) => `[${c}${String.fromCodePoint(c.codePointAt(0)! - 0x61 + 0xff41)}]`).join('')).join(SEP)).join('|');
  patterns = {
    /** `<` (or a look-alike), optional `/`, then a reserved tag name (or a longer name starting with one). */
    reserved: new RegExp(`[${LESS_THAN}](?=${GAP}${SLASH}${GAP}(?:${tagNames}))`, 'giu'),
    /** `&lt;` where `reserved` put it. */
    restore: new RegExp(`&lt;(?=${GAP}${SLASH}${GAP}(?:${tagNames}))`, 'giu'),
    /** Format (Cf), private-use (Co) and unassigned (Cn) code points. */
    invisible: /[\p{Cf}\p{Co}\p{Cn}]/gu,
  };
  return patterns;
}

/** ANSI escape sequences: CSI (`ESC [ … final`), OSC/DCS/APC/PM/SOS strings (ended by BEL or ST), two-character escapes; also their 8-bit C1 forms. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ANSI = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -/]*[0-~]/g;
/** Control characters other than tab, line feed and carriage return (C0, DEL, C1). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;

/** What neutralising removed or changed, in characters (UTF-16 code units). */
export interface NeutralizeCounts {
  /** Terminal escape sequences and control characters. */
  controls: number;
  /** Invisible characters (format, private-use, unassigned). */
  invisible: number;
  /** Forged openings or closings of reserved tags. */
  tags: number;
}

/** Escapes the `<` of every opening or closing of a reserved tag in `text`. */
export function neutraliseReservedTags(text: string): string {
  return text.replace(unicodePatterns().reserved, '&lt;');
}

/**
 * Neutralises `text` (see the module comment). Returns the new text and what was changed.
 * Cost: linear in the text's length.
 */
export function neutralizeText(text: string): { text: string; counts: NeutralizeCounts } {
  const counts: NeutralizeCounts = { controls: 0, invisible: 0, tags: 0 };
  let t = text.replace(ANSI, (m) => { counts.controls += m.length; return ''; });
  t = t.replace(CONTROL, () => { counts.controls++; return ''; });
  // Tags first: an invisible character inside `<\u200b/system-reminder>` must not hide one.
  const { reserved, invisible } = unicodePatterns();
  t = t.replace(reserved, () => { counts.tags++; return '&lt;'; });
  t = t.replace(invisible, (m) => { counts.invisible += m.length; return ''; });
  return { text: t, counts };
}

/**
 * Neutralises `text` and says where each character of the result came from: `map[i]` is the
 * offset in `text` of the result's character `i` (`map[result.length]` is `text.length`), so a
 * match found in what the model saw can be applied to the original (Edit does this).
 */
export function neutralizeWithMap(text: string): { text: string; map: number[] } {
  // The same steps as neutralizeText, in the same order: controls first, then tags and invisibles.
  const first = rewrite(text, [ANSI, CONTROL], undefined);
  const { reserved, invisible } = unicodePatterns();
  const second = rewrite(first.text, [invisible], reserved);
  return { text: second.text, map: second.map.map((i) => first.map[i]!) };
}

/** Drops the matches of `drop` from `text` and turns each match of `escape` (a `<`) into `&lt;`, keeping an offset map. */
function rewrite(text: string, drop: readonly RegExp[], escape: RegExp | undefined): { text: string; map: number[] } {
  const gone = new Uint8Array(text.length);
  const lt = new Uint8Array(text.length);
  if (escape) for (const m of text.matchAll(escape)) lt[m.index] = 1;
  for (const re of drop) for (const m of text.matchAll(re)) if (!lt[m.index]) gone.fill(1, m.index, m.index + m[0].length);
  let out = '';
  const map: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (lt[i]) { out += '&lt;'; map.push(i, i, i, i); continue; }
    if (gone[i]) continue;
    out += text[i];
    map.push(i);
  }
  map.push(text.length);
  return { text: out, map };
}

/** Undoes the tag escape in text the model wrote back (`&lt;system-reminder>` → `<system-reminder>`). */
export function restoreReservedTags(text: string): string {
  return text.replace(unicodePatterns().restore, '<');
}
