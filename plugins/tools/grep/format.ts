/**
 * Turns raw Grep results into the text the model reads: the same for both backends. Files come
 * newest first (recently changed files are the likeliest to matter); `head_limit` caps entries.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { comparePaths } from '../shared/walk.js';
import { slicer } from '../shared/yield.js';
import type { GrepRaw } from './query.js';

/** Entries returned when `head_limit` is not given (Claude Code's DEFAULT_HEAD_LIMIT). */
export const DEFAULT_HEAD_LIMIT = 250;

/** Longest output line, characters; longer ones (minified files) are cut. */
export const MAX_GREP_LINE_CHARS = 500;

function cut(line: string): string {
  return line.length > MAX_GREP_LINE_CHARS ? `${line.slice(0, MAX_GREP_LINE_CHARS)}… [line cut: ${line.length} characters]` : line;
}

function limitNote(shown: number, total: number, what: string): string {
  return `\n(Showing the first ${shown} of ${total} ${what}. Pass a larger head_limit (0 for all), or narrow the pattern, path or glob.)`;
}

/** The tool's text for `raw`. `headLimit` 0 means no cap. */
export async function formatGrep(raw: GrepRaw, cwd: string, headLimit: number): Promise<string> {
  const cap = headLimit === 0 ? Infinity : headLimit;
  if (raw.mode === 'files_with_matches') {
    if (raw.files.length === 0) return 'No files found';
    const tick = slicer();
    const dated: { f: string; mtime: number }[] = [];
    for (const f of raw.files) {
      let mtime = 0;
      try { mtime = statSync(resolve(cwd, f)).mtimeMs; } catch { /* vanished meanwhile */ }
      dated.push({ f, mtime });
      const wait = tick();
      if (wait) await wait;
    }
    dated.sort((a, b) => b.mtime - a.mtime || comparePaths(a.f, b.f));
    const list = dated.slice(0, cap).map((d) => d.f);
    const head = `Found ${raw.files.length} file${raw.files.length === 1 ? '' : 's'}`;
    return `${head}\n${list.join('\n')}${list.length < dated.length ? limitNote(list.length, dated.length, 'files') : ''}`;
  }
  if (raw.mode === 'count') {
    if (raw.counts.length === 0) return 'No matches found';
    const list = raw.counts.slice(0, cap);
    const total = raw.counts.reduce((n, c) => n + c.count, 0);
    const body = list.map((c) => `${c.path}:${c.count}`).join('\n');
    return `${body}\n\nFound ${total} matching line${total === 1 ? '' : 's'} in ${raw.counts.length} file${raw.counts.length === 1 ? '' : 's'}.${list.length < raw.counts.length ? limitNote(list.length, raw.counts.length, 'files') : ''}`;
  }
  if (raw.lines.length === 0) return 'No matches found';
  const list = raw.lines.slice(0, cap).map(cut);
  return `${list.join('\n')}${list.length < raw.lines.length ? limitNote(list.length, raw.lines.length, 'lines') : ''}`;
}
