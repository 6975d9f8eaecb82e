/**
 * Text on its way to a terminal. What the model or a tool wrote (a final answer, a path in a
 * denial reason, an error from a server) can hold control sequences that a terminal obeys: erase
 * or rewrite lines (`ESC[2K`, `\r`), forge a `rein:` status line (a newline), hide text (`ESC[8m`),
 * set the clipboard (OSC 52) or the window title. Escaped, each shows as text instead
 * (`\x1b[8m`), so what is printed is what was said.
 *
 * Escaped: C0 controls and DEL (`\xHH`), C1 controls U+0080–U+009F (which some terminals read as
 * 8-bit escapes), and the bidi and line-separator controls that reorder or break what is shown
 * (`\u{202E}`; Unicode TR #9). Sources: ECMA-48; the OSC 52 clipboard sequence of xterm's
 * ctlseqs.
 */

/** Characters escaped in addition to C0/C1 controls: bidi marks, embeddings, overrides and isolates; line and paragraph separators. */
const DISPLAY_CONTROLS = '\\u061C\\u200E\\u200F\\u2028\\u2029\\u202A-\\u202E\\u2066-\\u2069';

const ALL = new RegExp(`[\\x00-\\x1f\\x7f-\\x9f${DISPLAY_CONTROLS}]`, 'g');
const KEEP_LINES = new RegExp(`[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f${DISPLAY_CONTROLS}]`, 'g');

function escapeOne(c: string): string {
  const code = c.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16).toUpperCase()}}`;
}

/**
 * `text` with every control character escaped. `keepLines`: leave line feeds and tabs as they
 * are (a multi-line answer stays readable); a carriage return is always escaped, since it lets
 * text overwrite what is already on the line.
 */
export function escapeControls(text: string, opts: { keepLines?: boolean } = {}): string {
  return text.replace(opts.keepLines ? KEEP_LINES : ALL, escapeOne);
}

/** A status line (`rein: …`): everything escaped, newlines included, so one message is one line. */
export function statusLine(text: string): string {
  return escapeControls(text);
}

/** JSON text with the characters JSON leaves raw but a terminal obeys (C1, bidi, separators) as `\uXXXX` escapes. Same value when parsed. */
export function terminalSafeJson(json: string): string {
  return json.replace(new RegExp(`[\\x7f-\\x9f${DISPLAY_CONTROLS}]`, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
