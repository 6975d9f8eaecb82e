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
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
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
  /**
   * The working directories (absolute, each as written and where its links lead), when known:
   * programs rein runs to judge a call are never taken from inside them.
   */
  workingDirs?: readonly string[];
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
  /** The directory the pattern is anchored at (absolute) and the gitignore pattern relative to it. */
  root?: string;
  pattern?: string;
  /**
   * What a matching path is, for the denial message, given the path (`code rein runs (plugin
   * ./x.ts …)`); without it the spec is named.
   */
  describe?: (abs: string) => string;
}

/**
 * A protected path that is one known file, or with `dir` a folder and everything below it:
 * compared by path, every form of the file (as given and where its links lead, see pathForms)
 * against every form of the written path, so no glob character in a name can widen or miss it.
 * A folder that holds it matches too: removing, moving or replacing the folder (`rm -rf plugins/x`,
 * `mv other plugins/x`) replaces the file. A written name that stands for many (ANY_CHILD, the
 * pieces of `split`) matches when one of them is the file. `reason` says what it is in a denial.
 */
export function exactPathMatcher(abs: string, reason: string, dir = false): PathMatcher {
  const forms = pathForms(abs);
  const inside = (p: string, f: string) => (dir ? isInside(p, f) : p === f) || namesAny(p, f);
  return {
    spec: abs,
    test: (p: string) => forms.some((f) => inside(p, f) || isInside(f, p)),
    describe: (p: string) => {
      const named = forms.find((f) => namesAny(p, f));
      if (named) return `a name that may be ${named}, which is ${reason}`;
      return forms.some((f) => inside(p, f)) ? reason : `a folder holding ${forms[0]}, which is ${reason}`;
    },
  };
}

/**
 * A file name no ordinary pattern names, standing for names a command makes up: `dir/PREFIX` +
 * ANY_CHILD + `SUFFIX` is any file in `dir` whose name starts with PREFIX and ends with SUFFIX
 * (the pieces `split` writes; with neither, any file of `dir`). rules.ts builds these names;
 * a rule that matches `dir/` + ANY_CHILD covers all of `dir`.
 */
export const ANY_CHILD = 'rein~any~file~9f2c';

/**
 * True when `p` stands for a set of names (its final name holds ANY_CHILD) and `f` is in the same
 * folder with a name of that set: `plugins/g/inde` + ANY_CHILD names `plugins/g/index.ts`.
 */
function namesAny(p: string, f: string): boolean {
  const at = p.lastIndexOf(ANY_CHILD);
  const slash = p.lastIndexOf('/');
  if (at === -1 || at < slash) return false;
  const head = p.slice(0, at);
  const tail = p.slice(at + ANY_CHILD.length);
  return dirname(f) === (slash === 0 ? '/' : p.slice(0, slash)) && f.length >= head.length + tail.length && f.startsWith(head) && f.endsWith(tail);
}

/** True when `f` is a regular file now (following links; not a FIFO, whose reader would wait for a writer, nor a device). */
export function isRegularFile(f: string): boolean {
  try {
    return statSync(f).isFile();
  } catch {
    return false;
  }
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
    root,
    pattern,
    test(abs: string): boolean {
      const rel = relative(root, abs);
      if (rel === '') return pattern === '**' || pattern === '/**';
      if (rel.startsWith('..') || isAbsolute(rel)) return false;
      return ig.ignores(rel.split(sep).join('/'));
    },
  };
}

/**
 * Most directory entries looked at to find the files a pattern covers (hardLinkNamed). Past it
 * the answer is "may be one of them" (fail closed). 20,000 entries take a few ms to list.
 */
export const MAX_LINK_SEARCH_ENTRIES = 20_000;

/**
 * How long the files a pattern covers are remembered, ms: a Grep walk meets many files, and each
 * with more than one link is compared against the same list.
 */
const LINK_SEARCH_TTL_MS = 1_000;

/** The files a pattern covers, by `dev:ino`, or the reason they could not all be listed. */
type Covered = { at: number; files: Map<string, string>; overflow?: string };
const coveredCache = new WeakMap<PathMatcher, Covered>();

const identity = (st: { dev: number; ino: number }) => `${st.dev}:${st.ino}`;

/**
 * The existing files `m` covers, found under the pattern's leading literal directory: one path
 * for `./.env`, one directory for `./.env.*`, a walk (symbolic links not followed) for `**`,
 * directory patterns (`./secrets`) and unanchored ones (`*.pem`, at any depth as in .gitignore).
 */
function coveredFiles(m: PathMatcher): Covered {
  const now = performance.now();
  const cached = coveredCache.get(m);
  if (cached && now - cached.at < LINK_SEARCH_TTL_MS) return cached;
  const out: Covered = { at: now, files: new Map() };
  coveredCache.set(m, out);
  const add = (p: string) => {
    try {
      const t = statSync(p);
      if (t.isFile()) out.files.set(identity(t), p);
      return t.isDirectory();
    } catch {
      return false;
    }
  };
  const body = m.pattern!.replace(/^\/+/, '').replace(/\/+$/, '');
  const anchored = m.pattern!.startsWith('/') || body.includes('/');
  const segs = body.split('/');
  let lit = 0;
  while (lit < segs.length && !/[*?[\\!]/.test(segs[lit]!)) lit++;
  // `./.env`: one file; `./secrets`: everything below the directory.
  if (anchored && lit === segs.length && !add(join(m.root!, ...segs))) return out;
  const whole = anchored && lit === segs.length;
  const start = anchored ? join(m.root!, ...segs.slice(0, lit)) : m.root!;
  const maxDepth = whole || !anchored || segs.slice(lit).some((x) => x.includes('**')) ? Infinity : segs.length - lit;
  let seen = 0;
  const stack: [string, number][] = [[start, 1]];
  while (stack.length) {
    const [dir, depth] = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > MAX_LINK_SEARCH_ENTRIES) {
        out.overflow = `more than ${MAX_LINK_SEARCH_ENTRIES} entries under ${start} to compare`;
        return out;
      }
      const p = join(dir, e.name);
      if (e.isDirectory()) { if (depth < maxDepth) stack.push([p, depth + 1]); continue; }
      if (e.isFile() && m.test(p)) add(p);
    }
  }
  return out;
}

/**
 * When the existing file `real` has more than one hard link, the path of a file `m` covers that is
 * the same file (same device and inode): a hard link is the same bytes under another name, which
 * no name-based rule sees (`ln .env notes.txt`, then read `notes.txt`). Undefined for a file with
 * one link (the common case: one `lstat`) or one `m` does not cover. When the files `m` covers
 * are too many to list, the answer describes the doubt instead of a path, so a deny or ask rule
 * fails closed.
 */
export function hardLinkNamed(m: PathMatcher, real: string): string | undefined {
  let st;
  try {
    st = lstatSync(real);
  } catch {
    return undefined;
  }
  if (!st.isFile() || st.nlink < 2 || m.root === undefined || m.pattern === undefined) return undefined;
  const covered = coveredFiles(m);
  return covered.files.get(identity(st)) ?? (covered.overflow ? `a file with ${st.nlink} hard links, which may be one ${m.spec} covers (${covered.overflow})` : undefined);
}

/**
 * A file `m` covers inside the directory `dir` (absolute, resolved), for a command that reads a
 * whole tree (`grep -r`, `rg`): its path, a sentence of doubt when the covered files are too many
 * to list, or undefined.
 */
export function coveredInside(m: PathMatcher, dir: string): string | undefined {
  if (m.root === undefined || m.pattern === undefined) return undefined;
  const covered = coveredFiles(m);
  for (const f of covered.files.values()) if (isInside(f, dir)) return f;
  return covered.overflow ? `a file ${m.spec} may cover (${covered.overflow})` : undefined;
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

/**
 * Says which path is outside the working directories `dirs`, for a message: the path as the user
 * wrote it (`asWritten`, as given in the call: relative, `~/…`, with `..`) and, when it leads
 * elsewhere, where (`forms`: resolveForms of it, the real target last). The first form is the
 * written path normalised lexically, which is not where a `..` after a link leads
 * (`/proc/self/cwd/../x` is not `/proc/self/x`), so it is not named as the target. Returns e.g.
 * `/proc/self/cwd/../x, which leads to /tmp/x, is outside the working directories (/tmp/p)`.
 */
export function outsideMessage(asWritten: string, forms: readonly string[], dirs: readonly string[]): string {
  const outside = (f: string) => !dirs.some((d) => isInside(f, d));
  const real = forms[forms.length - 1] ?? asWritten;
  const where = `the working directories (${dirs.join(', ')})`;
  if (outside(real)) return real === asWritten ? `${real} is outside ${where}` : `${asWritten}, which leads to ${real}, is outside ${where}`;
  // The target is inside: the way there is not (a link outside, or the path as written).
  const link = forms.slice(1, -1).find(outside);
  if (link !== undefined) return `${asWritten} leads to ${real} through ${link}, which is outside ${where}`;
  return `${asWritten} is outside ${where} as written, though it leads to ${real}`;
}

/** True when every form of the absolute path `abs` lies inside one of the working directories. */
export function insideWorkingDirs(abs: string, dirs: readonly string[]): boolean {
  return formsInside(pathForms(abs), dirs);
}

/**
 * Directories whose contents rein never lets a mode or the classifier write without asking
 * (Claude Code's DANGEROUS_DIRECTORIES, plus rein's own `.rein` and Mercurial's `.hg`): git and
 * Mercurial internals (a repository's config names programs the next `git status` or `hg status`
 * runs: `core.fsmonitor`; hgrc `[hooks]`, https://www.mercurial-scm.org/doc/hgrc.5.html#hooks),
 * editor settings that can run tasks, agent settings.
 */
export const PROTECTED_DIRS: readonly string[] = Object.freeze(['.git', '.hg', '.rein', '.claude', '.vscode', '.idea']);

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
 * Compatibility forms are folded too (NFKC: `ſ` is `s`, the fullwidth `．` is `.`), code points
 * HFS+ ignores are dropped, and an 8.3 short name stands for the protected name it abbreviates.
 * Folding on every system errs toward asking: on Linux these are other names, rarely written.
 */
function foldName(segment: string): string {
  const folded = segment.normalize('NFKC').replace(IGNORED_CODE_POINTS, '').toLowerCase().replace(/:.*$/s, '').replace(/[. ]+$/, '');
  return longNameOf(folded) ?? (folded || segment);
}

/**
 * Code points HFS+ leaves out when it compares names (zero-width joiners, direction marks, the
 * byte-order mark; the list git checks in `is_hfs_dotgit`, git's utf8.c `next_hfs_char`), and the
 * soft hyphen: `.g\u200cit` is `.git` there.
 */
const IGNORED_CODE_POINTS = /[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/g;

/** Protected names a Windows 8.3 short name can stand for (`GIT~1` for `.git`). */
const SHORT_NAME_TARGETS = (): readonly string[] => [...PROTECTED_DIRS, ...PROTECTED_FILES, '.reinrc', '.reinrc.json', '.reinrc.yaml', '.reinrc.yml', 'rein.config.js', 'rein.config.json', 'rein.config.yaml', 'rein.config.yml', 'rein.local.js', 'rein.local.json', 'rein.local.yaml', 'rein.local.yml'];

/**
 * The protected name a lower-cased 8.3 short name stands for, or undefined. Windows makes the
 * short name from the name before its last dot with dots and spaces removed, cut to 6 characters,
 * then `~N` and the first 3 characters of the extension (Microsoft, "Naming Files, Paths, and
 * Namespaces", short names); git refuses `git~1` for the same reason (`is_ntfs_dotgit`).
 */
function longNameOf(folded: string): string | undefined {
  const m = /^([^~.]{1,6})~\d+(?:\.([^.]{1,3}))?$/.exec(folded);
  if (!m) return undefined;
  return SHORT_NAME_TARGETS().find((name) => {
    const dot = name.lastIndexOf('.');
    const stem = (dot > 0 ? name.slice(0, dot) : name).replace(/[. ]/g, '');
    const ext = dot > 0 ? name.slice(dot + 1, dot + 4) : undefined;
    return stem.slice(0, 6) === m[1] && ext === m[2];
  });
}

/**
 * rein's own configuration files (cosmiconfig names for `rein`, agent/preset/layers.ts): the
 * project layer (`.reinrc*`, `rein.config.*`) and the local one (`rein.local.*`). The next run in
 * the project reads them before any permission check: they can switch the mode to
 * bypassPermissions or add hooks, and a `.js`/`.ts` one is run as code.
 */
const REIN_CONFIG = /^(\.reinrc(\.[\w]+)?|rein\.(config|local)\.[\w]+)$/;

/**
 * Why writing a path is protected, or undefined. `forms` are its forms (see resolveForms), or an
 * absolute path to resolve. `extra` are compiled protected-path specifiers (the preset file
 * itself, the preset's own additions).
 */
export function protectedReason(forms: string | readonly string[], extra: readonly PathMatcher[] = []): string | undefined {
  for (const form of typeof forms === 'string' ? pathForms(forms) : forms) {
    // A name standing for many (ANY_CHILD) is shown with `…` where the made-up part goes.
    const p = form.replaceAll(ANY_CHILD, '…');
    const segments = form.split(sep).map(foldName);
    const at = segments.slice(0, -1).findIndex((s) => PROTECTED_DIRS.includes(s));
    if (at !== -1) return `${p} is inside a protected directory (${segments[at]}/)`;
    const name = segments[segments.length - 1] ?? '';
    if (PROTECTED_DIRS.includes(name)) return `${p} is a protected directory`;
    if (PROTECTED_FILES.includes(name)) return `${p} is a protected file (${name})`;
    if (REIN_CONFIG.test(name)) return `${p} is rein configuration`;
    const hit = extra.find((m) => m.test(form));
    if (hit) return hit.describe ? `${p} is ${hit.describe(form)}` : `${p} is protected (${hit.spec})`;
  }
  return undefined;
}
