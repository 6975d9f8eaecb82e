/**
 * `rein worker --processes N` against a real redis-server, as real processes (the built command):
 * it starts N worker processes (with Node's --single-threaded when they fill the cores), they run a benchmark's jobs, SIGTERM
 * to the supervisor stops them all, and a supervisor killed with SIGKILL leaves no worker behind.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { freePort, queueFixture, rein, reinDone, waitFor, type Proc } from './harness.js';

const fx = queueFixture('rein-worker-processes-');

/** Starts `rein worker --processes 2 --name NAME` and resolves with the pids of its two processes once both take jobs. */
async function supervisor(name: string): Promise<{ p: Proc; pids: number[] }> {
  const p = rein(['worker', '--queue', fx.redis.url, '--processes', '2', '--name', name, '--lock-duration', '1500'], { cwd: fx.dir, env: fx.env, nodeFlags: [] });
  fx.track(p);
  await waitFor(p, new RegExp(`${name}-1 runs jobs[\\s\\S]*${name}-2 runs jobs|${name}-2 runs jobs[\\s\\S]*${name}-1 runs jobs`));
  // The processes are the supervisor's children: /proc/PID/task/TID/children (Linux).
  const pids = readFileSync(`/proc/${p.child.pid}/task/${p.child.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
  return { p, pids };
}

const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };
async function gone(pids: number[], ms = 20_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!pids.some(alive)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe('rein worker --processes', () => {
  it('runs two worker processes that take the jobs, single-threaded when they fill the cores; SIGTERM stops both and the supervisor exits 0', async () => {
    const { p, pids } = await supervisor('pw');
    expect(pids).toHaveLength(2);
    // Two processes of one job each fill a machine of at most 2 cores.
    const fills = availableParallelism() <= 2;
    for (const pid of pids) expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--single-threaded')).toBe(fills);
    expect(p.stderr()).toMatch(fills ? /^rein worker: starting 2 worker processes \(node .*--single-threaded\)$/m : /^rein worker: starting 2 worker processes \(Node's defaults: fewer jobs at once than the \d+ cores\)$/m);

    const submit = await reinDone(['bench', '--queue', fx.redis.url, '-w', 'gen:turns=8,seed=1', '-w', 'gen:turns=8,seed=2', '--preset', 'minimal', '--no-progress'], { cwd: fx.dir, env: fx.env });
    expect(submit.code, submit.stderr).toBe(0);
    expect(p.stderr().match(/^rein worker [12]: done gen:turns=8,seed=\d × minimal/gm)).toHaveLength(2);

    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    expect(await gone(pids)).toBe(true);
    // Each process's lines say which process wrote them.
    expect(p.stderr()).toMatch(/^rein worker 1: SIGTERM: finishing the running jobs/m);
    expect(p.stderr()).toMatch(/^rein worker 2: SIGTERM: finishing the running jobs/m);
    expect(p.stderr()).toMatch(/^rein worker 1: pw-1 runs jobs/m);
    expect(p.stderr()).toMatch(/^rein worker 2: pw-2 runs jobs/m);
    // Every line is the supervisor's own or a process's, prefixed.
    for (const line of p.stderr().trim().split('\n')) expect(line).toMatch(/^rein worker( [12])?: /);
  });

  it('a supervisor killed with SIGKILL leaves no worker process running', async () => {
    const { p, pids } = await supervisor('pk');
    p.child.kill('SIGKILL');
    await p.exited;
    expect(await gone(pids)).toBe(true);
  });

  it('a Redis server that cannot be reached is one clear line and exit 2, with no process started', async () => {
    const port = await freePort();
    const r = await reinDone(['worker', '--queue', `redis://127.0.0.1:${port}`, '--processes', '2'], { cwd: fx.dir, env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`rein: cannot reach Redis at redis://127.0.0.1:${port}: connection refused (is redis-server running there, on that port?)\n`);
  });

  it('--processes above 256 (MAX_PROCESSES, cli/commands/worker.ts) is refused before any process starts, with a reachable Redis', async () => {
    const r = await reinDone(['worker', '--queue', fx.redis.url, '--processes', '1e9'], { cwd: fx.dir, env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`rein: option '--processes <n>' argument '1e9' is invalid. --processes must be at most 256; for more jobs at once, raise --concurrency.\nrein: see rein worker --help\n`);
  });

  it('without --processes or --concurrency, one worker process per core', async () => {
    const cores = availableParallelism();
    const p = rein(['worker', '--queue', fx.redis.url, '--name', 'pd'], { cwd: fx.dir, env: fx.env, nodeFlags: [] });
    fx.track(p);
    await waitFor(p, new RegExp(`(pd(-\\d+)? runs jobs of queue \\S+ at \\S+, 1 at a time[\\s\\S]*){${cores}}`));
    if (cores > 1) {
      expect(p.stderr()).toMatch(new RegExp(`^rein worker: starting ${cores} worker processes \\(node .*--single-threaded\\)$`, 'm'));
      expect(readFileSync(`/proc/${p.child.pid}/task/${p.child.pid}/children`, 'utf8').trim().split(/\s+/)).toHaveLength(cores);
    }
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
  });

  it('--processes 1 is this process, one job at a time, with Node\'s defaults', async () => {
    const p = rein(['worker', '--queue', fx.redis.url, '--processes', '1', '--name', 'p1'], { cwd: fx.dir, env: fx.env, nodeFlags: [] });
    fx.track(p);
    await waitFor(p, /p1 runs jobs of queue \S+ at \S+, 1 at a time/);
    expect(p.stderr()).not.toContain('starting');
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
  });

  it('a worker process that dies is replaced', async () => {
    const { p, pids } = await supervisor('pr');
    process.kill(pids[0]!, 'SIGKILL');
    await waitFor(p, /^rein worker: worker \d \(pid \d+\) ended \(SIGKILL\); starting another/m);
    await waitFor(p, /pr-\d runs jobs[\s\S]*pr-\d runs jobs[\s\S]*pr-\d runs jobs/);
    const now = readFileSync(`/proc/${p.child.pid}/task/${p.child.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
    expect(now).toHaveLength(2);
    expect(now).not.toContain(pids[0]);
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    expect(await gone(now)).toBe(true);
  });
});
