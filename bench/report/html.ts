/**
 * The self-contained HTML report: the summary tables and SVG charts drawn with Vega-Lite (compiled
 * to Vega and rendered to SVG in Node with `view.toSVG()`), inlined in one file. The page loads
 * nothing from the network and runs no script.
 *
 * Charts: an overview (cost and cache efficiency per preset over all workloads), and per workload
 * the tokens of each request by class (stacked areas, one row per preset) and the cumulative cost
 * of each preset against the request number.
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { fmtTokens } from './table.js';
import { RECORDED, type BenchReport, type RunReport, type WorkloadReport } from './model.js';

/** Token classes drawn, in stack order (bottom first), with their colours. */
export const TOKEN_CLASSES = [
  { key: 'cacheRead', label: 'cache read', color: '#4c9f70' },
  { key: 'cacheWrite5m', label: 'cache write 5m', color: '#e0a33b' },
  { key: 'cacheWrite1h', label: 'cache write 1h', color: '#c4622d' },
  { key: 'input', label: 'uncached input', color: '#5470c6' },
  { key: 'output', label: 'output', color: '#8e5ea2' },
] as const;

/** Most request points drawn per run in the per-request charts (longer runs are binned by averaging). */
export const MAX_POINTS_PER_RUN = 600;

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Renders a Vega-Lite spec to an SVG string. Throws when the spec does not compile. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const compiled = compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Averages consecutive requests into at most `max` points (keeps the shape of long runs, bounds the SVG). */
function binned<T extends { n: number }>(rows: readonly T[], max: number, merge: (group: readonly T[]) => T): T[] {
  if (rows.length <= max) return [...rows];
  const size = Math.ceil(rows.length / max);
  const out: T[] = [];
  for (let i = 0; i < rows.length; i += size) out.push(merge(rows.slice(i, i + size)));
  return out;
}

function tokenRows(w: WorkloadReport): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const r of w.runs) {
    if (r.error) continue;
    const points = binned(r.requests, MAX_POINTS_PER_RUN, (g) => {
      const avg = (k: keyof (typeof g)[number]) => g.reduce((a, q) => a + (q[k] as number), 0) / g.length;
      return { ...g[0]!, input: avg('input'), cacheRead: avg('cacheRead'), cacheWrite5m: avg('cacheWrite5m'), cacheWrite1h: avg('cacheWrite1h'), output: avg('output') };
    });
    for (const q of points) {
      for (const c of TOKEN_CLASSES) rows.push({ preset: r.preset, request: q.n, class: c.label, tokens: q[c.key] });
    }
  }
  return rows;
}

function costRows(w: WorkloadReport): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const r of w.runs) {
    if (r.error) continue;
    let sum = 0;
    const cum = r.requests.map((q) => ({ n: q.n, cost: (sum += q.costUsd) }));
    for (const p of binned(cum, MAX_POINTS_PER_RUN, (g) => g[g.length - 1]!)) rows.push({ preset: r.preset, request: p.n, cost: p.cost });
  }
  return rows;
}

/** Runs up to this many requests are drawn as bars (and points), longer ones as areas (and lines). */
export const BARS_UP_TO = 80;

function longestRun(w: WorkloadReport): number {
  return Math.max(0, ...w.runs.map((r) => r.requests.length));
}

const classScale = { domain: TOKEN_CLASSES.map((c) => c.label), range: TOKEN_CLASSES.map((c) => c.color) };

/** The Vega-Lite spec of a workload's tokens-per-request chart. */
export function tokensSpec(w: WorkloadReport): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: `${w.name}: tokens per request by class`,
    data: { values: tokenRows(w) },
    // Bars while each request is wide enough to see; stacked areas for long runs.
    mark: longestRun(w) <= BARS_UP_TO ? { type: 'bar' } : { type: 'area', interpolate: 'step-after' },
    encoding: {
      x: { field: 'request', type: 'quantitative', title: 'request' },
      y: { field: 'tokens', type: 'quantitative', stack: 'zero', title: 'tokens' },
      color: { field: 'class', type: 'nominal', scale: classScale, sort: classScale.domain, title: 'class' },
      order: { field: 'class', sort: 'ascending' },
      row: { field: 'preset', type: 'nominal', title: null, sort: w.runs.map((r) => r.preset) },
    },
    width: 720,
    height: 110,
    resolve: { scale: { y: 'shared' } },
  } as TopLevelSpec;
}

/** The Vega-Lite spec of a workload's cumulative-cost chart. */
export function costSpec(w: WorkloadReport): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: `${w.name}: cumulative cost per preset`,
    data: { values: costRows(w) },
    mark: { type: 'line', interpolate: 'step-after', point: longestRun(w) <= BARS_UP_TO },
    encoding: {
      x: { field: 'request', type: 'quantitative', title: 'request' },
      y: { field: 'cost', type: 'quantitative', title: 'USD' },
      color: { field: 'preset', type: 'nominal', sort: w.runs.map((r) => r.preset), title: 'preset' },
      strokeDash: { condition: { test: `datum.preset === '${RECORDED}'`, value: [4, 3] }, value: [1, 0] },
    },
    width: 720,
    height: 220,
  } as TopLevelSpec;
}

/** The Vega-Lite spec of the overview: total cost and cache efficiency per preset. */
export function overviewSpec(report: BenchReport): TopLevelSpec {
  const values = Object.entries(report.totals).map(([preset, s]) => ({ preset, cost: s.costUsd, efficiency: s.cacheEfficiency }));
  const order = Object.keys(report.totals);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: 'All workloads',
    data: { values },
    hconcat: [
      { mark: 'bar', encoding: { y: { field: 'preset', type: 'nominal', sort: order, title: null }, x: { field: 'cost', type: 'quantitative', title: 'total cost (USD)' }, color: { field: 'preset', type: 'nominal', sort: order, legend: null } }, width: 300 },
      { mark: 'bar', encoding: { y: { field: 'preset', type: 'nominal', sort: order, title: null }, x: { field: 'efficiency', type: 'quantitative', title: 'cache efficiency', scale: { domain: [0, 1.05] } }, color: { field: 'preset', type: 'nominal', sort: order, legend: null } }, width: 300 },
    ],
  } as TopLevelSpec;
}

function summaryTable(runs: readonly { label: string; r: Pick<RunReport, 'preset' | 'summary' | 'error'> }[]): string {
  const head = ['', 'preset', 'requests', 'cost $', 'read %', 'cache eff.', 'breaks', 'compactions', 'freed', 'peak ctx'];
  const rows = runs.map(({ label, r }) => {
    if (r.error) return `<tr><td>${esc(label)}</td><td>${esc(r.preset)}</td><td colspan="8">failed: ${esc(r.error)}</td></tr>`;
    const s = r.summary;
    const breaks = Object.entries(s.breaks).map(([k, v]) => `${v} ${esc(k)}`).join('<br>') || '0';
    return `<tr><td>${esc(label)}</td><td>${esc(r.preset)}</td><td>${s.requests}</td><td>${s.costUsd.toFixed(2)}</td><td>${(s.cacheReadShare * 100).toFixed(0)}%</td><td>${s.cacheEfficiency.toFixed(3)}</td><td>${breaks}</td><td>${s.compactions.count}${s.compactions.contextEdits ? ` + ${s.compactions.contextEdits} edits` : ''}</td><td>${fmtTokens(s.compactions.tokensFreed)}</td><td>${fmtTokens(s.peakContext)}</td></tr>`;
  });
  return `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
table{border-collapse:collapse;margin:8px 0 16px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right;vertical-align:top}
th:first-child,td:first-child,td:nth-child(2){text-align:left}figure{margin:12px 0}h2{margin-top:32px;border-top:1px solid #ddd;padding-top:16px}
.note{color:#555;font-size:13px}`;

/** Renders the whole report as one HTML document (charts as inline SVG). */
export async function renderHtml(report: BenchReport): Promise<string> {
  const parts: string[] = [];
  parts.push(`<h1>rein bench</h1><p class="note">Presets: ${report.presets.map(esc).join(', ')}. ${esc(report.prices)}. Cache efficiency = ideal input cost (every prompt token written once at 1.25×, read at 0.1× after, TTL ignored) / actual.</p>`);
  parts.push(summaryTable(Object.entries(report.totals).map(([preset, s]) => ({ label: `${s.workloads} workload${s.workloads === 1 ? '' : 's'}`, r: { preset, summary: s } }))));
  parts.push(`<figure class="chart" data-chart="overview">${await renderSvg(overviewSpec(report))}</figure>`);
  for (const w of report.workloads) {
    parts.push(`<h2>${esc(w.name)}${w.sidechain ? ' (subagent)' : ''}</h2>`);
    parts.push(`<p class="note">${esc(w.format)}${w.client ? `, ${esc(w.client)}` : ''}, model ${esc(w.model)}, ${w.steps} requests${w.notes.length ? `. ${w.notes.map(esc).join('. ')}` : ''}</p>`);
    parts.push(summaryTable(w.runs.map((r) => ({ label: w.name, r }))));
    if (w.runs.some((r) => !r.error && r.requests.length)) {
      parts.push(`<figure class="chart" data-chart="tokens">${await renderSvg(tokensSpec(w))}</figure>`);
      parts.push(`<figure class="chart" data-chart="cost">${await renderSvg(costSpec(w))}</figure>`);
    }
  }
  if (report.skippedFiles.length) {
    parts.push(`<h2>Files not replayed</h2><ul>${report.skippedFiles.map((f) => `<li>${esc(f.path)}: ${esc(f.reason)}</li>`).join('')}</ul>`);
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>rein bench</title><style>${CSS}</style></head><body>${parts.join('\n')}</body></html>\n`;
}
