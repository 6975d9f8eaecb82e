import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_COUNTERS } from '../lib/tokens/counter.js';
import type { BenchReport } from './report/model.js';
import { costRecallPoints } from './report/recall.js';
import { fitSummarySize, SUMMARY_SIZE } from './replay/summary.js';
import { runBench } from './run.js';
import { loadWorkloads } from './workloads/load.js';

const traces = fileURLToPath(new URL('../../shared/traces/', import.meta.url));
const presets = fileURLToPath(new URL('./presets/', import.meta.url));
let dir: string;
let report: BenchReport;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-recall-traces-'));
  report = await runBench({
    workloads: [traces],
    presets: ['default', join(presets, 'summary-only.yaml'), join(presets, 'aggressive-microcompact.yaml'), join(presets, 'context-edits.yaml')],
    cwd: dir, jobs: 2,
  });
}, 600_000);
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

const runsOf = (preset: string) => report.workloads.flatMap((w) => w.runs.filter((r) => r.preset === preset && !r.error));

describe('needed-later recall on the shared traces', () => {
  it('clearing presets no longer score full recall; keeping everything until a summary does better', () => {
    const t = report.totals;
    for (const p of ['aggressive-microcompact', 'context-edits']) {
      expect(t[p]!.recall).not.toBeNull();
      expect(t[p]!.recall!).toBeLessThan(0.99);
      expect(t[p]!.closedLoopCostUsd).toBeGreaterThan(t[p]!.costUsd);
      expect(t[p]!.clearings).toBeGreaterThan(0);
    }
    expect(t['summary-only']!.recall!).toBeGreaterThan(t['aggressive-microcompact']!.recall!);
    expect(t['summary-only']!.recallCounts.needed).toBeGreaterThan(1_000);
    // Every preset is a point of the cost/recall chart, and some lie on its front.
    expect(costRecallPoints(report).map((p) => p.preset).sort()).toEqual(['aggressive-microcompact', 'context-edits', 'default', 'summary-only']);
    expect(costRecallPoints(report).some((p) => p.front)).toBe(true);
  });

  it('the summary preset’s summaries are within the size range calibrated on the recorded compactions', async () => {
    const { workloads } = await loadWorkloads(traces);
    const fit = fitSummarySize(workloads, TOKEN_COUNTERS.calibrated);
    expect(fit.samples).toBe(SUMMARY_SIZE.samples);
    expect(fit.ratioLow).toBeCloseTo(SUMMARY_SIZE.ratioLow, 4);
    expect(fit.ratioHigh).toBeCloseTo(SUMMARY_SIZE.ratioHigh, 4);
    const summaries = runsOf('summary-only').flatMap((r) => r.compactions.filter((c) => c.summaryTokens !== undefined));
    expect(summaries.length).toBeGreaterThan(0);
    for (const c of summaries) {
      // The budget is ratioHigh × the context; a summary of a long session fills it to at least ratioLow.
      const context = c.summaryBudget! / SUMMARY_SIZE.ratioHigh;
      expect(c.summaryTokens!).toBeLessThanOrEqual(c.summaryBudget!);
      expect(c.summaryTokens!).toBeGreaterThanOrEqual(Math.floor(SUMMARY_SIZE.ratioLow * context));
    }
  });

  it('files restored after a compaction exist in the replay’s workspace', () => {
    const restored = runsOf('summary-only').flatMap((r) => r.compactions.flatMap((c) => c.restoredFiles ?? []));
    expect(restored.length).toBeGreaterThan(0);
    for (const f of restored) {
      expect(f.step).not.toBeNull();
      expect(f.tokens).toBeLessThanOrEqual(5_000);
    }
    for (const r of runsOf('summary-only')) for (const c of r.compactions) {
      expect((c.restoredFiles ?? []).length).toBeLessThanOrEqual(5);
      expect((c.restoredFiles ?? []).reduce((n, f) => n + f.tokens, 0)).toBeLessThanOrEqual(50_000);
    }
  });
});
