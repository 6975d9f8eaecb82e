/**
 * The ripgrep backend: runs `rg` with flags that make it walk exactly like shared/walk.ts (hidden
 * files in, version-control folders out, only `.gitignore` files as ignore rules, parents up to the
 * repository root) and parses its output into GrepRaw.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join, resolve as resolveFrom } from 'node:path';
import { ToolError } from '../../../kernel/index.js';
import { displayPath } from '../shared/paths.js';
import { VCS_DIRECTORIES } from '../shared/walk.js';
import type { GrepQuery, GrepRaw } from './query.js';
import { childProcess } from '../shared/child-process.js';

/** Most bytes of ripgrep output read; past this the search is stopped (a result this big is useless anyway). */
export const MAX_RG_OUTPUT_BYTES = 64 * 1024 * 1024;

let cachedRg: string | null | undefined;

/** Absolute path of `rg` on PATH, or undefined. Looked up once per process. */
export function findRipgrep(): string | undefined {
  if (cachedRg !== undefined) return cachedRg ?? undefined;
  cachedRg = null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, process.platform === 'win32' ? 'rg.exe' : 'rg');
    try {
      accessSync(candidate, constants.X_OK);
      cachedRg = candidate;
      break;
    } catch {
      // not here
    }
  }
  return cachedRg ?? undefined;
}

/** The ripgrep command line for `q` (without the executable). */
export function ripgrepArgs(q: GrepQuery): string[] {
  // --null: a NUL after each path, so paths are read back exactly and each can be checked (and
  // left out) before anything reaches the model; line numbers always, to tell matches (`N:`)
  // from context lines (`N-`) — they are dropped again when not wanted.
  const args = ['--no-config', '--color', 'never', '--null', '--hidden', '--no-require-git', '--no-ignore-dot', '--no-ignore-global', '--no-ignore-exclude'];
  for (const d of VCS_DIRECTORIES) args.push('--glob', `!${d}`);
  for (const g of q.globs) args.push('--glob', g);
  if (q.type) args.push('--type', q.type);
  if (q.ignoreCase) args.push('-i');
  if (q.multiline) args.push('-U', '--multiline-dotall');
  if (q.mode === 'files_with_matches') args.push('-l');
  else if (q.mode === 'count') args.push('-c', '--with-filename', '--sort', 'path');
  else {
    args.push('--no-heading', '--with-filename', '--sort', 'path', '-n');
    if (q.before) args.push('-B', String(q.before));
    if (q.after) args.push('-A', String(q.after));
  }
  args.push('-e', q.pattern, '--');
  const target = displayPath(q.cwd, q.root);
  if (target !== '.') args.push(target);
  return args;
}

/**
 * ripgrep's `--null` output back in the lines the model reads (`path:N:text`, `path-N-text`,
 * `path:text` without line numbers), paths shown through `q.show`, and files `q.canRead` refuses
 * left out (with the `--` separators around them).
 */
export function parseRipgrepOutput(q: GrepQuery, stdout: string): GrepRaw {
  const abs = (p: string) => resolveFrom(q.cwd, p);
  const seen = new Map<string, boolean>();
  const readable = (p: string) => {
    let ok = seen.get(p);
    if (ok === undefined) {
      ok = !q.canRead || q.canRead(abs(p));
      if (!ok) q.hidden = (q.hidden ?? 0) + 1;
      seen.set(p, ok);
    }
    return ok;
  };
  const show = (p: string) => (q.show ? q.show(abs(p)) : p);
  if (q.mode === 'files_with_matches') {
    return { mode: q.mode, files: stdout.split('\0').filter((p) => p !== '' && readable(p)).map(show) };
  }
  const lines = stdout === '' ? [] : stdout.replace(/\n$/, '').split('\n');
  if (q.mode === 'count') {
    const counts: { path: string; count: number }[] = [];
    for (const l of lines) {
      const i = l.indexOf('\0');
      if (i === -1 || !readable(l.slice(0, i))) continue;
      counts.push({ path: show(l.slice(0, i)), count: Number(l.slice(i + 1)) });
    }
    return { mode: q.mode, counts };
  }
  const out: string[] = [];
  for (const l of lines) {
    if (l === '--') {
      if (out.length && out[out.length - 1] !== '--') out.push('--');
      continue;
    }
    const i = l.indexOf('\0');
    if (i === -1) continue;
    const p = l.slice(0, i);
    if (!readable(p)) continue;
    const m = /^(\d+)([:-])/.exec(l.slice(i + 1));
    if (!m) continue;
    const text = l.slice(i + 1 + m[0].length);
    out.push(q.lineNumbers ? `${show(p)}${m[2]}${m[1]}${m[2]}${text}` : `${show(p)}${m[2]}${text}`);
  }
  if (out[out.length - 1] === '--') out.pop();
  return { mode: q.mode, lines: out };
}

/** Runs ripgrep at `rg` for `q`. Throws ToolError with ripgrep's message when it fails. */
export async function searchWithRipgrep(q: GrepQuery, rg: string): Promise<GrepRaw> {
  const { code, stdout, stderr, size } = await new Promise<{ code: number | null; stdout: string; stderr: string; size: number }>((resolve, reject) => {
    const child = childProcess().spawn(rg, ripgrepArgs(q), { cwd: q.cwd, stdio: ['ignore', 'pipe', 'pipe'], signal: q.signal, ...(q.env ? { env: q.env } : {}) });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    child.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_RG_OUTPUT_BYTES) child.kill('SIGKILL');
      else out.push(b);
    });
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (c) => resolve({ code: c, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), size }));
  });
  // 0: matches; 1: none; 2: an error, possibly after partial results (an unreadable file).
  if (code === 2 && stdout === '') throw new ToolError(`ripgrep failed: ${stderr.trim()}`);
  if (code !== 0 && code !== 1 && code !== 2 && size <= MAX_RG_OUTPUT_BYTES) throw new ToolError(`ripgrep failed (exit ${code}): ${stderr.trim()}`);
  return parseRipgrepOutput(q, stdout);
}
