/**
 * `npm run bench:kernel [-- PATTERN]`: runs every `bench/kernel/*.bench.ts` whose name contains
 * PATTERN, prints each task's median latency and its ratio to the file's first task (its
 * baseline) and to the previous run, and writes the results as JSON to `bench/results/`
 * (`kernel-<timestamp>.json` and `kernel-latest.json`) so runs can be compared.
 *
 * A bench file exports any of:
 * - `run(bench: Bench, ctx)`: adds tinybench tasks; `options` sets the file's tinybench options;
 * - `rounds`: run the tasks that many times, one after the other, and take the statistics over
 *   all rounds' samples, so tasks measured side by side share the machine's changing load;
 * - `measure(ctx)`: a whole-process harness that returns its own rows (a value and a unit).
 *
 * With `REIN_BENCH_BASE=/path/to/another/checkout` (a `git worktree` of main, built), files that
 * support it measure that checkout too, interleaved with this one, and the table shows each
 * task's ratio to its `[base]` twin.
 *
 * Every temporary file a bench writes (trees, sessions, transcripts) goes in one folder, set as
 * TMPDIR for this process and the processes it starts, and removed when the run ends, also after
 * an error or on SIGINT/SIGTERM; `REIN_BENCH_KEEP_TMP=1` keeps it and prints its path.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { arch, availableParallelism, cpus, loadavg, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Bench, type BenchOptions } from 'tinybench';
import { benchTempDir, removeBenchTempDir } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(here, '..', 'results');

/** Default tinybench options for a file that sets none: at least 500 ms or 20 samples per task. */
export const DEFAULT_OPTIONS: BenchOptions = { time: 500, iterations: 20, warmupIterations: 5 };

export interface TaskSummary {
  file: string;
  task: string;
  /** Median latency, ms. */
  medianMs: number;
  meanMs: number;
  p99Ms: number;
  samples: number;
  /** medianMs / the file's first task's median. */
  ratioToBaseline: number;
  /** medianMs / the same task's median in the previous results, when there was one. */
  ratioToPrevious?: number;
  error?: string;
}

/** One row of a whole-process harness (`measure`). */
export interface Measurement {
  task: string;
  value: number;
  /** `ms`, `MB`, `×` (a ratio), ... */
  unit: string;
  /** What the row is compared with or measured on, for people. */
  note?: string;
}

/** What a bench file gets besides its Bench. */
export interface BenchContext {
  /** Root of this checkout. */
  repo: string;
  /** Root of the checkout to compare with (`REIN_BENCH_BASE`), if any. */
  base?: string;
}

export interface MeasurementSummary extends Measurement {
  file: string;
}

export interface KernelBenchResults {
  date: string;
  node: string;
  platform: string;
  cpu: string;
  /** Logical cores (os.availableParallelism()). */
  cores: number;
  /** 1-minute load average when the run started and when it ended. */
  load: { start: number; end: number };
  tasks: TaskSummary[];
  measurements: MeasurementSummary[];
}

/** The checkout this runner belongs to. */
export const REPO = resolve(here, '..', '..');

function previous(): Map<string, number> {
  const file = join(resultsDir, 'kernel-latest.json');
  const map = new Map<string, number>();
  if (!existsSync(file)) return map;
  try {
    const prev = JSON.parse(readFileSync(file, 'utf8')) as KernelBenchResults;
    for (const t of prev.tasks) if (Number.isFinite(t.medianMs)) map.set(`${t.file}\0${t.task}`, t.medianMs);
  } catch {
    // An unreadable previous file only means no comparison.
  }
  return map;
}

function fmt(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  return `${(ms * 1000).toFixed(1)} µs`;
}

interface BenchModule {
  run?: (b: Bench, ctx: BenchContext) => Promise<void> | void;
  options?: BenchOptions;
  rounds?: number;
  measure?: (ctx: BenchContext) => Promise<Measurement[]>;
}

/** The value at quantile `q` of sorted samples, interpolated as tinybench does. */
function quantile(sorted: readonly number[], q: number): number {
  if (!sorted.length) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/**
 * One turn of the event loop. tinybench never waits on a timer, and a task on an instant client
 * never waits for I/O: without a turn now and then a SIGINT's handler (which removes the temporary
 * folders and ends the process) would wait for the whole run.
 */
function yieldToEventLoop(): Promise<void> {
  return new Promise((done) => setImmediate(done));
}

/** Runs a file's tinybench tasks `rounds` times and summarises every task over all its samples. */
async function runRounds(file: string, bench: Bench, rounds: number): Promise<{ name: string; samples: number[]; error?: string }[]> {
  const out = bench.tasks.map((t) => ({ name: t.name, samples: [] as number[], error: undefined as string | undefined }));
  for (let r = 0; r < rounds; r++) {
    await yieldToEventLoop();
    await bench.run();
    bench.tasks.forEach((task, i) => {
      const res = task.result as Record<string, any>;
      if (res?.state === 'errored') out[i]!.error = String(res.error?.message ?? res.error);
      const samples = (res?.latency?.samples ?? []) as number[];
      out[i]!.samples.push(...samples);
    });
    if (rounds > 1) console.error(`${file}: round ${r + 1} of ${rounds} done`);
  }
  return out;
}

/** Runs the suites whose file name contains `pattern` (all when empty). */
export async function runKernelBenches(pattern = ''): Promise<KernelBenchResults> {
  const files = readdirSync(here).filter((f) => f.endsWith('.bench.ts') && f.includes(pattern)).sort();
  const prev = previous();
  const tasks: TaskSummary[] = [];
  const measurements: MeasurementSummary[] = [];
  const loadStart = loadavg()[0]!;
  const base = process.env.REIN_BENCH_BASE ? resolve(process.env.REIN_BENCH_BASE) : undefined;
  const ctx: BenchContext = { repo: REPO, ...(base ? { base } : {}) };
  for (const file of files) {
    await yieldToEventLoop();
    const mod = (await import(pathToFileURL(join(here, file)).href)) as BenchModule;
    if (mod.run) {
      const rounds = Math.max(1, mod.rounds ?? 1);
      const bench = new Bench({ name: file, ...(mod.options ?? DEFAULT_OPTIONS), ...(rounds > 1 ? { retainSamples: true } : {}) });
      await mod.run(bench, ctx);
      if (!bench.tasks.length) console.log(`${file}: no tasks`);
      else if (rounds > 1) {
        const results = await runRounds(file, bench, rounds);
        let baseline: number | undefined;
        for (const t of results) {
          const sorted = [...t.samples].sort((a, b) => a - b);
          const median = quantile(sorted, 0.5);
          baseline ??= median;
          const before = prev.get(`${file}\0${t.name}`);
          tasks.push({
            file, task: t.name, medianMs: median, meanMs: sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1), p99Ms: quantile(sorted, 0.99), samples: sorted.length,
            ratioToBaseline: median / (baseline ?? median),
            ...(before ? { ratioToPrevious: median / before } : {}),
            ...(t.error ? { error: t.error } : {}),
          });
        }
      } else {
        await bench.run();
        let baseline: number | undefined;
        for (const task of bench.tasks) {
          const r = task.result as Record<string, any>;
          const lat = r?.latency;
          const median = lat?.p50 ?? NaN;
          baseline ??= median;
          const key = `${file}\0${task.name}`;
          const before = prev.get(key);
          tasks.push({
            file, task: task.name, medianMs: median, meanMs: lat?.mean ?? NaN, p99Ms: lat?.p99 ?? NaN, samples: lat?.samplesCount ?? r?.samples?.length ?? 0,
            ratioToBaseline: median / (baseline ?? median),
            ...(before ? { ratioToPrevious: median / before } : {}),
            ...(r?.state === 'errored' ? { error: String(r.error?.message ?? r.error) } : {}),
          });
        }
      }
    }
    if (mod.measure) for (const m of await mod.measure(ctx)) measurements.push({ file, ...m });
  }
  return {
    date: new Date().toISOString(), node: process.version, platform: `${platform()} ${arch()}`, cpu: cpus()[0]?.model ?? 'unknown',
    cores: availableParallelism(), load: { start: loadStart, end: loadavg()[0]! }, tasks, measurements,
  };
}

/** The suffix a task measured on the `REIN_BENCH_BASE` checkout carries. */
export const BASE_SUFFIX = ' [base]';

function fmtValue(v: number, unit: string): string {
  if (!Number.isFinite(v)) return '–';
  if (unit === 'ms') return fmt(v);
  if (unit === '×') return `×${v.toFixed(2)}`;
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${unit}`;
}

/** Prints a results table: the machine first (cores and load), then tinybench tasks, then harness rows. */
export function printResults(res: KernelBenchResults): void {
  console.log(`machine: ${res.cores} cores (${res.cpu}), load average ${res.load.start.toFixed(2)} at the start, ${res.load.end.toFixed(2)} at the end; node ${res.node}`);
  const medianOf = new Map(res.tasks.map((t) => [`${t.file}\0${t.task}`, t.medianMs]));
  const vsBase = (file: string, task: string, value: number) => {
    const twin = medianOf.get(`${file}\0${task}${BASE_SUFFIX}`);
    return twin ? `×${(value / twin).toFixed(2)}` : '–';
  };
  if (res.tasks.length) {
    const rows = res.tasks.map((t) => [t.file.replace(/\.bench\.ts$/, ''), t.task, fmt(t.medianMs), `×${t.ratioToBaseline.toFixed(2)}`, vsBase(t.file, t.task, t.medianMs), t.ratioToPrevious ? `×${t.ratioToPrevious.toFixed(2)}` : '–', t.error ?? '']);
    const head = ['suite', 'task', 'median', 'vs first', 'vs base', 'vs last run', ''];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
    console.log(line(head));
    for (const r of rows) console.log(line(r));
  }
  if (res.measurements.length) {
    const valueOf = new Map(res.measurements.map((m) => [`${m.file}\0${m.task}`, m.value]));
    const rows = res.measurements.map((m) => {
      const twin = valueOf.get(`${m.file}\0${m.task}${BASE_SUFFIX}`);
      return [m.file.replace(/\.bench\.ts$/, ''), m.task, fmtValue(m.value, m.unit), twin && m.unit !== '×' ? `×${(m.value / twin).toFixed(2)}` : '–', m.note ?? ''];
    });
    const head = ['suite', 'measured', 'value', 'vs base', ''];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
    console.log('');
    console.log(line(head));
    for (const r of rows) console.log(line(r));
  }
}

/**
 * Points TMPDIR (for this process and every process it starts) at a fresh folder; returns a
 * function that removes it. It is removed at exit too, also after an error or a signal, unless
 * REIN_BENCH_KEEP_TMP=1 (harness.ts, benchTempDir).
 */
function privateTmpdir(): () => void {
  const dir = benchTempDir('rein-bench-kernel-');
  process.env.TMPDIR = dir;
  return () => removeBenchTempDir(dir);
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const removeTmp = privateTmpdir();
  const res = await runKernelBenches(process.argv[2] ?? '');
  removeTmp();
  printResults(res);
  mkdirSync(resultsDir, { recursive: true });
  const json = JSON.stringify(res, null, 2) + '\n';
  const stamp = res.date.replace(/[:.]/g, '-');
  writeFileSync(join(resultsDir, `kernel-${stamp}.json`), json);
  // kernel-latest.json keeps the latest result of every task, also of suites not run this time.
  const latest = join(resultsDir, 'kernel-latest.json');
  const ran = new Set([...res.tasks.map((t) => t.file), ...res.measurements.map((m) => m.file)]);
  let kept: TaskSummary[] = [];
  let keptRows: MeasurementSummary[] = [];
  try {
    const old = JSON.parse(readFileSync(latest, 'utf8')) as KernelBenchResults;
    kept = old.tasks.filter((t) => !ran.has(t.file));
    keptRows = (old.measurements ?? []).filter((m) => !ran.has(m.file));
  } catch { kept = []; }
  writeFileSync(latest, JSON.stringify({ ...res, tasks: [...kept, ...res.tasks], measurements: [...keptRows, ...res.measurements] }, null, 2) + '\n');
  console.log(`results: ${join(resultsDir, `kernel-${stamp}.json`)}`);
}
