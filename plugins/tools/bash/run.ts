/**
 * Runs one command in a real bash, as its own process group, with stdout and stderr going to one
 * log file (so their interleaving is kept, and background jobs left running cannot hold the call
 * open). On timeout or abort the whole group is killed. The shell's final working directory is
 * reported so the next call starts where this one ended.
 */
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SpawnRequest } from '../../../kernel/index.js';
import { childProcess } from '../shared/child-process.js';

/**
 * Environment that keeps commands from waiting for a person who is not there: pagers print
 * straight through, git takes the default message instead of opening an editor, and credential
 * prompts fail at once. The plugin's `env` option can override each.
 */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = Object.freeze({
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GIT_EDITOR: 'true',
  GIT_TERMINAL_PROMPT: '0',
});

/** Largest log a command may write, bytes; past it the command is killed (a runaway `yes` must not fill the disk). */
export const MAX_LOG_BYTES = 512 * 1024 * 1024;
/** How often the log size is checked, ms. */
const LOG_CHECK_MS = 1_000;

/**
 * Runs the command text, then records the directory it ended in on the descriptor rein opened as
 * fd 3 (moved out of the command's way first; a descriptor rather than a path, so it works inside
 * a sandbox whose file system is read-only). `eval` so heredocs, functions and syntax errors
 * behave as typed.
 */
const SCRIPT = 'exec {__rein_fd}>&3 3>&-\neval "$REIN_BASH_COMMAND"\n__rein_status=$?\npwd -P >&"$__rein_fd" 2>/dev/null\nexit $__rein_status\n';
/**
 * The same for a background command: fd 3 gets its exit status (from an EXIT trap, so an `exit N`
 * in the command is recorded too), so how it ended is known even after rein exits.
 */
const BACKGROUND_SCRIPT = 'exec {__rein_fd}>&3 3>&-\ntrap \'echo "$?" >&"$__rein_fd" 2>/dev/null\' EXIT\neval "$REIN_BASH_COMMAND"\n';

/** A process to start: what the `spawn` hook sees and may wrap. */
export interface Launch {
  file: string;
  args: string[];
  /** Absolute working directory. */
  cwd: string;
  /** The whole environment. */
  env: Record<string, string>;
}

/**
 * The bash process for `command` started in `cwd`. `env` is its whole environment (the kernel's
 * `subprocessEnv`, with NON_INTERACTIVE_ENV and the plugin's `env` in it); rein adds the command.
 */
export function bashLaunch(command: string, cwd: string, env: Record<string, string>, background = false): Launch {
  return {
    file: 'bash',
    args: ['-c', background ? BACKGROUND_SCRIPT : SCRIPT],
    cwd,
    env: { ...env, REIN_BASH_COMMAND: command },
  };
}

export interface ShellOptions {
  /** Kill the process group after this long, ms. */
  timeoutMs: number;
  signal: AbortSignal;
  /** File that receives stdout and stderr. */
  logFile: string;
}

export interface ShellResult {
  /** Exit status, or null when the shell was killed by a signal. */
  exitCode: number | null;
  /** The signal that ended the shell, if any. */
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Set when `signal` aborted the call (its reason). */
  aborted?: { reason: unknown };
  /** True when the command was killed for writing more than MAX_LOG_BYTES. */
  outputCapped?: boolean;
  /** Bytes written to the log. */
  outputBytes: number;
  /** The directory the shell ended in, when it got to record it. */
  cwdAfter?: string;
  durationMs: number;
  /** The call's process group (its shell's pid), for processes the command left running in the background. */
  pgid?: number;
}

/** Kills every process of the group led by `pid`. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** True while any process of the group `pgid` is alive (the shell itself may have exited). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    // EPERM: the group exists but is not ours to signal; it is alive all the same.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Stops process groups left running: SIGTERM to each, then SIGKILL to those still alive after
 * `graceMs` (ms). Resolves when every group is gone or was sent SIGKILL.
 */
export async function stopGroups(pgids: Iterable<number>, graceMs = 1_000): Promise<void> {
  const alive = [...pgids].filter(groupAlive);
  if (!alive.length) return;
  for (const g of alive) killGroup(g, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && alive.some(groupAlive)) await new Promise((r) => setTimeout(r, 25));
  for (const g of alive) if (groupAlive(g)) killGroup(g, 'SIGKILL');
}

/** Runs a `bashLaunch` process; never rejects for the command's own failures (they are in the result). */
export function runShell(launch: Launch, o: ShellOptions): Promise<ShellResult> {
  const started = performance.now();
  const cwdFile = `${o.logFile}.cwd`;
  const fd = openSync(o.logFile, 'w');
  const cwdFd = openSync(cwdFile, 'w');
  return new Promise<ShellResult>((resolve, reject) => {
    let timedOut = false;
    let aborted: { reason: unknown } | undefined;
    let child;
    try {
      child = childProcess().spawn(launch.file, launch.args, { cwd: launch.cwd, detached: true, stdio: ['ignore', fd, fd, cwdFd], env: launch.env });
    } catch (err) {
      closeSync(fd);
      closeSync(cwdFd);
      reject(err);
      return;
    }
    closeSync(fd);
    closeSync(cwdFd);
    const timer = setTimeout(() => { timedOut = true; killGroup(child.pid); }, o.timeoutMs);
    let outputCapped = false;
    const sizeCheck = setInterval(() => {
      try {
        if (statSync(o.logFile).size > MAX_LOG_BYTES) { outputCapped = true; killGroup(child.pid); }
      } catch {
        // the log is gone: nothing to cap
      }
    }, LOG_CHECK_MS);
    sizeCheck.unref();
    const onAbort = () => { aborted = { reason: o.signal.reason }; killGroup(child.pid); };
    if (o.signal.aborted) onAbort();
    else o.signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => {
      clearTimeout(timer);
      clearInterval(sizeCheck);
      o.signal.removeEventListener('abort', onAbort);
      reject(err);
    });
    child.on('exit', (code, sig) => {
      clearTimeout(timer);
      clearInterval(sizeCheck);
      o.signal.removeEventListener('abort', onAbort);
      // Whatever the shell left behind in its group after a kill goes too.
      if (timedOut || aborted || outputCapped) killGroup(child.pid);
      let cwdAfter: string | undefined;
      try {
        cwdAfter = readFileSync(cwdFile, 'utf8').trim() || undefined;
      } catch {
        // the command ran `exit` or was killed: the directory stays as it was
      }
      let outputBytes = 0;
      try {
        outputBytes = statSync(o.logFile).size;
      } catch {
        // removed by the command itself
      }
      resolve({ exitCode: code, signal: sig, timedOut, aborted, outputCapped, outputBytes, cwdAfter, durationMs: performance.now() - started, pgid: child.pid });
    });
  });
}

/** Runs the `cleanup` work a `spawn` tap left (a sandbox's files, its proxy). Never throws. */
export async function runCleanup(req: SpawnRequest): Promise<void> {
  for (const fn of req.cleanup) {
    try {
      await fn();
    } catch {
      // best effort: the process is already gone
    }
  }
}

/** Path of the log file for one call. */
export function logFileFor(sessionDir: string, toolUseId: string): string {
  return join(sessionDir, 'bash', `${toolUseId.replace(/[^A-Za-z0-9_-]/g, '_')}.log`);
}
