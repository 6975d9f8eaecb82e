/**
 * The ripgrep backend: runs `rg` with flags that make it walk exactly like shared/walk.ts (hidden
 * files in, version-control folders out, only `.gitignore` files as ignore rules, parents up to the
 * repository root) and parses its output into GrepRaw.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ToolError } from '../../../kernel/index.js';
import { displayPath } from '../shared/paths.js';
import { VCS_DIRECTORIES } from '../shared/walk.js';
import type { GrepQuery, GrepRaw } from './query.js';

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
  const args = ['--no-config', '--color', 'never', '--hidden', '--no-require-git', '--no-ignore-dot', '--no-ignore-global', '--no-ignore-exclude'];
  for (const d of VCS_DIRECTORIES) args.push('--glob', `!${d}`);
  for (const g of q.globs) args.push('--glob', g);
  if (q.type) args.push('--type', q.type);
  if (q.ignoreCase) args.push('-i');
  if (q.multiline) args.push('-U', '--multiline-dotall');
  if (q.mode === 'files_with_matches') args.push('-l');
  else if (q.mode === 'count') args.push('-c', '--with-filename', '--sort', 'path');
  else {
    args.push('--no-heading', '--with-filename', '--sort', 'path');
    args.push(q.lineNumbers ? '-n' : '-N');
    if (q.before) args.push('-B', String(q.before));
    if (q.after) args.push('-A', String(q.after));
  }
  args.push('-e', q.pattern, '--');
  const target = displayPath(q.cwd, q.root);
  if (target !== '.') args.push(target);
  return args;
}

/** Runs ripgrep at `rg` for `q`. Throws ToolError with ripgrep's message when it fails. */
export async function searchWithRipgrep(q: GrepQuery, rg: string): Promise<GrepRaw> {
  const { code, stdout, stderr, size } = await new Promise<{ code: number | null; stdout: string; stderr: string; size: number }>((resolve, reject) => {
    const child = spawn(rg, ripgrepArgs(q), { cwd: q.cwd, stdio: ['ignore', 'pipe', 'pipe'], signal: q.signal });
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
  const lines = stdout === '' ? [] : stdout.replace(/\n$/, '').split('\n');
  if (q.mode === 'files_with_matches') return { mode: q.mode, files: lines };
  if (q.mode === 'count') {
    return {
      mode: q.mode,
      counts: lines.map((l) => {
        const i = l.lastIndexOf(':');
        return { path: l.slice(0, i), count: Number(l.slice(i + 1)) };
      }),
    };
  }
  return { mode: q.mode, lines };
}
