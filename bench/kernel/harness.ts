/**
 * Helpers for whole-process benchmarks: run a checkout's built `rein` command as a child process
 * and measure it from outside (wall time, each stdout line's arrival time) and from inside (peak
 * RSS and CPU time, written at exit by report-usage.mjs); read a running child's peak RSS from
 * /proc; take medians and deciles.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const REPORT_USAGE = pathToFileURL(join(here, 'report-usage.mjs')).href;

/**
 * Temporary folders of this process's benches: each is removed when the process exits, also after
 * an error and on SIGINT, SIGTERM or SIGHUP, unless `REIN_BENCH_KEEP_TMP=1` asks to keep them (their
 * paths are then printed to stderr at exit). Only folders made here are removed.
 */
const tempDirs = new Set<string>();
let cleanupInstalled = false;

/** True when `REIN_BENCH_KEEP_TMP` asks to keep the benches' temporary folders. */
export function keepTempDirs(): boolean {
  return process.env.REIN_BENCH_KEEP_TMP === '1';
}

function removeTempDirs(): void {
  if (keepTempDirs()) {
    if (tempDirs.size) process.stderr.write(`bench: kept ${[...tempDirs].join(', ')} (REIN_BENCH_KEEP_TMP=1)\n`);
    tempDirs.clear();
    return;
  }
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
  tempDirs.clear();
}

function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  // 'exit' also follows an uncaught error and process.exit(); a signal's default action skips it,
  // so the signals exit through process.exit with the shell's code for them (128 + number).
  process.once('exit', removeTempDirs);
  const codes = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
  for (const signal of Object.keys(codes) as (keyof typeof codes)[]) process.once(signal, () => process.exit(codes[signal]));
}

/**
 * A new folder under the system temporary directory (`os.tmpdir()`, the runner's private one
 * under `npm run bench:kernel`), named `<prefix>XXXXXX`, removed at exit (see above).
 */
export function benchTempDir(prefix: string): string {
  installCleanup();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/** Removes a folder made by benchTempDir now (unless REIN_BENCH_KEEP_TMP=1), instead of at exit. */
export function removeBenchTempDir(dir: string): void {
  if (!tempDirs.has(dir) || keepTempDirs()) return;
  tempDirs.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

/** A checkout to measure: its root and the label its rows carry (`''` for this one, ` [base]`). */
export interface Checkout {
  root: string;
  suffix: string;
}

/** This checkout, and the base one when the runner was given `REIN_BENCH_BASE`. */
export function checkouts(ctx: { repo: string; base?: string }): Checkout[] {
  const out: Checkout[] = [{ root: ctx.repo, suffix: '' }];
  if (ctx.base) out.push({ root: ctx.base, suffix: ' [base]' });
  return out;
}

/** True when the checkout has its command built (`npm run build`). */
export function isBuilt(root: string): boolean {
  return existsSync(join(root, 'dist/bundle/rein.cjs'));
}

export interface ProcessRun {
  /** Exit code (null when killed by a signal). */
  code: number | null;
  /** Spawn to exit, ms. */
  wallMs: number;
  /** Peak resident set size, MB (from the process itself). */
  maxRssMb: number;
  /** User + system CPU time, ms. */
  cpuMs: number;
  /** stdout lines with their arrival time, ms after spawn. */
  lines: { at: number; text: string }[];
  stderr: string;
}

export interface SpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Keep stdout lines (default true). */
  keepLines?: boolean;
  /** Called for each stdout line as it arrives, with its time after spawn, ms. */
  onLine?: (text: string, at: number) => void;
  /** Called once the child has started, with its pid. */
  onSpawn?: (pid: number) => void;
}

/** Runs `node <root>/bin/rein.js ...args` to its end. */
export function runRein(root: string, args: string[], o: SpawnOptions): Promise<ProcessRun> {
  const usageDir = benchTempDir('rein-usage-');
  const usageFile = join(usageDir, 'usage.json');
  const lines: ProcessRun['lines'] = [];
  const keep = o.keepLines ?? true;
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', REPORT_USAGE, join(root, 'bin/rein.js'), ...args], {
      cwd: o.cwd, env: { ...o.env, REIN_BENCH_USAGE: usageFile }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) o.onSpawn?.(child.pid);
    let pending = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const at = performance.now() - t0;
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const text = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (keep) lines.push({ at, text });
        o.onLine?.(text, at);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => { if (stderr.length < 20_000) stderr += c; });
    child.on('error', fail);
    child.on('close', (code) => {
      const wallMs = performance.now() - t0;
      let usage = { maxRssKb: NaN, userMs: NaN, systemMs: NaN };
      try { usage = JSON.parse(readFileSync(usageFile, 'utf8')); } catch { /* killed before exit: no usage */ }
      removeBenchTempDir(usageDir);
      done({ code, wallMs, maxRssMb: usage.maxRssKb / 1024, cpuMs: usage.userMs + usage.systemMs, lines, stderr });
    });
  });
}

/** Peak RSS of a running process so far, MB (Linux /proc; NaN elsewhere or when it is gone). */
export function peakRssMb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Median of a list (NaN when empty). */
export function median(xs: readonly number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The median of the first and of the last tenth of a series. */
export function deciles(xs: readonly number[]): { first: number; last: number } {
  const n = Math.max(1, Math.floor(xs.length / 10));
  return { first: median(xs.slice(0, n)), last: median(xs.slice(xs.length - n)) };
}
