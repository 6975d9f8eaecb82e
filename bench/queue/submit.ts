/**
 * `rein bench --queue`: the replays of a benchmark as jobs on the queue, and the report assembled
 * from their results by the same code as a local run (bench/run.ts assembleReport).
 */
import { InputError } from '../../lib/errors.js';
import { reinVersion, sameVersion } from '../../queue/connection.js';
import { addJobs, awaitJobs, KEEP_SECONDS, type AwaitOptions, type JobSpec, type OpenQueue } from '../../queue/jobs.js';
import type { BenchReport, RunReport } from '../report/model.js';
import type { ReplayResult } from '../replay/replay.js';
import { assembleReport, failed, toRun, type BenchPlan } from '../run.js';
import type { Workload } from '../workloads/types.js';
import { benchRunId, decodeWorkload, encodeWorkload, manifestKey, presetSpec, REPLAY_JOB, replayJobId, workloadKey, type BenchManifest, type ReplayJobData } from './jobs.js';

export interface Submitted {
  runId: string;
  manifest: BenchManifest;
  /** Jobs already completed (by an earlier submission of the same work): their results are reused. */
  reused: number;
  /** Jobs that had failed before and were put back for another try. */
  retried: number;
}

/**
 * Puts a benchmark on the queue: stores each workload once (under its hash, unless already there),
 * adds one job per (workload, preset), and stores the manifest `rein bench collect` reads.
 * Everything it stores is kept KEEP_SECONDS after this call.
 *
 * Workload by workload: each is encoded, stored and its jobs added before the next is encoded, so
 * workers start on the first workload's jobs while the rest are still being encoded (encoding all
 * of them first kept every worker idle for ~250 ms on a matrix of four 0.8 MB workloads). The
 * manifest is stored last; a submission that dies before it leaves jobs whose results a second
 * submission of the same benchmark reuses.
 */
export async function submitBench(plan: BenchPlan, q: OpenQueue, options: { model?: string } = {}): Promise<Submitted> {
  const version = reinVersion();
  const specs = plan.presets.map((p) => presetSpec(p, options));
  const hashes: string[] = [];
  const jobs: JobSpec<ReplayJobData>[] = [];
  let reused = 0;
  let retried = 0;
  for (const w of plan.workloads) {
    const encoded = encodeWorkload(w);
    await storeWorkloads(q, [encoded]);
    const mine = specs.map((spec, pi): JobSpec<ReplayJobData> => {
      const data: ReplayJobData = { label: `${w.name} × ${plan.names[pi]}`, workload: encoded.hash, preset: spec, ...(options.model ? { model: options.model } : {}), version };
      return { name: REPLAY_JOB, id: replayJobId(encoded.hash, spec.hash, version), data };
    });
    const added = await addJobs(q, mine);
    reused += added.reused;
    retried += added.retried;
    hashes.push(encoded.hash);
    jobs.push(...mine);
  }
  const m = {
    presets: plan.presets.map((p, i) => ({ label: plan.names[i]!, source: p.source })),
    workloads: plan.workloads.map((w, i) => ({ hash: hashes[i]!, ...(w.path ? { path: w.path } : {}) })),
    skippedFiles: plan.skippedFiles,
    jobs: jobs.map((j) => j.id),
  };
  const manifest: BenchManifest = { version, submittedAt: Date.now(), ...m };
  const runId = benchRunId(m);
  await q.redis.set(manifestKey(runId), JSON.stringify(manifest), 'EX', KEEP_SECONDS);
  return { runId, manifest, reused, retried };
}

/** Stores the workloads not yet in Redis, and keeps the others KEEP_SECONDS longer. */
async function storeWorkloads(q: OpenQueue, encoded: readonly { hash: string; bytes: Buffer }[]): Promise<void> {
  const unique = [...new Map(encoded.map((e) => [e.hash, e])).values()];
  // EXPIRE answers 0 for a key that does not exist: those are the ones to send.
  const found = await q.redis.pipeline(unique.map((e) => ['expire', workloadKey(e.hash), String(KEEP_SECONDS)])).exec();
  const missing = unique.filter((_, i) => found?.[i]?.[1] !== 1);
  if (missing.length) await q.redis.pipeline(missing.map((e) => ['set', workloadKey(e.hash), e.bytes, 'EX', String(KEEP_SECONDS)])).exec();
}

/**
 * The manifest of a submitted benchmark. Throws InputError when the queue has none by that id
 * (a typo, another Redis, or older than KEEP_SECONDS), or when another rein version submitted it.
 */
export async function readManifest(q: OpenQueue, runId: string): Promise<BenchManifest> {
  const text = await q.redis.get(manifestKey(runId));
  if (!text) throw new InputError(`no benchmark "${runId}" on ${q.target.shown} (a benchmark is kept ${KEEP_SECONDS / 86_400} days after it was submitted or collected)`);
  const manifest = JSON.parse(text) as BenchManifest;
  sameVersion(`benchmark "${runId}"`, manifest.version);
  await q.redis.expire(manifestKey(runId), KEEP_SECONDS);
  return manifest;
}

/** The workloads of a manifest, from Redis, with the paths they were read from. Throws InputError for one no longer stored. */
export async function fetchWorkloads(q: OpenQueue, manifest: BenchManifest): Promise<Workload[]> {
  const out: Workload[] = [];
  for (const { hash, path } of manifest.workloads) {
    const bytes = await q.redis.getBuffer(workloadKey(hash));
    if (!bytes) throw new InputError(`workload ${hash.slice(0, 12)} of this benchmark is no longer in Redis (kept ${KEEP_SECONDS / 86_400} days); submit the benchmark again`);
    await q.redis.expire(workloadKey(hash), KEEP_SECONDS);
    out.push({ ...decodeWorkload(bytes), ...(path ? { path } : {}) });
  }
  return out;
}

/**
 * Waits for a benchmark's jobs and assembles its report: a completed job's result is the run row
 * the local run would have made; a job that failed ATTEMPTS times is a row with its last error.
 */
export async function awaitBench(q: OpenQueue, manifest: BenchManifest, workloads: readonly Workload[], opts: Omit<AwaitOptions, 'onOutcome'> = {}): Promise<BenchReport> {
  const outcomes = await awaitJobs(q, [...new Set(manifest.jobs)], opts);
  const results: RunReport[] = manifest.jobs.map((id, i) => {
    const { label, source } = manifest.presets[i % manifest.presets.length]!;
    const o = outcomes.get(id)!;
    return o.state === 'completed' ? { ...toRun(o.value as ReplayResult, source), preset: label } : failed(label, source, o.reason);
  });
  return assembleReport({ names: manifest.presets.map((p) => p.label), workloads: [...workloads], skippedFiles: manifest.skippedFiles }, results);
}
