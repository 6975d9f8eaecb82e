/**
 * The cost/recall chart of the HTML report labels each preset's point; presets with equal points
 * (a preset and a copy of it under another name) must not have their labels drawn over each other.
 */
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../metrics/types.js';
import type { BenchReport } from './model.js';
import { renderSvg } from './html.js';
import { costRecallSpec } from './recall.js';

function totals(costUsd: number, recall: number): RunSummary & { workloads: number } {
  return {
    workloads: 1, requests: 10, syntheticRequests: 0, input: 0, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, output: 0, costUsd,
    cacheReadShare: 0, cacheEfficiency: 1, breaks: {}, breakTokens: 0, compactions: { count: 0, contextEdits: 0, tokensFreed: 0, ratio: null }, peakContext: 0,
    retention: { files: null, identifiers: null, instructions: null }, recall, recallCounts: { needed: 100, recalled: Math.round(recall * 100) },
    refetch: { requests: 0, tokens: 0, costUsd: 0 }, closedLoopCostUsd: costUsd, clearings: 0,
  };
}

/**
 * The texts of an SVG's text marks (not its legend or axes) and where each is drawn (its
 * transform), for those that are visible.
 */
function labels(svg: string, names: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const marks = [...svg.matchAll(/<g class="mark-text role-mark[^"]*"[^>]*>(.*?)<\/g>/gs)].map((g) => g[1]!).join('');
  for (const m of marks.matchAll(/<text([^>]*)>([^<]*)<\/text>/g)) {
    const [, attrs, text] = m;
    if (!names.includes(text!)) continue;
    if (/opacity="0"/.test(attrs!)) continue;
    out.set(text!, [...(out.get(text!) ?? []), /transform="([^"]*)"/.exec(attrs!)?.[1] ?? '']);
  }
  return out;
}

describe('cost/recall chart labels', () => {
  it('places the labels of presets with equal points apart, each visible once', async () => {
    const names = ['default', 'default-copy', 'default-again', 'minimal'];
    const report = {
      ranking: names,
      totals: { default: totals(2.97, 0.99), 'default-copy': totals(2.97, 0.99), 'default-again': totals(2.97, 0.99), minimal: totals(16.5, 1) },
    } as unknown as BenchReport;
    const svg = await renderSvg(costRecallSpec(report));
    const placed = labels(svg, names);
    for (const n of names) expect(placed.get(n), n).toHaveLength(1);
    const equal = ['default', 'default-copy', 'default-again'].map((n) => placed.get(n)![0]);
    expect(new Set(equal).size).toBe(3);
  });
});
