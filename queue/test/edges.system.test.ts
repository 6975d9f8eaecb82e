/**
 * The user-facing edges of `rein worker`, `rein bench --queue` and `rein batch --queue`, against
 * real redis-servers on loopback ports, as real processes (the built command) and real signals:
 * - a server that refuses the queue (a password, a database it lacks) or is no Redis server at all
 *   is one line naming the URL and what went wrong, exit 2, for every command;
 * - a first SIGTERM / SIGINT lets a worker finish its running job; a second one stops it at once
 *   with 143 / 130 and the job is run again by another worker; either way the report is complete;
 * - `rein worker --processes` stopped by a second signal exits 143;
 * - the submitting commands stop waiting on a signal (130 / 143) and lose nothing: the benchmark is
 *   collected later, a batch's tasks that had not started are removed and each still has a line;
 *   a batch stopped at once (a second signal) or killed is collected later (`rein batch collect`);
 * - a password the server does not need is one rein line per command, not ioredis' warnings;
 * - a server that may evict keys (maxmemory-policy) is one rein line per command, not BullMQ's
 *   line per connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { REPO } from '../../testing/support.js';
import { queueFixture, rein, reinDone, startRedis, stop, waitFor, type Proc, type RedisServer } from './harness.js';
import { openRedis, parseQueueUrl } from '../connection.js';
import { addJobs, awaitJobs, cancelWaiting, openQueue, REMOVED_BEFORE_RUN } from '../jobs.js';

const fx = queueFixture('rein-queue-edges-');
let locked: RedisServer;
let http: Server;
let httpPort: number;

beforeAll(async () => {
  locked = await fx.startRedis(['--requirepass', 's3cret']);
  http = createServer((_req, res) => res.end('hello\n'));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  httpPort = (http.address() as { port: number }).port;
  writeFileSync(join(fx.dir, 'one.jsonl'), '{"id": "one", "prompt": "hi"}\n');
});
afterAll(async () => {
  await new Promise((resolve) => http?.close(resolve));
});

/** Each command that opens the queue, on `url`. */
function commands(url: string): string[][] {
  return [
    ['worker', '--queue', url, '--processes', '1'],
    ['worker', '--queue', url, '--processes', '2'],
    ['bench', '--queue', url, '-w', 'gen:turns=3', '--preset', 'minimal'],
    ['bench', 'collect', '0123456789abcdef', '--queue', url],
    ['batch', 'one.jsonl', '--preset', 'minimal', '--queue', url],
    ['batch', 'collect', '01234567', '--queue', url],
  ];
}

/** A replay of a few seconds (10000 turns take ~12 s here; 3000 several seconds on a busy machine). */
const SLOW = (seed: number) => ['-w', `gen:turns=3000,seed=${seed}`, '--preset', 'minimal'];

function reportRuns(file: string): { preset: string; error?: string }[] {
  const report = JSON.parse(readFileSync(join(fx.dir, file), 'utf8')) as { workloads: { runs: { preset: string; error?: string }[] }[] };
  return report.workloads.flatMap((w) => w.runs);
}

describe('a Redis server that refuses the queue', () => {
  it('a port that is no Redis server (HTTP here): one line naming the URL, exit 2, no stack, for every command', async () => {
    const url = `redis://127.0.0.1:${httpPort}`;
    for (const args of commands(url)) {
      const r = await reinDone(args, { cwd: fx.dir, env: fx.env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(`rein: Redis at ${url}: the server on that port does not answer in the Redis protocol (is it a Redis port?)\n`);
    }
  });

  it('a server that needs a password, and a wrong password: one line each, exit 2, the password hidden', async () => {
    for (const args of commands(locked.url)) {
      const r = await reinDone(args, { cwd: fx.dir, env: fx.env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(`rein: Redis at ${locked.url}: it needs a password: give it in the URL, redis://:PASSWORD@HOST:PORT (or redis://USER:PASSWORD@HOST:PORT)\n`);
    }
    const wrong = `redis://:nope@127.0.0.1:${locked.port}`;
    for (const args of commands(wrong)) {
      const r = await reinDone(args, { cwd: fx.dir, env: fx.env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(`rein: Redis at redis://:***@127.0.0.1:${locked.port}: it refused the user name or password in the URL\n`);
    }
  });

  it('a server that runs out of memory mid-submission (maxmemory): one line naming the URL, exit 2', async () => {
    const small = await startRedis(fx.dir, ['--maxmemory', '2mb', '--maxmemory-policy', 'noeviction']);
    try {
      const r = await reinDone(['bench', '--queue', small.url, ...[1, 2, 3].flatMap((seed) => ['-w', `gen:turns=3000,seed=${seed}`]), '--preset', 'minimal'], { cwd: fx.dir, env: fx.env });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`rein: Redis at ${small.url}: it is out of memory (its maxmemory is reached); free memory there or raise maxmemory\n`);
    } finally {
      await small.stop();
    }
  });

  it('a database the server does not have: refused up front (BullMQ would have used database 0), exit 2', async () => {
    const url = `${fx.redis.url}/99`;
    for (const args of commands(url)) {
      const r = await reinDone(args, { cwd: fx.dir, env: fx.env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(`rein: Redis at ${url}: it has no database 99 (redis-server's \`databases\` setting says how many it has; the default is 16: /0 to /15)\n`);
    }
  });
});

describe('stopping a worker', () => {
  it('a first SIGTERM mid-job: the job finishes on that worker, which exits 0; the report is complete', async () => {
    const a = await fx.startWorker({ name: 'first-sig', lockMs: 1_500 });
    const submit = rein(['bench', '--queue', fx.redis.url, ...SLOW(101), '--no-progress', '--json', 'first.json'], { cwd: fx.dir, env: fx.env });
    const [, label] = await waitFor(a, /start (.+)\n/);
    a.child.kill('SIGTERM');
    expect((await a.exited).code).toBe(0);
    expect(a.stderr()).toContain(`SIGTERM: finishing the running jobs`);
    expect(a.stderr()).toContain(`done ${label!}`);
    expect(a.stderr()).toMatch(/stopped\n$/);
    const { code } = await submit.exited;
    expect(code, submit.stderr()).toBe(0);
    expect(reportRuns('first.json').map((r) => [r.preset, r.error])).toEqual([['minimal', undefined]]);
  });

  it('a second signal mid-job: the worker exits at once with 143 (SIGTERM) or 130 (SIGINT); another worker runs the job again; the report is complete', async () => {
    for (const [signal, exit, seed] of [['SIGTERM', 143, 102], ['SIGINT', 130, 103]] as const) {
      const a = await fx.startWorker({ name: `forced-${signal}`, lockMs: 1_500 });
      const submit = rein(['bench', '--queue', fx.redis.url, ...SLOW(seed), '--no-progress', '--json', `forced-${signal}.json`], { cwd: fx.dir, env: fx.env });
      const [, label] = await waitFor(a, /start (.+)\n/);
      a.child.kill(signal);
      await waitFor(a, /finishing the running jobs/);
      a.child.kill(signal);
      expect((await a.exited).code).toBe(exit);
      expect(a.stderr()).toContain(`${signal} again: stopping now`);
      expect(a.stderr()).not.toContain(`done ${label!}`);
      // The job's lock expires and the next worker takes it.
      const b = await fx.startWorker({ name: `after-${signal}`, lockMs: 1_500 });
      const { code } = await submit.exited;
      expect(code, submit.stderr()).toBe(0);
      expect(b.stderr()).toContain(`start ${label!} (attempt 2)`);
      expect(b.stderr()).toContain(`done ${label!}`);
      expect(reportRuns(`forced-${signal}.json`).map((r) => [r.preset, r.error])).toEqual([['minimal', undefined]]);
      await stop(b);
    }
  });

  it('rein worker --processes: a second SIGTERM mid-job stops its processes at once and exits 143', async () => {
    const p = rein(['worker', '--queue', fx.redis.url, '--processes', '2', '--name', 'sup', '--lock-duration', '1500'], { cwd: fx.dir, env: fx.env, nodeFlags: [] });
    fx.track(p);
    await waitFor(p, /sup-1 runs jobs[\s\S]*sup-2 runs jobs|sup-2 runs jobs[\s\S]*sup-1 runs jobs/);
    const submit = rein(['bench', '--queue', fx.redis.url, ...SLOW(104), '--no-progress', '--no-wait'], { cwd: fx.dir, env: fx.env });
    await waitFor(p, /^rein worker [12]: start /m);
    p.child.kill('SIGTERM');
    await waitFor(p, /^rein worker [12]: SIGTERM: finishing the running jobs/m);
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(143);
    expect(p.stderr()).toMatch(/^rein worker: SIGTERM again: stopping the processes now$/m);
    expect((await submit.exited).code).toBe(0);
  });
});

/** Processes whose command line is exactly `argv` (Linux /proc). */
function running(argv: readonly string[]): number[] {
  const want = argv.join('\0') + '\0';
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((pid) => {
    try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === want; } catch { return false; }
  }).map(Number);
}

describe('Ctrl-C in the terminal of a worker running a batch task', () => {
  /** `rein worker` as a terminal's foreground job: its own process group, which Ctrl-C signals whole. */
  async function terminalWorker(name: string): Promise<Proc> {
    const p = rein(['worker', '--queue', fx.redis.url, '--name', name, '--concurrency', '1', '--lock-duration', '1500'], { cwd: fx.dir, env: fx.env, detached: true });
    fx.track(p);
    await waitFor(p, /runs jobs of queue/);
    return p;
  }
  const ctrlC = (p: Proc) => process.kill(-p.child.pid!, 'SIGINT');
  /** Waits until the task's check (`exec sleep N`) runs. */
  async function sleeping(argv: readonly string[]): Promise<void> {
    const until = Date.now() + 30_000;
    while (!running(argv).length && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(running(argv)).toHaveLength(1);
  }

  it('once: the task\'s `rein run` and check are not interrupted; the task finishes, the worker exits 0', async () => {
    mkdirSync(join(fx.dir, 'ctrlc'), { recursive: true });
    writeFileSync(join(fx.dir, 'ctrlc.jsonl'), '{"id": "t", "prompt": "hi", "cwd": "ctrlc", "check": "exec sleep 2.75"}\n');
    const w = await terminalWorker('tty-once');
    const b = rein(['batch', 'ctrlc.jsonl', '--preset', 'minimal', '--queue', fx.redis.url, '--no-progress'], { cwd: fx.dir, env: fx.env });
    await sleeping(['sleep', '2.75']);
    ctrlC(w);
    expect((await w.exited).code).toBe(0);
    expect((await b.exited).code, b.stderr()).toBe(0);
    expect(JSON.parse(b.stdout())).toMatchObject({ id: 't', terminal_reason: 'end_turn', check_exit_code: 0 });
  });

  it('twice: the worker exits 130 and its task\'s commands end with it; another worker runs the task again', async () => {
    writeFileSync(join(fx.dir, 'ctrlc2.jsonl'), '{"id": "u", "prompt": "hi", "cwd": "ctrlc", "check": "test -f go || exec sleep 41.5"}\n');
    const w = await terminalWorker('tty-twice');
    const b = rein(['batch', 'ctrlc2.jsonl', '--preset', 'minimal', '--queue', fx.redis.url, '--no-progress'], { cwd: fx.dir, env: fx.env });
    await sleeping(['sleep', '41.5']);
    ctrlC(w);
    await waitFor(w, /SIGINT: finishing the running jobs/);
    ctrlC(w);
    expect((await w.exited).code).toBe(130);
    await new Promise((r) => setTimeout(r, 200));
    expect(running(['sleep', '41.5'])).toEqual([]);
    // The job's lock expires; the next worker runs the task again, and this time its check passes.
    writeFileSync(join(fx.dir, 'ctrlc', 'go'), '');
    const again = await fx.startWorker({ name: 'tty-after', lockMs: 1_500 });
    expect((await b.exited).code, b.stderr()).toBe(0);
    expect(again.stderr()).toMatch(/start \S+\/u \(attempt 2\)/);
    expect(JSON.parse(b.stdout())).toMatchObject({ id: 'u', terminal_reason: 'end_turn', check_exit_code: 0 });
    await stop(again);
  });
});

describe('a second signal to rein worker --processes while a batch task runs', () => {
  it('ends the task\'s commands with the processes (none is left running), exits 143; the task runs again elsewhere', async () => {
    mkdirSync(join(fx.dir, 'sup'), { recursive: true });
    writeFileSync(join(fx.dir, 'sup.jsonl'), '{"id": "v", "prompt": "hi", "cwd": "sup", "check": "test -f go || exec sleep 43.5"}\n');
    const p = rein(['worker', '--queue', fx.redis.url, '--processes', '2', '--name', 'supb', '--lock-duration', '1500'], { cwd: fx.dir, env: fx.env, nodeFlags: [] });
    fx.track(p);
    await waitFor(p, /supb-1 runs jobs[\s\S]*supb-2 runs jobs|supb-2 runs jobs[\s\S]*supb-1 runs jobs/);
    const b = rein(['batch', 'sup.jsonl', '--preset', 'minimal', '--queue', fx.redis.url, '--no-progress'], { cwd: fx.dir, env: fx.env });
    const until = Date.now() + 30_000;
    while (!running(['sleep', '43.5']).length && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(running(['sleep', '43.5'])).toHaveLength(1);
    p.child.kill('SIGTERM');
    await waitFor(p, /^rein worker [12]: SIGTERM: finishing the running jobs/m);
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(143);
    expect(p.stderr()).toMatch(/^rein worker [12]: SIGTERM again: stopping now$/m);
    await new Promise((r) => setTimeout(r, 200));
    expect(running(['sleep', '43.5'])).toEqual([]);
    writeFileSync(join(fx.dir, 'sup', 'go'), '');
    const again = await fx.startWorker({ name: 'sup-after', lockMs: 1_500 });
    expect((await b.exited).code, b.stderr()).toBe(0);
    expect(JSON.parse(b.stdout())).toMatchObject({ id: 'v', terminal_reason: 'end_turn', check_exit_code: 0 });
    await stop(again);
  });
});

describe('stopping a submitting command', () => {
  it('rein bench --queue: SIGINT while waiting exits 130 and names the collect command; the report is collected later, complete', async () => {
    const submit = rein(['bench', '--queue', fx.redis.url, '-w', 'gen:turns=20,seed=201', '--preset', 'minimal'], { cwd: fx.dir, env: fx.env });
    const [, id] = await waitFor(submit, /benchmark ([0-9a-f]{16}):/);
    await waitFor(submit, /replays: 0\/1 done/);
    submit.child.kill('SIGINT');
    expect((await submit.exited).code).toBe(130);
    expect(submit.stderr()).toContain(`rein: SIGINT: stopped waiting; the replays go on on the queue's workers, and \`rein bench collect ${id!} --queue ${fx.redis.url}\` writes the report\n`);
    expect(submit.stdout()).toBe('');
    // No worker was running: the submitter said so, and how to start one.
    expect(submit.stderr()).toContain(`rein: no worker serves queue rein-`);
    expect(submit.stderr()).toContain(`the jobs wait for one (\`rein worker --queue ${fx.redis.url}\``);
    const w = await fx.startWorker({ name: 'collector' });
    const collected = await reinDone(['bench', 'collect', id!, '--queue', fx.redis.url, '--no-progress', '--json', 'collected.json'], { cwd: fx.dir, env: fx.env });
    expect(collected.code, collected.stderr).toBe(0);
    expect(reportRuns('collected.json').map((r) => [r.preset, r.error])).toEqual([['minimal', undefined]]);
    await stop(w);
  });

  it('rein bench --queue: SIGTERM twice exits 143', async () => {
    const submit = rein(['bench', '--queue', fx.redis.url, '-w', 'gen:turns=20,seed=202', '--preset', 'minimal'], { cwd: fx.dir, env: fx.env });
    await waitFor(submit, /replays: 0\/1 done/);
    submit.child.kill('SIGTERM');
    submit.child.kill('SIGTERM');
    expect((await submit.exited).code).toBe(143);
  });

  it('a job this process removed reads as removed, not expired, even when a state scan finds it gone before the queue\'s removed event', async () => {
    // The scan at the start of awaitJobs reads the jobs' states after its event stream begins,
    // so a removal done just before is seen only by the scan: the race that made a stopped batch
    // call its untaken tasks "no longer in the queue" now and then. A server of its own: no worker.
    const own = await startRedis(fx.dir);
    const target = parseQueueUrl(own.url);
    const q = await openQueue(target, await openRedis(target));
    try {
      await addJobs(q, [{ name: 'idle', id: 'edge-a', data: {} }, { name: 'idle', id: 'edge-b', data: {} }]);
      expect((await cancelWaiting(q, ['edge-a'])).sort()).toEqual(['edge-a']);
      await (await q.queue.getJob('edge-b'))!.remove();
      const outcomes = await awaitJobs(q, ['edge-a', 'edge-b']);
      expect(outcomes.get('edge-a')).toEqual({ state: 'failed', reason: REMOVED_BEFORE_RUN, attempts: 0 });
      // Removed by someone else: this process cannot tell it from an expired job.
      expect(outcomes.get('edge-b')).toMatchObject({ state: 'failed', reason: expect.stringContaining('no longer in the queue') });
    } finally {
      await q.close();
      await own.stop();
    }
  });

  it('rein batch --queue: SIGINT lets the running task finish, removes the ones no worker took, prints a line for each, exits 130', async () => {
    writeFileSync(join(fx.dir, 'three.jsonl'), [
      '{"id": "slow", "prompt": "hi", "check": "sleep 2"}',
      '{"id": "second", "prompt": "hi"}',
      '{"id": "third", "prompt": "hi"}',
    ].join('\n') + '\n');
    const w = await fx.startWorker({ name: 'batcher' });
    const b = rein(['batch', 'three.jsonl', '--preset', 'minimal', '--queue', fx.redis.url, '--no-progress'], { cwd: fx.dir, env: fx.env });
    await waitFor(w, /start \S+\/slow/);
    b.child.kill('SIGINT');
    expect((await b.exited).code).toBe(130);
    const lines = b.stdout().trim().split('\n').map((l) => JSON.parse(l) as { id: string; error?: string; check_exit_code?: number });
    expect(lines.map((l) => l.id).sort()).toEqual(['second', 'slow', 'third']);
    const byId = Object.fromEntries(lines.map((l) => [l.id, l]));
    expect(byId.slow).toMatchObject({ check_exit_code: 0 });
    expect(byId.slow!.error).toBeUndefined();
    for (const id of ['second', 'third']) expect(byId[id]!.error).toBe('not run: removed from the queue before a worker took it');
    expect(b.stderr()).toContain('rein: SIGINT: no more tasks start; waiting for the running ones (SIGINT again to stop now)');
    // The worker ran the one task it had taken, and no other task of the batch.
    await new Promise((r) => setTimeout(r, 500));
    expect(w.stderr()).toMatch(/done \S+\/slow/);
    expect(w.stderr()).not.toMatch(/start \S+\/(second|third)/);
    await stop(w);
  });
});

type Line = { id: string; line: number; error?: string; check_exit_code?: number };
const parseLines = (stdout: string): Line[] => stdout.trim().split('\n').map((l) => JSON.parse(l) as Line);
const byLine = (lines: readonly Line[]) => [...lines].sort((x, y) => x.line - y.line);

describe('rein batch collect', () => {
  it('after a forced stop (a second SIGINT): the submitter names the collect command; collect prints every task\'s line once the worker is done, as the submitter would have', async () => {
    writeFileSync(join(fx.dir, 'forced.jsonl'), [
      '{"id": "slow", "prompt": "hi", "check": "sleep 2"}',
      '{"id": "second", "prompt": "hi"}',
      '{"id": "third", "prompt": "hi"}',
    ].join('\n') + '\n');
    const w = await fx.startWorker({ name: 'forced-batch' });
    const b = rein(['batch', 'forced.jsonl', '--preset', 'minimal', '--queue', fx.redis.url, '--no-progress'], { cwd: fx.dir, env: fx.env });
    const [, id] = await waitFor(b, /batch ([0-9a-f]{8}): 3 tasks/);
    const hint = `\`rein batch collect ${id!} --queue ${fx.redis.url}\``;
    expect(b.stderr()).toContain(`rein: ${hint} prints their result lines later too\n`);
    await waitFor(w, /start \S+\/slow/);
    b.child.kill('SIGINT');
    // The tasks no worker took are removed and get their lines; then the second signal, while
    // the slow task still runs on the worker.
    await waitFor(b, /"id":"second"[\s\S]*"id":"third"|"id":"third"[\s\S]*"id":"second"/);
    b.child.kill('SIGINT');
    expect((await b.exited).code).toBe(130);
    expect(b.stderr()).toContain(`rein: should this stop first, ${hint} prints every task's line once the workers are done\n`);
    expect(b.stderr()).toContain(`rein: SIGINT again: stopping now\nrein: 1 task without a result line here; a task a worker had taken finishes there, and ${hint} prints every line\n`);
    const printed = parseLines(b.stdout());
    expect(printed.map((l) => l.id).sort()).toEqual(['second', 'third']);

    const collected = await reinDone(['batch', 'collect', id!, '--queue', fx.redis.url, '--no-progress'], { cwd: fx.dir, env: fx.env });
    // Two tasks did not run: exit 1, each named on stderr as the submitter names them.
    expect(collected.code, collected.stderr).toBe(1);
    const lines = byLine(parseLines(collected.stdout));
    expect(lines.map((l) => [l.id, l.line])).toEqual([['slow', 1], ['second', 2], ['third', 3]]);
    expect(lines[0]).toMatchObject({ check_exit_code: 0, terminal_reason: 'end_turn' });
    expect(lines[0]!.error).toBeUndefined();
    // The lines the submitter printed, the same.
    expect(lines.slice(1)).toEqual(byLine(printed));
    for (const l of lines.slice(1)) expect(l.error).toBe('not run: removed from the queue before a worker took it');
    expect(collected.stderr).toBe([
      'rein: task second (line 2): not run: removed from the queue before a worker took it',
      'rein: task third (line 3): not run: removed from the queue before a worker took it',
    ].join('\n') + '\n');
    // Collected again: the same lines.
    const again = await reinDone(['batch', 'collect', id!, '--queue', fx.redis.url, '--no-progress'], { cwd: fx.dir, env: fx.env });
    expect(again.code).toBe(1);
    expect(byLine(parseLines(again.stdout))).toEqual(lines);
    // The batch's set of removed jobs is a key of its own, `rein:batch:ID:removed`: no batch id
    // reaches it, so it is not read as a manifest of the wrong type.
    const removedKey = await reinDone(['batch', 'collect', `${id!}:removed`, '--queue', fx.redis.url], { cwd: fx.dir, env: fx.env });
    expect([removedKey.code, removedKey.stdout, removedKey.stderr]).toEqual([2, '', `rein: "${id!}:removed" is not a batch id: \`rein batch --queue\` prints it when it starts (rein: batch 1f3c9a2e: ...)\n`]);
    expect(w.stderr()).not.toMatch(/start \S+\/(second|third)/);
    await stop(w);
  });

  it('after the submitter was killed (a lost terminal): the worker runs every task; collect prints each line once, with progress on stderr, exit 0', async () => {
    writeFileSync(join(fx.dir, 'lost.jsonl'), [
      '{"id": "first", "prompt": "hi", "check": "sleep 1"}',
      '# a comment line: the lines keep their numbers',
      '{"id": "next", "prompt": "hi"}',
      '{"id": "last", "prompt": "hi", "check": "true"}',
    ].join('\n') + '\n');
    const w = await fx.startWorker({ name: 'lost-batch' });
    const b = rein(['batch', 'lost.jsonl', '--preset', 'minimal', '--queue', fx.redis.url], { cwd: fx.dir, env: fx.env });
    const [, id] = await waitFor(b, /batch ([0-9a-f]{8}): 3 tasks/);
    await waitFor(w, /start \S+\/first/);
    b.child.kill('SIGKILL');
    await b.exited;
    const collected = await reinDone(['batch', 'collect', id!, '--queue', fx.redis.url], { cwd: fx.dir, env: fx.env });
    expect(collected.code, collected.stderr).toBe(0);
    const lines = byLine(parseLines(collected.stdout));
    expect(lines.map((l) => [l.id, l.line])).toEqual([['first', 1], ['next', 3], ['last', 4]]);
    for (const l of lines) expect(l).toMatchObject({ terminal_reason: 'end_turn' });
    expect(collected.stderr).toMatch(/^rein: tasks: 3\/3 done, 0 running, 0 failed; 1 worker$/m);
    // Each task ran once.
    for (const task of ['first', 'next', 'last']) expect(w.stderr().match(new RegExp(`done \\S+/${task} `, 'g'))).toHaveLength(1);
    await stop(w);
  });

  it('a batch id the queue does not have: one line, exit 2', async () => {
    const r = await reinDone(['batch', 'collect', 'deadbeef', '--queue', fx.redis.url], { cwd: fx.dir, env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`rein: no batch "deadbeef" on ${fx.redis.url} (a batch is kept 7 days after it was submitted or collected)\n`);
    expect(r.stdout).toBe('');
  });

  it('a batch or benchmark another rein version submitted: one line naming that version, exit 2 (its jobs are on that version\'s queue)', async () => {
    const target = parseQueueUrl(fx.redis.url);
    const redis = await openRedis(target);
    try {
      await redis.set('rein:batch:0ther0ld', JSON.stringify({ version: '0.0.1-old', submittedAt: 0, tasks: [{ id: 'a', line: 1 }] }));
      await redis.set('rein:bench:0ther0ld0ther0ld', JSON.stringify({ version: '0.0.1-old', submittedAt: 0, presets: [], workloads: [], skippedFiles: [], jobs: [] }));
    } finally {
      redis.disconnect();
    }
    const mine = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
    for (const [args, what] of [[['batch', 'collect', '0ther0ld'], 'batch "0ther0ld"'], [['bench', 'collect', '0ther0ld0ther0ld'], 'benchmark "0ther0ld0ther0ld"']] as const) {
      const r = await reinDone([...args, '--queue', fx.redis.url], { cwd: fx.dir, env: fx.env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toBe(`rein: ${what} was submitted by rein 0.0.1-old, whose jobs are on queue rein-0.0.1-old; this is rein ${mine}: collect it with rein 0.0.1-old\n`);
    }
  });

  it('rein batch without --preset is still refused as before (the option is checked by the command, for collect\'s sake)', async () => {
    const r = await reinDone(['batch', 'one.jsonl'], { cwd: fx.dir, env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`rein: required option '-p, --preset <file|name>' not specified\nrein: see rein batch --help\n`);
  });
});

describe('a password the server does not need', () => {
  const url = () => `redis://:unneeded@127.0.0.1:${fx.redis.port}`;
  const warning = () => `Redis at redis://:***@127.0.0.1:${fx.redis.port} needs no password; the one in the URL is not used (anyone who can reach this server can use the queue)`;

  it('one rein line per command, none of ioredis\' warnings; the command goes on', async () => {
    const bench = await reinDone(['bench', 'collect', '0123456789abcdef', '--queue', url()], { cwd: fx.dir, env: fx.env });
    expect(bench.code).toBe(2);
    expect(bench.stderr).toBe(`rein: ${warning()}\nrein: no benchmark "0123456789abcdef" on redis://:***@127.0.0.1:${fx.redis.port} (a benchmark is kept 7 days after it was submitted or collected)\n`);
    const collect = await reinDone(['batch', 'collect', '01234567', '--queue', url()], { cwd: fx.dir, env: fx.env });
    expect(collect.code).toBe(2);
    expect(collect.stderr).toBe(`rein: ${warning()}\nrein: no batch "01234567" on redis://:***@127.0.0.1:${fx.redis.port} (a batch is kept 7 days after it was submitted or collected)\n`);

    const w = fx.track(rein(['worker', '--queue', url(), '--processes', '1', '--name', 'pw-one'], { cwd: fx.dir, env: fx.env }));
    await waitFor(w, /pw-one runs jobs/);
    const batch = await reinDone(['batch', 'one.jsonl', '--preset', 'minimal', '--queue', url(), '--no-progress'], { cwd: fx.dir, env: fx.env });
    expect(batch.code, batch.stderr).toBe(0);
    expect(JSON.parse(batch.stdout)).toMatchObject({ id: 'one', terminal_reason: 'end_turn' });
    const submit = await reinDone(['bench', '--queue', url(), '-w', 'gen:turns=3,seed=301', '--preset', 'minimal', '--no-progress'], { cwd: fx.dir, env: fx.env });
    expect(submit.code, submit.stderr).toBe(0);
    w.child.kill('SIGTERM');
    expect((await w.exited).code).toBe(0);
    for (const [what, stderr] of [['batch', batch.stderr], ['bench', submit.stderr], ['worker', w.stderr()]] as const) {
      expect(stderr, what).not.toContain('[WARN]');
      expect(stderr.split('\n').filter((l) => l.includes('needs no password')), what).toEqual([`rein${what === 'worker' ? ' worker' : ''}: ${warning()}`]);
    }
  });

  it('rein worker --processes: said once by the supervisor, not by each process', async () => {
    const p = fx.track(rein(['worker', '--queue', url(), '--processes', '2', '--name', 'pw'], { cwd: fx.dir, env: fx.env, nodeFlags: [] }));
    await waitFor(p, /pw-1 runs jobs[\s\S]*pw-2 runs jobs|pw-2 runs jobs[\s\S]*pw-1 runs jobs/);
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    expect(p.stderr()).not.toContain('[WARN]');
    expect(p.stderr().split('\n').filter((l) => l.includes('needs no password'))).toEqual([`rein worker: ${warning()}`]);
  });
});

describe('a server that may remove keys when its memory is full (maxmemory-policy other than noeviction)', () => {
  let evicting: RedisServer;
  beforeAll(async () => { evicting = await fx.startRedis(['--maxmemory-policy', 'allkeys-lru']); });
  const warning = () => `Redis at ${evicting.url} may remove keys when its memory is full (maxmemory-policy allkeys-lru), so jobs and results can be lost; the queue needs maxmemory-policy noeviction (redis-cli CONFIG SET maxmemory-policy noeviction, and in redis.conf)`;
  const lines = (stderr: string) => stderr.split('\n').filter((l) => /maxmemory|Eviction policy/.test(l));

  it('one rein line per command, none of BullMQ\'s; the work is done', async () => {
    const w = fx.track(rein(['worker', '--queue', evicting.url, '--processes', '1', '--name', 'ev-one'], { cwd: fx.dir, env: fx.env }));
    await waitFor(w, /ev-one runs jobs/);
    const batch = await reinDone(['batch', 'one.jsonl', '--preset', 'minimal', '--queue', evicting.url, '--no-progress'], { cwd: fx.dir, env: fx.env });
    expect(batch.code, batch.stderr).toBe(0);
    expect(JSON.parse(batch.stdout)).toMatchObject({ id: 'one', terminal_reason: 'end_turn' });
    const submit = await reinDone(['bench', '--queue', evicting.url, '-w', 'gen:turns=3,seed=302', '--preset', 'minimal', '--no-progress'], { cwd: fx.dir, env: fx.env });
    expect(submit.code, submit.stderr).toBe(0);
    w.child.kill('SIGTERM');
    expect((await w.exited).code).toBe(0);
    for (const [what, stderr] of [['batch', batch.stderr], ['bench', submit.stderr], ['worker', w.stderr()]] as const) {
      expect(lines(stderr), what).toEqual([`rein${what === 'worker' ? ' worker' : ''}: ${warning()}`]);
    }
  });

  it('rein worker --processes: said once by the supervisor, not by each process', async () => {
    const p = fx.track(rein(['worker', '--queue', evicting.url, '--processes', '2', '--name', 'ev'], { cwd: fx.dir, env: fx.env, nodeFlags: [] }));
    await waitFor(p, /ev-1 runs jobs[\s\S]*ev-2 runs jobs|ev-2 runs jobs[\s\S]*ev-1 runs jobs/);
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    expect(lines(p.stderr())).toEqual([`rein worker: ${warning()}`]);
  });

  it('a server with noeviction gets no such line', async () => {
    const collect = await reinDone(['batch', 'collect', '01234567', '--queue', fx.redis.url], { cwd: fx.dir, env: fx.env });
    expect(collect.code).toBe(2);
    expect(lines(collect.stderr)).toEqual([]);
  });
});
