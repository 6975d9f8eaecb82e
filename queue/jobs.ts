/**
 * Submitting jobs to the queue and waiting for their outcomes, with counts for a progress line.
 *
 * What BullMQ guarantees and rein relies on (https://docs.bullmq.io/guide/jobs/job-ids,
 * https://docs.bullmq.io/guide/retrying-failing-jobs, https://docs.bullmq.io/guide/jobs/stalled):
 * - a job added with the id of a job still in the queue is not added again, so a job's id is a key
 *   of its inputs and a second submission of the same work reuses the first one's result;
 * - a job is locked by the worker running it; a worker that dies stops renewing the lock, and
 *   another worker's stalled-job check puts the job back in the wait list, so it runs again
 *   (delivery is at least once, which keyed results make harmless);
 * - a job whose processor throws is retried until it has failed ATTEMPTS times, then it is failed
 *   with the last error.
 */
import type { Redis } from 'ioredis';
import type { Job, JobsOptions, Queue, QueueEvents } from 'bullmq';
import { bullConnection, bullmq, queueName, type QueueTarget } from './connection.js';

/** Attempts per job: a job failing this many times is reported with its last error. */
export const ATTEMPTS = 3;
/** Wait between attempts, ms. */
export const RETRY_DELAY_MS = 1_000;
/** How long results and rein's own keys stay in Redis after their last use, s (7 days). */
export const KEEP_SECONDS = 7 * 24 * 3600;
/** Times a job may lose its worker (the worker died or hung past its lock) before it is failed. */
export const MAX_STALLED = 2;

/** Options of every job rein adds. */
export const JOB_OPTIONS: JobsOptions = {
  attempts: ATTEMPTS,
  backoff: { type: 'fixed', delay: RETRY_DELAY_MS },
  removeOnComplete: { age: KEEP_SECONDS },
  removeOnFail: { age: KEEP_SECONDS },
};

/** A job to add: its name (the kind of work), its key, its data. */
export interface JobSpec<T> {
  name: string;
  id: string;
  data: T;
}

/** How a job ended. */
export type JobOutcome =
  | { state: 'completed'; value: unknown; processedBy?: string }
  | { state: 'failed'; reason: string; attempts: number };

/** Counts over one submission's jobs, for the progress line. */
export interface JobCounts {
  total: number;
  done: number;
  running: number;
  failed: number;
  /** Workers connected to the queue (any submission's). */
  workers: number;
}

/** A queue opened for submitting: the BullMQ queue, its event stream, and a connection for rein's keys. */
export interface OpenQueue {
  queue: Queue;
  redis: Redis;
  target: QueueTarget;
  /**
   * Ids this process asked the queue to remove (cancelWaiting). awaitJobs reads it: a job found
   * missing by a state scan before the queue's `removed` event arrives was removed, not expired.
   */
  cancelled: Set<string>;
  close(): Promise<void>;
}

/** Opens the queue of this rein version on `target`; `redis` is a connection made by openRedis. */
export async function openQueue(target: QueueTarget, redis: Redis): Promise<OpenQueue> {
  const { Queue } = await bullmq();
  const queue = new Queue(queueName(), { connection: bullConnection(target) });
  // A failed command rejects where it was sent, and awaitJobs reports the event stream's errors;
  // without a listener BullMQ would print each connection error's stack (console.error).
  queue.on('error', () => {});
  await queue.waitUntilReady();
  return {
    queue, redis, target, cancelled: new Set(),
    close: async () => {
      await queue.close();
      redis.disconnect();
    },
  };
}

/**
 * Adds jobs (a job whose id is already in the queue is left as it is) and puts failed ones back
 * in the wait list for another ATTEMPTS tries. Returns how many were already done.
 */
export async function addJobs<T>(q: OpenQueue, jobs: readonly JobSpec<T>[]): Promise<{ reused: number; retried: number }> {
  const CHUNK = 500;
  for (let i = 0; i < jobs.length; i += CHUNK) {
    await q.queue.addBulk(jobs.slice(i, i + CHUNK).map((j) => ({ name: j.name, data: j.data, opts: { ...JOB_OPTIONS, jobId: j.id } })));
  }
  let reused = 0;
  let retried = 0;
  await forEachJob(q.queue, jobs.map((j) => j.id), async (job, state) => {
    if (state === 'completed') reused++;
    if (state === 'failed' && job) {
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      retried++;
    }
  });
  return { reused, retried };
}

/** Runs `fn` on each job id's job and state, a few hundred at a time. */
async function forEachJob(queue: Queue, ids: readonly string[], fn: (job: Job | undefined, state: string, id: string) => Promise<void> | void): Promise<void> {
  const { Job } = await bullmq();
  const CHUNK = 200;
  for (let i = 0; i < ids.length; i += CHUNK) {
    await Promise.all(ids.slice(i, i + CHUNK).map(async (id) => {
      const job = await Job.fromId(queue, id);
      const state = job ? await job.getState() : 'unknown';
      await fn(job, state, id);
    }));
  }
}

export interface AwaitOptions {
  onProgress?: (c: JobCounts) => void;
  onOutcome?: (id: string, o: JobOutcome) => void;
  onError?: (err: Error) => void;
  /** Stops the wait: awaitJobs then rejects with WaitStopped (the jobs stay on the queue). */
  signal?: AbortSignal;
}

/** awaitJobs' rejection when its `signal` is aborted; `outcomes` holds what was known by then. */
export class WaitStopped extends Error {
  override name = 'WaitStopped';
  constructor(readonly outcomes: ReadonlyMap<string, JobOutcome>) {
    super('stopped waiting for the jobs');
  }
}

/** The reason of a job removed from the queue before a worker took it (cancelWaiting). */
export const REMOVED_BEFORE_RUN = 'removed from the queue before a worker took it';

/**
 * Removes the jobs of `ids` that no worker has taken yet (waiting, delayed or prioritized), so
 * that a submission the user stopped does not leave work nobody will collect. A job taken in the
 * meantime is left to finish. Returns the ids removed.
 *
 * @param opts.record a Redis set to add each removed id to (kept KEEP_SECONDS), so that another
 *   process waiting for the same jobs later (`rein batch collect`) tells them from expired ones:
 *   it puts the set's members in its own `cancelled` before awaitJobs.
 */
export async function cancelWaiting(q: OpenQueue, ids: readonly string[], opts: { record?: string } = {}): Promise<string[]> {
  const { record } = opts;
  const removed: string[] = [];
  await forEachJob(q.queue, ids, async (job, state, id) => {
    if (!job || !['waiting', 'delayed', 'prioritized', 'wait'].includes(state)) return;
    // Marked before the removal, as a scan of awaitJobs may find the job gone before remove()
    // resolves here and before the queue's `removed` event reaches its stream.
    q.cancelled.add(id);
    if (record) await q.redis.multi().sadd(record, id).expire(record, KEEP_SECONDS).exec();
    // BullMQ refuses to remove a job that is locked (a worker took it since its state was read).
    try {
      await job.remove();
      removed.push(id);
    } catch {
      // Taken: it finishes and reports as any other. (Gone instead: removed by a concurrent call.)
      if (!(await q.queue.getJob(id))) return;
      q.cancelled.delete(id);
      if (record) await q.redis.srem(record, id);
    }
  });
  return removed;
}

/** How often the job states are read again in case an event was missed (a reconnect), ms. */
const RESCAN_MS = 10_000;

/**
 * Waits until every job in `ids` has completed or failed, and returns their outcomes by id.
 * Follows the queue's event stream (BullMQ QueueEvents) from before the first read of the jobs'
 * states, so no change is missed; the states are read again every RESCAN_MS as a safety net.
 * A job that is no longer in the queue counts as failed, with why.
 *
 * @param opts.onProgress called with the counts whenever they change (the worker count is read at each scan).
 * @param opts.onOutcome called with each job's outcome as it is known.
 * @param opts.onError called with a Redis error while waiting (BullMQ reconnects; the wait goes on).
 */
export async function awaitJobs(q: OpenQueue, ids: readonly string[], opts: AwaitOptions = {}): Promise<Map<string, JobOutcome>> {
  const { onProgress, onOutcome, onError = () => {}, signal } = opts;
  const { QueueEvents, Job } = await bullmq();
  const pending = new Set(ids);
  const running = new Set<string>();
  const outcomes = new Map<string, JobOutcome>();
  // Read first, so that no count reported says "0 workers" before they were counted.
  let workers = pending.size ? await q.queue.getWorkersCount() : 0;
  let failed = 0;
  const report = () => onProgress?.({ total: ids.length, done: outcomes.size, running: running.size, failed, workers });
  if (!pending.size) return outcomes;
  if (signal?.aborted) throw new WaitStopped(outcomes);

  let resolveAll!: () => void;
  let rejectAll!: (err: Error) => void;
  const all = new Promise<void>((resolve, reject) => { resolveAll = resolve; rejectAll = reject; });
  const onAbort = () => rejectAll(new WaitStopped(outcomes));
  signal?.addEventListener('abort', onAbort, { once: true });
  const settle = (id: string, o: JobOutcome) => {
    if (!pending.delete(id)) return;
    running.delete(id);
    outcomes.set(id, o);
    if (o.state === 'failed') failed++;
    onOutcome?.(id, o);
    report();
    if (!pending.size) resolveAll();
  };
  // A job not found: removed by this process (cancelWaiting), or expired from the queue.
  const missing = (id: string) => settle(id, { state: 'failed', reason: q.cancelled.has(id) ? REMOVED_BEFORE_RUN : gone(), attempts: 0 });
  const finished = async (id: string) => {
    const job = await Job.fromId(q.queue, id);
    if (!job) return missing(id);
    const state = await job.getState();
    if (state === 'completed') settle(id, { state: 'completed', value: job.returnvalue, ...(job.processedBy ? { processedBy: job.processedBy } : {}) });
    else if (state === 'failed') settle(id, { state: 'failed', reason: job.failedReason || 'failed', attempts: job.attemptsMade });
  };

  // Start the event stream where it is now, before reading any state.
  const last = (await q.redis.xrevrange(q.queue.keys.events!, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
  const events: QueueEvents = new QueueEvents(q.queue.name, { connection: bullConnection(q.target), lastEventId: last });
  events.on('error', (err) => onError(err as Error));
  const mine = (id: string) => pending.has(id);
  const later = (p: Promise<void>) => { p.catch(onError); };
  events.on('active', ({ jobId }) => { if (mine(jobId) && !running.has(jobId)) { running.add(jobId); report(); } });
  for (const e of ['waiting', 'delayed', 'stalled'] as const) {
    events.on(e, ({ jobId }: { jobId: string }) => { if (mine(jobId) && running.delete(jobId)) report(); });
  }
  events.on('removed', ({ jobId }) => { if (mine(jobId)) settle(jobId, { state: 'failed', reason: REMOVED_BEFORE_RUN, attempts: 0 }); });
  for (const e of ['completed', 'failed'] as const) {
    events.on(e, ({ jobId }: { jobId: string }) => {
      if (!mine(jobId)) return;
      running.delete(jobId);
      later(finished(jobId));
    });
  }

  const scan = async () => {
    workers = await q.queue.getWorkersCount();
    await forEachJob(q.queue, [...pending], async (job, state, id) => {
      if (!job) return missing(id);
      if (state === 'completed' || state === 'failed') return finished(id);
      if (state === 'active') running.add(id);
      else running.delete(id);
    });
    report();
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    await events.waitUntilReady();
    await scan();
    const rescan = () => {
      timer = setTimeout(() => { scan().then(() => { if (pending.size) rescan(); }, (err: Error) => { onError(err); rescan(); }); }, RESCAN_MS);
    };
    if (pending.size) rescan();
    await all;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    clearTimeout(timer);
    await events.close();
  }
  return outcomes;
}

function gone(): string {
  return `the job is no longer in the queue (results are kept ${KEEP_SECONDS / 86_400} days); submit the work again`;
}
