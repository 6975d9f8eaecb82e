/**
 * A gitignore-aware file walk for Glob and the JS Grep backend. It follows ripgrep's rules as rein
 * invokes it (`--hidden --no-require-git --no-ignore-dot --no-ignore-global --no-ignore-exclude`),
 * so both Grep backends see the same files:
 * - hidden files are included; version-control folders (`.git`, `.hg`, ...) never are;
 * - every `.gitignore` applies below its folder, a deeper file overriding a shallower one; the
 *   `.gitignore` files of the folders above the walk's root apply too, up to the repository root
 *   (the folder holding `.git`), or up to `/` outside a repository;
 * - ignored folders are not entered; symbolic links are not followed (and not listed).
 */
import { existsSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** Folders never walked: version-control metadata (Claude Code's Grep excludes the same set). */
export const VCS_DIRECTORIES: ReadonlySet<string> = new Set(['.git', '.svn', '.hg', '.bzr', '.jj', '_darcs']);

/** Folders read at once by one walk; bounds open file descriptors. */
const WALK_CONCURRENCY = 16;

interface Level {
  base: string;
  ig: Ignore;
}

export interface WalkOptions {
  /** Apply `.gitignore` files. Default true. */
  gitignore?: boolean;
  /** Stop early (the walk rejects with the signal's reason). */
  signal?: AbortSignal;
  /**
   * Called with each file's path relative to the root (`/`-separated); return false to leave it out.
   * Keeps the result small when only a few files are wanted.
   */
  accept?(relPath: string): boolean;
  /** Deepest folder level entered below the root (0: the root's own files only). Default unlimited. */
  maxDepth?: number;
}

function toPosix(p: string): string {
  return sep === '/' ? p : p.split(sep).join('/');
}

function loadIgnore(dir: string): Level | undefined {
  const file = join(dir, '.gitignore');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  return { base: dir, ig: ignore().add(text) };
}

/** `.gitignore` levels of the folders above `root`, outermost first, stopping at the repository root. */
export function parentIgnoreLevels(root: string): Level[] {
  const levels: Level[] = [];
  let dir = root;
  if (existsSync(join(dir, '.git'))) return levels;
  for (;;) {
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
    const level = loadIgnore(dir);
    if (level) levels.unshift(level);
    if (existsSync(join(dir, '.git'))) break;
  }
  return levels;
}

/** True when the chain of levels ignores `abs` (a folder when `isDir`); the deepest deciding level wins. */
function isIgnored(levels: readonly Level[], abs: string, isDir: boolean): boolean {
  let ignored = false;
  for (const { base, ig } of levels) {
    let rel = toPosix(relative(base, abs));
    if (!rel || rel.startsWith('..')) continue;
    if (isDir) rel += '/';
    const r = ig.test(rel);
    if (r.ignored) ignored = true;
    else if (r.unignored) ignored = false;
  }
  return ignored;
}

/** Absolute paths of the files under `root` (unsorted). Throws when `root` cannot be read. */
export async function walkFiles(root: string, opts: WalkOptions = {}): Promise<string[]> {
  const useIgnore = opts.gitignore ?? true;
  const maxDepth = opts.maxDepth ?? Infinity;
  const out: string[] = [];
  const queue: { dir: string; levels: Level[]; depth: number }[] = [{ dir: root, levels: useIgnore ? parentIgnoreLevels(root) : [], depth: 0 }];
  let firstError: unknown;

  const visit = async (dir: string, inherited: Level[], depth: number): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    let levels = inherited;
    if (useIgnore && entries.some((e) => e.name === '.gitignore' && e.isFile())) {
      const own = loadIgnore(dir);
      if (own) levels = [...inherited, own];
    }
    for (const e of entries) {
      // A `.git` file (worktrees, submodules) is left out like the folder, as ripgrep's `!.git` glob does.
      if (VCS_DIRECTORIES.has(e.name)) continue;
      const abs = join(dir, e.name);
      if (e.isDirectory()) {
        if (depth >= maxDepth) continue;
        if (useIgnore && levels.length && isIgnored(levels, abs, true)) continue;
        queue.push({ dir: abs, levels, depth: depth + 1 });
      } else if (e.isFile()) {
        if (useIgnore && levels.length && isIgnored(levels, abs, false)) continue;
        if (opts.accept && !opts.accept(toPosix(relative(root, abs)))) continue;
        out.push(abs);
      }
    }
  };

  // A small pool: each worker takes the next folder; folders found are queued for any worker.
  let active = 0;
  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      if (opts.signal?.aborted) { reject(opts.signal.reason); return; }
      while (active < WALK_CONCURRENCY && queue.length) {
        const job = queue.shift()!;
        active++;
        visit(job.dir, job.levels, job.depth).catch((err) => {
          // The root must be readable; an unreadable folder inside it is skipped, as ripgrep does.
          if (job.dir === root) firstError ??= err;
        }).finally(() => {
          active--;
          pump();
        });
      }
      if (active === 0 && queue.length === 0) {
        if (firstError) reject(firstError);
        else resolve();
      }
    };
    pump();
  });
  return out;
}

/** Compares two `/`-separated paths folder by folder (ripgrep's `--sort path` order). */
export function comparePaths(a: string, b: string): number {
  const pa = a.split('/');
  const pb = b.split('/');
  const n = Math.min(pa.length, pb.length);
  for (let i = 0; i < n; i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x !== y) return Buffer.compare(Buffer.from(x), Buffer.from(y));
  }
  return pa.length - pb.length;
}
