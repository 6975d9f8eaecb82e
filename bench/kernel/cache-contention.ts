/**
 * `npm run bench:cache-contention [-- --rounds R --sizes KIB,KIB,...]`: how much slower memory of a
 * given working-set size gets when the machine's other core is busy with the same kind of work. For
 * each size, a random pointer chase (a single cycle through an Int32Array of that many KiB, each
 * load depending on the previous one, so the time is the memory system's latency) runs in one child
 * process alone, then in two child processes at once; each prints its own CPU seconds for the same
 * number of loads. A working set that one core's private caches hold costs the same either way;
 * one that needs a cache the cores share (or memory bandwidth) costs more with two at once. A loop
 * of independent additions (`--sizes 0`: no memory at all) is the control: it only slows down if
 * the two "cores" share execution units (SMT siblings on the host).
 *
 * Why it is here: two `rein worker` processes spend more CPU per replay than one alone, on cores
 * that each run arithmetic as fast as one alone; a replay's heap (tens of MB, and a young
 * generation it allocates through at ~100 MB per job) is far larger than a core's private caches.
 * Prints nproc and the load average with every line: other processes on the machine add to both
 * sides, so read it on a quiet machine.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchArgs } from '../shared/args.js';

const SELF = fileURLToPath(import.meta.url);

/** The child: `--child KIB LOADS` chases (or adds, for KIB 0) and prints its CPU seconds. */
function child(kib: number, loads: number): void {
  const t0 = process.cpuUsage();
  let sink = 0;
  if (kib === 0) {
    let a = 0, b = 1, c = 2, d = 3, e = 4, f = 5, g = 6, h = 7;
    for (let i = 0; i < loads; i++) { a = (a + 1) | 0; b = (b + 1) | 0; c = (c + 1) | 0; d = (d + 1) | 0; e = (e + 1) | 0; f = (f + 1) | 0; g = (g + 1) | 0; h = (h + 1) | 0; }
    sink = a ^ b ^ c ^ d ^ e ^ f ^ g ^ h;
  } else {
    const n = (kib * 1024) / 4;
    const next = new Int32Array(n);
    for (let i = 0; i < n; i++) next[i] = i;
    // Sattolo's shuffle: one cycle through every slot, in an order no prefetcher predicts.
    let seed = 12345;
    for (let i = n - 1; i > 0; i--) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      const j = seed % i;
      const t = next[i]!; next[i] = next[j]!; next[j] = t;
    }
    let x = 0;
    const t1 = process.cpuUsage();
    for (let i = 0; i < loads; i++) x = next[x]!;
    sink = x;
    const u = process.cpuUsage(t1);
    process.stdout.write(`${((u.user + u.system) / 1e6).toFixed(3)} ${sink & 1}\n`);
    return;
  }
  const u = process.cpuUsage(t0);
  process.stdout.write(`${((u.user + u.system) / 1e6).toFixed(3)} ${sink & 1}\n`);
}

function runChild(kib: number, loads: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...process.execArgv, SELF, '--child', String(kib), String(loads)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(Number(out.split(' ')[0])) : reject(new Error(`child exited with ${code}`))));
  });
}

async function main(): Promise<void> {
  const opts = benchArgs({
    rounds: { type: 'string', default: '3' },
    sizes: { type: 'string', default: '0,48,256,768,2048,16384' },
  });
  const sizes = opts.sizes.split(',').map(Number);
  const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
  let governor = '';
  try { governor = readFileSync('/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor', 'utf8').trim(); } catch { /* not exposed (a VM) */ }
  process.stdout.write(`cache contention: nproc ${availableParallelism()}${governor ? `, governor ${governor}` : ''}; CPU seconds of each process for the same loads, one alone vs two at once\n`);
  for (let r = 1; r <= Number(opts.rounds); r++) {
    for (const kib of sizes) {
      // About a second alone on a 2020s server core: fewer loads for sizes that miss more.
      const loads = kib === 0 ? 1_000_000_000 : kib <= 256 ? 150_000_000 : kib <= 2048 ? 60_000_000 : 8_000_000;
      const alone = await runChild(kib, loads);
      const both = await Promise.all([runChild(kib, loads), runChild(kib, loads)]);
      const ratio = (both[0]! + both[1]!) / 2 / alone;
      process.stdout.write(`  round ${r} ${kib === 0 ? 'adds (no memory)' : `chase ${kib} KiB`}`.padEnd(32) +
        `alone ${alone.toFixed(3)} s   two at once ${both.map((b) => b.toFixed(3)).join(' / ')} s   ×${ratio.toFixed(2)}   load ${load()}\n`);
    }
  }
}

const argv = process.argv;
const at = argv.indexOf('--child');
if (at >= 0) child(Number(argv[at + 1]), Number(argv[at + 2]));
else main().catch((err: Error) => { process.stderr.write(`bench:cache-contention: ${err.message}\n`); process.exitCode = 1; });
