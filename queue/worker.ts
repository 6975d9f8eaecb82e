/**
 * The worker side of the queue: a BullMQ Worker on this rein version's queue that hands each job to
 * the processor for its kind (job name) and returns what the processor returns as the job's result.
 */
import { hostname } from 'node:os';
import type { Job, Worker } from 'bullmq';
import { bullConnection, bullmq, queueName, queueProblemLine, redisProblem, type QueueTarget } from './connection.js';
import { ATTEMPTS, MAX_STALLED } from './jobs.js';

/** Runs one job; its return value (JSON-serialisable) is the job's result. Throwing fails this attempt. */
export type Processor = (job: Job) => Promise<unknown>;

/** BullMQ's default lock duration, ms: a worker that stops renewing its lock loses the job after this. */
export const DEFAULT_LOCK_MS = 30_000;

export interface WorkerOptions {
  target: QueueTarget;
  /** Jobs run at once by this process. */
  concurrency: number;
  /** How long a job stays locked without renewal, ms; also the interval of the stalled-job check. */
  lockDuration?: number;
  /** Stored on each job this worker runs (BullMQ's `processedBy`). Default `HOST:PID`. */
  name?: string;
  /** Job name → processor. */
  processors: Record<string, Processor>;
  /** One line per job started, finished or failed, and per connection error. */
  log?: (line: string) => void;
}

export interface RunningWorker {
  name: string;
  queue: string;
  /** Stops taking jobs, waits for the running ones, closes the connections. */
  close(): Promise<void>;
}

/** Starts a worker. Resolves once it is connected and taking jobs. */
export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  const { Worker, UnrecoverableError } = await bullmq();
  const name = opts.name ?? `${hostname()}:${process.pid}`;
  const lockDuration = opts.lockDuration ?? DEFAULT_LOCK_MS;
  const log = opts.log ?? (() => {});
  const worker: Worker = new Worker(queueName(), async (job: Job) => {
    const processor = opts.processors[job.name];
    // Another kind of job than this worker knows: retrying here cannot help.
    if (!processor) throw new UnrecoverableError(`this worker cannot run "${job.name}" jobs (it runs ${Object.keys(opts.processors).join(', ')})`);
    return processor(job);
  }, {
    connection: bullConnection(opts.target),
    concurrency: opts.concurrency,
    name,
    lockDuration,
    stalledInterval: lockDuration,
    maxStalledCount: MAX_STALLED,
    autorun: false,
  });
  const label = (job: Job) => String((job.data as { label?: unknown })?.label ?? job.id);
  worker.on('active', (job) => log(`start ${label(job)}${job.attemptsStarted > 1 ? ` (attempt ${job.attemptsStarted})` : ''}`));
  worker.on('completed', (job) => {
    const ms = job.finishedOn && job.processedOn ? job.finishedOn - job.processedOn : undefined;
    log(`done ${label(job)}${ms !== undefined ? ` (${(ms / 1000).toFixed(1)} s)` : ''}`);
  });
  worker.on('failed', (job, err) => {
    if (!job) return;
    const last = job.attemptsMade >= (job.opts.attempts ?? ATTEMPTS);
    log(`failed ${label(job)} (attempt ${job.attemptsMade}${last ? ', the last' : ''}): ${err.message}`);
  });
  // While Redis is away BullMQ reports the same error at every reconnection attempt: said once,
  // in plain words, until something else happens.
  let lastProblem = '';
  const onError = (err: Error, after = '; retrying') => {
    const problem = redisProblem(err, opts.target);
    const text = problem === undefined ? `queue error: ${err.message.split('\n')[0]}` : `${queueProblemLine(opts.target, problem)}${after}`;
    if (text === lastProblem) return;
    lastProblem = text;
    log(text);
  };
  worker.on('active', () => { lastProblem = ''; });
  worker.on('error', (err) => onError(err));
  worker.run().catch((err: Error) => onError(err, ''));
  await worker.waitUntilReady();
  return { name, queue: worker.name, close: () => worker.close() };
}
