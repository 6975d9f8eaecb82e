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
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import ignore from 'ignore';
import { pathForms as formsOf, resolvePath } from '../../../lib/index.js';

/** Directories rein needs to resolve rule paths. */
export interface PathBase {
  /** Working directory, absolute. */
  cwd: string;
  /** Directory of the preset file, absolute (for `/`-anchored patterns). */
  presetDir: string;
  /** Home directory, absolute. */
  home: string;
  /**
   * Where the next shell command runs (absolute), when a shell tool says so (kernel state
   * `shell`, set by tools/bash: a `cd` carries over from call to call). A shell command's
   * relative paths are resolved against it; undefined means `cwd`.
   */
  shellCwd?: () => string;
}

/** `base` with `cwd` set to where the next shell command runs (see PathBase.shellCwd). */
export function shellBase(base: PathBase): PathBase {
  if (!base.shellCwd) return base;
  const cwd = base.shellCwd();
  return cwd === base.cwd ? base : { ...base, cwd };
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

/** Expands a leading `~` and resolves against `cwd` (lexically: for rule anchors and messages). */
export function absolutePath(p: string, cwd: string, home = homedir()): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return resolve(cwd, p);
}

/**
 * Every path a check must judge for `p` (absolute, relative to `cwd`, or `~/…`): as written, each
 * symbolic link on the way and where it really leads, every component resolved with lstat and
 * readlink, dangling links included (lib/fs/resolve.ts). A link inside the project that points
 * at `~/.bashrc`, or at a file that does not exist yet outside the project, is judged as that
 * target too.
 */
export function resolveForms(p: string, base: Pick<PathBase, 'cwd' | 'home'>): string[] {
  return formsOf(resolvePath(p, base.cwd, base.home));
}

/** The forms of an absolute path (see resolveForms). */
export function pathForms(abs: string): string[] {
  return formsOf(resolvePath(abs));
}

/** True when `abs` is `dir` or inside it. */
export function isInside(abs: string, dir: string): boolean {
  const rel = relative(dir, abs);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** True when every one of `forms` lies inside one of the working directories. */
export function formsInside(forms: readonly string[], dirs: readonly string[]): boolean {
  return forms.every((p) => dirs.some((d) => isInside(p, d)));
}

/** True when every form of the absolute path `abs` lies inside one of the working directories. */
export function insideWorkingDirs(abs: string, dirs: readonly string[]): boolean {
  return formsInside(pathForms(abs), dirs);
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

/**
 * A path component as a file system that ignores case or trailing characters may read it, for the
 * protected-name comparison: on a case-insensitive volume (macOS's default APFS, Windows NTFS)
 * `.GIT/config` is `.git/config`; Windows drops trailing dots and spaces (`.git./`, `.git /`) and
 * reads `name:stream` as a stream of `name` (Microsoft, "Naming Files, Paths, and Namespaces").
 * Folding on every system errs toward asking: on Linux these are other names, rarely written.
 */
function foldName(segment: string): string {
  return segment.normalize('NFC').toLowerCase().replace(/:.*$/s, '').replace(/[. ]+$/, '') || segment;
}

/** rein's own configuration files (cosmiconfig names for `rein`). */
const REIN_CONFIG = /^(\.reinrc(\.[\w]+)?|rein\.config\.[\w]+)$/;

/**
 * Why writing a path is protected, or undefined. `forms` are its forms (see resolveForms), or an
 * absolute path to resolve. `extra` are compiled protected-path specifiers (the preset file
 * itself, the preset's own additions).
 */
export function protectedReason(forms: string | readonly string[], extra: readonly PathMatcher[] = []): string | undefined {
  for (const p of typeof forms === 'string' ? pathForms(forms) : forms) {
    const segments = p.split(sep).map(foldName);
    const at = segments.slice(0, -1).findIndex((s) => PROTECTED_DIRS.includes(s));
    if (at !== -1) return `${p} is inside a protected directory (${segments[at]}/)`;
    const name = segments[segments.length - 1] ?? '';
    if (PROTECTED_DIRS.includes(name)) return `${p} is a protected directory`;
    if (PROTECTED_FILES.includes(name)) return `${p} is a protected file (${name})`;
    if (REIN_CONFIG.test(name)) return `${p} is rein configuration`;
    const hit = extra.find((m) => m.test(p));
    if (hit) return `${p} is protected (${hit.spec})`;
  }
  return undefined;
}
