/**
 * `npm run bench:replay-cpu [-- --jobs N --turns T --warm W --preset P --alloc --alloc-profile FILE --bundle FILE]`: CPU per replay job in a
 * warm process, split by thread (`/proc/self/task/<tid>/stat`): the main thread (the replay itself)
 * and the rest (V8's garbage collector and compiler threads, libuv). Replays run in this process
 * through the built bundle's worker module (dist/bundle/worker.js, what `rein bench` threads and
 * `rein worker` run), after W untimed warm-up replays, one after another. Also prints GC counts and
 * pause time from `perf_hooks`. Run `npm run build` first; pass V8 flags with `node --flag` via
 * NODE_OPTIONS to compare them. `--bundle FILE` replays through another build's worker module
 * instead (a copy of a base build's dist/bundle/worker.js kept inside dist/, where its external
 * packages resolve), so two builds can be run alternately in one session.
 *
 * `--alloc` also samples allocation (the inspector's sampling heap profiler, collected objects
 * included) and prints the bytes allocated per job: what feeds the GC threads, and unlike CPU time
 * it hardly depends on the machine's load (sampled, so it varies by a few per cent between runs).
 * `--alloc-profile FILE` writes that profile too (a `.heapprofile` for Chrome DevTools' Memory tab;
 * a `REIN_SOURCEMAP=1` build's map turns its minified frames back into source names).
 *
 * Linux only (reads /proc). CPU seconds do not depend on the machine's load the way wall time does,
 * but a loaded machine still slows caches and frequency: the load average is printed with each line.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { planBench } from '../run.js';
import { benchArgs } from '../shared/args.js';
import { threadCpu } from '../shared/proc.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const opts = benchArgs({
  jobs: { type: 'string', default: '8' },
  turns: { type: 'string', default: '300' },
  warm: { type: 'string', default: '4' },
  preset: { type: 'string', default: 'default' },
  profile: { type: 'string', default: '' },
  alloc: { type: 'boolean', default: false },
  'alloc-profile': { type: 'string', default: '' },
  bundle: { type: 'string', default: 'dist/bundle/worker.js' },
});
const JOBS = Number(opts.jobs);
const TURNS = Number(opts.turns);
const WARM = Number(opts.warm);
const PRESET = opts.preset;
/** Write a CPU profile of the timed replays (main thread) to this file (open it in Chrome DevTools). */
const PROFILE = opts.profile;
/** Sample allocations and print MB allocated per job. */
/** Write the sampled allocation profile of the timed replays to this file (implies --alloc). */
const ALLOC_PROFILE = opts['alloc-profile'];
const ALLOC = opts.alloc || ALLOC_PROFILE !== '';

/** Bytes of all samples of a sampling heap profile (each node's selfSize, summed over the tree). */
function sampledBytes(node: { selfSize: number; children?: unknown[] }): number {
  let n = node.selfSize;
  for (const c of node.children ?? []) n += sampledBytes(c as typeof node);
  return n;
}

async function main(): Promise<void> {
  const worker = (await import(pathToFileURL(resolve(REPO, opts.bundle)).href)) as { default: (t: unknown) => Promise<{ durationMs?: number }> };
  const plan = await planBench({ workloads: Array.from({ length: WARM + JOBS }, (_, i) => `gen:turns=${TURNS},seed=${7_000 + i}`), presets: [PRESET], cwd: REPO });
  const task = (i: number) => ({ workload: plan.workloads[i], preset: PRESET, cwd: REPO });
  for (let i = 0; i < WARM; i++) await worker.default(task(i));
  let gcCount = 0;
  let gcMs = 0;
  const obs = new PerformanceObserver((list) => { for (const e of list.getEntries()) { gcCount++; gcMs += e.duration; } });
  obs.observe({ entryTypes: ['gc'] });
  const session = PROFILE || ALLOC ? new Session() : undefined;
  if (session) session.connect();
  if (PROFILE) { await session!.post('Profiler.enable'); await session!.post('Profiler.start'); }
  // One sample per 32 KiB allocated on average (V8's default), objects the GC collected included.
  if (ALLOC) await session!.post('HeapProfiler.startSampling', { samplingInterval: 32_768, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  // A marker for V8's tracing flags (`node --trace-opt --trace-deopt`, which print to stdout): what
  // follows it is the timed jobs' compile work.
  if (process.execArgv.some((a) => a.startsWith('--trace-'))) process.stdout.write('bench:replay-cpu: the timed jobs start here\n');
  const before = threadCpu('self');
  const t0 = performance.now();
  for (let i = WARM; i < WARM + JOBS; i++) await worker.default(task(i));
  const wall = (performance.now() - t0) / 1000;
  const after = threadCpu('self');
  if (PROFILE) writeFileSync(PROFILE, JSON.stringify((await session!.post('Profiler.stop')).profile));
  const heapProfile = ALLOC ? (await session!.post('HeapProfiler.stopSampling')).profile : undefined;
  if (ALLOC_PROFILE) writeFileSync(ALLOC_PROFILE, JSON.stringify(heapProfile));
  const allocated = heapProfile ? sampledBytes(heapProfile.head) : 0;
  session?.disconnect();
  obs.disconnect();
  const main = String(process.pid);
  let mainCpu = 0;
  let other = 0;
  let otherSys = 0;
  let mainSys = 0;
  for (const [tid, { user: u, system: s }] of after) {
    const { user: u0, system: s0 } = before.get(tid) ?? { user: 0, system: 0 };
    if (tid === main) { mainCpu += u - u0 + s - s0; mainSys += s - s0; } else { other += u - u0 + s - s0; otherSys += s - s0; }
  }
  const per = (x: number) => (x / JOBS).toFixed(3);
  process.stdout.write(`replay CPU, ${JOBS} warm jobs (gen:turns=${TURNS}, ${PRESET}), ${opts.bundle}, flags "${process.execArgv.filter((a) => a.startsWith('--') && !a.includes('import')).join(' ') || process.env.NODE_OPTIONS || ''}": ` +
    `wall ${per(wall)} s/job, main ${per(mainCpu)} s/job (system ${per(mainSys)}), other threads ${per(other)} s/job (system ${per(otherSys)}; ${(other / Math.max(mainCpu, 1e-9) * 100).toFixed(0)}% of main), ` +
    `${(gcCount / JOBS).toFixed(0)} GCs/job, ${(gcMs / JOBS).toFixed(0)} ms GC pause/job${ALLOC ? `, ${(allocated / JOBS / 1e6).toFixed(0)} MB allocated/job` : ''}; nproc ${availableParallelism()}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
}

main().catch((err: Error) => { process.stderr.write(`bench:replay-cpu: ${err.message}\n`); process.exitCode = 1; });
