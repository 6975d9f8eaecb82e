/**
 * The self-contained HTML report: the summary tables and SVG charts drawn with Vega-Lite (compiled
 * to Vega and rendered to SVG in Node with `view.toSVG()`), inlined in one file. The page loads
 * nothing from the network and runs no script.
 *
 * Layout: a table of contents, the summary (totals on the workloads every preset completed,
 * cheapest first, and an overview chart of cost and cache efficiency), cost and recall (a table and
 * the cost/recall chart with its Pareto front, recall.ts), the fidelity table, the runs left out of
 * the totals (incomplete or failed, with why), then per workload its client events, its table and
 * its charts (the tokens of each request by class, one row per preset; the cumulative cost per
 * preset; recall over the run). Tiny workloads (warm-up stubs) share one table at the end, without charts.
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { fmtTokens, TINY_WORKLOAD_REQUESTS } from './table.js';
import { RECORDED, unrankedDetail, type BenchReport, type RunReport, type WorkloadReport } from './model.js';
import { costRecallPoints, costRecallSpec, recallHtmlTable, recallOverTimeSpec } from './recall.js';
import { firstRequestText } from './subagents.js';
import { withPointLabels, type PointLabels } from './labels.js';

/** Token classes drawn, in stack order (bottom first), with their colours. */
export const TOKEN_CLASSES = [
  { key: 'cacheRead', label: 'cache read', color: '#4c9f70' },
  { key: 'cacheWrite5m', label: 'cache write 5m', color: '#e0a33b' },
  { key: 'cacheWrite1h', label: 'cache write 1h', color: '#c4622d' },
  { key: 'input', label: 'uncached input', color: '#5470c6' },
  { key: 'output', label: 'output', color: '#8e5ea2' },
] as const;

/** Most request points drawn per run in the per-request charts (longer runs are binned by averaging). */
export const MAX_POINTS_PER_RUN = 150;

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Renders a Vega-Lite spec to an SVG string. Throws when the spec does not compile. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const labels = (spec.usermeta as { labels?: PointLabels } | undefined)?.labels;
  const compiled = labels ? withPointLabels(compile(spec).spec, labels) : compile(spec).spec;
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
  const order = [...(report.totals[RECORDED] ? [RECORDED] : []), ...report.ranking];
  const values = order.map((preset) => ({ preset, cost: report.totals[preset]!.costUsd, efficiency: report.totals[preset]!.cacheEfficiency }));
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: `The ${report.comparable.workloads.length} workloads every preset completed`,
    data: { values },
    hconcat: [
      { mark: 'bar', encoding: { y: { field: 'preset', type: 'nominal', sort: order, title: null }, x: { field: 'cost', type: 'quantitative', title: 'total cost (USD)' }, color: { field: 'preset', type: 'nominal', sort: order, legend: null } }, width: 300 },
      { mark: 'bar', encoding: { y: { field: 'preset', type: 'nominal', sort: order, title: null }, x: { field: 'efficiency', type: 'quantitative', title: 'cache efficiency', scale: { domain: [0, 1.05] } }, color: { field: 'preset', type: 'nominal', sort: order, legend: null } }, width: 300 },
    ],
  } as TopLevelSpec;
}

function summaryTable(runs: readonly { label: string; r: Pick<RunReport, 'preset' | 'summary' | 'error' | 'incomplete'> }[]): string {
  const head = ['', 'preset', 'requests', 'cost $', 'read %', 'cache eff.', 'breaks', 'compactions', 'freed', 'peak ctx'];
  const rows = runs.map(({ label, r }) => {
    if (r.error) return `<tr><td>${esc(label)}</td><td>${esc(r.preset)}</td><td colspan="8">failed: ${esc(r.error)}</td></tr>`;
    const s = r.summary;
    const breaks = Object.entries(s.breaks).map(([k, v]) => `${v} ${esc(k)}`).join('<br>') || '0';
    const flag = r.incomplete ? ` <span class="flag">incomplete: ${esc(unrankedDetail(r as RunReport))}</span>` : '';
    return `<tr><td>${esc(label)}</td><td>${esc(r.preset)}${flag}</td><td>${s.requests}</td><td>${s.costUsd.toFixed(2)}</td><td>${(s.cacheReadShare * 100).toFixed(0)}%</td><td>${s.cacheEfficiency.toFixed(3)}</td><td>${breaks}</td><td>${s.compactions.count}${s.compactions.contextEdits ? ` + ${s.compactions.contextEdits} edits` : ''}</td><td>${fmtTokens(s.compactions.tokensFreed)}</td><td>${fmtTokens(s.peakContext)}</td></tr>`;
  });
  return `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function fidelityTable(f: NonNullable<BenchReport['fidelity']>): string {
  const head = ['session', 'client', 'mimic', 'requests', 'recorded $', 'mimic $', 'ratio', 'recorded breaks', 'replayed breaks', 'events'];
  const cause = (b: Record<string, number>) => Object.entries(b).map(([k, v]) => `${v} ${esc(k)}`).join('<br>') || '0';
  const rows = f.rows.map((r) => `<tr><td><a href="#${anchor(r.workload)}">${esc(r.workload)}</a></td><td>${esc(r.client)}</td><td>${esc(r.preset)}</td><td>${r.requests}</td><td>${r.recordedUsd.toFixed(2)}</td><td>${r.unranked ? esc(r.unranked) : r.mimicUsd.toFixed(2)}</td><td>${Number.isFinite(r.ratio) ? r.ratio.toFixed(3) : '–'}</td><td>${cause(r.recordedBreaks)}</td><td>${cause(r.replayBreaks)}</td><td>${Object.entries(r.events).map(([k, v]) => `${v} ${esc(k)}`).join('<br>') || '–'}</td></tr>`);
  const a = f.aggregate;
  return `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`
    + `<p>Aggregate: $${a.mimicUsd.toFixed(2)} mimic / $${a.recordedUsd.toFixed(2)} recorded = <b>${a.ratio.toFixed(3)}</b> over ${a.workloads} recordings (targets: aggregate ±${Math.round(f.targets.aggregate * 100)}%, sessions of ≥${f.targets.minRequests} requests ±${Math.round(f.targets.session * 100)}%): ${f.withinTargets ? 'within the targets' : 'outside the targets'}.</p>`
    + (f.outliers.length ? `<ul>${f.outliers.map((o) => `<li>${esc(o.workload)}: ${o.ratio.toFixed(3)}: ${esc(o.why)}</li>`).join('')}</ul>` : '');
}

function eventsList(w: WorkloadReport): string {
  if (!w.events.length) return '';
  const shown = w.events.slice(0, 40).map((e) => `<li>step ${e.step}: ${esc(e.kind)}: ${esc(e.detail)}</li>`).join('');
  return `<details><summary>${w.events.length} client event${w.events.length === 1 ? '' : 's'} in the recording</summary><ul>${shown}${w.events.length > 40 ? `<li>… ${w.events.length - 40} more in the JSON</li>` : ''}</ul></details>`;
}

function anchor(name: string): string {
  return `w-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

const CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
table{border-collapse:collapse;margin:8px 0 16px}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right;vertical-align:top}
th:first-child,td:first-child,td:nth-child(2){text-align:left}figure{margin:12px 0}h2{margin-top:32px;border-top:1px solid #ddd;padding-top:16px}
.note{color:#555;font-size:13px}.flag{color:#a33;font-size:12px}nav ul{columns:2;font-size:13px}`;

/** Renders the whole report as one HTML document (charts as inline SVG). */
export async function renderHtml(report: BenchReport): Promise<string> {
  const parts: string[] = [];
  const tiny = report.workloads.filter(isTiny);
  const full = report.workloads.filter((w) => !isTiny(w));
  const toc = [
    '<li><a href="#summary">Summary</a></li>',
    ...(costRecallPoints(report).length ? ['<li><a href="#recall">Cost and recall</a></li>'] : []),
    ...(report.fidelity ? ['<li><a href="#fidelity">Fidelity</a></li>'] : []),
    ...(report.workloads.some((w) => w.estimate && w.estimate.pairs > 0) ? ['<li><a href="#counter">Token counter</a></li>'] : []),
    ...(report.unranked.length ? ['<li><a href="#unranked">Not ranked</a></li>'] : []),
    ...(report.subagents?.length ? ['<li><a href="#subagents">Subagents</a></li>'] : []),
    ...full.map((w) => `<li><a href="#${anchor(w.name)}">${esc(w.name)}</a>${w.sidechain ? ' (subagent)' : ''}</li>`),
    ...(tiny.length ? [`<li><a href="#tiny">${tiny.length} tiny workloads</a></li>`] : []),
    ...(report.skippedFiles.length ? ['<li><a href="#skipped">Files not replayed</a></li>'] : []),
  ];
  parts.push(`<h1>rein bench</h1><p class="note">${report.workloads.length} workloads × ${report.presets.length} presets: ${report.presets.map(esc).join(', ')}. Costs are simulated by rein's prompt-cache simulator. ${esc(report.prices)}. ${esc(report.efficiency)}.</p>`);
  parts.push(`<nav><h2>Contents</h2><ul>${toc.join('')}</ul></nav>`);
  const rec = report.totals[RECORDED] ? [RECORDED] : [];
  parts.push(`<h2 id="summary">Summary</h2><p class="note">Totals on the ${report.comparable.workloads.length} workloads every preset completed${report.comparable.leftOut.length ? ` (${report.comparable.leftOut.length} left out: ${report.comparable.leftOut.map(esc).join(', ')})` : ''}, cheapest preset first.</p>`);
  parts.push(summaryTable([...rec, ...report.ranking].map((preset) => ({ label: `${report.totals[preset]!.workloads} workloads`, r: { preset, summary: report.totals[preset]! } }))));
  const idle = Object.entries(report.idleStrategies ?? {}).filter(([, why]) => why.length);
  if (idle.length) parts.push(`<p class="note" id="idle-strategies">Strategies that never acted on the ranked workloads (the preset costs what it would without them):</p><ul>${idle.flatMap(([preset, why]) => why.map((w) => `<li>${esc(preset)}: ${esc(w)}</li>`)).join('')}</ul>`);
  parts.push(`<figure class="chart" data-chart="overview">${await renderSvg(overviewSpec(report))}</figure>`);
  if (costRecallPoints(report).length) {
    parts.push(`<h2 id="recall">Cost and recall</h2><p class="note">Needed-later recall: of the facts each recorded reply used that entered the conversation earlier, the share the context the preset sent still held. Closed-loop cost adds one request per lost source re-fetched at that step. The Pareto front joins the presets no other beats on both.</p>${recallHtmlTable(report, esc)}`);
    parts.push(`<figure class="chart" data-chart="cost-recall">${await renderSvg(costRecallSpec(report))}</figure>`);
  }
  if (report.fidelity) parts.push(`<h2 id="fidelity">Fidelity</h2><p class="note">Each recording beside the replay of its own client's mimic preset.</p>${fidelityTable(report.fidelity)}`);
  const est = report.workloads.filter((w) => w.estimate && w.estimate.pairs > 0);
  if (est.length) {
    const rows = est.map((w) => `<tr><td>${esc(w.name)}</td><td>${w.estimate!.pairs}</td><td>${w.estimate!.inputRatio.toFixed(3)}</td><td>${Number.isFinite(w.estimate!.inputMedianAbsError) ? `${(100 * w.estimate!.inputMedianAbsError).toFixed(1)}%` : '–'}</td><td>${w.estimate!.outputRatio.toFixed(2)}</td></tr>`).join('');
    parts.push(`<h2 id="counter">Token counter</h2><p class="note">The replay's ${esc(est[0]!.estimate!.counter)} token counter against the provider's counts: growth of the prompt between consecutive requests (counted / recorded, and the median relative error over pairs of at least 200 tokens), and reply content against the recorded output tokens.</p><table><thead><tr><th>workload</th><th>pairs</th><th>growth ratio</th><th>median |error|</th><th>output ratio</th></tr></thead><tbody>${rows}</tbody></table>`);
  }
  if (report.unranked.length) {
    parts.push(`<h2 id="unranked">Not ranked</h2><p class="note">Incomplete or failed runs: their cost covers less work than the recording, so they are left out of the totals.</p><ul>${report.unranked.map((u) => `<li>${esc(u.preset)} × ${esc(u.workload)}: ${u.status}: ${esc(u.detail)}</li>`).join('')}</ul>`);
  }
  if (report.subagents?.length) {
    const rows = report.subagents.flatMap((a) => a.runs.map((r) => `<tr data-subagent="${esc(a.child)}"><td>${esc(a.child)}</td><td>${esc(a.parent)}</td><td>${esc(r.preset)}</td><td>${fmtTokens(r.childCacheRead)}</td><td>${pctOf(r.childCacheRead, r.childPrompt)}</td><td>${fmtTokens(r.parentCacheRead)}</td><td>${pctOf(r.parentCacheRead, r.parentPrompt)}</td><td data-first-request>${r.first ? esc(firstRequestText(r, fmtTokens)) : '—'}</td></tr>`)).join('');
    parts.push(`<h2 id="subagents">Subagents</h2><p class="note">Each subagent's requests, attributed to it rather than to the agent that started it, beside that agent's: cache-read tokens and their share of all prompt tokens. For a child the workload started live, on the same simulator as its parent: its first request's cache reads against the prompt of the parent request that started it.</p><table><thead><tr><th>subagent</th><th>parent</th><th>preset</th><th>child cache read</th><th>child share</th><th>parent cache read</th><th>parent share</th><th>first request (live children)</th></tr></thead><tbody>${rows}</tbody></table>`);
  }
  for (const w of full) {
    parts.push(`<h2 id="${anchor(w.name)}">${esc(w.name)}${w.sidechain ? ' (subagent)' : ''}</h2>`);
    parts.push(`<p class="note">${esc(w.format)}${w.client ? `, ${esc(w.client)}` : ''}, model ${esc(w.model)}, ${w.steps} requests${w.prefix ? `, fixed prefix ${w.prefix.tokens} tokens (${w.prefix.sharedTokens} cached by other sessions)` : ''}${w.notes.length ? `. ${w.notes.map(esc).join('. ')}` : ''}</p>`);
    parts.push(eventsList(w));
    parts.push(summaryTable(w.runs.map((r) => ({ label: w.name, r }))));
    if (w.runs.some((r) => !r.error && r.requests.length)) {
      parts.push(`<figure class="chart" data-chart="tokens">${await renderSvg(tokensSpec(w))}</figure>`);
      parts.push(`<figure class="chart" data-chart="cost">${await renderSvg(costSpec(w))}</figure>`);
      const recall = recallOverTimeSpec(w);
      if (recall) parts.push(`<figure class="chart" data-chart="recall">${await renderSvg(recall)}</figure>`);
    }
  }
  if (tiny.length) {
    parts.push(`<h2 id="tiny">${tiny.length} tiny workloads</h2><p class="note">Workloads of at most ${TINY_WORKLOAD_REQUESTS} requests (warm-up stubs and the like), without charts.</p>`);
    parts.push(summaryTable(tiny.flatMap((w) => w.runs.map((r) => ({ label: w.name, r })))));
  }
  if (report.skippedFiles.length) {
    parts.push(`<h2 id="skipped">Files not replayed</h2><ul>${report.skippedFiles.map((f) => `<li>${esc(f.path)}: ${esc(f.reason)}</li>`).join('')}</ul>`);
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>rein bench</title><style>${CSS}</style></head><body>${parts.join('\n')}</body></html>\n`;
}

function pctOf(part: number, whole: number): string {
  return whole > 0 ? `${(100 * part / whole).toFixed(1)}%` : '–';
}

function isTiny(w: WorkloadReport): boolean {
  const rec = w.runs.find((r) => r.preset === RECORDED);
  return (rec ? rec.summary.requests : w.steps) <= TINY_WORKLOAD_REQUESTS;
}
