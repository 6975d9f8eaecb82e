/**
 * `npm run bench:cold-threads [-- --jobs N --turns T --preset P --rounds R --trace-opt]`: CPU of a
 * cold `rein bench -j 1` (a fresh process whose one worker thread replays N generated workloads
 * one after another, as a fresh `rein worker` does), split by thread: the replay thread, and V8's
 * background threads (its concurrent compiler and garbage collector), which a replay keeps busy
 * beside it while V8 is still optimising the code. Read from `/proc/PID/task/TID/stat` every 0.2 s
 * until the process exits (the last reading of each thread is its total).
 *
 * `--trace-opt` also runs the process once more with V8's `--trace-opt` and prints how many
 * functions V8 optimised and the milliseconds its compiler reported for them (the sum of the three
 * phases V8 prints per function; wall time of the compiler threads, so it grows with the machine's
 * load where CPU seconds grow less).
 *
 * Runs the built command (bin/rein.js, dist/bundle): run `npm run build` first. Linux only (reads
 * /proc). Prints `nproc` and the load average with every line.
 */
import { spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from '../shared/args.js';
import { threadCpu } from '../shared/proc.js';
import { benchTempDir, removeBenchTempDir } from './harness.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const opts = benchArgs({
  jobs: { type: 'string', default: '12' },
  turns: { type: 'string', default: '300' },
  preset: { type: 'string', default: 'default' },
  rounds: { type: 'string', default: '1' },
  'trace-opt': { type: 'boolean', default: false },
});
const JOBS = Number(opts.jobs);
const TURNS = Number(opts.turns);
const PRESET = opts.preset;
const ROUNDS = Number(opts.rounds);
const TRACE = opts['trace-opt'];

interface Run { main: number; replay: number; background: number; wall: number; compiles: number; compileMs: number }

/** One cold `rein bench -j 1` of the matrix, with `nodeFlags` on node; its CPU by thread. */
async function once(nodeFlags: string[]): Promise<Run> {
  const dir = benchTempDir('rein-cold-');
  const workloads = Array.from({ length: JOBS }, (_, i) => ['--workload', `gen:turns=${TURNS},seed=${101 + i}`]).flat();
  const t0 = performance.now();
  const child = spawn(process.execPath, [...nodeFlags, join(REPO, 'bin/rein.js'), 'bench', ...workloads, '--preset', PRESET, '-j', '1', '--no-progress', '--json', join(dir, 'report.json')], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => { stderr += chunk; });
  let compiles = 0;
  let compileMs = 0;
  let rest = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      const m = /^\[completed compiling .* took ([\d.]+), ([\d.]+), ([\d.]+) ms\]/.exec(line);
      if (m) { compiles++; compileMs += Number(m[1]) + Number(m[2]) + Number(m[3]); }
    }
  });
  const last = new Map<number, number>();
  const timer = setInterval(() => { for (const [tid, t] of threadCpu(child.pid!)) last.set(Number(tid), t.user + t.system); }, 200);
  const code = await new Promise<number | null>((done) => child.on('exit', done));
  clearInterval(timer);
  const wall = (performance.now() - t0) / 1000;
  removeBenchTempDir(dir);
  if (code !== 0) throw new Error(`rein bench exited with ${code}: ${stderr.trim()}`);
  const main = last.get(child.pid!) ?? 0;
  const others = [...last].filter(([tid]) => tid !== child.pid).map(([, s]) => s).sort((a, b) => b - a);
  // The busiest thread besides the main one is the worker thread that replays; the rest are V8's
  // platform threads (compiler, GC) and libuv's, which a replay leaves idle.
  const replay = others[0] ?? 0;
  const background = others.slice(1).reduce((a, b) => a + b, 0);
  return { main, replay, background, wall, compiles, compileMs };
}

const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const runs: Run[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const run = await once([]);
    runs.push(run);
    process.stdout.write(`cold rein bench -j 1, ${JOBS} jobs (gen:turns=${TURNS}, ${PRESET}): wall ${run.wall.toFixed(1)} s, replay thread ${run.replay.toFixed(2)} s CPU, ` +
      `background threads ${run.background.toFixed(2)} s (${(run.background / Math.max(run.replay, 1e-9) * 100).toFixed(0)}% of the replay's), main ${run.main.toFixed(2)} s; nproc ${availableParallelism()}, load ${load()}\n`);
  }
  if (ROUNDS > 1) process.stdout.write(`median of ${ROUNDS}: replay thread ${median(runs.map((r) => r.replay)).toFixed(2)} s, background ${median(runs.map((r) => r.background)).toFixed(2)} s\n`);
  if (TRACE) {
    const run = await once(['--trace-opt']);
    process.stdout.write(`with --trace-opt: ${run.compiles} optimised compilations, ${run.compileMs.toFixed(0)} ms reported by V8's compiler; nproc ${availableParallelism()}, load ${load()}\n`);
  }
}

main().catch((err: Error) => { process.stderr.write(`bench:cold-threads: ${err.message}\n`); process.exitCode = 1; });
