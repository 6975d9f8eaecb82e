/**
 * `rein worker --queue redis://HOST:PORT`: runs the jobs that `rein bench --queue` and `rein batch
 * --queue` put on the queue, on this machine, until stopped. Start one (or several) on every
 * machine that should share the work; each needs the same rein version as the submitter.
 */
import { availableParallelism } from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import { isInputError, printInputError } from './errors.js';
import { positiveInt } from './options.js';

interface WorkerFlags {
  queue: string;
  concurrency?: number;
  name?: string;
  lockDuration?: number;
}

/** Shortest lock, ms: renewals happen at half of it, and a renewal takes a round trip to Redis. */
const MIN_LOCK_MS = 1_000;

/** `rein worker`. Resolves with the exit code once the worker has stopped. */
export async function workerCommand(flags: WorkerFlags): Promise<number> {
  const log = (line: string) => process.stderr.write(`rein worker: ${line}\n`);
  try {
    const { parseQueueUrl, openRedis } = await import('../../queue/connection.js');
    const { startWorker, DEFAULT_LOCK_MS } = await import('../../queue/worker.js');
    const { replayProcessor } = await import('../../bench/queue/processor.js');
    const { REPLAY_JOB } = await import('../../bench/queue/jobs.js');
    const { batchProcessor, BATCH_JOB } = await import('../../batch/queue.js');
    const target = parseQueueUrl(flags.queue);
    const redis = await openRedis(target);
    const concurrency = flags.concurrency ?? availableParallelism();
    const replay = await replayProcessor(redis, concurrency);
    const worker = await startWorker({
      target, concurrency, log,
      ...(flags.name ? { name: flags.name } : {}),
      ...(flags.lockDuration ? { lockDuration: flags.lockDuration } : {}),
      processors: { [REPLAY_JOB]: (job) => replay.process(job), [BATCH_JOB]: batchProcessor() },
    });
    log(`${worker.name} runs jobs of queue ${worker.queue} at ${target.shown}, ${concurrency} at a time (lock ${((flags.lockDuration ?? DEFAULT_LOCK_MS) / 1000).toFixed(1)} s)`);
    await new Promise<void>((resolve) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) {
          // A second signal: leave now; the running jobs' locks expire and other workers take them.
          log(`${signal} again: stopping now`);
          process.exit(130);
        }
        stopping = true;
        log(`${signal}: finishing the running jobs, then stopping (${signal} again to stop now)`);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await worker.close();
    await replay.close();
    redis.disconnect();
    log('stopped');
    return 0;
  } catch (err) {
    if (isInputError(err)) { printInputError(err); return 2; }
    throw err;
  }
}

/** Registers `rein worker`. */
export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('Run the jobs of `rein bench --queue` and `rein batch --queue` from a Redis queue, on this machine, until stopped (SIGINT / SIGTERM).')
    .requiredOption('--queue <redis-url>', 'the Redis server the jobs are on (redis://[:password@]HOST:PORT[/db], rediss:// for TLS)')
    .option('-c, --concurrency <n>', 'jobs at once (replays run in this many worker threads; default: one per core)', (v) => positiveInt(v, '--concurrency'))
    .option('--name <name>', 'this worker\'s name, stored on each job it runs (default HOST:PID)')
    .option('--lock-duration <ms>', 'how long a job stays locked to this worker without renewal; a worker that dies loses its jobs to the others after this (default 30000)', (v) => {
      const n = positiveInt(v, '--lock-duration');
      if (n < MIN_LOCK_MS) throw new InvalidArgumentError(`--lock-duration must be at least ${MIN_LOCK_MS} ms.`);
      return n;
    })
    .action(async (opts: WorkerFlags) => {
      process.exitCode = await workerCommand(opts);
    });
}
