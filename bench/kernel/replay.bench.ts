/**
 * The replay benchmark: a generated 500-request session replayed through one preset (the built-in
 * `default` when it exists, else `minimal`), the whole open-loop path: kernel, recorded-result
 * tools, in-process simulator, metrics. Target: < 2 s median.
 */
import type { Bench } from 'tinybench';
import { builtinPresetNames } from '../../agent/preset/index.js';
import { loadBenchPreset, replayWorkload } from '../replay/replay.js';
import { generateWorkload } from '../workloads/generator.js';

export const options = { iterations: 5, time: 0, warmupIterations: 1 };

export async function run(bench: Bench): Promise<void> {
  const names = await Promise.resolve(builtinPresetNames()).catch(() => [] as string[]);
  const name = names.includes('default') ? 'default' : 'minimal';
  const preset = await loadBenchPreset(name, process.cwd());
  const workload = generateWorkload('gen:turns=500,prompts=50,parallel=2,results=2000,seed=1');
  bench.add(`replay 500 requests through ${name}`, async () => { await replayWorkload(workload, preset); });
}
