/**
 * The kernel's own work per turn as CPU time (process.cpuUsage around each turn), with the same
 * kernels and histories as overhead.bench.ts: on a shared machine, wall time of a task longer than
 * a scheduler slice also counts the time spent waiting for a core, which inflates the larger
 * history's figure; CPU time does not. Turns of both sizes and both checkouts (REIN_BENCH_BASE)
 * are interleaved (in reverse order every other round), TURNS of each; the rows are medians and the 20,000 ÷ 200 ratio (target ≤ 2).
 */
import type { Kernel } from '../../kernel/kernel.js';
import { checkouts, median } from './harness.js';
import { defaultKernel, modulesOf, smallTurns } from './overhead.bench.js';
import type { BenchContext, Measurement } from './run.js';

/** Measured turns per kernel. */
const TURNS = Number(process.env.REIN_BENCH_CPU_TURNS ?? 300);
/** Messages a kernel adds before its history is set back (outside the measurement). */
const REGROW = 400;

export async function measure(ctx: BenchContext): Promise<Measurement[]> {
  const sizes = [200, 20_000];
  const arms = checkouts(ctx);
  const kernels: { label: string; n: number; suffix: string; kernel: Kernel; base: ReturnType<typeof smallTurns>; cpu: number[] }[] = [];
  for (const arm of arms) {
    const m = await modulesOf(arm.root);
    for (const n of sizes) {
      const base = smallTurns(n);
      const kernel = await defaultKernel(m, base.slice());
      const first = await kernel.run({ prompt: 'continue' }).result;
      if (first.terminalReason !== 'end_turn') throw new Error(`overhead-cpu bench: a turn on ${n} messages ended with ${first.terminalReason}`);
      kernels.push({ label: `${n.toLocaleString('en-US')} messages`, n, suffix: arm.suffix, kernel, base, cpu: [] });
    }
  }
  for (let t = 0; t < TURNS; t++) {
    // A turn on the instant client never waits for I/O: without a turn of the event loop now and
    // then, a SIGINT's handler (which removes the temporary folders) would never run.
    await new Promise<void>((done) => setImmediate(done));
    // Every other round in reverse order: the kernel measured first after the pause would
    // otherwise always be the same one (it measured a few per cent slower).
    for (const k of t % 2 ? kernels.toReversed() : kernels) {
      if (k.kernel.messages.length >= k.n + REGROW) {
        k.kernel.messages = k.base.slice();
        await k.kernel.run({ prompt: 'continue' }).result;
      }
      const c0 = process.cpuUsage();
      const r = await k.kernel.run({ prompt: 'continue' }).result;
      const c = process.cpuUsage(c0);
      if (r.terminalReason !== 'end_turn') throw new Error(`overhead-cpu bench: a turn ended with ${r.terminalReason}`);
      k.cpu.push((c.user + c.system) / 1000);
    }
  }
  const rows: Measurement[] = [];
  for (const arm of arms) {
    const mine = kernels.filter((k) => k.suffix === arm.suffix);
    for (const k of mine) rows.push({ task: `kernel CPU per turn, default preset, ${k.label}${arm.suffix}`, value: median(k.cpu), unit: 'ms', note: `median of ${TURNS}` });
    const [small, large] = mine;
    rows.push({ task: `kernel CPU per turn: 20,000 ÷ 200 messages${arm.suffix}`, value: median(large!.cpu) / median(small!.cpu), unit: '×', note: 'target ≤ 2' });
  }
  for (const k of kernels) await k.kernel.close();
  return rows;
}
