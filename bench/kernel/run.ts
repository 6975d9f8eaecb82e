/**
 * `npm run bench:kernel [-- PATTERN]`: runs every `bench/kernel/*.bench.ts` (each exports
 * `run(bench: Bench)`, and optionally `options` for its tinybench `Bench`), prints each task's
 * median latency and its ratio to the file's first task (its baseline) and to the previous run,
 * and writes the results as JSON to `bench/results/` (`kernel-<timestamp>.json` and
 * `kernel-latest.json`) so runs can be compared.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { arch, cpus, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Bench, type BenchOptions } from 'tinybench';

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

export interface KernelBenchResults {
  date: string;
  node: string;
  platform: string;
  cpu: string;
  tasks: TaskSummary[];
}

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

/** Runs the suites whose file name contains `pattern` (all when empty). */
export async function runKernelBenches(pattern = ''): Promise<KernelBenchResults> {
  const files = readdirSync(here).filter((f) => f.endsWith('.bench.ts') && f.includes(pattern)).sort();
  const prev = previous();
  const tasks: TaskSummary[] = [];
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(here, file)).href)) as { run: (b: Bench) => Promise<void> | void; options?: BenchOptions };
    const bench = new Bench({ name: file, ...(mod.options ?? DEFAULT_OPTIONS) });
    await mod.run(bench);
    if (!bench.tasks.length) { console.log(`${file}: no tasks`); continue; }
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
  return { date: new Date().toISOString(), node: process.version, platform: `${platform()} ${arch()}`, cpu: cpus()[0]?.model ?? 'unknown', tasks };
}

/** Prints a results table. */
export function printResults(res: KernelBenchResults): void {
  const rows = res.tasks.map((t) => [t.file.replace(/\.bench\.ts$/, ''), t.task, fmt(t.medianMs), `×${t.ratioToBaseline.toFixed(2)}`, t.ratioToPrevious ? `×${t.ratioToPrevious.toFixed(2)}` : '–', t.error ?? '']);
  const head = ['suite', 'task', 'median', 'vs first', 'vs last run', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  console.log(line(head));
  for (const r of rows) console.log(line(r));
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const res = await runKernelBenches(process.argv[2] ?? '');
  printResults(res);
  mkdirSync(resultsDir, { recursive: true });
  const json = JSON.stringify(res, null, 2) + '\n';
  const stamp = res.date.replace(/[:.]/g, '-');
  writeFileSync(join(resultsDir, `kernel-${stamp}.json`), json);
  // kernel-latest.json keeps the latest result of every task, also of suites not run this time.
  const latest = join(resultsDir, 'kernel-latest.json');
  const ran = new Set(res.tasks.map((t) => t.file));
  let kept: TaskSummary[] = [];
  try { kept = (JSON.parse(readFileSync(latest, 'utf8')) as KernelBenchResults).tasks.filter((t) => !ran.has(t.file)); } catch { kept = []; }
  writeFileSync(latest, JSON.stringify({ ...res, tasks: [...kept, ...res.tasks] }, null, 2) + '\n');
  console.log(`results: ${join(resultsDir, `kernel-${stamp}.json`)}`);
}
