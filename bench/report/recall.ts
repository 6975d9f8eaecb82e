/**
 * Cost at equal recall: per preset its open-loop cost, closed-loop cost (with the re-fetches of lost
 * facts), needed-later recall, compactions, clearings and peak context; the Pareto front of closed-loop
 * cost against recall (no other preset is both cheaper and recalls more); and, per workload, recall
 * over the run. The stdout table, the HTML section and its Vega-Lite charts are rendered from here.
 */
import Table from 'cli-table3';
import type { TopLevelSpec } from 'vega-lite';
import type { PointLabels } from './labels.js';
import { RECORDED, type BenchReport, type WorkloadReport } from './model.js';
import { fmtTokens, MAX_WIDTH } from './table.js';
import { fitColumns } from './columns.js';

/** One preset's point of the cost/recall chart. */
export interface CostRecallPoint {
  preset: string;
  costUsd: number;
  closedLoopCostUsd: number;
  recall: number;
  /** On the Pareto front: no other preset has a lower closed-loop cost and a higher recall. */
  front: boolean;
}

/** Bins of the recall-over-time chart per run, at most. */
export const RECALL_BINS = 40;

/**
 * The presets of the totals with a recall, each marked on the front or not. A preset is dominated
 * when another costs no more (closed loop) and recalls at least as much, and is better in one of them.
 */
export function costRecallPoints(report: BenchReport): CostRecallPoint[] {
  const pts = report.ranking.map((preset) => report.totals[preset]!).map((t, i) => ({ preset: report.ranking[i]!, t }))
    .filter(({ t }) => t.recall !== null && t.recall !== undefined)
    .map(({ preset, t }) => ({ preset, costUsd: t.costUsd, closedLoopCostUsd: t.closedLoopCostUsd, recall: t.recall!, front: false }));
  for (const p of pts) {
    p.front = !pts.some((q) => q !== p && q.closedLoopCostUsd <= p.closedLoopCostUsd && q.recall >= p.recall && (q.closedLoopCostUsd < p.closedLoopCostUsd || q.recall > p.recall));
  }
  return pts;
}

/** The Vega-Lite spec of closed-loop cost against recall, one point per preset, the front joined by a line. */
export function costRecallSpec(report: BenchReport): TopLevelSpec {
  const values = costRecallPoints(report).map((p) => ({ ...p, where: p.front ? 'on the Pareto front' : 'dominated' }));
  // The scales keep the points off the plot's edges (padding, px), so their labels have room on every side.
  const front = values.filter((v) => v.front).sort((a, b) => a.closedLoopCostUsd - b.closedLoopCostUsd);
  const x = { field: 'closedLoopCostUsd', type: 'quantitative', title: 'closed-loop cost (USD, with re-fetches)', scale: { zero: false, padding: 40 } } as const;
  const y = { field: 'recall', type: 'quantitative', title: 'needed-later recall', scale: { zero: false, padding: 24 } } as const;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: 'Cost against recall (up and left is better)',
    width: 520, height: 320,
    layer: [
      { name: 'front', data: { values: front }, mark: { type: 'line', color: '#a33', strokeDash: [4, 3] }, encoding: { x, y } },
      { name: 'presets', data: { values }, mark: { type: 'point', filled: true, size: 90 }, encoding: { x, y, shape: { field: 'where', type: 'nominal', title: null }, color: { field: 'preset', type: 'nominal' } } },
    ],
    // Each point's preset name, placed by Vega's label transform so that presets with equal or
    // close points get their labels side by side instead of on top of each other (renderSvg).
    usermeta: { labels: { layer: 'presets', field: 'preset' } satisfies PointLabels },
  } as TopLevelSpec;
}

/** Recall per stretch of each run of a workload (requests binned, recalled / needed in each bin). */
export function recallRows(w: WorkloadReport): { preset: string; request: number; recall: number }[] {
  const rows: { preset: string; request: number; recall: number }[] = [];
  for (const r of w.runs) {
    if (r.error || r.preset === RECORDED) continue;
    const steps = r.requests.filter((q) => q.recall && q.recall.needed > 0);
    if (!steps.length) continue;
    const size = Math.ceil(steps.length / RECALL_BINS);
    for (let i = 0; i < steps.length; i += size) {
      const g = steps.slice(i, i + size);
      const needed = g.reduce((n, q) => n + q.recall!.needed, 0);
      rows.push({ preset: r.preset, request: g[g.length - 1]!.n, recall: g.reduce((n, q) => n + q.recall!.recalled, 0) / needed });
    }
  }
  return rows;
}

/** The Vega-Lite spec of a workload's recall over the run, one line per preset; undefined when no step needed a fact. */
export function recallOverTimeSpec(w: WorkloadReport): TopLevelSpec | undefined {
  const values = recallRows(w);
  if (!values.length) return undefined;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: 'Needed-later recall over the run',
    width: 700, height: 200,
    data: { values },
    mark: { type: 'line', point: values.length < 200 },
    encoding: {
      x: { field: 'request', type: 'quantitative', title: 'request' },
      y: { field: 'recall', type: 'quantitative', title: 'recall', scale: { domain: [0, 1] } },
      color: { field: 'preset', type: 'nominal' },
    },
  } as TopLevelSpec;
}

function usd(x: number): string {
  return x.toFixed(2);
}

/**
 * A recall as a percentage with one decimal, rounded down: presets a few facts apart (99.22% and
 * 99.25%) stay apart, and one that lost any fact never reads 100%. `–` without a recall.
 */
export function fmtRecall(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return `${(Math.floor(x * 1000 + 1e-9) / 10).toFixed(1)}%`;
}

/** The stdout table (at most MAX_WIDTH columns): one row per preset, cheapest closed-loop cost first. */
export function recallTable(report: BenchReport, color = false): string {
  const pts = new Map(costRecallPoints(report).map((p) => [p.preset, p]));
  const order = [...report.ranking].sort((a, b) => report.totals[a]!.closedLoopCostUsd - report.totals[b]!.closedLoopCostUsd);
  if (!order.some((p) => report.totals[p]!.recall !== null && report.totals[p]!.recall !== undefined)) return '';
  const rows = order.map((p) => {
    const s = report.totals[p]!;
    return [p, usd(s.costUsd), usd(s.closedLoopCostUsd), fmtRecall(s.recall), pts.get(p)?.front ? 'yes' : '', String(s.compactions.count), String(s.clearings ?? s.compactions.contextEdits), fmtTokens(s.peakContext)];
  });
  const fit = fitColumns(['preset', 'cost $', 'closed $', 'recall', 'front', 'compact.', 'clear.', 'peak ctx'], rows, { maxWidth: MAX_WIDTH, minName: 14, maxName: 30 });
  const t = new Table({ head: fit.head, colWidths: fit.colWidths, style: color ? {} : { head: [], border: [] } });
  for (const r of fit.rows) t.push(r);
  return `Cost at equal recall (closed loop = cost + re-fetching lost facts; front = Pareto front):\n${t.toString()}`;
}

/** The HTML table of the same figures. */
export function recallHtmlTable(report: BenchReport, esc: (s: string) => string): string {
  const pts = new Map(costRecallPoints(report).map((p) => [p.preset, p]));
  const rows = report.ranking.map((p) => {
    const s = report.totals[p]!;
    return `<tr><td>${esc(p)}</td><td>${usd(s.costUsd)}</td><td>${usd(s.closedLoopCostUsd)}</td><td>${s.refetch?.requests ?? 0}</td><td>${fmtRecall(s.recall)}</td><td>${s.recallCounts?.needed ?? 0}</td><td>${pts.get(p)?.front ? 'yes' : ''}</td><td>${s.compactions.count}</td><td>${s.clearings ?? s.compactions.contextEdits}</td><td>${fmtTokens(s.peakContext)}</td></tr>`;
  });
  return `<table><thead><tr><th>preset</th><th>open-loop $</th><th>closed-loop $</th><th>re-fetches</th><th>recall</th><th>facts needed</th><th>Pareto front</th><th>compactions</th><th>clearings</th><th>peak ctx</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}
