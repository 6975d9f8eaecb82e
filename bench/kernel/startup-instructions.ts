/**
 * `npm run bench:startup-instructions [-- --runs N --presets default,minimal]`: the instructions a
 * cold `rein run` executes by its first request, counted with valgrind's cachegrind, which varies
 * far less with the machine's load than any timing (README, "Start-up, where the time goes"):
 * `node --single-threaded-gc --no-concurrent-recompilation bin/rein.js run hi --preset P --no-layers`
 * against a server on loopback that stops the process with SIGALRM when the request arrives (rein
 * does not handle SIGALRM, so the process dies of it and valgrind still writes its counts), with
 * NODE_EXTRA_CA_CERTS unset; `node -e 0` under the same flags once, as the floor.
 *
 * With REIN_BENCH_BASE (another checkout, built) its runs alternate with this checkout's. Each
 * checkout's code cache for those flags (bin/rein.js keeps one per set of Node options) is first
 * written the way `npm run build` writes the default one, by a warm-up `rein run` of the demo, so
 * both are counted from caches made alike.
 *
 * Prints, per preset, the median of the totals and the median with Node's own hash-seed set-up
 * taken out: at every start V8 searches for random primes (`detail::sprp`, under
 * `HashSeed::InitializeRoots`), 4–19 M instructions that differ from run to run by chance.
 * Needs valgrind (cachegrind and cg_annotate) and `npm run build`; Linux.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from '../shared/args.js';
import { benchTempDir } from './harness.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const opts = benchArgs({
  runs: { type: 'string', default: '3' },
  presets: { type: 'string', default: 'default,minimal' },
});
const RUNS = Number(opts.runs);
const PRESETS = opts.presets.split(',').map((p) => p.trim()).filter(Boolean);
/** The V8 flags the counts are taken under: they keep V8's work on the main thread, so it is counted the same way every run. */
const NODE_FLAGS = ['--single-threaded-gc', '--no-concurrent-recompilation'];

interface Count { total: number; net: number }

const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const millions = (n: number) => `${(n / 1e6).toFixed(1)} M`;

/** The environment of a counted run: no API key, no extra CA file, the loopback server as the API. */
function runEnv(home: string, baseUrl?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, REIN_HOME: home };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.ANTHROPIC_API_KEY;
  delete env.ANTHROPIC_BASE_URL;
  if (baseUrl) env.ANTHROPIC_BASE_URL = baseUrl;
  return env;
}

/** Writes `root`'s code cache for NODE_FLAGS as scripts/bundle.mjs writes the default one. */
function warm(root: string, dir: string): void {
  const env = { ...runEnv(join(dir, 'home')), REIN_CODE_CACHE: 'write' };
  execFileSync(process.execPath, [...NODE_FLAGS, join(root, 'bin/rein.js'), 'run', '--preset', 'default', '--no-layers', '--cwd', dir, '--output-format', 'json', 'warm up'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Instructions of `args` under cachegrind; `stopped` says whether the server stopped it at its request. */
async function count(args: string[], env: NodeJS.ProcessEnv, dir: string, onStart: (child: ChildProcess) => void, stopped: () => boolean): Promise<Count> {
  const out = join(dir, `cachegrind.${Date.now()}.out`);
  const child = spawn('valgrind', ['--tool=cachegrind', '--cache-sim=no', `--cachegrind-out-file=${out}`, process.execPath, ...NODE_FLAGS, ...args], { env, cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  onStart(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => { stderr += chunk; });
  await new Promise<void>((done, fail) => { child.on('error', fail); child.on('exit', () => done()); });
  const refs = /I\s+refs:\s+([\d,]+)/.exec(stderr);
  if (!refs || !stopped()) throw new Error(`${args.join(' ')} ${refs ? 'ended before its first request' : 'gave no count'}: ${stderr.trim().split('\n').slice(-5).join(' | ')}`);
  const total = Number(refs[1]!.replaceAll(',', ''));
  let seed = 0;
  for (const line of execFileSync('cg_annotate', [out], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).split('\n')) {
    const m = /^\s*([\d,]+) .*detail::sprp/.exec(line);
    if (m) seed += Number(m[1]!.replaceAll(',', ''));
  }
  return { total, net: total - seed };
}

async function main(): Promise<void> {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('valgrind is not installed (cachegrind counts the instructions)');
  }
  const roots: [string, string][] = [['', REPO]];
  const base = process.env.REIN_BENCH_BASE;
  if (base) roots.push([' [base]', resolve(base)]);
  for (const [, root] of roots) {
    if (!existsSync(join(root, 'dist/bundle/rein.cjs'))) throw new Error(`${root} has no dist/bundle/; run \`npm run build\` there first`);
  }
  const dir = benchTempDir('rein-startup-instructions-');
  let current: ChildProcess | undefined;
  let requested = false;
  const server = createServer((_req, res) => { requested = true; current?.kill('SIGALRM'); res.destroy(); });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    process.stdout.write(`nproc ${availableParallelism()}, load ${load()}; ${RUNS} runs per preset and checkout, alternating\n`);
    for (const [, root] of roots) warm(root, dir);
    const counts = new Map<string, Count[]>();
    for (let r = 0; r < RUNS; r++) {
      for (const preset of PRESETS) {
        for (const [suffix, root] of roots) {
          const home = join(dir, 'home');
          mkdirSync(home, { recursive: true });
          requested = false;
          const c = await count([join(root, 'bin/rein.js'), 'run', 'hi', '--preset', preset, '--no-layers', '--output-format', 'json'], runEnv(home, url), dir, (child) => { current = child; }, () => requested);
          const key = `rein run → first request (${preset})${suffix}`;
          counts.set(key, [...(counts.get(key) ?? []), c]);
        }
      }
    }
    const floor = await count(['-e', '0'], runEnv(join(dir, 'home')), dir, () => {}, () => true);
    const width = Math.max(...[...counts.keys()].map((k) => k.length));
    process.stdout.write(`${'node -e 0 (floor)'.padEnd(width)}  ${millions(floor.total)} (without the hash-seed search ${millions(floor.net)})\n`);
    for (const [key, cs] of counts) {
      process.stdout.write(`${key.padEnd(width)}  median ${millions(median(cs.map((c) => c.total)))} (without the hash-seed search ${millions(median(cs.map((c) => c.net)))}); runs ${cs.map((c) => millions(c.total)).join(', ')}\n`);
    }
    process.stdout.write(`load ${load()} at the end\n`);
  } finally {
    server.close();
  }
}

main().catch((err: Error) => { process.stderr.write(`bench:startup-instructions: ${err.message}\n`); process.exitCode = 1; });
