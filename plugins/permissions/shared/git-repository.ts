/**
 * Which repository a `git` command would use, and whether its configuration could have been
 * written by the agent. git reads the configuration of the repository it finds (`core.fsmonitor`,
 * `core.pager`, `diff.external`, `core.sshCommand`, hooks...), and those settings run programs, so
 * `git status` runs whatever that file names. rein protects every `.git` directory, but git also
 * takes a directory that merely *looks like* a repository (a `HEAD`, an `objects/` and a `refs/`:
 * a bare repository) as one. Files with those names are ordinary project files an agent may write,
 * so after writing `sub/HEAD`, `sub/objects/`, `sub/refs/` and `sub/config`, `cd sub && git status`
 * would run the program its `core.fsmonitor` names. A rule allowing `git status` is not about that.
 *
 * Discovery follows git's own order (git's setup.c, `setup_git_directory_gently_1`, and
 * `is_git_directory`; https://git-scm.com/docs/git#_git_repository_discovery): from the
 * directory git starts in, each directory upwards is checked for a `.git` entry, then for being
 * a repository itself. A repository named `.git` is protected (paths.ts PROTECTED_DIRS); any other
 * is reported, as is a repository named outright (`--git-dir`, `--bare`) and a directory known
 * only at run time (`cd "$D"`, `popd`).
 */
import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { absolutePath, shellBase, type PathBase } from './paths.js';
import type { ShellPart } from './shell/parse.js';
import { DYNAMIC, splitCanonical } from './shell/words.js';

/** How many start directories one command may lead git to before rein stops counting and asks. */
const MAX_START_DIRS = 64;

/** `NAME=value` at the start of a canonical command (a kept assignment: `GIT_DIR=x git status`). */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

/** `env` options that remove variables: `-i`, `-`, `--ignore-environment`, `-u NAME`, `--unset=NAME`, and short options run together (`-iv`). */
const ENV_CLEARING = /^(-|-[A-Za-z0-9]*[iu].*|--ignore-environment|--unset(=.*)?)$/;

/** git's global options that take a value as the next word (git(1) OPTIONS). */
export const GLOBAL_WITH_VALUE: ReadonlySet<string> = new Set(['-c', '-C', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env', '--super-prefix', '--list-cmds', '--attr-source']);

/**
 * True when `dir` holds what git's `is_git_directory` requires of a repository: a `HEAD`, an
 * `objects` and a `refs` entry. Their contents are not checked (git's checks are looser than they
 * look, and a lookalike is asked about either way).
 */
function looksLikeRepository(dir: string): boolean {
  return ['HEAD', 'objects', 'refs'].every((name) => existsSync(join(dir, name)) || isLink(join(dir, name)));
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** `p` with its longest existing prefix resolved through symbolic links (git starts from getcwd(3), a real path). */
function realStart(p: string): string {
  const tail: string[] = [];
  let at = p;
  for (;;) {
    try {
      return join(realpathSync(at), ...tail.reverse());
    } catch {
      const up = dirname(at);
      if (up === at) return p;
      tail.push(basename(at));
      at = up;
    }
  }
}

/** True when `dir/.git` is an entry git would take: a directory that looks like a repository, or a file (a `gitdir:` link). */
function hasDotGit(dir: string): boolean {
  const dotGit = join(dir, '.git');
  try {
    const st = statSync(dotGit);
    return st.isFile() || (st.isDirectory() && looksLikeRepository(dotGit));
  } catch {
    return false;
  }
}

/**
 * The repository git finds starting in `start` when it is not a `.git` directory (so the agent
 * may have written its configuration), or undefined.
 */
function foundRepository(start: string): string | undefined {
  for (let d = realStart(start); ; d = dirname(d)) {
    if (hasDotGit(d)) return undefined;
    if (looksLikeRepository(d)) return basename(d) === '.git' ? undefined : d;
    if (dirname(d) === d) return undefined;
  }
}

/**
 * The directories a later part of the command may be in: the shell's, plus each `cd`/`pushd`
 * target of the command taken from any of them (over-approximated: every directory change is
 * assumed to happen before every git call). Undefined when a target is known only at run time.
 */
function startDirs(parts: readonly ShellPart[], base: PathBase): string[] | undefined {
  let dirs = [base.cwd];
  for (const part of parts) {
    if (!part.changesDir) continue;
    if (part.allow === undefined) return undefined;
    const [name, ...args] = splitCanonical(part.allow);
    if (name === 'popd') return undefined;
    const operands = args.filter((a) => !/^-[LPe@]+$/.test(a));
    if (operands.length > 1 || operands.some((a) => a.includes(DYNAMIC) || a === '-' || /^[+-]\d+$/.test(a))) return undefined;
    const target = operands[0];
    if (target === undefined && name !== 'cd') return undefined; // pushd alone swaps with the stack
    dirs = [...new Set([...dirs, ...dirs.map((d) => (target === undefined ? base.home : absolutePath(target, d, base.home)))])];
    if (dirs.length > MAX_START_DIRS) return undefined;
  }
  return dirs;
}

/**
 * Why the `git` part `part` of a Bash command would use a repository whose configuration is not
 * protected, or undefined when it would not (or is not git). `parts` are every part of the command
 * (for its `cd`s); `base` is the permission base (the shell's directory is taken from it);
 * `ruleText` is the allow rule that covers the part: a repository named with `--git-dir` or
 * `--bare` is fine when the rule itself writes that option out, as for other risky options.
 */
export function gitRepositoryRisk(parts: readonly ShellPart[], part: ShellPart, base: PathBase, ruleText = ''): string | undefined {
  if (part.program !== 'git' || part.allow === undefined) return undefined;
  const b = shellBase(base);
  const words = splitCanonical(part.allow);
  let i = words.findIndex((w) => !ASSIGNMENT.test(w));
  const named = words.slice(0, Math.max(i, 0)).find((w) => /^GIT_(DIR|COMMON_DIR|CONFIG\w*)\+?=/.test(w));
  if (named && !ruleText.includes(named)) return 'it names the repository or its configuration in the environment';
  // A wrapper that empties the environment (`env -i git status`) drops what withExplicitBareRepositories adds.
  const wrapperArgs = part.args && part.args.length > words.length - i - 1 ? part.args.slice(0, part.args.findIndex((a) => a.value === 'git')) : [];
  if (wrapperArgs.some((a) => ENV_CLEARING.test(a.value))) return 'it runs git with its environment emptied or cut, where git may take a repository whose configuration runs programs';
  i += 1; // past `git`
  let dirs = startDirs(parts, b);
  if (!dirs) return 'it runs after a change of directory known only at run time, where git may find a repository whose configuration runs programs';
  for (; i < words.length && words[i]!.startsWith('-'); i++) {
    const [opt, joined] = words[i]!.includes('=') ? [words[i]!.slice(0, words[i]!.indexOf('=')), words[i]!.slice(words[i]!.indexOf('=') + 1)] : [words[i]!, undefined];
    const value = joined ?? (GLOBAL_WITH_VALUE.has(opt) ? words[++i] : undefined);
    if (opt === '--git-dir' || opt === '--bare') {
      if (ruleText.includes(opt)) return undefined;
      const named = opt === '--bare' ? dirs : value === undefined || value.includes(DYNAMIC) ? undefined : dirs.map((d) => absolutePath(value, d, b.home));
      const other = named?.find((r) => basename(realStart(r)) !== '.git') ?? (named ? undefined : '(known only at run time)');
      if (other) return `it uses ${other} as the repository, whose configuration can run programs`;
      return undefined;
    }
    if (opt === '-C') {
      if (value === undefined || value.includes(DYNAMIC)) return 'it runs in a directory known only at run time';
      dirs = dirs.map((d) => absolutePath(value, d, b.home));
    }
  }
  for (const d of dirs) {
    const repo = foundRepository(d);
    if (repo) return `git would use ${repo} as its repository: it is not a .git directory, so its configuration (which can run programs: core.fsmonitor, core.pager, diff.external) is not protected`;
  }
  return undefined;
}

