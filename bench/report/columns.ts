/**
 * Column widths for the text report's tables (cli-table3), so a table stays within the report's
 * width without cutting a header or a name short: every column is as wide as its widest cell line
 * plus cli-table3's padding; the name column (the first) takes what is left and its names wrap
 * over lines (`wrapName`); and when even that does not fit, multi-word headers wrap at their spaces
 * (`peak ctx` over two lines) before any name column goes below its minimum.
 */

/** cli-table3's padding: one column on each side of a cell. */
const PADDING = 2;

/**
 * A name (a workload's, a preset's) as lines of at most `n` characters, so a narrow column still
 * shows all of it: two names that differ only at their end (`gen:turns=40,results=3000,seed=3`
 * and `...seed=4`, `./presets/long-a.yaml` and `./presets/long-b.yaml`) stay distinguishable,
 * which cutting them short did not. Lines break after `,` `/` `=` `-` `_` `.` or a space when one
 * falls in the second half of a line, otherwise at `n`.
 */
export function wrapName(s: string, n: number): string {
  const lines: string[] = [];
  let rest = s;
  while (rest.length > n) {
    let at = -1;
    for (let i = n - 1; i >= Math.floor(n / 2); i--) {
      if (/[,/=\-_. ]/.test(rest[i]!)) { at = i + 1; break; }
    }
    if (at < 0) at = n;
    lines.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  lines.push(rest);
  return lines.join('\n');
}

const longestLine = (s: string) => Math.max(0, ...s.split('\n').map((l) => [...l].length));
const longestWord = (s: string) => Math.max(0, ...s.split(/[\s]+/).map((w) => [...w].length));

/**
 * Headers, rows and widths for a table of at most `maxWidth` columns (borders included).
 * `rows` hold plain cell text (no colour codes); the first column is the name column, given
 * between `minName` and `maxName` columns and wrapped with `wrapName` to fit.
 */
export function fitColumns(head: readonly string[], rows: readonly (readonly string[])[], o: { maxWidth: number; minName: number; maxName: number }): { head: string[]; rows: string[][]; colWidths: number[] } {
  const borders = head.length + 1;
  const cellWidth = (i: number, headWidth: (h: string) => number) => Math.max(headWidth(head[i]!), ...rows.map((r) => longestLine(r[i] ?? ''))) + PADDING;
  let heads = [...head];
  let rest = head.slice(1).map((_, k) => cellWidth(k + 1, longestLine));
  const nameNatural = Math.max(longestLine(head[0]!), ...rows.map((r) => longestLine(r[0] ?? ''))) + PADDING;
  let room = o.maxWidth - borders - rest.reduce((a, b) => a + b, 0);
  if (room < o.minName) {
    // Wrap multi-word headers at their spaces rather than cut them.
    heads = head.map((h, i) => (i === 0 ? h : h.split(' ').join('\n')));
    rest = head.slice(1).map((_, k) => cellWidth(k + 1, longestWord));
    room = o.maxWidth - borders - rest.reduce((a, b) => a + b, 0);
  }
  const name = Math.max(o.minName, Math.min(o.maxName, nameNatural, room));
  return {
    head: heads,
    rows: rows.map((r) => [wrapName(r[0] ?? '', name - PADDING), ...r.slice(1)]),
    colWidths: [name, ...rest],
  };
}
