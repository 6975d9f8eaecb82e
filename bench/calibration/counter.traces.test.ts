/**
 * The calibrated token counter against the provider's own counts on the shared traces: the growth
 * of the prompt between consecutive requests of a thread (pairs.ts) is the token count of what
 * entered the context. Targets: median per-request |error| ≤ 10%, aggregate ratio 0.97–1.03, both
 * with the committed coefficients and with each session predicted by weights fitted on the others.
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { BYTE_COUNTER, CALIBRATED_COUNTER } from '../../lib/tokens/counter.js';
import { COEFFICIENTS } from '../../lib/tokens/coefficients.js';
import { loadWorkloads } from '../workloads/load.js';
import { crossValidate, fitRows, fitWeights, predictRows } from './fit.js';
import { growthError, growthPairs, predictedGrowth, type GrowthPair } from './pairs.js';

const traces = fileURLToPath(new URL('../../../shared/traces/', import.meta.url));
let pairs: GrowthPair[] = [];

beforeAll(async () => {
  const { workloads } = await loadWorkloads(traces);
  pairs = workloads.flatMap((w) => growthPairs(w).pairs);
}, 120_000);

const counted = (counter: typeof CALIBRATED_COUNTER) => pairs.map((p) => predictedGrowth(p, (b, first) => counter.block(b, first)));

describe('token counter on the shared traces', () => {
  it('has thousands of (content, tokens) pairs to check against', () => {
    expect(pairs.length).toBeGreaterThan(1500);
    expect(new Set(pairs.map((p) => p.workload)).size).toBeGreaterThanOrEqual(12);
  });

  it('meets the targets with the committed coefficients: median |error| ≤ 10%, aggregate 0.97–1.03', () => {
    const e = growthError(pairs, counted(CALIBRATED_COUNTER));
    expect(e.medianAbsError).toBeLessThanOrEqual(0.10);
    expect(e.ratio).toBeGreaterThanOrEqual(0.97);
    expect(e.ratio).toBeLessThanOrEqual(1.03);
    // The bytes/4 estimate it replaces does not.
    const bytes = growthError(pairs, counted(BYTE_COUNTER));
    expect(bytes.medianAbsError).toBeGreaterThan(0.2);
  });

  it('meets them on sessions it was not fitted on (each session held out in turn)', () => {
    const rows = fitRows(pairs, COEFFICIENTS.imageFallback);
    const cv = crossValidate(pairs, rows);
    expect(cv.overall.medianAbsError).toBeLessThanOrEqual(0.10);
    expect(cv.overall.ratio).toBeGreaterThanOrEqual(0.97);
    expect(cv.overall.ratio).toBeLessThanOrEqual(1.03);
    // No session's aggregate is off by more than 10% when it was held out.
    for (const [s, e] of Object.entries(cv.bySession)) if (e.pairs >= 20) expect([s, e.ratio > 0.9 && e.ratio < 1.1]).toEqual([s, true]);
  }, 120_000);

  it('the committed coefficients are what the refit script gives for these traces', () => {
    const rows = fitRows(pairs, COEFFICIENTS.imageFallback);
    const refit = growthError(pairs, predictRows(rows, fitWeights(rows)));
    const committed = growthError(pairs, counted(CALIBRATED_COUNTER));
    expect(Math.abs(refit.ratio - committed.ratio)).toBeLessThan(0.01);
    expect(Math.abs(refit.medianAbsError - committed.medianAbsError)).toBeLessThan(0.01);
  });
});
