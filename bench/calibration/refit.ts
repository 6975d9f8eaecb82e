/**
 * Refits the calibrated token counter on a folder of recorded sessions (any format `rein bench`
 * reads that carries provider usage) and prints the error in-sample and with each session held
 * out. `--write` replaces lib/tokens/coefficients.ts with the new weights.
 *
 *   npm run bench:fit-counter -- ../shared/traces [--write]
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { crossValidate, coefficientsOf, fitRows, fitWeights, predictRows } from './fit.js';
import { growthError, growthPairs, predictedGrowth, type GrowthPair } from './pairs.js';
import { loadWorkloads } from '../workloads/load.js';
import { COEFFICIENTS } from '../../lib/tokens/coefficients.js';
import { BYTE_COUNTER } from '../../lib/tokens/counter.js';

const args = process.argv.slice(2);
const dir = args.find((a) => !a.startsWith('--'));
if (!dir) {
  process.stderr.write('usage: npm run bench:fit-counter -- DIR [--write]\n');
  process.exit(2);
}
const { workloads } = await loadWorkloads(dir);
const pairs: GrowthPair[] = [];
const excluded: Record<string, number> = {};
for (const w of workloads) {
  const s = growthPairs(w);
  pairs.push(...s.pairs);
  for (const [k, v] of Object.entries(s.excluded)) excluded[k] = (excluded[k] ?? 0) + v;
}
if (pairs.length < 50) {
  process.stderr.write(`only ${pairs.length} growth pairs in ${dir}: too few to fit\n`);
  process.exit(1);
}
const imageFallback = COEFFICIENTS.imageFallback;
const rows = fitRows(pairs, imageFallback);
const w = fitWeights(rows);
const sessions = new Set(pairs.map((p) => p.workload)).size;
const coefficients = coefficientsOf(w, imageFallback, `fitted on ${pairs.length} growth pairs of ${sessions} recorded sessions`);
const fmt = (e: { ratio: number; medianAbsError: number; pairs: number }) => `ratio ${e.ratio.toFixed(3)}, median |error| ${(100 * e.medianAbsError).toFixed(1)}% (${e.pairs} pairs)`;
const cv = crossValidate(pairs, rows);
const out = [
  `pairs: ${pairs.length}; left out: ${Object.entries(excluded).map(([k, v]) => `${v} × ${k}`).join(', ') || 'none'}`,
  `in-sample: ${fmt(growthError(pairs, predictRows(rows, w)))}`,
  `each session held out: ${fmt(cv.overall)}`,
  `rein's byte estimate (bytes/4, JSON bytes/2), for comparison: ${fmt(growthError(pairs, pairs.map((p) => predictedGrowth(p, (b, first) => BYTE_COUNTER.block(b, first)))))}`,
  ...Object.entries(cv.bySession).map(([s, e]) => `  ${s}: ${fmt(e)}`),
  `coefficients: ${JSON.stringify(coefficients, null, 2)}`,
];
process.stdout.write(out.join('\n') + '\n');

if (args.includes('--write')) {
  const file = fileURLToPath(new URL('../../lib/tokens/coefficients.ts', import.meta.url));
  writeFileSync(file, `/**
 * Coefficients of the calibrated token counter (counter.ts). Written by
 * \`npm run bench:fit-counter -- DIR --write\`; do not edit by hand.
 * Each session held out, the fit predicted its prompt growth with ${fmt(cv.overall)}.
 */
import type { CounterCoefficients } from './counter.js';

export const COEFFICIENTS: CounterCoefficients = ${JSON.stringify(coefficients, null, 2).replace(/"(\w+)":/g, '$1:').replace(/"/g, "'")};
`);
  process.stdout.write(`wrote ${file}\n`);
}
