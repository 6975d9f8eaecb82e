import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { actualInputCost, applyIdealCosts, efficiencyOf, type IdealInput } from './efficiency.js';

const MODEL = 'claude-sonnet-4-5';
/** A request as usage shows it: prompt P split into input, cache read and writes. */
function req(source: string, input: number, cacheRead: number, cacheWrite5m: number, cacheWrite1h = 0): IdealInput {
  const u = { input, cacheRead, cacheWrite5m, cacheWrite1h, output: 0 };
  return { source, model: MODEL, promptTokens: input + cacheRead + cacheWrite5m + cacheWrite1h, cacheRead, inputCostUsd: actualInputCost(MODEL, u), seenTokens: 0, idealInputCostUsd: 0 };
}

describe('cache efficiency (one definition, from usage)', () => {
  it('is 1 for a conversation that writes each new part once and reads everything after', () => {
    const run = [req('main_loop', 0, 0, 5000), req('main_loop', 0, 5000, 1000), req('main_loop', 200, 6000, 0)];
    applyIdealCosts(run);
    // The last request's 200 uncached tokens are sent once: uncached is what the ideal pays too.
    expect(efficiencyOf(run)).toBeCloseTo(1, 10);
    expect(run.map((r) => r.seenTokens)).toEqual([0, 5000, 6000]);
  });

  it('is 1, not 1.25, for a one-request stub below the minimum cacheable length (billed uncached)', () => {
    const run = [req('main_loop', 600, 0, 0)];
    applyIdealCosts(run);
    expect(efficiencyOf(run)).toBe(1);
  });

  it('counts a rewrite of an already-sent prefix (a compaction or a clearing) as a loss', () => {
    const run = [req('main_loop', 0, 0, 50_000), req('main_loop', 0, 50_000, 2000), req('main_loop', 0, 0, 20_000)];
    applyIdealCosts(run);
    // The compacted 20k-token prompt counts as seen: the ideal reads it, the run wrote it again.
    expect(run[2]!.seenTokens).toBe(20_000);
    expect(efficiencyOf(run)).toBeLessThan(0.8);
  });

  it('keeps threads apart: a side request does not make the main thread look seen', () => {
    const run = [req('main_loop', 0, 0, 8000), req('compact', 0, 0, 9000), req('main_loop', 0, 8000, 500)];
    applyIdealCosts(run);
    expect(run[1]!.seenTokens).toBe(0);
    expect(run[2]!.seenTokens).toBe(8000);
  });

  it('is never above 1, whatever the usage (a read of what another thread cached included)', () => {
    const usage = fc.record({ source: fc.constantFrom('main_loop', 'compact'), input: fc.nat(20_000), read: fc.nat(200_000), w5: fc.nat(50_000), w1: fc.nat(10_000) });
    fc.assert(fc.property(fc.array(usage, { minLength: 1, maxLength: 30 }), (rs) => {
      const run = rs.map((u) => req(u.source, u.input, u.read, u.w5, u.w1));
      applyIdealCosts(run);
      for (const r of run) expect(r.idealInputCostUsd).toBeLessThanOrEqual(r.inputCostUsd + 1e-12);
      expect(efficiencyOf(run)).toBeLessThanOrEqual(1 + 1e-12);
    }));
  });
});
