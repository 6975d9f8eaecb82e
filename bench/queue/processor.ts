/**
 * The worker's side of a replay job: fetch the workload's bytes (once per workload), replay it in a
 * worker thread (bench/worker.ts `replayJob`, the same replay as a local `rein bench`), and return
 * the replay result as the job's result.
 *
 * Replays run in threads so that the worker's main thread stays free to renew its job locks:
 * a replay that held the main thread longer than the lock would look like a dead worker.
 */
import type { Redis } from 'ioredis';
import type { Job } from 'bullmq';
import { rm } from 'node:fs/promises';
import { importExternal } from '../../lib/node/import-external.js';
import { replayDir, type ReplayResult } from '../replay/replay.js';
import { workerFile } from '../run.js';
import type { ReplayJobTask } from '../worker.js';
import { KEEP_SECONDS } from '../../queue/jobs.js';
import { workloadKey, type ReplayJobData } from './jobs.js';

/** Workloads' bytes kept in memory by hash (a benchmark's jobs come workload by workload). */
const BYTES_KEPT = 8;

export interface ReplayProcessor {
  process(job: Job): Promise<ReplayResult>;
  /** Stops the threads. */
  close(): Promise<void>;
}

/** A processor for replay jobs with `threads` worker threads; `redis` reads the workloads. */
export async function replayProcessor(redis: Redis, threads: number): Promise<ReplayProcessor> {
  const { filename, execArgv } = workerFile();
  // tinypool is an ES module only, so it stays outside the command's CommonJS bundle.
  const { Tinypool } = await importExternal<typeof import('tinypool')>('tinypool');
  const pool = new Tinypool({ filename, minThreads: threads, maxThreads: threads, execArgv });
  // The replays' folders go in a run folder of this worker's, as a local `rein bench` puts them in
  // one of its run: the agent's working folder (which the system prompt shows) is then as deep,
  // and its path as long, as in a local run, so a report from workers equals the local one.
  const runDir = await replayDir();
  const bytes = new Map<string, Promise<Buffer>>();
  const fetch = (hash: string): Promise<Buffer> => {
    let b = bytes.get(hash);
    if (!b) {
      b = redis.getBuffer(workloadKey(hash)).then((v) => {
        if (!v) throw new Error(`workload ${hash.slice(0, 12)} is not in Redis (it is kept ${KEEP_SECONDS / 86_400} days after its benchmark was submitted); submit the benchmark again`);
        return v;
      });
      bytes.set(hash, b);
      b.catch(() => bytes.delete(hash));
      if (bytes.size > BYTES_KEPT) bytes.delete(bytes.keys().next().value!);
    }
    return b;
  };
  return {
    async process(job) {
      const data = job.data as ReplayJobData;
      const task: ReplayJobTask = { workload: { hash: data.workload, bytes: await fetch(data.workload) }, preset: data.preset, ...(data.model ? { model: data.model } : {}), tmpDir: runDir };
      return (await pool.run(task, { name: 'replayJob' })) as ReplayResult;
    },
    async close() {
      await pool.destroy();
      await rm(runDir, { recursive: true, force: true });
    },
  };
}
