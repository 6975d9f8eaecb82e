/**
 * Cold start of the built `rein` command (dist/bundle/), measured as real processes:
 *   - `rein --version` until the process exits;
 *   - `rein run` until its first request reaches a simulator listening in this process
 *     (ANTHROPIC_BASE_URL), which is what a user waits for before anything happens; with the
 *     `minimal` and the `default` preset.
 * Targets (DESIGN.md): both under 150 ms median; `node -e 0` is the floor and is measured beside them.
 *
 * When NODE_EXTRA_CA_CERTS is set, Node parses that certificate file while it boots, before any
 * JavaScript runs (~35 ms on a 2-core machine for Debian's bundle), so the floor and a `rein run`
 * are measured once more without it: the difference is Node's, not rein's.
 *
 * With REIN_BENCH_BASE (another checkout, built), every `rein` task has a `[base]` twin run from
 * that checkout, and the tasks run in rounds so both see the same load. On Linux, `measure` also
 * reports, for the default preset, the CPU time (all threads, from /proc/PID/task/TID/schedstat)
 * and the minor page faults (/proc/PID/stat) of the process at the moment its first request
 * arrives, medians over interleaved runs of both checkouts: on a shared machine they vary far less
 * with the load than the wall time does.
 * Needs `npm run build` first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Bench } from 'tinybench';
import { createSimulator } from '../../simulator/simulator.js';
import { startSimServer } from '../../simulator/server.js';
import { parseScenario } from '../../simulator/scenario.js';
import type { BenchContext, Measurement } from './run.js';
import { statFields } from '../shared/proc.js';
import { benchTempDir } from './harness.js';

/** The suffix of a task measured on the REIN_BENCH_BASE checkout (run.ts's BASE_SUFFIX; run.ts is the entry point, so it is not imported). */
const BASE_SUFFIX = ' [base]';
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(REPO, 'bin/rein.js');

function exitTime(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { env, stdio: 'ignore' });
    child.on('error', fail);
    child.on('exit', () => done());
  });
}

/** A simulator on loopback that calls `onRequest` for every request, and the environment a `rein run` needs to reach it. */
async function simulatorForRuns(cwd: string) {
  // The simulator answers every request with a short text; a task ends when the request arrives.
  const hook: { onRequest?: () => void } = {};
  const simulator = createSimulator({ scenario: parseScenario('turns:\n' + '  - reply: [{ text: "ok" }]\n'.repeat(10_000)) });
  const handle = simulator.handle.bind(simulator);
  simulator.handle = (body, o) => { hook.onRequest?.(); return handle(body, o); };
  const server = await startSimServer({ simulator, port: 0 });
  const env: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_BASE_URL: server.url, REIN_HOME: join(cwd, 'home') };
  delete env.ANTHROPIC_API_KEY;
  return { hook, server, env };
}

/** `rein run` with a preset, as the tasks start it, from the checkout whose bin/rein.js is `bin`. */
function startRun(bin: string, preset: string, env: NodeJS.ProcessEnv, cwd: string): ChildProcess {
  return spawn(process.execPath, [bin, 'run', 'hi', '--preset', preset, '--no-layers', '--output-format', 'json'], { env, cwd, stdio: 'ignore' });
}

/** The base checkout's bin/rein.js (REIN_BENCH_BASE), when it is built. */
function baseBin(ctx?: BenchContext): string | undefined {
  if (!ctx?.base) return undefined;
  if (!existsSync(join(ctx.base, 'dist/bundle/rein.cjs'))) {
    console.warn(`startup bench: ${ctx.base} has no dist/bundle/; run \`npm run build\` there to compare with it`);
    return undefined;
  }
  return join(ctx.base, 'bin/rein.js');
}

export async function run(bench: Bench, ctx?: BenchContext): Promise<void> {
  if (!existsSync(join(REPO, 'dist/bundle/rein.cjs'))) {
    console.warn('startup bench: dist/bundle/ is missing; run `npm run build` first');
    return;
  }
  const cwd = benchTempDir('rein-startup-');
  const { hook, server, env } = await simulatorForRuns(cwd);
  const withoutExtraCerts = { ...env };
  delete withoutExtraCerts.NODE_EXTRA_CA_CERTS;
  const base = baseBin(ctx);

  // Each run task ends when the request arrives; the process then finishes its run. afterEach
  // waits for it to exit, so its tail never overlaps the next iteration's start-up.
  let exited: Promise<void> = Promise.resolve();
  const firstRequest = (bin: string, preset: string, runEnv: NodeJS.ProcessEnv) => () => new Promise<void>((done, fail) => {
    hook.onRequest = done;
    const child = startRun(bin, preset, runEnv, cwd);
    exited = new Promise((gone) => child.on('exit', () => gone()));
    child.on('error', fail);
  });
  const afterEach = () => exited;
  // Each `rein` task, then its twin from the base checkout.
  const add = (name: string, task: (bin: string) => () => Promise<void>, opts?: { afterEach: () => Promise<void> }) => {
    bench.add(name, task(BIN), opts);
    if (base) bench.add(`${name}${BASE_SUFFIX}`, task(base), opts);
  };

  bench.add('node -e 0 (floor)', () => exitTime(['-e', '0'], env));
  add('rein --version, cold', (bin) => () => exitTime([bin, '--version'], env));
  add('rein run → first request, cold (minimal)', (bin) => firstRequest(bin, 'minimal', env), { afterEach });
  add('rein run → first request, cold (default)', (bin) => firstRequest(bin, 'default', env), { afterEach });
  if (env.NODE_EXTRA_CA_CERTS) {
    bench.add('node -e 0 (floor), NODE_EXTRA_CA_CERTS unset', () => exitTime(['-e', '0'], withoutExtraCerts));
    add('rein run → first request (default), NODE_EXTRA_CA_CERTS unset', (bin) => firstRequest(bin, 'default', withoutExtraCerts), { afterEach });
  }
  bench.addEventListener?.('complete', () => { void server.close(); });
}

/** CPU time (ms, every thread) and minor page faults of a running process, from /proc. */
function usage(pid: number): { cpuMs: number; minorFaults: number } {
  const minorFaults = Number(statFields(`/proc/${pid}/stat`)[7]);
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return { cpuMs: ns / 1e6, minorFaults };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Interleaved `rein run` (default preset) of this checkout and the base one: CPU time and page faults at the first request. */
export async function measure(ctx: BenchContext): Promise<Measurement[]> {
  if (process.platform !== 'linux' || !existsSync('/proc/self/schedstat') || !existsSync(join(REPO, 'dist/bundle/rein.cjs'))) return [];
  const runs = Number(process.env.REIN_BENCH_STARTUP_RUNS ?? 30);
  const cwd = benchTempDir('rein-startup-');
  const { hook, server, env } = await simulatorForRuns(cwd);
  const base = baseBin(ctx);
  const bins: [string, string][] = [['', BIN], ...(base ? [[BASE_SUFFIX, base] as [string, string]] : [])];
  const samples = new Map(bins.map(([suffix]) => [suffix, [] as { cpuMs: number; minorFaults: number }[]]));
  try {
    const once = (bin: string) => new Promise<{ cpuMs: number; minorFaults: number }>((done, fail) => {
      const child = startRun(bin, 'default', env, cwd);
      let at: { cpuMs: number; minorFaults: number } | undefined;
      hook.onRequest = () => { at ??= usage(child.pid!); };
      child.on('error', fail);
      child.on('exit', () => (at ? done(at) : fail(new Error('rein run exited before its first request'))));
    });
    for (const [, bin] of bins) await once(bin); // warm-up: the page cache
    for (let i = 0; i < runs; i++) for (const [suffix, bin] of bins) samples.get(suffix)!.push(await once(bin));
  } finally {
    hook.onRequest = undefined;
    await server.close();
  }
  const note = `default preset, median of ${runs} runs interleaved${base ? ' with the base checkout' : ''}`;
  return bins.flatMap(([suffix]) => {
    const s = samples.get(suffix)!;
    return [
      { task: `rein run → first request: CPU time, all threads${suffix}`, value: median(s.map((x) => x.cpuMs)), unit: 'ms', note },
      { task: `rein run → first request: minor page faults${suffix}`, value: median(s.map((x) => x.minorFaults)), unit: 'faults', note },
    ];
  });
}

/**
 * tinybench options for this file: process spawns are slow, so few iterations, in 5 rounds (20
 * samples a task) so that a task and its `[base]` twin are measured under the same load.
 */
export const options = { iterations: 4, time: 0, warmupIterations: 1 };
export const rounds = 5;
