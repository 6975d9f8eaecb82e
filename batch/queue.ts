/**
 * `rein batch --queue`: each task a job on the queue, run by any `rein worker` exactly as a local
 * batch runs it (runTask), with the preset resolved on the submitting machine.
 *
 * A batch's jobs are keyed by a fresh batch id and the task's line, not by content: a model's
 * answers vary, so running a batch again means running it again. A task whose worker died is run
 * again by another worker (at least once); its result is the last run's.
 *
 * Beside the jobs, a batch keeps two keys of rein's own, so that `rein batch collect ID` prints its
 * lines from the queue alone: its manifest (each task's id and line, in file order) at
 * `rein:batch:<id>`, stored before the first job is added, and the set of its jobs removed
 * before a worker took them (a stopped submission) at `rein:batch:<id>:removed`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from 'bullmq';
import { InputError } from '../lib/errors.js';
import { reinVersion, sameVersion } from '../queue/connection.js';
import { addJobs, awaitJobs, cancelWaiting, KEEP_SECONDS, REMOVED_BEFORE_RUN, type AwaitOptions, type JobOutcome, type JobSpec, type OpenQueue } from '../queue/jobs.js';
import { runTask, type TaskResult } from './run-task.js';
import type { BatchTask } from './tasks.js';

/** The job name of a batch task. */
export const BATCH_JOB = 'batch';

export interface BatchJobData {
  /** "batch id / task id", for logs. */
  label: string;
  task: BatchTask;
  /** The merged preset (loadPreset's `preset`), written to a file for `rein run --preset`. */
  preset: Record<string, unknown>;
  version: string;
  keep?: boolean;
}

/** A task as a batch's manifest keeps it: enough for its result line when it has no result. */
export type TaskRef = Pick<BatchTask, 'id' | 'line'>;

/** What `rein batch collect` needs to print a batch's lines: its tasks, in file order. */
export interface BatchManifest {
  /** The rein version that submitted it (its jobs are on that version's queue). */
  version: string;
  /** When it was submitted, ms since the epoch. */
  submittedAt: number;
  tasks: TaskRef[];
}

/**
 * What `rein batch collect` looks up: letters, digits, `-` and `_` (submitBatch makes 8 hex
 * digits; another rein version's ids are looked up too, so that it is named). Never a `:`, which
 * separates the parts of a Redis key: `ID:removed` would name another key of the batch.
 */
const BATCH_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Redis key of a batch's manifest. */
export function batchManifestKey(batchId: string): string {
  return `rein:batch:${batchId}`;
}

/** Redis key of the set of a batch's jobs removed before a worker took them. */
export function batchRemovedKey(batchId: string): string {
  return `rein:batch:${batchId}:removed`;
}

/** The job id of the task on `line` of batch `batchId` (BullMQ ids must not contain ':'). */
export function batchJobId(batchId: string, line: number): string {
  return `batch-${batchId}-${line}`;
}

/**
 * Stores the batch's manifest (kept KEEP_SECONDS), calls `opts.onId` with the batch id, then adds
 * one job per task; returns the batch id and the job ids in task order. The manifest goes first,
 * so a batch whose id was printed can be collected even if this process dies while adding jobs
 * (a task whose job was never added reads as no longer in the queue).
 */
export async function submitBatch(q: OpenQueue, tasks: readonly BatchTask[], preset: Record<string, unknown>, opts: { keep?: boolean; onId?: (batchId: string) => void } = {}): Promise<{ batchId: string; jobs: string[] }> {
  const batchId = randomUUID().slice(0, 8);
  const version = reinVersion();
  const manifest: BatchManifest = { version, submittedAt: Date.now(), tasks: tasks.map((t) => ({ id: t.id, line: t.line })) };
  await q.redis.set(batchManifestKey(batchId), JSON.stringify(manifest), 'EX', KEEP_SECONDS);
  opts.onId?.(batchId);
  const jobs: JobSpec<BatchJobData>[] = tasks.map((task) => ({
    name: BATCH_JOB,
    id: batchJobId(batchId, task.line),
    data: { label: `${batchId}/${task.id}`, task, preset, version, ...(opts.keep ? { keep: true } : {}) },
  }));
  await addJobs(q, jobs);
  return { batchId, jobs: jobs.map((j) => j.id) };
}

/**
 * A submitted batch, read back from the queue for `rein batch collect`: its tasks in file order
 * and their job ids. The jobs its submitter removed before a worker took them are added to
 * `q.cancelled`, so they read as not run rather than expired. Keeps the batch's keys
 * KEEP_SECONDS longer.
 *
 * @throws InputError when the id is not one (BATCH_ID), when the queue has no batch by that id (a
 *   typo, another Redis, or older than KEEP_SECONDS), or when another rein version submitted it
 *   (sameVersion).
 */
export async function readBatch(q: OpenQueue, batchId: string): Promise<{ manifest: BatchManifest; jobs: string[] }> {
  if (!BATCH_ID.test(batchId)) throw new InputError(`${JSON.stringify(batchId)} is not a batch id: \`rein batch --queue\` prints it when it starts (rein: batch 1f3c9a2e: ...)`);
  const text = await q.redis.get(batchManifestKey(batchId));
  if (!text) throw new InputError(`no batch "${batchId}" on ${q.target.shown} (a batch is kept ${KEEP_SECONDS / 86_400} days after it was submitted or collected)`);
  const manifest = JSON.parse(text) as BatchManifest;
  sameVersion(`batch "${batchId}"`, manifest.version);
  const removed = await q.redis.smembers(batchRemovedKey(batchId));
  await q.redis.multi().expire(batchManifestKey(batchId), KEEP_SECONDS).expire(batchRemovedKey(batchId), KEEP_SECONDS).exec();
  for (const id of removed) q.cancelled.add(id);
  return { manifest, jobs: manifest.tasks.map((t) => batchJobId(batchId, t.line)) };
}

/**
 * Removes the batch's jobs no worker has taken yet (cancelWaiting), recording them for
 * `rein batch collect`. Returns the ids removed.
 */
export function cancelBatch(q: OpenQueue, batchId: string, jobs: readonly string[]): Promise<string[]> {
  return cancelWaiting(q, jobs, { record: batchRemovedKey(batchId) });
}

/**
 * Waits for a batch's jobs; calls `onResult` as each finishes. A job that failed every attempt
 * (the worker could not run the task at all) is a result with its error; one removed before a
 * worker took it, a result saying it did not run.
 */
export async function awaitBatch(q: OpenQueue, tasks: readonly TaskRef[], jobs: readonly string[], opts: Omit<AwaitOptions, 'onOutcome'> & { onResult?: (r: TaskResult) => void }): Promise<TaskResult[]> {
  const byJob = new Map(jobs.map((id, i) => [id, tasks[i]!]));
  const toResult = (id: string, o: JobOutcome): TaskResult => {
    const t = byJob.get(id)!;
    if (o.state === 'completed') return o.value as TaskResult;
    return { id: t.id, line: t.line, duration_ms: 0, error: o.reason === REMOVED_BEFORE_RUN ? `not run: ${o.reason}` : `failed ${o.attempts} times on the queue: ${o.reason}` };
  };
  const { onResult, ...rest } = opts;
  const outcomes = await awaitJobs(q, jobs, { ...rest, onOutcome: (id, o) => onResult?.(toResult(id, o)) });
  return jobs.map((id) => toResult(id, outcomes.get(id)!));
}

/**
 * The worker's processor for batch jobs. `opts.kill`, aborted at a worker's second signal, ends a
 * running task's commands at once (SIGKILL to their process groups), so none outlives the worker
 * while the queue gives the job to another one; until then a task's commands do not get the
 * terminal's Ctrl-C, and a worker's graceful stop lets them finish.
 */
export function batchProcessor(opts: { kill?: AbortSignal } = {}): (job: Job) => Promise<TaskResult> {
  return async (job) => {
    const data = job.data as BatchJobData;
    const dir = await mkdtemp(join(tmpdir(), 'rein-batch-preset-'));
    try {
      const file = join(dir, 'preset.json');
      await writeFile(file, JSON.stringify(data.preset));
      return await runTask(data.task, { preset: file, ...(data.keep ? { keep: true } : {}), ...(opts.kill ? { kill: opts.kill } : {}) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}
