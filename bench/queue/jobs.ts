/**
 * What travels when `rein bench --queue` hands its replays to workers: one job per (workload,
 * preset), keyed by what decides its result, and the workloads themselves, stored once in Redis.
 *
 * A job's data is small: the workload's content hash, the resolved preset (the merged preset, with
 * `extends` followed and section files read in), the options, and rein's version. The workload's
 * bytes (its JSON, gzip-compressed) are at `rein:workload:<hash>`, shared by every job of that
 * workload; the list of a benchmark's jobs is at `rein:bench:<run id>`, for `rein bench collect`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { loadPreset } from '../../agent/preset/index.js';
import type { KernelPreset } from '../../kernel/kernel.js';
import type { LoadedPreset } from '../replay/replay.js';
import type { SkippedFile } from '../workloads/load.js';
import type { Workload } from '../workloads/types.js';

/** The job name of a replay. */
export const REPLAY_JOB = 'replay';

/** A preset as it travels: resolved on the submitting machine, loaded again by the worker. */
export interface PresetSpec {
  /** The file or built-in name it was given as (the report's `source`). */
  source: string;
  /** Its name (`name:` in the preset, else `source`). */
  name: string;
  /** The merged preset (loadPreset's `preset`): plain JSON. */
  preset: KernelPreset;
  /** The directory it was resolved from (for `/`-anchored permission rules). */
  baseDir: string;
  /** sha256 of the preset, the plugin files it names and the replay options, hex. */
  hash: string;
  /**
   * Where each plugin was named (file:line:column), in load order: a plugin's errors name the
   * submitter's preset file, as in a local run. Not part of the hash.
   */
  origins: string[];
}

/** The data of one replay job. */
export interface ReplayJobData {
  /** "workload × preset", for logs. */
  label: string;
  /** sha256 of the workload (workloadBytes), hex; the bytes are at workloadKey(hash). */
  workload: string;
  preset: PresetSpec;
  /** Model to send instead of the recording's. */
  model?: string;
  /** The rein version that submitted it (the queue's name has it too). */
  version: string;
}

/** What `rein bench collect` needs to assemble a report: the benchmark's inputs and its jobs. */
export interface BenchManifest {
  version: string;
  /** When it was submitted, ms since the epoch. */
  submittedAt: number;
  /** Row label and source of each preset, in order. */
  presets: { label: string; source: string }[];
  /** Each workload's hash and the path it was read from (the path is not part of the hash). */
  workloads: { hash: string; path?: string }[];
  skippedFiles: SkippedFile[];
  /** Job id of replay `w * presets.length + p`. */
  jobs: string[];
}

/** Redis key of a workload's bytes. */
export function workloadKey(hash: string): string {
  return `rein:workload:${hash}`;
}

/** Redis key of a benchmark's manifest. */
export function manifestKey(runId: string): string {
  return `rein:bench:${runId}`;
}

function sha256(...parts: (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex');
}

/**
 * A workload as it travels: its JSON without `path` (where it was read from does not change its
 * replay, so the same session read from two places is one workload), gzip-compressed, and the
 * sha256 of that JSON.
 */
export function encodeWorkload(w: Workload): { hash: string; bytes: Buffer } {
  const { path: _path, ...rest } = w;
  const json = JSON.stringify(rest);
  return { hash: sha256(json), bytes: gzipSync(json, { level: GZIP_LEVEL }) };
}

/**
 * zlib's fastest level: the submitting process encodes every workload, on a machine that may be
 * running workers too. On 0.8 MB of generated workload JSON it compressed ~5× faster than zlib's
 * default level 6, to bytes ~25% larger (200 KB instead of 158 KB). The hash is of the JSON, so the
 * level changes no job's key.
 */
const GZIP_LEVEL = 1;

/** The workload stored by encodeWorkload. */
export function decodeWorkload(bytes: Uint8Array): Workload {
  return JSON.parse(gunzipSync(bytes).toString('utf8')) as Workload;
}

/**
 * The spec of a loaded preset. Its hash covers the merged preset (key order included: plugins
 * load in the order written), the contents of plugin files it names by path, and the options that
 * change a replay (`model`), so two jobs share a key only when they replay the same way.
 */
export function presetSpec(p: LoadedPreset, options: { model?: string }): PresetSpec {
  const preset = JSON.parse(JSON.stringify(p.preset)) as KernelPreset;
  const files = Object.keys((preset as { plugins?: Record<string, unknown> }).plugins ?? {})
    .filter((k) => k.startsWith('/'))
    .map((k) => {
      try {
        return `${k}=${sha256(readFileSync(k))}`;
      } catch {
        return `${k}=unreadable`;
      }
    });
  const hash = sha256(JSON.stringify(preset), ...files, JSON.stringify({ model: options.model ?? null }));
  return { source: p.source, name: p.name, preset, baseDir: p.baseDir, hash, origins: p.plugins.map((x) => x.origin) };
}

/** A job's id: the workload's and preset's hashes and rein's version (BullMQ ids must not contain ':'). */
export function replayJobId(workloadHash: string, presetHash: string, version: string): string {
  return `replay-${workloadHash.slice(0, 20)}-${presetHash.slice(0, 20)}-${version}`;
}

/** A benchmark's id: a hash of its jobs and row labels, so submitting the same benchmark again gives the same id. */
export function benchRunId(m: Pick<BenchManifest, 'presets' | 'workloads' | 'skippedFiles' | 'jobs'>): string {
  return sha256(JSON.stringify([m.presets, m.workloads, m.skippedFiles, m.jobs])).slice(0, 16);
}

/**
 * Loads a preset from its spec, as the worker replays it: the merged preset goes in as the only
 * layer (no user or project layers, as for a local `rein bench`), so the worker's plugins get
 * the options the submitter's would.
 *
 * @throws PresetError when the preset does not load here (a plugin file or package missing on this machine).
 */
export async function presetFromSpec(spec: PresetSpec, cwd = process.cwd()): Promise<LoadedPreset> {
  const r = await loadPreset({ flags: spec.preset as never, cwd, layers: false });
  return {
    source: spec.source,
    name: spec.name,
    preset: r.preset as KernelPreset,
    baseDir: spec.baseDir,
    // The same plugins in the same order as on the submitter; else this machine's origins.
    plugins: r.plugins.map((p, i) => ({ plugin: p.plugin, options: p.options, origin: (r.plugins.length === spec.origins?.length ? spec.origins[i] : undefined) ?? p.origin })),
  };
}
