/**
 * What both Grep backends take and give: a normalised query, and raw results (paths as the model
 * sees them: relative to the working directory when inside it) that one shared formatter turns into
 * the tool's text, so the output is the same whichever backend ran.
 */
import { ToolError } from '../../../kernel/index.js';

export type GrepMode = 'content' | 'files_with_matches' | 'count';

export interface GrepQuery {
  pattern: string;
  /** Session working directory; result paths are relative to it when inside it. */
  cwd: string;
  /** Absolute path searched (a folder, or one file). */
  root: string;
  rootIsFile: boolean;
  mode: GrepMode;
  ignoreCase: boolean;
  /** Content mode: prefix lines with their numbers. */
  lineNumbers: boolean;
  /** Content mode: context lines before and after each match. */
  before: number;
  after: number;
  /** Patterns may span lines; `.` matches newlines. */
  multiline: boolean;
  /** File globs (`*.ts`, `!*.min.js`), matched as ripgrep's `--glob` does. */
  globs: string[];
  /** A ripgrep file type name (`ts`, `py`). */
  type?: string;
  signal: AbortSignal;
  /**
   * Whether a file found by the search may be read (the permission rules' per-file answer); files
   * it refuses are left out of the results. Absolute paths without links. Default: all.
   */
  canRead?(abs: string): boolean;
  /** The path shown for a file under `root` (relative to `cwd`, under the path as the model wrote it). Default: displayPath(cwd, abs). */
  show?(abs: string): string;
  /** Files left out because `canRead` refused them (filled by the backends). */
  hidden?: number;
  /** Environment for ripgrep (the kernel's `subprocessEnv`). Default: rein's own. */
  env?: Record<string, string>;
}

/** Raw results in ripgrep's `--sort path` order. */
export type GrepRaw =
  | { mode: 'files_with_matches'; files: string[] }
  | { mode: 'count'; counts: { path: string; count: number }[] }
  | { mode: 'content'; lines: string[] };

/** A search backend: ripgrep, or the JS implementation. */
export type GrepBackend = (q: GrepQuery) => Promise<GrepRaw>;

/** Rejects a pattern that needs multiline mode (ripgrep refuses a literal `\n` without it; say so up front). */
export function checkPattern(q: Pick<GrepQuery, 'pattern' | 'multiline'>): void {
  if (!q.multiline && /(^|[^\\])(\\\\)*\\n/.test(q.pattern)) {
    throw new ToolError('The pattern matches a line break (\\n), but searches are line by line. Set multiline: true to match across lines.');
  }
}

/** Splits Grep's `glob` parameter: several globs may be given separated by spaces or commas outside braces. */
export function splitGlobs(glob: string | undefined): string[] {
  if (!glob) return [];
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of glob) {
    if (ch === '{') depth++;
    if (ch === '}') depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === ' ' || ch === ',')) {
      if (cur) out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur) out.push(cur);
  return out;
}
