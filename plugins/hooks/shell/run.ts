/**
 * Runs one command hook as a real process: `bash -c COMMAND` in its own process group, the event
 * JSON on stdin, stdout and stderr collected. A hook that outlives its timeout (or the run's abort
 * signal) has its whole process group killed, so children it started die with it. A hook whose
 * shell exited is done, even when a background child it started still holds its output open.
 */
import { spawn } from 'node:child_process';

/** Most output kept per stream, bytes; the rest is dropped (a hook is not a data channel). */
export const MAX_HOOK_OUTPUT_BYTES = 1024 * 1024;

/**
 * How long output is still read after the hook's shell exited, ms (rein's choice). A background
 * child the hook started (`notify-send ... &`) inherits its stdout and can keep the pipe open for
 * as long as it lives; the hook is done when its shell exits, so rein reads what is there and
 * stops waiting, leaving the child to run on.
 */
export const HOOK_OUTPUT_GRACE_MS = 200;

export interface HookProcessResult {
  /** Exit code, or null when killed by a signal or never started. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** Set when the process could not be started. */
  spawnError?: string;
  durationMs: number;
}

export interface RunHookOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Runs `command` with `input` on stdin. Never rejects. */
export function runHookProcess(command: string, input: string, o: RunHookOptions): Promise<HookProcessResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn('bash', ['-c', command], { cwd: o.cwd, env: o.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      resolve({ code: null, signal: null, stdout: '', stderr: '', timedOut: false, aborted: false, spawnError: (err as Error).message, durationMs: 0 });
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    let aborted = false;
    let spawnError: string | undefined;
    const killGroup = () => {
      try { if (child.pid) process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
    };
    const timer = setTimeout(() => { timedOut = true; killGroup(); }, o.timeoutMs);
    const onAbort = () => { aborted = true; killGroup(); };
    o.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (b: Buffer) => { if (outBytes < MAX_HOOK_OUTPUT_BYTES) { out.push(b); outBytes += b.length; } });
    child.stderr.on('data', (b: Buffer) => { if (errBytes < MAX_HOOK_OUTPUT_BYTES) { err.push(b); errBytes += b.length; } });
    // A hook that exits without reading stdin closes the pipe; that is not an error.
    child.stdin.on('error', () => undefined);
    child.on('error', (e) => { spawnError = e.message; });
    let done = false;
    let grace: NodeJS.Timeout | undefined;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (grace) clearTimeout(grace);
      o.signal?.removeEventListener('abort', onAbort);
      // The hook's own children may still hold the group; they go when the hook is done.
      if (timedOut || aborted) killGroup();
      resolve({
        code, signal, timedOut, aborted, spawnError,
        stdout: Buffer.concat(out).subarray(0, MAX_HOOK_OUTPUT_BYTES).toString('utf8'),
        stderr: Buffer.concat(err).subarray(0, MAX_HOOK_OUTPUT_BYTES).toString('utf8'),
        durationMs: performance.now() - started,
      });
    };
    // 'exit': the shell is gone, its output pipes may not be (a background child holds them).
    child.on('exit', (code, signal) => {
      grace = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code, signal);
      }, HOOK_OUTPUT_GRACE_MS);
    });
    child.on('close', (code, signal) => finish(code, signal));
    child.stdin.end(input);
  });
}
