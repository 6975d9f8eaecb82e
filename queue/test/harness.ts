/**
 * Real parts for the queue's system tests: a `redis-server` on a free loopback port in a temp
 * directory, and `rein` (the built command, bin/rein.js) as real processes, workers included.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { cleanEnv, REPO, tempDir } from '../../testing/support.js';

export const BIN = join(REPO, 'bin/rein.js');

/** A free TCP port on 127.0.0.1 (the kernel's choice for port 0, released before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  url: string;
  port: number;
  /** The server's process id (benchmarks read its CPU time). */
  pid: number;
  stop(): Promise<void>;
}

/** Waits for `pattern` in a growing text (a process's output); rejects after `ms` or when the process exits. */
export function waitFor(proc: { text(): string; exited: Promise<unknown> }, pattern: RegExp, ms = 30_000): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let done = false;
    proc.exited.then(() => { if (!done) { const m = proc.text().match(pattern); if (m) resolve(m); else reject(new Error(`exited before ${pattern}:\n${proc.text()}`)); done = true; } });
    const tick = () => {
      if (done) return;
      const m = proc.text().match(pattern);
      if (m) { done = true; return resolve(m); }
      if (Date.now() - started > ms) { done = true; return reject(new Error(`timed out waiting for ${pattern}:\n${proc.text()}`)); }
      setTimeout(tick, 20);
    };
    tick();
  });
}

/** A running process with its output collected. */
export interface Proc {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** stdout and stderr as they came. */
  text(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts a command with its output collected. `detached`: in a process group of its own, as a
 * shell runs a foreground job, so that `process.kill(-pid, 'SIGINT')` is a terminal's Ctrl-C.
 */
export function start(command: string, args: readonly string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; input?: string; detached?: boolean }): Proc {
  const child = spawn(command, args, { cwd: opts.cwd, env: { ...cleanEnv(), ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'], detached: !!opts.detached });
  let out = '';
  let err = '';
  let all = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => { out += d; all += d; });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => { err += d; all += d; });
  child.stdin!.on('error', () => {});
  child.stdin!.end(opts.input ?? '');
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return { child, stdout: () => out, stderr: () => err, text: () => all, exited };
}

/** `rein ARGS` from the built command. */
export function rein(args: readonly string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; input?: string; nodeFlags?: readonly string[]; detached?: boolean }): Proc {
  // REIN_BENCH_NODE_FLAGS: Node options for every `rein` process started here (`--single-threaded`
  // for the bench:queue figures in bench/README.md); V8 refuses some of them in NODE_OPTIONS.
  // `nodeFlags` replace them for this process.
  const flags = opts.nodeFlags ?? process.env.REIN_BENCH_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? [];
  return start(process.execPath, [...flags, BIN, ...args], opts);
}

/** `rein ARGS` to its end. */
export async function reinDone(args: readonly string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; input?: string }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = rein(args, opts);
  const { code } = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

/**
 * Starts `redis-server` on a free loopback port, with its files in `dir` and nothing saved to
 * disk, and `args` (more settings, such as `--requirepass X`). Resolves once it accepts connections.
 */
export async function startRedis(dir: string, args: readonly string[] = []): Promise<RedisServer> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const p = start('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', ...args], { cwd: dir });
    try {
      await waitFor(p, /Ready to accept connections/, 10_000);
      return {
        url: `redis://127.0.0.1:${port}`, port, pid: p.child.pid!,
        stop: async () => { p.child.kill('SIGTERM'); await p.exited; },
      };
    } catch (err) {
      p.child.kill('SIGKILL');
      // Another process took the port between the check and the start: try another.
      if (attempt < 3 && /Address already in use/.test(p.text())) continue;
      throw err;
    }
  }
}

/** Starts `rein worker` on `url` and resolves once it takes jobs. */
export async function startWorker(url: string, opts: { cwd: string; name: string; concurrency?: number; lockMs?: number; env?: NodeJS.ProcessEnv; nodeFlags?: readonly string[]; args?: readonly string[] }): Promise<Proc> {
  const args = ['worker', '--queue', url, '--name', opts.name, '--concurrency', String(opts.concurrency ?? 1), ...(opts.lockMs ? ['--lock-duration', String(opts.lockMs)] : []), ...(opts.args ?? [])];
  const p = rein(args, { cwd: opts.cwd, ...(opts.env ? { env: opts.env } : {}), ...(opts.nodeFlags ? { nodeFlags: opts.nodeFlags } : {}) });
  await waitFor(p, /runs jobs of queue/);
  return p;
}

/** Stops a process (SIGTERM, then SIGKILL after `ms`) and waits for it. */
export async function stop(p: Proc, ms = 10_000): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const t = setTimeout(() => p.child.kill('SIGKILL'), ms);
  await p.exited;
  clearTimeout(t);
}

/**
 * What a queue system test file shares: a temp directory (its working directory), a REIN_HOME in
 * it, a redis-server, and the processes and further servers it starts, stopped after the file's
 * tests. Fields are set by the fixture's beforeAll: read them in tests and hooks, not at load.
 */
export interface QueueFixture {
  /** The temp directory: the cwd of the commands, and where their files go. */
  readonly dir: string;
  /** The environment of every `rein` started: REIN_HOME in `dir`. */
  readonly env: NodeJS.ProcessEnv;
  /** The redis-server started for the file. */
  readonly redis: RedisServer;
  /** Processes started so far that afterAll stops (SIGTERM, then SIGKILL after 2 s); splice to stop some sooner. */
  readonly procs: Proc[];
  /** `p`, stopped after the file's tests. */
  track<P extends Proc>(p: P): P;
  /** Another redis-server (startRedis with `args`), stopped after the file's tests. */
  startRedis(args?: readonly string[]): Promise<RedisServer>;
  /** `rein worker` on `url` (default: the file's server) with the fixture's cwd and env, stopped after the file's tests. */
  startWorker(opts: { url?: string; name: string; concurrency?: number; lockMs?: number; nodeFlags?: readonly string[]; args?: readonly string[] }): Promise<Proc>;
}

/**
 * Registers the beforeAll / afterAll of a queue system test file and returns the fixture they
 * fill. Call it at the top of the file, before the file's own hooks: its afterAll then runs last
 * (vitest runs after-hooks in reverse order), once the file's own ones have closed what they opened.
 *
 * @param prefix the temp directory's name prefix (`rein-queue-edges-`).
 */
export function queueFixture(prefix: string): QueueFixture {
  let tmp: ReturnType<typeof tempDir> | undefined;
  let env: NodeJS.ProcessEnv | undefined;
  let redis: RedisServer | undefined;
  const servers: RedisServer[] = [];
  const procs: Proc[] = [];
  const set = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`queueFixture: ${name} is set in beforeAll; read it in a test or hook`);
    return value;
  };
  const fixture: QueueFixture = {
    get dir() { return set(tmp, 'dir').dir; },
    get env() { return set(env, 'env'); },
    get redis() { return set(redis, 'redis'); },
    procs,
    track: (p) => { procs.push(p); return p; },
    startRedis: async (args = []) => {
      const server = await startRedis(fixture.dir, args);
      servers.push(server);
      return server;
    },
    startWorker: async (opts) => {
      const { url = fixture.redis.url, ...rest } = opts;
      return fixture.track(await startWorker(url, { cwd: fixture.dir, env: fixture.env, ...rest }));
    },
  };
  beforeAll(async () => {
    tmp = tempDir(prefix);
    env = { REIN_HOME: join(tmp.dir, 'home') };
    redis = await fixture.startRedis();
  });
  afterAll(async () => {
    for (const p of procs.splice(0)) await stop(p, 2_000);
    for (const s of servers.splice(0)) await s.stop();
    tmp?.cleanup();
  });
  return fixture;
}
