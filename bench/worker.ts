/**
 * Worker-thread entry of `rein bench`: replays one workload through one preset. Presets are loaded
 * once per worker and reused. `replayJob` is the same replay for a job from the queue (`rein
 * worker`), whose workload arrives as bytes and whose preset arrives resolved.
 */
import { loadBenchPreset, replayWorkload, type LoadedPreset, type ReplayResult } from './replay/replay.js';
import { decodeWorkload, presetFromSpec, type PresetSpec } from './queue/jobs.js';
import { generateWorkload, type GeneratedWorkloadRef } from './workloads/generator.js';
import type { Workload } from './workloads/types.js';

export interface ReplayTask {
  workload: Workload | GeneratedWorkloadRef;
  /** Preset file or built-in name. */
  preset: string;
  cwd: string;
  model?: string;
  /** false: no recall or re-fetch accounting (ReplayOptions.recall). */
  recall?: boolean;
  /** Folder the replay's folder is made in (ReplayOptions.tmpDir). */
  tmpDir?: string;
}

const presets = new Map<string, Promise<LoadedPreset>>();

/** The last generated workload made here: a benchmark's tasks come workload by workload, preset after preset. */
let lastGenerated: Workload | undefined;

/** The workload of a task. Throws for an invalid generator spec. */
function taskWorkload(w: ReplayTask['workload']): Workload {
  if (!('generator' in w)) return w;
  if (lastGenerated?.name !== w.generator) lastGenerated = generateWorkload(w.generator);
  return lastGenerated;
}

/** Replays `task` (tinypool calls the default export with the task). */
export default async function run(task: ReplayTask): Promise<ReplayResult> {
  const key = `${task.cwd}\0${task.preset}`;
  let p = presets.get(key);
  if (!p) { p = loadBenchPreset(task.preset, task.cwd); presets.set(key, p); }
  return replayWorkload(taskWorkload(task.workload), await p, { ...(task.model ? { model: task.model } : {}), ...(task.recall === false ? { recall: false } : {}), ...(task.tmpDir ? { tmpDir: task.tmpDir } : {}) });
}

/** A replay job from the queue: the workload as stored (encodeWorkload), the preset resolved. */
export interface ReplayJobTask {
  workload: { hash: string; bytes: Uint8Array };
  preset: PresetSpec;
  model?: string;
  /** Folder the replay's folder is made in (ReplayOptions.tmpDir): the worker's own run folder. */
  tmpDir?: string;
}

/** Decoded workloads kept by hash: a benchmark's jobs come workload by workload, preset after preset. */
const WORKLOADS_KEPT = 4;
const workloads = new Map<string, Workload>();

/** Replays a queue job (tinypool's `name: 'replayJob'`). Throws as `run` does. */
export async function replayJob(task: ReplayJobTask): Promise<ReplayResult> {
  let w = workloads.get(task.workload.hash);
  if (!w) {
    w = decodeWorkload(task.workload.bytes);
    workloads.set(task.workload.hash, w);
    if (workloads.size > WORKLOADS_KEPT) workloads.delete(workloads.keys().next().value!);
  }
  let p = presets.get(task.preset.hash);
  if (!p) {
    p = presetFromSpec(task.preset);
    presets.set(task.preset.hash, p);
    // A preset that failed to load is tried again by the next job (the error may be passing).
    p.catch(() => presets.delete(task.preset.hash));
  }
  return replayWorkload(w, await p, { ...(task.model ? { model: task.model } : {}), ...(task.tmpDir ? { tmpDir: task.tmpDir } : {}) });
}
