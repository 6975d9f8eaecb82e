/**
 * One task of a batch: its working directory (as given, or a fresh clone at a revision, or a fresh
 * empty one), `rein run` on its prompt in a process of its own, then its check command, and one
 * result line.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reinRoot } from '../agent/preset/paths.js';
import type { BatchTask } from './tasks.js';

/** Usage of a run, as `rein run --output-format json` prints it (the Messages API's names), tokens. */
export interface TaskUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
}

/** One line of `rein batch`'s output. Fields are absent when the step that makes them did not run. */
export interface TaskResult {
  id: string;
  /** The task's line in the batch file. */
  line: number;
  /** How the run ended (`end_turn`, `max_turns`, `model_error`, ...). */
  terminal_reason?: string;
  total_cost_usd?: number;
  usage?: TaskUsage;
  /** The run's session (`rein run --resume ID`). */
  session_id?: string;
  /** The check command's exit code; null when it was ended by a signal. */
  check_exit_code?: number | null;
  /** The directory it ran in: its `cwd`, or the fresh one kept with `--keep`. */
  cwd?: string;
  /** Wall time of the whole task (checkout, run, check), ms. */
  duration_ms: number;
  /** Why the task could not run (no such directory, the checkout failed, bad preset, ...). */
  error?: string;
}

export interface RunTaskOptions {
  /** A preset file (absolute) or built-in name, passed to `rein run --preset`. */
  preset: string;
  /** Keep the fresh directories (clones) instead of removing them after the check. */
  keep?: boolean;
  /** Environment of `rein run` and the check. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * Stops the task: aborted with a signal's name (`SIGINT`, `SIGTERM`) as its reason, which is
   * passed on to the running `rein run` (it ends the run `aborted` and prints its result) or
   * check.
   */
  signal?: AbortSignal;
  /**
   * Ends the running command and what it started at once (SIGKILL to its process group): a second
   * signal. With `signal` or `kill`, each command runs in a process group of its own, so a
   * terminal's Ctrl-C reaches it only as this process passes it on (once, for `signal`; not at all
   * while a worker finishes its jobs), not straight from the terminal as well.
   */
  kill?: AbortSignal;
}

interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end, collecting its output; rejects only when it cannot be started. When
 * `signal` is aborted, its reason (a signal's name) is sent to the command's process group.
 */
function exec(command: string, args: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; signal?: AbortSignal; kill?: AbortSignal }): Promise<Exited> {
  return new Promise((resolve, reject) => {
    const { signal, kill } = opts;
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'], detached: !!(signal || kill) });
    const send = (s: () => NodeJS.Signals) => () => { try { process.kill(-child.pid!, s()); } catch { /* already gone */ } };
    if (child.pid) {
      // The signal's name is its abort reason, known once it is aborted.
      const pass = send(() => signal!.reason as NodeJS.Signals);
      const end = send(() => 'SIGKILL');
      if (signal?.aborted) pass();
      else signal?.addEventListener('abort', pass, { once: true });
      kill?.addEventListener('abort', end, { once: true });
      child.on('close', () => { signal?.removeEventListener('abort', pass); kill?.removeEventListener('abort', end); });
    }
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.on('error', () => { /* a command that does not read its input */ });
    child.stdin.end(opts.input ?? '');
  });
}

/** The last lines of a command's stderr, for an error message. */
function tail(text: string, lines = 3): string {
  return text.trim().split('\n').slice(-lines).join(' / ');
}

/** The working directory of a task, and whether it is a fresh one to remove afterwards. */
async function workdir(task: BatchTask, env: NodeJS.ProcessEnv, stop: { signal?: AbortSignal; kill?: AbortSignal }): Promise<{ dir: string; fresh: boolean }> {
  if (task.cwd) {
    const s = await stat(task.cwd).catch(() => undefined);
    if (!s?.isDirectory()) throw new Error(`cwd ${task.cwd}: no such directory`);
    return { dir: task.cwd, fresh: false };
  }
  const dir = await mkdtemp(join(tmpdir(), 'rein-batch-'));
  if (!task.repo) return { dir, fresh: true };
  try {
    const clone = await exec('git', ['clone', '--quiet', '--no-checkout', task.repo, dir], { env, ...stop });
    if (clone.code !== 0) throw new Error(`git clone ${task.repo} failed: ${tail(clone.stderr)}`);
    const co = await exec('git', ['checkout', '--quiet', '--detach', task.rev ?? 'HEAD'], { cwd: dir, env, ...stop });
    if (co.code !== 0) throw new Error(`git checkout ${task.rev} in ${task.repo} failed: ${tail(co.stderr)}`);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return { dir, fresh: true };
}

/** The `rein` command of this installation (bin/rein.js). */
function reinBin(): string {
  return join(reinRoot(), 'bin', 'rein.js');
}

/**
 * Runs one task. Never throws: a task that cannot run (its directory, checkout or preset) is a
 * result with `error`. The prompt goes to `rein run -` on stdin, with the preset alone (no user or
 * project config layers, so every machine runs the task the same way).
 */
export async function runTask(task: BatchTask, opts: RunTaskOptions): Promise<TaskResult> {
  const started = performance.now();
  const env = opts.env ?? process.env;
  let wd: { dir: string; fresh: boolean } | undefined;
  let out: RunJson | undefined;
  let check: number | null | undefined;
  let error: string | undefined;
  try {
    const stopped = () => { if (opts.signal?.aborted) throw new Error(`stopped by ${String(opts.signal.reason)}`); };
    stopped();
    const signal = { ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.kill ? { kill: opts.kill } : {}) };
    wd = await workdir(task, env, signal);
    stopped();
    const run = await exec(process.execPath, [reinBin(), 'run', '--preset', opts.preset, '--cwd', wd.dir, '--no-layers', '--output-format', 'json', '-'], { cwd: wd.dir, env, input: task.prompt, ...signal });
    out = resultJson(run.stdout);
    if (!out) throw new Error(`rein run ended without a result (exit ${run.code ?? run.signal}): ${tail(run.stderr) || 'no output'}`);
    if (task.check) {
      if (opts.signal?.aborted) throw new Error(`stopped by ${String(opts.signal.reason)} before its check`);
      check = (await exec('bash', ['-c', task.check], { cwd: wd.dir, env, ...signal })).code;
    }
  } catch (err) {
    error = (err as Error).message;
  } finally {
    if (wd?.fresh && !opts.keep) await rm(wd.dir, { recursive: true, force: true });
  }
  const u = out?.usage;
  return {
    id: task.id,
    line: task.line,
    ...(out ? { terminal_reason: out.rein_terminal_reason ?? out.terminal_reason, total_cost_usd: out.total_cost_usd } : {}),
    ...(u ? { usage: { input_tokens: u.input_tokens, cache_creation_input_tokens: u.cache_creation_input_tokens, cache_read_input_tokens: u.cache_read_input_tokens, output_tokens: u.output_tokens } } : {}),
    ...(check !== undefined ? { check_exit_code: check } : {}),
    ...(out ? { session_id: out.session_id } : {}),
    ...(wd && (!wd.fresh || opts.keep) ? { cwd: wd.dir } : {}),
    duration_ms: Math.round(performance.now() - started),
    ...(error ? { error } : {}),
  };
}

/** The final line of `rein run --output-format json`. */
interface RunJson {
  type: 'result';
  /** In the Agent SDK's words (`completed`, ...); rein's own reason is `rein_terminal_reason`. */
  terminal_reason: string;
  rein_terminal_reason?: string;
  total_cost_usd: number;
  usage?: TaskUsage;
  session_id: string;
}

/** The result object `rein run --output-format json` printed last, if it did. */
function resultJson(stdout: string): RunJson | undefined {
  try {
    const v = JSON.parse(stdout.trim().split('\n').pop() ?? '') as Partial<RunJson>;
    return v?.type === 'result' ? (v as RunJson) : undefined;
  } catch {
    return undefined;
  }
}
