/**
 * `npm run bench:queue [-- --rounds N --turns T --warm W --overhead-jobs K]`: a whole-process harness for
 * the job queue, against a real redis-server on a free loopback port and real `rein worker`
 * processes (the built command; run `npm run build` first).
 *
 * Throughput: a matrix of 4 generated workloads (gen:turns=300) × 2 presets (default and
 * claude-code-like: 8 replay jobs of about the same size), replayed by
 *   - `rein bench -j 1` and `rein bench -j 2` as whole processes: both replay in worker threads
 *     that start cold (one thread, two threads), so the two differ only in the thread count;
 *   - one and two `rein worker --concurrency 1` processes serving the queue, timed from the
 *     submission to the assembled report (the submitter's planning is done before the clock starts,
 *     and the workers are warmed up with a few replays first, as long-lived workers are).
 * Each round runs every arm once, in an order that alternates between rounds, with fresh workload
 * seeds (so no result is reused from an earlier round); the medians over rounds and their ratios
 * are printed, with the jobs per second of each arm (so that a change which only slows the
 * one-worker arm shows as such).
 *
 * Each queue arm also prints where its CPU went, seconds per job: the workers' replay threads, the
 * workers' main threads (BullMQ, the hand-over to the thread), the rest of the workers' threads
 * (V8's background compiler and garbage collector), redis-server and this submitting process; and
 * how busy the workers were between the submission and the last result (a worker that has no job
 * left while another still runs one is idle: with 8 jobs on 2 workers, the last job's length).
 *
 * `--variant "NODE FLAGS [| WORKER ARGS]"` (repeatable) adds two queue arms whose `rein worker`
 * processes run with those Node flags (and `rein worker` options after a `|`), beside the default
 * arms of the same run: an A/B of worker settings on the same machine load (`--variant-two-only`:
 * only the two-worker arm of each variant, for settings meant for a machine full of workers, as
 * `rein worker --processes` sets them). `--processes` adds an
 * arm of one `rein worker --processes 2` (two supervised single-threaded worker processes).
 * `--queue-only` leaves out the `rein bench -j` arms, `--throughput-only` the overhead part;
 * `--workloads N` sets the matrix's workloads (default 4, so 8 jobs).
 *
 * Queue overhead per job, two ways:
 *   - in a matrix on one warm worker: the time between consecutive jobs' completions less the
 *     replay's own wall time (durationMs, measured in the worker thread around the replay);
 *   - a submission of one job at a time (submit, worker, result, report) against the same replay
 *     in a warm worker thread of this process (the bundle's dist/bundle/worker.js, which
 *     `rein worker` runs too), interleaved: the fixed cost of a submission.
 *
 * Prints `nproc` and the load average before and after each part: on a shared machine a ratio is
 * meaningful only when the load stays low.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tinypool } from 'tinypool';
import { planBench } from '../run.js';
import { awaitBench, submitBench } from '../queue/submit.js';
import { openQueue } from '../../queue/jobs.js';
import { openRedis, parseQueueUrl } from '../../queue/connection.js';
import { startRedis, startWorker, stop, waitFor, type Proc } from '../../queue/test/harness.js';
import { benchArgs } from '../shared/args.js';
import { cpuTimes, statFields, threadCpu, USER_HZ } from '../shared/proc.js';
import { benchTempDir, removeBenchTempDir } from './harness.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(REPO, 'bin/rein.js');

const opts = benchArgs({
  rounds: { type: 'string', default: '3' },
  turns: { type: 'string', default: '300' },
  warm: { type: 'string', default: '2' },
  'overhead-jobs': { type: 'string', default: '16' },
  workloads: { type: 'string', default: '4' },
  variant: { type: 'string', multiple: true, default: [] },
  'queue-only': { type: 'boolean', default: false },
  'throughput-only': { type: 'boolean', default: false },
  processes: { type: 'boolean', default: false },
  'variant-two-only': { type: 'boolean', default: false },
});
const ROUNDS = Number(opts.rounds);
const TURNS = Number(opts.turns);
const OVERHEAD_JOBS = Number(opts['overhead-jobs']);
// Replays each queue worker runs before the clock starts. V8 keeps re-optimising the replay code for
// about a dozen replays (`node --trace-opt`), so a worker that has served a few jobs is still paying
// compile time a long-lived one no longer does: `--warm 12` measures the long-lived case.
const WARM = Number(opts.warm);
// Two presets whose replays take about as long (minimal's take half as long), so that the order
// the jobs are taken in changes the makespan little.
const PRESETS = ['default', join(REPO, 'bench/presets/claude-code-like.yaml')];

/** CPU seconds (user + system, every thread) of process `pid`; 0 when it cannot be read. */
function cpuOf(pid: number | undefined): number {
  try {
    const t = cpuTimes(`/proc/${pid}/stat`);
    return t.user + t.system;
  } catch { return 0; }
}
/** CPU seconds of this process's ended (waited-for) children: a `rein bench` arm once it has exited. */
function childrenCpu(): number {
  try {
    const f = statFields('/proc/self/stat');
    return (Number(f[13]) + Number(f[14])) / USER_HZ;
  } catch { return 0; }
}
/**
 * True when the kernel shares CPU between sessions rather than threads (`sched_autogroup`): all
 * the arms' processes then share one session's slice, so while another session is busy two
 * workers get no more CPU than one.
 */
function autogroups(): boolean {
  try { return readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() === '1'; } catch { return false; }
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2; };
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const say = (line: string) => process.stdout.write(line + '\n');

/** Workloads of the matrix; each makes one job per preset. */
const WORKLOADS = Number(opts.workloads);
/** The matrix of round `r`, arm `a`: WORKLOADS workloads (fresh seeds) × the presets. */
const JOBS = WORKLOADS * PRESETS.length;
/** Worker settings to compare with the defaults: Node flags, and `rein worker` options after a `|`. */
const VARIANTS = (opts.variant as string[]).map((v) => {
  const [flags = '', args = ''] = v.split('|');
  const words = (x: string) => x.split(/\s+/).filter(Boolean);
  return { label: v.trim(), nodeFlags: words(flags), args: words(args) };
});

function matrix(seed: number): { workloads: string[]; args: string[] } {
  const workloads = Array.from({ length: WORKLOADS }, (_, i) => `gen:turns=${TURNS},seed=${seed + i}`);
  return { workloads, args: [...workloads.flatMap((w) => ['-w', w]), ...PRESETS.flatMap((p) => ['--preset', p])] };
}

function wall(args: string[], cwd: string): Promise<number> {
  return new Promise((done, fail) => {
    const t = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    child.on('error', fail);
    child.on('close', (code) => (code === 0 ? done(performance.now() - t) : fail(new Error(`rein ${args.join(' ')} exited ${code}: ${err}`))));
  });
}

async function main(): Promise<void> {
  if (!existsSync(join(REPO, 'dist/bundle/rein.cjs'))) throw new Error('dist/bundle/ is missing: run `npm run build` first');
  const dir = benchTempDir('rein-bench-queue-');
  const redis = await startRedis(dir);
  const target = parseQueueUrl(redis.url);
  const q = await openQueue(target, await openRedis(target));
  const env = { REIN_HOME: join(dir, 'home') };
  const workers: Proc[] = [];
  const startWorkers = async (n: number, variant?: { nodeFlags: string[]; args: string[] }) => {
    for (let i = 0; i < n; i++) workers.push(await startWorker(redis.url, { cwd: dir, name: `bench-${i}`, env, ...(variant ? { nodeFlags: variant.nodeFlags, args: variant.args } : {}) }));
  };
  // `rein worker --processes n`: one supervisor; resolves with its worker processes' pids once
  // every one of them takes jobs.
  const startProcesses = async (n: number): Promise<number[]> => {
    const p = await startWorker(redis.url, { cwd: dir, name: 'bench', env, args: ['--processes', String(n)] });
    workers.push(p);
    await waitFor(p, new RegExp(`(runs jobs of queue[\\s\\S]*){${n}}`));
    return readFileSync(`/proc/${p.child.pid}/task/${p.child.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
  };
  const stopWorkers = async () => { for (const w of workers.splice(0)) await stop(w); };
  const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
  say(`rein ${version} queue benchmark: nproc ${availableParallelism()}, node ${process.version}, redis ${redis.url}`);

  try {
    // --- Throughput ---------------------------------------------------------------------------
    say(`\nthroughput: ${WORKLOADS} workloads (gen:turns=${TURNS}) × ${PRESETS.length} presets = ${JOBS} jobs, ${ROUNDS} rounds; load before: ${load()}`);
    say(`  rein bench -j N: N worker threads, each started cold (timed from process start); queue: \`rein worker\` processes warmed with ${WARM} replays each (timed from submission)`);
    say('  queue arms\' CPU per job by thread: replay threads / worker main threads / other worker threads (V8 compiler, GC) / redis-server / submitter; busy: the workers\' time in jobs ÷ (workers × wall)');
    type Arm = { name: string; run: (seed: number) => Promise<number> };
    // CPU seconds the last arm's processes used while timed (all their threads), and for a queue
    // arm where they went.
    let lastCpu = 0;
    let lastDetail = '';
    if (autogroups()) say('  note: this kernel shares CPU per session (sched_autogroup_enabled=1): while other sessions are busy, all arms share one slice and two workers cannot outrun one');
    const { Job } = await import('bullmq');
    const queued = (n: number, variant?: (typeof VARIANTS)[number] | 'processes'): Arm => ({
      name: variant === 'processes' ? `queue, rein worker --processes ${n}` : `queue, ${n} worker${n > 1 ? 's' : ''}${variant ? ` [${variant.label}]` : ''}`,
      run: async (seed) => {
        const m = matrix(seed);
        const plan = await planBench({ workloads: m.workloads, presets: PRESETS, cwd: dir });
        let pids: number[];
        if (variant === 'processes') pids = await startProcesses(n);
        else { await startWorkers(n, variant); pids = workers.map((w) => w.child.pid!); }
        try {
          // Warm-up, not timed: a fresh worker's first replays run before V8 has optimised the
          // kernel (a cold replay takes about twice as long), which a long-lived worker pays once.
          // WARM replays per worker (one workload makes a job per preset).
          const warmWorkloads = Math.max(1, Math.ceil((n * WARM) / PRESETS.length));
          const warm = await planBench({ workloads: Array.from({ length: warmWorkloads }, (_, i) => `gen:turns=${TURNS},seed=${seed + 500 + i}`), presets: PRESETS, cwd: dir });
          await awaitBench(q, (await submitBench(warm, q)).manifest, warm.workloads);
          const threads0 = pids.map((p) => threadCpu(p));
          const redis0 = cpuOf(redis.pid);
          const self0 = cpuOf(process.pid);
          const epoch0 = Date.now();
          const t = performance.now();
          const s = await submitBench(plan, q);
          const report = await awaitBench(q, s.manifest, plan.workloads);
          const ms = performance.now() - t;
          const selfCpu = cpuOf(process.pid) - self0;
          const redisCpu = cpuOf(redis.pid) - redis0;
          // Each worker's threads: the main thread (tid = pid), the replay thread (its busiest
          // other thread: one job at a time), and the rest.
          let replay = 0, mainThreads = 0, background = 0;
          pids.forEach((pid, i) => {
            const deltas = [...threadCpu(pid)].map(([tid, c]) => {
              const c0 = threads0[i]!.get(tid) ?? { user: 0, system: 0 };
              return { tid, cpu: c.user + c.system - c0.user - c0.system };
            });
            mainThreads += deltas.find((d) => d.tid === String(pid))?.cpu ?? 0;
            const others = deltas.filter((d) => d.tid !== String(pid)).map((d) => d.cpu).sort((a, b) => b - a);
            replay += others[0] ?? 0;
            background += others.slice(1).reduce((a, b) => a + b, 0);
          });
          lastCpu = replay + mainThreads + background;
          const jobs = await Promise.all(s.manifest.jobs.map(async (id) => (await Job.fromId(q.queue, id))!));
          const busy = jobs.reduce((sum, j) => sum + (j.finishedOn! - j.processedOn!), 0);
          const per = (x: number) => (x / JOBS).toFixed(3);
          const lastDone = Math.max(...jobs.map((j) => j.finishedOn!));
          // The fixed parts of the wall time, ms: submission to the first job taken, and the last
          // result to the assembled report.
          const head = Math.min(...jobs.map((j) => j.processedOn!)) - epoch0;
          const tail = epoch0 + ms - lastDone;
          lastDetail = `CPU/job ${per(replay)} / ${per(mainThreads)} / ${per(background)} / ${per(redisCpu)} / ${per(selfCpu)} s, busy ${(busy / (n * (lastDone - epoch0)) * 100).toFixed(0)}%, first job after ${head.toFixed(0)} ms, report ${tail.toFixed(0)} ms after the last`;
          if (report.workloads.some((w) => w.runs.some((r) => r.error))) throw new Error('a replay failed');
          return ms;
        } finally {
          await stopWorkers();
        }
      },
    });
    const local = (j: number): Arm => ({
      name: `rein bench -j ${j}`,
      run: async (seed) => {
        const cpu0 = childrenCpu();
        const ms = await wall(['bench', ...matrix(seed).args, '-j', String(j), '--no-progress'], dir);
        lastCpu = childrenCpu() - cpu0;
        lastDetail = '';
        return ms;
      },
    });
    const arms = [
      ...(opts['queue-only'] ? [] : [local(1), local(2)]),
      queued(1), queued(2),
      ...VARIANTS.flatMap((v) => (opts['variant-two-only'] ? [queued(2, v)] : [queued(1, v), queued(2, v)])),
      ...(opts.processes ? [queued(2, 'processes')] : []),
    ];
    const width = Math.max(...arms.map((a) => a.name.length));
    const times = new Map<string, number[]>(arms.map((a) => [a.name, []]));
    const cpus = new Map<string, number[]>(arms.map((a) => [a.name, []]));
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 ? [...arms].reverse() : arms;
      for (const [i, a] of order.entries()) {
        const ms = await a.run(100_000 * (r + 1) + 1_000 * arms.indexOf(a));
        times.get(a.name)!.push(ms);
        cpus.get(a.name)!.push(lastCpu);
        say(`  round ${r + 1}.${i + 1} ${a.name.padEnd(width)} ${(ms / 1000).toFixed(2)} s   CPU ${lastCpu.toFixed(1)} s (${(lastCpu / (ms / 1000)).toFixed(2)} cores, ${(lastCpu / JOBS).toFixed(2)} s/job)${lastDetail ? `   ${lastDetail}` : ''}   load ${load()}`);
      }
    }
    const med = (name: string) => median(times.get(name)!);
    for (const a of arms) say(`  median ${a.name.padEnd(width)} ${(med(a.name) / 1000).toFixed(2)} s = ${(JOBS / (med(a.name) / 1000)).toFixed(2)} jobs/s   CPU ${(median(cpus.get(a.name)!) / JOBS).toFixed(2)} s/job`);
    if (!opts['queue-only']) say(`  local: 2 threads / 1 thread  throughput ×${(med('rein bench -j 1') / med('rein bench -j 2')).toFixed(2)}`);
    say(`  queue: 2 workers / 1 worker  throughput ×${(med('queue, 1 worker') / med('queue, 2 workers')).toFixed(2)}`);
    for (const v of VARIANTS) {
      const two = med(`queue, 2 workers [${v.label}]`);
      if (opts['variant-two-only']) {
        say(`  [${v.label}]: 2 workers / the default 1 worker ×${(med('queue, 1 worker') / two).toFixed(2)}`);
        continue;
      }
      const one = med(`queue, 1 worker [${v.label}]`);
      say(`  [${v.label}]: 2 workers / its own 1 worker ×${(one / two).toFixed(2)}; 2 workers / the default 1 worker ×${(med('queue, 1 worker') / two).toFixed(2)}; 1 worker / the default 1 worker ×${(med('queue, 1 worker') / one).toFixed(2)}`);
    }
    if (opts.processes) say(`  rein worker --processes 2 / 1 worker ×${(med('queue, 1 worker') / med('queue, rein worker --processes 2')).toFixed(2)}`);
    say(`  load after: ${load()}`);
    if (opts['throughput-only']) return;

    // --- Overhead per job -----------------------------------------------------------------------
    // (a) In a matrix on one warm worker (concurrency 1): jobs run one after another, so the time
    // between two jobs' completions, less the second replay's own wall time (durationMs, measured
    // around the replay inside the worker thread), is what the queue added for that job: taking the
    // job and its lock, fetching the workload, handing it to the thread, storing the result.
    say(`\noverhead in a matrix: ${OVERHEAD_JOBS} jobs (gen:turns=10 × minimal) on one warm worker; load before: ${load()}`);
    await startWorkers(1);
    const pool = new Tinypool({ filename: join(REPO, 'dist/bundle/worker.js'), minThreads: 1, maxThreads: 1 });
    try {
      // Warm-up: the worker's thread starts and loads the preset.
      const warm = await planBench({ workloads: ['gen:turns=10,seed=40000'], presets: ['minimal'], cwd: dir });
      await awaitBench(q, (await submitBench(warm, q)).manifest, warm.workloads);
      const plan = await planBench({ workloads: Array.from({ length: OVERHEAD_JOBS }, (_, i) => `gen:turns=10,seed=${41_000 + i}`), presets: ['minimal'], cwd: dir });
      const t = performance.now();
      const s = await submitBench(plan, q);
      const report = await awaitBench(q, s.manifest, plan.workloads);
      const total = performance.now() - t;
      const rows = report.workloads.map((w, i) => ({ id: s.manifest.jobs[i]!, replayMs: w.runs.find((r) => r.preset === 'minimal')!.durationMs! }));
      const finished = await Promise.all(rows.map(async (r) => ({ ...r, finishedOn: (await Job.fromId(q.queue, r.id))!.finishedOn! })));
      finished.sort((a, b) => a.finishedOn - b.finishedOn);
      const per = finished.slice(1).map((r, i) => r.finishedOn - finished[i]!.finishedOn - r.replayMs);
      const replaySum = finished.reduce((n, r) => n + r.replayMs, 0);
      say(`  per job: median ${median(per).toFixed(1)} ms beside a median replay of ${median(finished.map((r) => r.replayMs)).toFixed(1)} ms (min ${Math.min(...per).toFixed(1)}, max ${Math.max(...per).toFixed(1)} ms)`);
      say(`  whole matrix: ${total.toFixed(0)} ms from submission to report, ${replaySum.toFixed(0)} ms of replays: ${((total - replaySum) / OVERHEAD_JOBS).toFixed(1)} ms per job all included`);
      say(`  load after: ${load()}`);

      // (b) One job alone, submission to report, against the same replay in a warm thread here:
      // the fixed cost of a submission (connections for the event stream, the job's states).
      say(`\noverhead of a submission of one job: ${OVERHEAD_JOBS} single jobs (gen:turns=10, minimal), queue vs a warm thread, interleaved; load before: ${load()}`);
      const direct: number[] = [];
      const viaQueue: number[] = [];
      for (let i = -2; i < OVERHEAD_JOBS; i++) {
        const planQ = await planBench({ workloads: [`gen:turns=10,seed=${50_000 + i}`], presets: ['minimal'], cwd: dir });
        const planD = await planBench({ workloads: [`gen:turns=10,seed=${60_000 + i}`], presets: ['minimal'], cwd: dir });
        const arms: [number[], () => Promise<unknown>][] = [
          [viaQueue, async () => { const sub = await submitBench(planQ, q); return awaitBench(q, sub.manifest, planQ.workloads); }],
          [direct, () => pool.run({ workload: planD.workloads[0], preset: 'minimal', cwd: dir })],
        ];
        if (i % 2) arms.reverse();
        for (const [into, fn] of arms) {
          const t0 = performance.now();
          await fn();
          // Two rounds of warm-up, not counted.
          if (i >= 0) into.push(performance.now() - t0);
        }
      }
      say(`  median: queue ${median(viaQueue).toFixed(1)} ms, warm thread ${median(direct).toFixed(1)} ms: ${(median(viaQueue) - median(direct)).toFixed(1)} ms per submission`);
      say(`  load after: ${load()}`);
    } finally {
      await pool.destroy();
      await stopWorkers();
    }
  } finally {
    await q.close();
    await redis.stop();
    removeBenchTempDir(dir);
  }
}

main().catch((err: Error) => {
  process.stderr.write(`bench:queue: ${err.message}\n`);
  process.exitCode = 1;
});
