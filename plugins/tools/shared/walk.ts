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
import { existsSync, opendirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** Folders never walked: version-control metadata (Claude Code's Grep excludes the same set). */
export const VCS_DIRECTORIES: ReadonlySet<string> = new Set(['.git', '.svn', '.hg', '.bzr', '.jj', '_darcs']);

interface Level {
  base: string;
  ig: Ignore;
  /** False when every rule ends in `/` (matches folders only), so files need no check against it. */
  filesToo: boolean;
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
  const rules = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  return { base: dir, ig: ignore().add(text), filesToo: rules.some((r) => !r.endsWith('/')) };
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

/** `abs` relative to its ancestor folder `base`, `/`-separated; undefined when `abs` is not inside `base`. */
function under(base: string, abs: string): string | undefined {
  const prefix = base.endsWith(sep) ? base : base + sep;
  if (!abs.startsWith(prefix) || abs.length === prefix.length) return undefined;
  return toPosix(abs.slice(prefix.length));
}

/** True when the chain of levels ignores `abs` (a folder when `isDir`); the deepest deciding level wins. */
function isIgnored(levels: readonly Level[], abs: string, isDir: boolean): boolean {
  let ignored = false;
  for (const { base, ig, filesToo } of levels) {
    if (!isDir && !filesToo) continue;
    let rel = under(base, abs);
    if (!rel) continue;
    if (isDir) rel += '/';
    const r = ig.test(rel);
    if (r.ignored) ignored = true;
    else if (r.unignored) ignored = false;
  }
  return ignored;
}

/**
 * Absolute paths of the files under `root`, in no particular order (callers sort). Throws what
 * opening `root` as a folder throws (ENOENT, ENOTDIR, EACCES); an unreadable folder inside it is
 * skipped, as ripgrep does. The crawl is fdir's (asynchronous reads, so parallel tool calls and
 * aborts stay live); the rules above decide, per folder as it is reached, what is entered and listed.
 */
export async function walkFiles(root: string, opts: WalkOptions = {}): Promise<string[]> {
  const useIgnore = opts.gitignore ?? true;
  const top = resolve(root);
  opendirSync(top).closeSync();
  const rootDir = top.endsWith(sep) ? top : top + sep;
  // The `.gitignore` levels that apply in each folder reached, by its path with a trailing separator.
  const levelsOf = new Map<string, Level[]>();
  const withOwn = (inherited: Level[], dir: string): Level[] => {
    if (!useIgnore || !statSync(join(dir, '.gitignore'), { throwIfNoEntry: false })?.isFile()) return inherited;
    const own = loadIgnore(dir);
    return own ? [...inherited, own] : inherited;
  };
  levelsOf.set(rootDir, withOwn(useIgnore ? parentIgnoreLevels(top) : [], top));
  const parentOf = (path: string, end: number) => path.slice(0, path.lastIndexOf(sep, end) + 1);
  // Loaded on the first walk, not at start-up: fdir's module looks for picomatch with Node's own
  // require when it loads (~5 ms of every cold start, for a Glob that most runs never make).
  const { fdir } = await import('fdir');
  let crawler = new fdir({ excludeSymlinks: true })
    .withFullPaths()
    .exclude((name, dirPath) => {
      if (VCS_DIRECTORIES.has(name)) return true;
      const levels = levelsOf.get(parentOf(dirPath, dirPath.length - 2)) ?? [];
      const abs = dirPath.slice(0, -1);
      if (levels.length && isIgnored(levels, abs, true)) return true;
      levelsOf.set(dirPath, withOwn(levels, abs));
      return false;
    })
    .filter((path) => {
      const dir = parentOf(path, path.length - 1);
      // A `.git` file (worktrees, submodules) is left out like the folder, as ripgrep's `!.git` glob does.
      if (VCS_DIRECTORIES.has(path.slice(dir.length))) return false;
      const levels = levelsOf.get(dir) ?? [];
      if (levels.length && isIgnored(levels, path, false)) return false;
      return !opts.accept || opts.accept(toPosix(path.slice(rootDir.length)));
    });
  if (opts.maxDepth !== undefined) crawler = crawler.withMaxDepth(opts.maxDepth);
  if (opts.signal) crawler = crawler.withAbortSignal(opts.signal);
  const out = await crawler.crawl(top).withPromise();
  if (opts.signal?.aborted) throw opts.signal.reason;
  return out;
}

/**
 * Compares two `/`-separated paths folder by folder (ripgrep's `--sort path` order). Names compare
 * by UTF-16 code units, which is ripgrep's byte order for every name without astral characters.
 */
export function comparePaths(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  // At the first difference, a folder separator sorts before any other character: `a/b` < `a-b`.
  const x = a.charCodeAt(i);
  const y = b.charCodeAt(i);
  if (x === 47) return -1;
  if (y === 47) return 1;
  return x - y;
}
