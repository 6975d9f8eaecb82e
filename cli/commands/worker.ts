/**
 * `rein worker --queue redis://HOST:PORT`: runs the jobs that `rein bench --queue` and `rein batch
 * --queue` put on the queue, on this machine, until stopped. Start one (or several) on every
 * machine that should share the work; each needs the same rein version as the submitter.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { Command, InvalidArgumentError } from 'commander';
import { isInputError, printInputError } from './errors.js';
import { positiveInt } from './options.js';
import { onStopSignals, SIGNAL_EXIT, type StopSignal } from './signals.js';

interface WorkerFlags {
  queue: string;
  concurrency?: number;
  name?: string;
  lockDuration?: number;
  processes?: number;
}

/**
 * Node flags of each process that `--processes N` starts when its jobs fill the machine's cores
 * (N × concurrency ≥ cores). A worker process with Node's defaults keeps more than one core busy
 * with one replay at a time: beside the replay thread, V8 compiles the hot code again and collects
 * garbage in background threads. With one process per core those threads take CPU from the other
 * processes' replays; `--single-threaded` (V8: no concurrent compiler or garbage-collector threads,
 * that work done on the replay's own thread) gives each replay one core's worth of work. With
 * fewer jobs than cores the background threads have idle cores, and the defaults are faster.
 * Measured in bench/README.md ("One worker per core").
 */
export const PROCESS_NODE_FLAGS: readonly string[] = ['--single-threaded'];

/** Shortest lock, ms: renewals happen at half of it, and a renewal takes a round trip to Redis. */
const MIN_LOCK_MS = 1_000;

/**
 * `rein worker`. Resolves with the exit code once the worker has stopped: 0 after a stop by the
 * first SIGINT / SIGTERM (the running jobs finished), 2 for bad input or a Redis server that
 * refuses the queue; a second signal exits at once with 130 (SIGINT) or 143 (SIGTERM), and the
 * jobs it was running go to other workers once their locks expire. Without `--processes` or
 * `--concurrency` it runs one worker process per core (`--processes` = the number of cores); with
 * `--concurrency N` alone, this process runs N jobs at once in threads.
 */
export async function workerCommand(flags: WorkerFlags): Promise<number> {
  const log = (line: string) => process.stderr.write(`rein worker: ${line}\n`);
  const { parseQueueUrl, openRedis, asQueueError, urlWithoutPassword } = await import('../../queue/connection.js');
  try {
    // Neither option: one process of one job per core. Threads of one process share V8's
    // background threads and did worse than separate processes (bench/README.md).
    const processes = flags.processes ?? (flags.concurrency === undefined ? availableParallelism() : 1);
    if (processes > 1) {
      // A Redis server that cannot be reached, or a password it does not need, is said once
      // here, not by every process; the processes get the URL without that password.
      const target = parseQueueUrl(flags.queue);
      (await openRedis(target, { warn: log })).disconnect();
      const queue = target.options.password === undefined && new URL(flags.queue).password ? urlWithoutPassword(flags.queue) : flags.queue;
      return await workerProcesses({ ...flags, queue, processes }, log);
    }
    const { startWorker, DEFAULT_LOCK_MS } = await import('../../queue/worker.js');
    const { replayProcessor } = await import('../../bench/queue/processor.js');
    const { REPLAY_JOB } = await import('../../bench/queue/jobs.js');
    const { batchProcessor, BATCH_JOB } = await import('../../batch/queue.js');
    const target = parseQueueUrl(flags.queue);
    // A process of `--processes`: its supervisor has said what there is to say about the server.
    const supervised = process.env[SUPERVISED_ENV] === '1';
    delete process.env[SUPERVISED_ENV]; // not for the commands of batch tasks
    const redis = await openRedis(target, supervised ? {} : { warn: log });
    // Here without --concurrency: `--processes 1`, or a machine of one core.
    const concurrency = flags.concurrency ?? 1;
    const replay = await replayProcessor(redis, concurrency);
    // Aborted at a second signal: the batch tasks' commands end with this process.
    const forced = new AbortController();
    setMaxListeners(0, forced.signal);
    // The handlers go in before the worker starts and says it runs: a signal that comes as soon
    // as that line is read (a supervisor, a script, a test) must not meet Node's default action,
    // which ends the process at once, a taken job with it.
    let stopRequested!: () => void;
    const stopped = new Promise<void>((resolve) => { stopRequested = resolve; });
    const signals = onStopSignals((signal: StopSignal) => {
      log(`${signal}: finishing the running jobs, then stopping (${signal} again to stop now)`);
      stopRequested();
    }, (signal) => {
      // A second signal: leave now; the running jobs' locks expire and other workers take them.
      log(`${signal} again: stopping now`);
      forced.abort();
    });
    // A process of `rein worker --processes` stops when its supervisor is gone, even killed.
    if (process.send) {
      process.channel?.unref();
      // As a first SIGTERM would: finish the running jobs.
      process.on('disconnect', () => { if (!signals.signal) process.emit('SIGTERM', 'SIGTERM'); });
    }
    const worker = await startWorker({
      target, concurrency, log,
      ...(flags.name ? { name: flags.name } : {}),
      ...(flags.lockDuration ? { lockDuration: flags.lockDuration } : {}),
      processors: { [REPLAY_JOB]: (job) => replay.process(job), [BATCH_JOB]: batchProcessor({ kill: forced.signal }) },
    });
    if (!signals.signal) log(`${worker.name} runs jobs of queue ${worker.queue} at ${target.shown}, ${concurrency} at a time (lock ${((flags.lockDuration ?? DEFAULT_LOCK_MS) / 1000).toFixed(1)} s)`);
    await stopped;
    await worker.close();
    await replay.close();
    redis.disconnect();
    log('stopped');
    return 0;
  } catch (err) {
    let e = err;
    try { e = asQueueError(parseQueueUrl(flags.queue), err); } catch { /* the URL's own error is `err` already */ }
    if (isInputError(e)) { printInputError(e); return 2; }
    throw e;
  }
}

/**
 * Most processes `--processes` starts. Each is a Node process of its own (tens of MB of memory and a
 * Redis connection) started at once, so a slip such as `--processes 1e9` or `10000` would fill the
 * machine before any job ran; more jobs at once per process are `--concurrency`'s.
 */
export const MAX_PROCESSES = 256;

/** A process of `--processes` that exits with this code gave up for good (bad input): no new one is started. */
const GAVE_UP = 2;
/** How long a process has to stop after the supervisor's second signal before it is killed, ms. */
const FORCE_MS = 2_000;
/** Set in the environment of the processes `--processes` starts (their supervisor checked the server). */
const SUPERVISED_ENV = 'REIN_WORKER_SUPERVISED';

/** Wait before a process that died is replaced, ms: a crash at start does not become a busy loop. */
const RESTART_MS = 1_000;

/**
 * `rein worker --processes N`: N `rein worker` processes on this machine (each with the other
 * options, `--concurrency 1` unless given, and PROCESS_NODE_FLAGS when they fill the cores),
 * supervised: one that dies is replaced (the queue gives its jobs to the others after their lock
 * expires); SIGINT or SIGTERM is passed on to every process, so each finishes its running jobs; a
 * second signal is passed on too, so each stops at once (SIGKILL after FORCE_MS). Each line a process writes is prefixed with its
 * number (`rein worker 2: done ...`), so interleaved output says which process wrote it.
 * Resolves with 0 once all have stopped after a first signal, with 130 / 143 (SIGNAL_EXIT) after a
 * second one, or with 2 when one exits with 2 (it cannot reach Redis, or another input error that
 * a new process would repeat) after the others have stopped.
 */
async function workerProcesses(flags: WorkerFlags, log: (line: string) => void): Promise<number> {
  const n = flags.processes!;
  // The `rein` script this process was started from (bin/rein.js), run again with the flags.
  const script = process.argv[1]!;
  const argsOf = (i: number) => [
    'worker', '--queue', flags.queue, '--concurrency', String(flags.concurrency ?? 1),
    ...(flags.name ? ['--name', `${flags.name}-${i + 1}`] : []),
    ...(flags.lockDuration ? ['--lock-duration', String(flags.lockDuration)] : []),
  ];
  const fills = n * (flags.concurrency ?? 1) >= availableParallelism();
  const nodeFlags = [...process.execArgv.filter((f) => !PROCESS_NODE_FLAGS.includes(f)), ...(fills ? PROCESS_NODE_FLAGS : [])];
  const children = new Set<ChildProcess>();
  let stopping = false;
  let code = 0;
  let done!: () => void;
  const allStopped = new Promise<void>((resolve) => { done = resolve; });
  const startOne = (i: number) => {
    // Its own process group, so that a terminal's Ctrl-C reaches it once (passed on below), not
    // twice; the IPC channel stops it when this process is gone.
    const child = spawn(process.execPath, [...nodeFlags, script, ...argsOf(i)], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], detached: true, env: { ...process.env, [SUPERVISED_ENV]: '1' } });
    children.add(child);
    prefixLines(child.stdout!, process.stdout, i + 1);
    prefixLines(child.stderr!, process.stderr, i + 1);
    // 'close': after its output has been passed on.
    child.on('close', (exitCode, signal) => {
      children.delete(child);
      if (!stopping && exitCode === GAVE_UP) {
        code = GAVE_UP;
        stop('SIGTERM');
      } else if (!stopping) {
        log(`worker ${i + 1} (pid ${child.pid}) ended (${signal ?? `exit code ${exitCode}`}); starting another in ${RESTART_MS / 1000} s`);
        setTimeout(() => { if (!stopping) startOne(i); else if (!children.size) done(); }, RESTART_MS);
        return;
      }
      if (!children.size) done();
    });
  };
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      log(`${signal} again: stopping the processes now`);
      // Each process's own second signal: it stops at once and ends its batch tasks' commands
      // (their process groups); SIGKILL for one that has not ended within FORCE_MS.
      for (const c of children) c.kill(signal);
      setTimeout(() => { for (const c of children) c.kill('SIGKILL'); }, FORCE_MS).unref();
      code = SIGNAL_EXIT[signal as StopSignal] ?? code;
      return;
    }
    stopping = true;
    for (const c of children) c.kill(signal);
    if (!children.size) done();
  };
  const onSignal = (signal: NodeJS.Signals) => stop(signal);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  log(`starting ${n} worker processes (${nodeFlags.length ? `node ${nodeFlags.join(' ')}` : 'Node\'s defaults'}${fills ? '' : `: fewer jobs at once than the ${availableParallelism()} cores`})`);
  for (let i = 0; i < n; i++) startOne(i);
  await allStopped;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  log('stopped');
  return code;
}

/**
 * Passes a worker process's output on, line by line, each line naming the process (N = 1, 2, ...):
 * `rein worker: done X` and `rein: X` become `rein worker N: done X` and `rein worker N: X`, any
 * other line (a library's warning, a crash) `rein worker N: LINE`.
 */
function prefixLines(from: Readable, to: Writable, n: number): void {
  const lines = createInterface({ input: from, crlfDelay: Infinity });
  lines.on('line', (line) => { to.write(`rein worker ${n}: ${line.replace(/^rein( worker)?: /, '')}\n`); });
}

/** Registers `rein worker`. */
export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('Run the jobs of `rein bench --queue` and `rein batch --queue` from a Redis queue, on this machine, until stopped (SIGINT / SIGTERM).')
    .requiredOption('--queue <redis-url>', 'the Redis server the jobs are on (redis://[:password@]HOST:PORT[/db], rediss:// for TLS)')
    .option('-c, --concurrency <n>', 'jobs at once in this process (replays run in this many worker threads); with --processes, in each process (default 1)', (v) => positiveInt(v, '--concurrency'))
    .option('--name <name>', 'this worker\'s name, stored on each job it runs (default HOST:PID; NAME-1, NAME-2, ... with --processes)')
    .option('--processes <n>', 'run N worker processes here (at most 256), each with --concurrency jobs at once (default 1), with Node\'s --single-threaded when they fill the cores (default without --concurrency: one process per core)', (v) => {
      const n = positiveInt(v, '--processes');
      if (n > MAX_PROCESSES) throw new InvalidArgumentError(`--processes must be at most ${MAX_PROCESSES}; for more jobs at once, raise --concurrency.`);
      return n;
    })
    .option('--lock-duration <ms>', 'how long a job stays locked to this worker without renewal; a worker that dies loses its jobs to the others after this (default 30000)', (v) => {
      const n = positiveInt(v, '--lock-duration');
      if (n < MIN_LOCK_MS) throw new InvalidArgumentError(`--lock-duration must be at least ${MIN_LOCK_MS} ms.`);
      return n;
    })
    .action(async (opts: WorkerFlags) => {
      process.exitCode = await workerCommand(opts);
    });
}
