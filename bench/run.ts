/**
 * `rein bench` as a function: load the workloads, replay each through each preset (in worker threads
 * when there are several workloads and more than one job), add the recording client's own numbers,
 * and return the report.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { fileURLToPath } from 'node:url';
import { estimateError } from './metrics/estimate-error.js';
import { InputError } from '../lib/errors.js';
import { CALIBRATED_COUNTER } from '../lib/tokens/counter.js';
import { detectEvents, recordedBreakCauses, recordedPrefix } from './workloads/events.js';
import { fidelityOf } from './report/fidelity.js';
import { parentsOf, subagentRows } from './report/subagents.js';
import type { MimicClient } from './replay/mimic.js';

/** The client that recorded a workload, from its format. */
function clientKindOf(w: Workload): MimicClient | undefined {
  if (w.format === 'claude-code' || w.format === 'claude-code-stream-json' || w.format === 'harbor-atif') return 'claude-code';
  if (w.format === 'pi') return 'pi';
  return undefined;
}
import { recordedMetrics, summarize } from './metrics/summary.js';
import { rankRuns, RECORDED, type BenchReport, type RunReport, type WorkloadReport } from './report/model.js';
import { EFFICIENCY_DEFINITION } from './metrics/efficiency.js';
import { loadBenchPreset, replayWorkload, type LoadedPreset, type ReplayResult } from './replay/replay.js';
import { loadWorkloads, type SkippedFile } from './workloads/load.js';
import type { Workload } from './workloads/types.js';
import type { ReplayTask } from './worker.js';
import { workloadForTask } from './workloads/generator.js';
import { importExternal } from '../lib/node/import-external.js';

export interface BenchOptions {
  /** Files, directories or generator specs. */
  workloads: string[];
  /** Preset files or built-in names (at least one). */
  presets: string[];
  /** Model to send instead of each recording's own. */
  model?: string;
  /** Worker threads. Default: min(cores, workloads). */
  jobs?: number;
  /**
   * How replays run when `jobs` is 1: `inline` (default) in this thread; `thread` in one worker
   * thread, started cold like each thread of a larger `jobs`, so `-j 1` and `-j 2` compare like with
   * like (`rein bench` does this). A single replay always runs inline: a thread would only add its
   * start-up.
   */
  single?: 'thread' | 'inline';
  /** Folder the replays' folders are made in (default: the OS temp folder; ReplayOptions.tmpDir). */
  tmpDir?: string;
  /** Called once before the replays start: how many, and in how many worker threads (0: in this thread). */
  onStart?: (replays: number, threads: number) => void;
  /** Directory presets are resolved from. */
  cwd: string;
  /** false: skip the needed-later recall and re-fetch accounting (recall null, closed-loop cost = cost). Default true. */
  recall?: boolean;
  /** Progress: replays finished of the total, and what just finished. */
  onProgress?: (done: number, total: number, label: string) => void;
}

/**
 * How far V8 lets a heap grow past what its last full collection kept, percent, while replays run.
 * V8 reads `--heap-growing-percent` at every full collection; left at 0 it picks its own factor, up
 * to 4× on a machine with 2 GB or more for the heap (V8's heap controller), and a 20,000-request
 * replay whose live heap is 80–130 MB then peaks at 600–800 MB RSS. At 50 it peaked at less than
 * half that for 0–6% more CPU in the same run (README.md, "Long sessions").
 */
export const REPLAY_HEAP_GROWING_PERCENT = 50;

/**
 * Runs `fn` with V8's heap growing percent set to `percent` (process-wide: every thread's heap), and
 * puts V8's own choice back after (so overlapping calls in one process end with V8's own). Leaves
 * the setting alone when the process was started with one. Node documents that V8 flags set after
 * start-up may behave unpredictably; this one is read afresh at each full collection.
 */
async function withHeapGrowing<T>(percent: number, fn: () => Promise<T>): Promise<T> {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => /^--heap[-_]growing[-_]percent/.test(a));
  if (given) return fn();
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  try {
    return await fn();
  } finally {
    setFlagsFromString('--heap-growing-percent=0');
  }
}

/** Where the kernel prices come from (lib/pricing.ts). */
export const PRICE_SOURCE = "Anthropic's published Claude API prices (anthropic.com/pricing), November 2025";

/** The row of one replay (labelled with the preset's name; callers relabel it). */
export function toRun(r: ReplayResult, source: string): RunReport {
  return {
    preset: r.preset, source, model: r.model, summary: r.summary, requests: r.requests, compactions: r.compactions,
    skippedSteps: r.skippedSteps, ...(r.incomplete ? { incomplete: r.incomplete } : {}), syntheticPrompts: r.syntheticPrompts, terminals: r.terminals, addedTools: r.addedTools,
    problems: r.problems, durationMs: r.durationMs, ...(r.mimic ? { mimic: r.mimic } : {}), ...(r.children?.length ? { children: r.children } : {}),
    ...(r.strategies.length ? { strategies: r.strategies } : {}),
  };
}

/**
 * Unique labels for presets: their names, with the file name added when two share a name, and the
 * path as given when their file names are the same too (`x (a/x.yaml)`, `x (b/x.yaml)`).
 */
function labels(presets: readonly LoadedPreset[]): string[] {
  const names = presets.map((p) => p.name);
  const shared = (list: readonly string[], v: string) => list.indexOf(v) !== list.lastIndexOf(v);
  const files = presets.map((p) => basename(p.source));
  return presets.map((p, i) => (!shared(names, p.name) ? p.name : `${p.name} (${shared(files, files[i]!) ? p.source : files[i]})`));
}

/**
 * Refuses a preset given twice (the same built-in name, or the same file however its path is
 * written): its rows would be the same run twice under one label. Throws an InputError naming both.
 */
function refuseRepeats(sources: readonly string[], cwd: string): void {
  const seen = new Map<string, string>();
  for (const s of sources) {
    const key = /[\\/]|\.ya?ml$/i.test(s) ? `file:${resolve(cwd, s)}` : `name:${s}`;
    const first = seen.get(key);
    if (first !== undefined) throw new InputError(`--preset ${s}: the same preset as --preset ${first}; give each preset once`);
    seen.set(key, s);
  }
}

/** The bench's worker-thread module (bench/worker.ts, or its build beside the bundle). */
export function workerFile(): { filename: string; execArgv: string[] } {
  const js = fileURLToPath(new URL('./worker.js', import.meta.url));
  if (existsSync(js)) return { filename: js, execArgv: [] };
  return { filename: fileURLToPath(new URL('./worker.ts', import.meta.url)), execArgv: ['--import', 'jiti/register'] };
}

/** What a benchmark replays: the presets (loaded, with their row labels), the workloads, and the files not replayed. */
export interface BenchPlan {
  presets: LoadedPreset[];
  /** Row label of each preset, in the order given. */
  names: string[];
  workloads: Workload[];
  skippedFiles: SkippedFile[];
}

/**
 * Loads the presets and workloads of a benchmark. The replays are the pairs (workload w, preset p),
 * numbered `w * presets.length + p`. Throws as runBench does, and an InputError listing every file
 * not replayed with its reason when no workload holds a session.
 */
export async function planBench(opts: Pick<BenchOptions, 'workloads' | 'presets' | 'cwd'>): Promise<BenchPlan> {
  if (!opts.presets.length) throw new Error('rein bench: give at least one --preset');
  refuseRepeats(opts.presets, opts.cwd);
  const presets = await Promise.all(opts.presets.map((p) => loadBenchPreset(p, opts.cwd)));
  const workloads: Workload[] = [];
  const skippedFiles: SkippedFile[] = [];
  for (const spec of opts.workloads) {
    const r = await loadWorkloads(spec);
    workloads.push(...r.workloads);
    skippedFiles.push(...r.skippedFiles);
  }
  if (!workloads.length) throw noSessions(opts.workloads, skippedFiles);
  return { presets, names: labels(presets), workloads, skippedFiles };
}

/** Files listed in full by the error for a benchmark with nothing to replay; the rest are counted. */
const LISTED_SKIPS = 20;

/**
 * The error for workloads that hold no session to replay: an empty report would rank presets on
 * nothing (a cost of 0, an efficiency of 1), so it stops and says, per file, why it was not replayed.
 */
function noSessions(specs: readonly string[], skipped: readonly SkippedFile[]): InputError {
  const head = `no session to replay in ${specs.join(', ')}${skipped.length ? '; not replayed:' : ' (no files found)'}`;
  const lines = skipped.slice(0, LISTED_SKIPS).map((f) => `${f.path}: ${f.reason}`);
  if (skipped.length > LISTED_SKIPS) lines.push(`… and ${skipped.length - LISTED_SKIPS} more`);
  return new InputError([head, ...lines].join('\n'));
}

/**
 * Runs the benchmark. Throws for a workload path that does not exist, an invalid generator spec,
 * workloads with no session to replay (InputError, each file's reason), or a preset that fails to
 * load (PresetError, with file:line:column); a replay that fails is reported
 * in its row instead.
 */
export async function runBench(opts: BenchOptions): Promise<BenchReport> {
  return withHeapGrowing(REPLAY_HEAP_GROWING_PERCENT, () => runPlanned(opts));
}

async function runPlanned(opts: BenchOptions): Promise<BenchReport> {
  const plan = await planBench(opts);
  const { presets, names, workloads } = plan;
  const tasks: { w: number; p: number }[] = [];
  for (let w = 0; w < workloads.length; w++) for (let p = 0; p < presets.length; p++) tasks.push({ w, p });
  const results: (RunReport | undefined)[] = new Array(tasks.length);
  let done = 0;
  const finish = (i: number, run: RunReport) => {
    results[i] = run;
    done++;
    opts.onProgress?.(done, tasks.length, `${workloads[tasks[i]!.w]!.name} × ${run.preset}`);
  };
  const jobs = Math.max(1, Math.min(opts.jobs ?? availableParallelism(), workloads.length));
  const threaded = tasks.length > 1 && (jobs > 1 || opts.single === 'thread');
  opts.onStart?.(tasks.length, threaded ? jobs : 0);
  if (threaded) {
    const { filename, execArgv } = workerFile();
    // tinypool is an ES module only, so it stays outside the command's CommonJS bundle.
    const { Tinypool } = await importExternal<typeof import('tinypool')>('tinypool');
    const pool = new Tinypool({ filename, minThreads: jobs, maxThreads: jobs, execArgv });
    try {
      await Promise.all(tasks.map(async (t, i) => {
        const task: ReplayTask = { workload: workloadForTask(workloads[t.w]!), preset: opts.presets[t.p]!, cwd: opts.cwd, ...(opts.model ? { model: opts.model } : {}), ...(opts.recall === false ? { recall: false } : {}), ...(opts.tmpDir ? { tmpDir: opts.tmpDir } : {}) };
        try {
          const r = (await pool.run(task)) as ReplayResult;
          finish(i, { ...toRun(r, opts.presets[t.p]!), preset: names[t.p]! });
        } catch (err) {
          finish(i, failed(names[t.p]!, opts.presets[t.p]!, err));
        }
      }));
    } finally {
      await pool.destroy();
    }
  } else {
    for (let i = 0; i < tasks.length; i++) {
      const t = tasks[i]!;
      try {
        const r = await replayWorkload(workloads[t.w]!, presets[t.p]!, { ...(opts.model ? { model: opts.model } : {}), ...(opts.recall === false ? { recall: false } : {}), ...(opts.tmpDir ? { tmpDir: opts.tmpDir } : {}) });
        finish(i, { ...toRun(r, opts.presets[t.p]!), preset: names[t.p]! });
      } catch (err) {
        finish(i, failed(names[t.p]!, opts.presets[t.p]!, err));
      }
    }
  }
  return assembleReport(plan, results);
}

/**
 * The report from the run rows: `results[w * names.length + p]` is workload w replayed through
 * preset p. Adds the recording client's own row and the estimate comparison for each workload, and
 * the totals. The local run and the queue (`rein bench --queue`, `rein bench collect`) both end here.
 */
export function assembleReport(plan: Pick<BenchPlan, 'names' | 'workloads' | 'skippedFiles'>, results: readonly (RunReport | undefined)[]): BenchReport {
  const { names, workloads, skippedFiles } = plan;
  const parents = parentsOf(workloads);
  const reports: WorkloadReport[] = workloads.map((w, wi) => {
    const runs: RunReport[] = [];
    const prefix = recordedPrefix(w, CALIBRATED_COUNTER);
    const events = detectEvents(w, prefix);
    if (w.steps.some((s) => s.usage)) {
      const m = recordedMetrics(w, recordedBreakCauses(w, events));
      runs.push({ preset: RECORDED, model: w.model, summary: summarize(m.requests, m.compactions), requests: m.requests, compactions: m.compactions });
    }
    for (let p = 0; p < names.length; p++) runs.push(results[wi * names.length + p]!);
    const est = estimateError(w, CALIBRATED_COUNTER);
    return {
      name: w.name, format: w.format, ...(w.path ? { path: w.path } : {}), ...(w.client ? { client: w.client } : {}), model: w.model,
      sidechain: w.sidechain, ...(parents[wi] !== undefined ? { parent: workloads[parents[wi]!]!.name } : {}), ...(w.parentToolUseId ? { parentToolUseId: w.parentToolUseId } : {}), steps: w.steps.length, timed: w.timed, notes: w.notes, stats: w.stats, ...(est ? { estimate: est } : {}),
      ...(clientKindOf(w) ? { clientKind: clientKindOf(w)! } : {}), ...(prefix ? { prefix } : {}), events, runs,
    };
  });
  const fidelity = fidelityOf(reports);
  const subagents = subagentRows(reports);
  return { version: 2, presets: names, workloads: reports, skippedFiles, ...rankRuns(reports, names), efficiency: EFFICIENCY_DEFINITION, ...(fidelity ? { fidelity } : {}), prices: PRICE_SOURCE, ...(subagents.length ? { subagents } : {}) };
}

/** The row of a replay that failed as a whole; `err` is an Error or the reason as text. */
export function failed(preset: string, source: string, err: unknown): RunReport {
  return { preset, source, model: '', summary: summarize([]), requests: [], compactions: [], error: (err as Error)?.message ?? String(err) };
}
