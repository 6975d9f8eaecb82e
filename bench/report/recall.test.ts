import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchReport } from './model.js';
import { costRecallPoints, costRecallSpec, recallOverTimeSpec, recallTable } from './recall.js';
import { renderTable } from './table.js';
import { renderSvg } from './html.js';
import { buildRecallReport, FILES } from './test/recall-fixture.js';

let report: BenchReport;
let cleanup: () => Promise<void>;
beforeAll(async () => { ({ report, cleanup } = await buildRecallReport()); }, 120_000);
afterAll(async () => { await cleanup?.(); });

describe('cost at equal recall', () => {
  it('a preset that clears old tool results no longer scores full recall, and pays for re-fetching', () => {
    const keep = report.totals['no-compaction']!;
    const clear = report.totals['aggressive-microcompact']!;
    // The last reply names FILES functions, each first seen in a tool result.
    expect(keep.recallCounts.needed).toBeGreaterThanOrEqual(FILES);
    expect(keep.recall).toBe(1);
    expect(keep.closedLoopCostUsd).toBe(keep.costUsd);
    expect(clear.recall).toBeLessThan(1);
    expect(clear.refetch.requests).toBeGreaterThan(0);
    expect(clear.closedLoopCostUsd).toBeGreaterThan(clear.costUsd);
    expect(clear.clearings).toBeGreaterThan(0);
    // The JSON carries the figure by that name per run too.
    const run = report.workloads[0]!.runs.find((r) => r.preset === 'aggressive-microcompact')!;
    expect(run.summary.recall).toBe(clear.recall);
  });

  it('marks the Pareto front: no preset on it is beaten on both cost and recall', () => {
    const pts = costRecallPoints(report);
    expect(pts.map((p) => p.preset).sort()).toEqual(['aggressive-microcompact', 'default', 'no-compaction']);
    const front = pts.filter((p) => p.front);
    expect(front.length).toBeGreaterThan(0);
    for (const p of pts) {
      const beaten = pts.some((q) => q.closedLoopCostUsd <= p.closedLoopCostUsd && q.recall >= p.recall && (q.closedLoopCostUsd < p.closedLoopCostUsd || q.recall > p.recall));
      expect(p.front).toBe(!beaten);
    }
  });

  it('prints a per-preset table under 120 columns', () => {
    const t = recallTable(report);
    for (const p of ['no-compaction', 'aggressive-microcompact', 'default']) expect(t).toContain(p);
    expect(t).toMatch(/closed \$/);
    const all = renderTable(report);
    expect(all).toContain(t.split('\n')[0]!);
    for (const line of all.split('\n')) expect(line.length).toBeLessThan(120);
  });

  it('draws cost against recall and recall over the run', async () => {
    const svg = await renderSvg(costRecallSpec(report));
    expect(svg).toContain('on the Pareto front');
    expect(svg).toContain('aggressive-microcompact');
    const spec = recallOverTimeSpec(report.workloads[0]!);
    expect(spec).toBeDefined();
    expect(await renderSvg(spec!)).toContain('recall');
  });
});
