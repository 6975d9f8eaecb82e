/**
 * The session's dynamic context (date, working directory, platform, git state), gathered once when
 * the session starts and sent as a `<system-reminder>` at the start of the first user message. It sits
 * after the system prompt, so the system prompt's bytes never depend on it, and it is frozen for the
 * session (Claude Code behaviour: a date that changes at midnight would rewrite the
 * whole cached prefix; a slightly stale value is cheaper).
 */
import type * as ChildProcessModule from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { platform, release } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { withExplicitBareRepositories } from '../../lib/index.js';

/** Longest `git status --short` kept, characters (Claude Code truncates its git status the same way). */
export const MAX_GIT_STATUS_CHARS = 2_000;
/** Recent commits listed. */
export const GIT_LOG_COUNT = 5;
/** Timeout for each git command, ms. */
export const GIT_TIMEOUT_MS = 5_000;

/** What the git state says of a folder that is not in a repository (or where git fails). */
export const NOT_A_REPOSITORY = 'Git: not a git repository.';

/** Local date as YYYY-MM-DD. */
export function localIsoDate(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`;
}

const load = createRequire(import.meta.url);
let childProcess: typeof ChildProcessModule | undefined;

/** rein's own environment, strings only. */
function stringEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (typeof v === 'string') out[k] = v;
  return out;
}

/**
 * Output of one git command, or undefined when it fails (not a repository, no git, timeout). git
 * takes a bare repository only when named (withExplicitBareRepositories): a folder whose files an
 * agent wrote to look like one would otherwise have its `config` run programs at every start.
 */
function git(cwd: string, args: string[], env?: Record<string, string>): Promise<string | undefined> {
  // node:child_process is required here, not when the module loads: where git could find no work
  // tree no git runs, and loading the module was ~19 M instructions of such a cold start.
  childProcess ??= load('node:child_process') as typeof ChildProcessModule;
  const { execFile } = childProcess;
  return new Promise((resolve) => {
    execFile('git', args, { cwd, encoding: 'utf8', timeout: GIT_TIMEOUT_MS, env: withExplicitBareRepositories(env ?? stringEnv()) }, (err, stdout) => resolve(err ? undefined : stdout.trimEnd()));
  });
}

/**
 * The branch name from the header line of `git status --short --branch`:
 * `## main...origin/main [ahead 1]`, `## main`, `## No commits yet on main` (older git:
 * `## Initial commit on main`), `## HEAD (no branch)` when detached (reported as `HEAD`, as
 * `git rev-parse --abbrev-ref HEAD` would).
 */
export function branchOf(header: string): string {
  const h = header.replace(/^## /, '');
  const unborn = /^(?:No commits yet|Initial commit) on (.+)$/.exec(h);
  if (unborn) return unborn[1]!;
  if (h.startsWith('HEAD (no branch)')) return 'HEAD';
  return h.split('...')[0]!.split(' ')[0]! || '(unknown)';
}

/**
 * The variables with which git finds a repository other than by looking for `.git` above the
 * working directory (https://git-scm.com/docs/git#_environment_variables).
 */
const GIT_LOCATION_VARIABLES = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR'] as const;

/**
 * False only when git cannot find a work tree for `cwd`: none of GIT_LOCATION_VARIABLES is set in
 * `env` (process.env when undefined, as for the git commands), and neither `cwd` nor any folder
 * above it, by the path as given or with symbolic links resolved (git looks from the resolved one),
 * holds a `.git` entry (a folder, or the file of a linked work tree or submodule) or is itself a
 * git directory (HEAD, objects/ and refs/: a bare repository may name a work tree in its config).
 * Then `git status` fails with "not a git repository" anyway, so rein spawns no git process: each
 * spawn costs the main thread a few ms of a cold start, more as the process grows (fork copies its
 * page tables). Whenever git might find one, git is asked, as before.
 * https://git-scm.com/docs/gitrepository-layout
 */
export function mayBeInRepository(cwd: string, env?: Record<string, string | undefined>): boolean {
  const vars = env ?? process.env;
  if (GIT_LOCATION_VARIABLES.some((v) => vars[v])) return true;
  const starts = [resolve(cwd)];
  try {
    const real = realpathSync(starts[0]!);
    if (real !== starts[0]) starts.push(real);
  } catch {
    // A folder that does not exist: git fails there too (the spawn fails), with the same answer.
  }
  for (const start of starts) {
    for (let dir = start; ; dir = dirname(dir)) {
      if (existsSync(join(dir, '.git'))) return true;
      if (existsSync(join(dir, 'HEAD')) && existsSync(join(dir, 'objects')) && existsSync(join(dir, 'refs'))) return true;
      if (dirname(dir) === dir) break;
    }
  }
  return false;
}

/**
 * Git branch, status and recent commits of `cwd`, or a line saying it is not a repository.
 * Two commands, run concurrently: `git status --short --branch` answers "is this a repository",
 * the branch and the status at once, and every spawn costs the main thread ~2 ms at start-up.
 * Where git could find no work tree (mayBeInRepository), the answer is given without running git.
 */
export async function gitState(cwd: string, env?: Record<string, string>): Promise<string> {
  if (!mayBeInRepository(cwd, env)) return NOT_A_REPOSITORY;
  const [statusOut, log] = await Promise.all([
    git(cwd, ['status', '--short', '--branch'], env),
    git(cwd, ['log', '--oneline', '-n', String(GIT_LOG_COUNT)], env).then((l) => l ?? ''),
  ]);
  if (statusOut === undefined) return NOT_A_REPOSITORY;
  const [header = '', ...changes] = statusOut.split('\n');
  const branch = branchOf(header);
  let status = changes.join('\n');
  if (status.length > MAX_GIT_STATUS_CHARS) {
    status = `${status.slice(0, MAX_GIT_STATUS_CHARS)}\n… (status truncated; run git status for the rest)`;
  }
  const lines = [`Git branch: ${branch}`];
  lines.push(status ? `Git status (uncommitted changes):\n${status}` : 'Git status: clean.');
  if (log) lines.push(`Recent commits:\n${log}`);
  return lines.join('\n');
}

export interface UserContextOptions {
  date?: string;
  cwd: string;
  include: { date: boolean; cwd: boolean; platform: boolean; git: boolean };
  /** Environment for the git commands (the kernel's `subprocessEnv`). Default: rein's own. */
  env?: Record<string, string>;
  /** The git state's text, given instead of running git. */
  gitState?: string;
}

/** The reminder text (empty when nothing is included). */
export async function buildUserContext(o: UserContextOptions): Promise<string> {
  const parts: string[] = [];
  if (o.include.date) parts.push(`Today's date: ${o.date ?? localIsoDate()}`);
  if (o.include.cwd) parts.push(`Working directory: ${o.cwd}`);
  if (o.include.platform) parts.push(`Platform: ${platform()} ${release()}`);
  if (o.include.git) parts.push(o.gitState ?? await gitState(o.cwd, o.env));
  if (!parts.length) return '';
  return `<system-reminder>\nThis is the session's context as of its start; it is not updated during the session.\n${parts.join('\n')}\n</system-reminder>`;
}
