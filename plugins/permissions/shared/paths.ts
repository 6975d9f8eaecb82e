/**
 * Paths in permission rules and the working-directory and protected-path checks.
 *
 * Read/Edit rule specifiers follow gitignore semantics (the `ignore` package) with Claude Code's
 * four anchors (Claude Code permission docs):
 * - `//abs/path`: absolute `/abs/path`;
 * - `~/path`: relative to the home directory;
 * - `/path`: relative to the directory of the preset file;
 * - `./path` or `path`: relative to the working directory (a pattern without a slash, like
 *   `*.env`, matches at any depth, as in .gitignore).
 */
import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import ignore from 'ignore';

/** Directories rein needs to resolve rule paths. */
export interface PathBase {
  /** Working directory, absolute. */
  cwd: string;
  /** Directory of the preset file, absolute (for `/`-anchored patterns). */
  presetDir: string;
  /** Home directory, absolute. */
  home: string;
}

export interface PathMatcher {
  /** The specifier as written. */
  spec: string;
  /** True when the absolute path `abs` matches. */
  test(abs: string): boolean;
}

/** Compiles a path specifier (the text inside `Read(…)` / `Edit(…)`). */
export function compilePathSpec(spec: string, base: PathBase): PathMatcher {
  let root: string;
  let pattern: string;
  if (spec.startsWith('//')) { root = '/'; pattern = spec.slice(1); }
  else if (spec === '~' || spec.startsWith('~/')) { root = base.home; pattern = spec === '~' ? '**' : spec.slice(1); }
  else if (spec.startsWith('/')) { root = base.presetDir; pattern = spec; }
  else if (spec.startsWith('./')) { root = base.cwd; pattern = spec.slice(1); }
  else { root = base.cwd; pattern = spec; }
  const ig = ignore({ allowRelativePaths: true }).add(pattern);
  return {
    spec,
    test(abs: string): boolean {
      const rel = relative(root, abs);
      if (rel === '') return pattern === '**' || pattern === '/**';
      if (rel.startsWith('..') || isAbsolute(rel)) return false;
      return ig.ignores(rel.split(sep).join('/'));
    },
  };
}

/** Expands a leading `~` and resolves against `cwd`. */
export function absolutePath(p: string, cwd: string, home = homedir()): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return resolve(cwd, p);
}

/**
 * The path as written (resolved) and, when different, the path with symbolic links resolved for
 * the longest existing ancestor. A symlink inside the project pointing at `~/.bashrc` must be
 * judged as `~/.bashrc` too.
 */
export function pathForms(abs: string): string[] {
  let existing = abs;
  const rest: string[] = [];
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) return [abs];
    rest.unshift(basename(existing));
    existing = parent;
  }
  let real: string;
  try {
    real = join(realpathSync(existing), ...rest);
  } catch {
    return [abs];
  }
  return real === abs ? [abs] : [abs, real];
}

/** True when `abs` is `dir` or inside it. */
export function isInside(abs: string, dir: string): boolean {
  const rel = relative(dir, abs);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** True when every form of the path lies inside one of the working directories. */
export function insideWorkingDirs(abs: string, dirs: readonly string[]): boolean {
  return pathForms(abs).every((p) => dirs.some((d) => isInside(p, d)));
}

/**
 * Directories whose contents rein never lets a mode or the classifier write without asking
 * (Claude Code's DANGEROUS_DIRECTORIES, plus rein's own `.rein`): git internals, editor settings
 * that can run tasks, agent settings.
 */
export const PROTECTED_DIRS: readonly string[] = Object.freeze(['.git', '.rein', '.claude', '.vscode', '.idea']);

/**
 * Files never written without asking (Claude Code's DANGEROUS_FILES plus the other bash and zsh
 * start-up files): shell start-up files run on every new shell, `.gitconfig` can set
 * `core.sshCommand`, `.mcp.json` adds servers.
 */
export const PROTECTED_FILES: readonly string[] = Object.freeze([
  '.gitconfig', '.gitmodules', '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.zshrc', '.zshenv',
  '.zprofile', '.zlogin', '.profile', '.ripgreprc', '.mcp.json', '.claude.json',
]);

/** rein's own configuration files (cosmiconfig names for `rein`). */
const REIN_CONFIG = /^(\.reinrc(\.[\w]+)?|rein\.config\.[\w]+)$/;

/**
 * Why writing `abs` is protected, or undefined. `extra` are compiled protected-path specifiers
 * (the preset file itself, the preset's own additions).
 */
export function protectedReason(abs: string, extra: readonly PathMatcher[] = []): string | undefined {
  for (const p of pathForms(abs)) {
    const segments = p.split(sep);
    const dir = segments.slice(0, -1).find((s) => PROTECTED_DIRS.includes(s));
    if (dir) return `${p} is inside a protected directory (${dir}/)`;
    const name = segments[segments.length - 1] ?? '';
    if (PROTECTED_DIRS.includes(name)) return `${p} is a protected directory`;
    if (PROTECTED_FILES.includes(name)) return `${p} is a protected file (${name})`;
    if (REIN_CONFIG.test(name)) return `${p} is rein configuration`;
    const hit = extra.find((m) => m.test(p));
    if (hit) return `${p} is protected (${hit.spec})`;
  }
  return undefined;
}
