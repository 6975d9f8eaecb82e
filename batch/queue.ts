/**
 * `rein batch --queue`: each task a job on the queue, run by any `rein worker` exactly as a local
 * batch runs it (runTask), with the preset resolved on the submitting machine.
 *
 * A batch's jobs are keyed by a fresh batch id and the task's line, not by content: a model's
 * answers vary, so running a batch again means running it again. A task whose worker died is run
 * again by another worker (at least once); its result is the last run's.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from 'bullmq';
import { reinVersion } from '../queue/connection.js';
import { addJobs, awaitJobs, REMOVED_BEFORE_RUN, type AwaitOptions, type JobOutcome, type JobSpec, type OpenQueue } from '../queue/jobs.js';
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

/** Adds one job per task; returns the batch id and the job ids in task order. */
export async function submitBatch(q: OpenQueue, tasks: readonly BatchTask[], preset: Record<string, unknown>, opts: { keep?: boolean } = {}): Promise<{ batchId: string; jobs: string[] }> {
  const batchId = randomUUID().slice(0, 8);
  const version = reinVersion();
  const jobs: JobSpec<BatchJobData>[] = tasks.map((task) => ({
    name: BATCH_JOB,
    id: `batch-${batchId}-${task.line}`,
    data: { label: `${batchId}/${task.id}`, task, preset, version, ...(opts.keep ? { keep: true } : {}) },
  }));
  await addJobs(q, jobs);
  return { batchId, jobs: jobs.map((j) => j.id) };
}

/**
 * Waits for a batch's jobs; calls `onResult` as each finishes. A job that failed every attempt
 * (the worker could not run the task at all) is a result with its error.
 */
export async function awaitBatch(q: OpenQueue, tasks: readonly BatchTask[], jobs: readonly string[], opts: Omit<AwaitOptions, 'onOutcome'> & { onResult?: (r: TaskResult) => void }): Promise<TaskResult[]> {
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
