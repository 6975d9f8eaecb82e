/**
 * The JS backend, used when ripgrep is not on PATH (or forced by the plugin option). It walks the
 * same files as ripgrep (shared/walk.ts), filters them the way `--glob` and `--type` do, and prints
 * matches in ripgrep's format, so the tool's output does not depend on which backend ran.
 * Differences left: the regex dialect (JavaScript's, with ripgrep's leading `(?i)`-style flags
 * translated) and binary files (skipped whole when they contain a NUL byte).
 */
import { closeSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import picomatch from 'picomatch';
import { ToolError } from '../../../kernel/index.js';
import { openResolvedForRead } from '../../../lib/index.js';
import { displayPath } from '../shared/paths.js';
import { comparePaths, walkFiles } from '../shared/walk.js';
import { slicer } from '../shared/yield.js';
import { FILE_TYPES } from './file-types.js';
import type { GrepQuery, GrepRaw } from './query.js';

/** Builds the JavaScript RegExp for a ripgrep pattern. Throws ToolError for a pattern JS cannot compile. */
export function toRegExp(pattern: string, opts: { ignoreCase: boolean; multiline: boolean }): RegExp {
  let src = pattern;
  let flags = '';
  const lead = /^\(\?([imsx]+)\)/.exec(src);
  if (lead) {
    if (lead[1]!.includes('x')) throw new ToolError('The (?x) flag is not supported by this search backend; write the pattern without it.');
    src = src.slice(lead[0].length);
    for (const f of lead[1]!) if (!flags.includes(f)) flags += f;
  }
  if (opts.ignoreCase && !flags.includes('i')) flags += 'i';
  if (opts.multiline) {
    if (!flags.includes('s')) flags += 's';
    if (!flags.includes('m')) flags += 'm';
    flags += 'g';
  }
  if (/\\[pP]\{/.test(src)) flags += 'u';
  try {
    return new RegExp(src, flags);
  } catch (err) {
    throw new ToolError(`Invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message}`);
  }
}

/** The `--glob` / `--type` filter: relative display path → searched or not. */
function fileFilter(q: GrepQuery): (shown: string) => boolean {
  const include: ((p: string) => boolean)[] = [];
  const exclude: ((p: string) => boolean)[] = [];
  for (const g of q.globs) {
    const neg = g.startsWith('!');
    const glob = neg ? g.slice(1) : g;
    const m = picomatch(glob, { dot: true, basename: !glob.includes('/') });
    (neg ? exclude : include).push(m);
  }
  let typeMatch: ((p: string) => boolean) | undefined;
  if (q.type) {
    const globs = FILE_TYPES[q.type];
    if (!globs) throw new ToolError(`Unknown file type "${q.type}". Known types: ${Object.keys(FILE_TYPES).join(', ')}. Or use the glob parameter instead.`);
    const m = picomatch([...globs], { dot: true });
    typeMatch = (p) => m(basename(p));
  }
  return (shown) => {
    // A negated glob also excludes everything under a folder it matches (`!vendor`), as in ripgrep.
    if (exclude.length) {
      const parts = shown.split('/');
      for (let i = 1; i <= parts.length; i++) {
        const prefix = parts.slice(0, i).join('/');
        if (prefix && exclude.some((m) => m(prefix))) return false;
      }
    }
    if (include.length && !include.some((m) => m(shown))) return false;
    if (typeMatch && !typeMatch(shown)) return false;
    return true;
  };
}

/** Line start offsets of `text` (for multiline matches). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function lineIndexAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

interface FileHits {
  shown: string;
  lines: string[];
  /** 0-based indexes of matching lines, ascending. */
  hits: number[];
  /** Matches, for count mode. */
  count: number;
}

function searchText(text: string, re: RegExp, multiline: boolean): { lines: string[]; hits: number[]; count: number } {
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  if (!multiline) {
    const hits: number[] = [];
    for (let i = 0; i < lines.length; i++) if (re.test(lines[i]!)) hits.push(i);
    return { lines, hits, count: hits.length };
  }
  const starts = lineStarts(text);
  const hit = new Set<number>();
  let count = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0] === '') { re.lastIndex++; continue; }
    count++;
    const a = lineIndexAt(starts, m.index);
    const b = lineIndexAt(starts, m.index + m[0].length - 1);
    for (let i = a; i <= b && i < lines.length; i++) hit.add(i);
  }
  return { lines, hits: [...hit].sort((x, y) => x - y), count };
}

/** Content-mode output lines for one file, in ripgrep's format (`path:N:text`, context `path-N-text`). */
function contentLines(f: FileHits, q: GrepQuery, out: string[], hadGroup: { v: boolean }): void {
  const ctx = q.before > 0 || q.after > 0;
  const isHit = new Set(f.hits);
  const show = new Set<number>();
  for (const h of f.hits) {
    for (let i = Math.max(0, h - q.before); i <= Math.min(f.lines.length - 1, h + q.after); i++) show.add(i);
  }
  let prev = -2;
  for (const i of [...show].sort((a, b) => a - b)) {
    if (ctx && hadGroup.v && i !== prev + 1) out.push('--');
    const sepChar = isHit.has(i) ? ':' : '-';
    out.push(q.lineNumbers ? `${f.shown}${sepChar}${i + 1}${sepChar}${f.lines[i]}` : `${f.shown}${sepChar}${f.lines[i]}`);
    hadGroup.v = true;
    prev = i;
  }
}

/** Searches without ripgrep. Same results as searchWithRipgrep for the cases described above. */
export async function searchWithJs(q: GrepQuery): Promise<GrepRaw> {
  const re = toRegExp(q.pattern, { ignoreCase: q.ignoreCase, multiline: q.multiline });
  // One test over the whole file first: any line that matches also matches the text in 'm' mode,
  // so files without a match are skipped without splitting them into lines.
  const pre = q.multiline ? undefined : new RegExp(re.source, re.flags.includes('m') ? re.flags : `${re.flags}m`);
  const show = q.show ?? ((abs: string) => displayPath(q.cwd, abs));
  let files: string[];
  if (q.rootIsFile) files = [q.root];
  else {
    const accept = fileFilter(q);
    const all = await walkFiles(q.root, { signal: q.signal });
    files = all.filter((f) => {
      if (!accept(show(f))) return false;
      if (!q.canRead || q.canRead(f)) return true;
      q.hidden = (q.hidden ?? 0) + 1;
      return false;
    });
  }
  const shown = files.map((f) => ({ abs: f, shown: show(f) })).sort((a, b) => comparePaths(a.shown, b.shown));

  const tick = slicer(q.signal);
  const results: (FileHits | undefined)[] = [];
  for (const { abs, shown: s } of shown) {
    const wait = tick();
    if (wait) await wait;
    let buf: Buffer;
    try {
      // Opened once and checked to be the file the walk found (no link swapped in since).
      const fd = openResolvedForRead(abs);
      try {
        buf = readFileSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      continue; // unreadable or changed: skipped, as ripgrep reports and skips it
    }
    if (buf.indexOf(0) !== -1) continue;
    const text = buf.toString('utf8');
    if (pre && !pre.test(text)) continue;
    const r = searchText(text, re, q.multiline);
    if (r.hits.length) results.push({ shown: s, ...r });
  }
  const found = results.filter((r): r is FileHits => r !== undefined);

  if (q.mode === 'files_with_matches') return { mode: q.mode, files: found.map((f) => f.shown) };
  if (q.mode === 'count') return { mode: q.mode, counts: found.map((f) => ({ path: f.shown, count: f.count })) };
  const out: string[] = [];
  const hadGroup = { v: false };
  for (const f of found) contentLines(f, q, out, hadGroup);
  return { mode: q.mode, lines: out };
}
