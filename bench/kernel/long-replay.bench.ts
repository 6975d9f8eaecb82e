/**
 * A long benchmark replay, as a user runs it (a whole-process harness; needs `npm run build`):
 * `rein bench --workload gen:turns=N,results=2000,gap=0,parallel=2,seed=1 --preset default --json`
 * for N = 5,000 and 20,000 (REIN_BENCH_REPLAY_TURNS scales both: `5000` gives 1,250 and 5,000): the
 * peak RSS of the process and its CPU time per replayed request. Targets: peak RSS ≤ 300 MB at
 * 20,000; CPU per request at 20,000 within 20% of that at 5,000.
 * With REIN_BENCH_BASE set, each size runs for both checkouts in turn.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkouts, isBuilt, runRein, type Checkout, benchTempDir } from './harness.js';
import type { BenchContext, Measurement } from './run.js';

const LARGE = Number(process.env.REIN_BENCH_REPLAY_TURNS ?? 20_000);
const SMALL = Math.max(1, Math.round(LARGE / 4));

const spec = (turns: number) => `gen:turns=${turns},results=2000,gap=0,parallel=2,seed=1`;

export async function measure(ctx: BenchContext): Promise<Measurement[]> {
  const arms = checkouts(ctx).filter((c) => {
    if (isBuilt(c.root)) return true;
    console.warn(`long-replay bench: ${c.root} is not built; run \`npm run build\` there first`);
    return false;
  });
  if (!arms.length) return [];
  const cwd = benchTempDir('rein-long-replay-');
  mkdirSync(join(cwd, 'home'));
  const env: NodeJS.ProcessEnv = { ...process.env, REIN_HOME: join(cwd, 'home') };
  delete env.ANTHROPIC_API_KEY;
  const replay = async (arm: Checkout, turns: number) => {
    const out = join(cwd, `report-${turns}${arm.suffix ? '-base' : ''}.json`);
    console.error(`long-replay bench: ${turns} requests with ${arm.root} ...`);
    const r = await runRein(arm.root, ['bench', '--workload', spec(turns), '--preset', 'default', '--json', out, '--no-progress', '--jobs', '1'], { cwd, env, keepLines: false });
    if (r.code !== 0) throw new Error(`rein bench (${turns} turns, ${arm.root}) failed with ${r.code}: ${r.stderr.slice(-2000)}`);
    const report = JSON.parse(readFileSync(out, 'utf8')) as { workloads: { runs: { summary: { requests: number } }[] }[] };
    const requests = report.workloads[0]!.runs[0]!.summary.requests;
    return { rssMb: r.maxRssMb, cpuMs: r.cpuMs, wallMs: r.wallMs, requests };
  };
  const rows: Measurement[] = [];
  const results = new Map<string, Awaited<ReturnType<typeof replay>>>();
  for (const turns of [SMALL, LARGE]) for (const a of arms) results.set(`${turns}${a.suffix}`, await replay(a, turns));
  for (const a of arms) {
    const s = a.suffix;
    const small = results.get(`${SMALL}${s}`)!;
    const large = results.get(`${LARGE}${s}`)!;
    const perSmall = small.cpuMs / small.requests;
    const perLarge = large.cpuMs / large.requests;
    rows.push(
      { task: `rein bench ${spec(SMALL)}: peak RSS${s}`, value: small.rssMb, unit: 'MB', note: `${small.requests} requests, ${(small.wallMs / 1000).toFixed(1)} s wall` },
      { task: `rein bench ${spec(LARGE)}: peak RSS${s}`, value: large.rssMb, unit: 'MB', note: `${large.requests} requests, ${(large.wallMs / 1000).toFixed(1)} s wall; target ≤ 300` },
      { task: `rein bench, ${SMALL} requests: CPU per request${s}`, value: perSmall, unit: 'ms' },
      { task: `rein bench, ${LARGE} requests: CPU per request${s}`, value: perLarge, unit: 'ms' },
      { task: `rein bench: CPU per request, ${LARGE} ÷ ${SMALL}${s}`, value: perLarge / perSmall, unit: '×', note: 'target 0.8–1.2' },
    );
  }
  return rows;
}
