/**
 * Worker-thread entry of `rein bench`: replays one workload through one preset. Presets are loaded
 * once per worker and reused.
 */
import { loadBenchPreset, replayWorkload, type LoadedPreset, type ReplayResult } from './replay/replay.js';
import type { Workload } from './workloads/types.js';

export interface ReplayTask {
  workload: Workload;
  /** Preset file or built-in name. */
  preset: string;
  cwd: string;
  model?: string;
}

const presets = new Map<string, Promise<LoadedPreset>>();

/** Replays `task` (tinypool calls the default export with the task). */
export default async function run(task: ReplayTask): Promise<ReplayResult> {
  const key = `${task.cwd}\0${task.preset}`;
  let p = presets.get(key);
  if (!p) { p = loadBenchPreset(task.preset, task.cwd); presets.set(key, p); }
  return replayWorkload(task.workload, await p, task.model ? { model: task.model } : {});
}
