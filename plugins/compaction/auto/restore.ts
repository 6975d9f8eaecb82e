/**
 * After a compaction the model no longer sees the files it read; the most recently read ones are read
 * again from disk (so edits made since are included) and put back, within a budget.
 *
 * Claude Code behaviour: at most 5 files, newest first, each cut to 5,000 tokens,
 * 50,000 tokens in all; the budget skips a file that does not fit and goes on with the next.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Message, type ToolResultBlock} from '../../../kernel/index.js';
import { estimateTextTokens, joinPath, TEXT_BYTES_PER_TOKEN } from '../../../lib/index.js';
import { filePathOf, toolUses } from '../shared/history.js';

/** Files restored at most (Claude Code's POST_COMPACT_MAX_FILES_TO_RESTORE = 5). */
export const MAX_FILES_TO_RESTORE = 5;
/** Tokens per restored file at most (Claude Code's POST_COMPACT_MAX_TOKENS_PER_FILE = 5,000). */
export const MAX_TOKENS_PER_FILE = 5_000;
/** Tokens of all restored files together at most (Claude Code's POST_COMPACT_TOKEN_BUDGET = 50,000). */
export const RESTORE_TOKEN_BUDGET = 50_000;
/** Files larger than this are not read back, bytes (a restored file is cut to 5,000 tokens anyway). */
const MAX_READ_BYTES = 10 * 1024 * 1024;

export interface RestoreOptions {
  cwd: string;
  /**
   * The absolute path a tool's path input names, as the kernel resolves it (`~/` is the kernel's home
   * directory: a benchmark replay's stand-in home). Default: `~/` the user's home, else against `cwd`.
   */
  resolve?: (path: string) => string;
  /** Tools whose `file_path` (or `path`) input counts as reading a file. */
  readTools: readonly string[];
  maxFiles: number;
  perFileTokens: number;
  totalTokens: number;
  /** Absolute paths never restored (memory files, files already in the kept messages). */
  exclude: ReadonlySet<string>;
  /**
   * Where files are read from: the file's text, or undefined when it cannot be read. Default: the
   * disk. A benchmark replay gives the recorded session's files (see `setRestoreFileSource`).
   */
  readFile?: (path: string) => string | undefined;
}

/** Reads a file from disk for restoring; undefined when it is missing, unreadable or over MAX_READ_BYTES. */
function readFromDisk(path: string): string | undefined {
  try {
    if (statSync(path).size > MAX_READ_BYTES) return undefined;
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

export interface RestoredFile {
  path: string;
  text: string;
  tokens: number;
  truncated: boolean;
}

/**
 * Files read successfully in `messages`, most recent first, as absolute paths. A path input is made
 * absolute by `toAbsolute` (default: `~` and `~/` are the user's home, a relative path is `cwd`'s).
 */
export function recentlyReadFiles(messages: readonly Message[], readTools: readonly string[], cwd: string, toAbsolute: (path: string) => string = (p) => resolve(joinPath(p, cwd))): string[] {
  const uses = toolUses(messages);
  const order: { path: string; at: number }[] = [];
  messages.forEach((m, i) => {
    if (m.role !== 'user') return;
    for (const b of m.content) {
      if (b.type !== 'tool_result') continue;
      const r = b as ToolResultBlock;
      const use = uses.get(r.tool_use_id);
      if (!use || !readTools.includes(use.name)) continue;
      const p = filePathOf(use.input);
      if (p === undefined) continue;
      const abs = toAbsolute(p);
      if (r.is_error) continue;
      order.push({ path: abs, at: i });
    }
  });
  const seen = new Set<string>();
  const out: string[] = [];
  for (const { path } of order.sort((a, b) => b.at - a.at)) {
    if (seen.has(path)) continue;
    seen.add(path);
    out.push(path);
  }
  return out;
}

/** `cat -n`-style numbering, as the Read tool shows files. */
function numbered(text: string): string {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((l, i) => `${String(i + 1).padStart(6)}\t${l}`).join('\n');
}

/** Cuts numbered text to at most `tokens` (estimated), at a line end. */
function cutToTokens(text: string, tokens: number): { text: string; truncated: boolean } {
  if (estimateTextTokens(text) <= tokens) return { text, truncated: false };
  const note = '\n… (cut here; read the file for the rest)';
  const budgetBytes = tokens * TEXT_BYTES_PER_TOKEN - Buffer.byteLength(note);
  let cut = Buffer.from(text, 'utf8').subarray(0, Math.max(0, budgetBytes)).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  const nl = cut.lastIndexOf('\n');
  if (nl > 0) cut = cut.slice(0, nl);
  return { text: cut + note, truncated: true };
}

/** Reads the files back from disk within the budget. Unreadable files are skipped. */
export function restoreFiles(messages: readonly Message[], o: RestoreOptions): RestoredFile[] {
  const candidates = recentlyReadFiles(messages, o.readTools, o.cwd, o.resolve).filter((p) => !o.exclude.has(p)).slice(0, o.maxFiles);
  const out: RestoredFile[] = [];
  let used = 0;
  for (const path of candidates) {
    const raw = (o.readFile ?? readFromDisk)(path);
    if (raw === undefined) continue;
    const header = `File ${path} (first part):\n`;
    const { text, truncated } = cutToTokens(numbered(raw), o.perFileTokens - estimateTextTokens(header) - 1);
    const block = `File ${path}${truncated ? ' (first part)' : ''}:\n${text}`;
    const tokens = estimateTextTokens(block);
    // A file that does not fit is skipped; a smaller one after it may still fit.
    if (used + tokens > o.totalTokens) continue;
    used += tokens;
    out.push({ path, text: block, tokens, truncated });
  }
  return out;
}
