/**
 * The stdout report of `rein bench`, summary first and at most `MAX_WIDTH` columns wide:
 * 1. the totals per preset on the workloads every preset completed, cheapest first;
 * 2. the fidelity table (client mimics beside the recordings), when a mimic preset ran;
 * 3. runs left out of the totals (incomplete or failed), with why;
 * 4. cost per workload and preset (tiny workloads folded into one line);
 * 5. a short list of notes (the token counter's error, what the importers skipped, problems).
 * Everything else (per-request metrics, breaks by cause, compactions, retention, every skip
 * reason) is in the JSON and the HTML report.
 */
import Table from 'cli-table3';
import { firstRequestText } from './subagents.js';
import { RECORDED, type BenchReport, type RunReport, type WorkloadReport } from './model.js';
import type { RunSummary } from '../metrics/types.js';
import { fidelityLines } from './fidelity.js';
import { recallTable } from './recall.js';
import { fitColumns, wrapName } from './columns.js';

/** Widest line the table prints, columns. */
export const MAX_WIDTH = 100;
/** Workloads with at most this many recorded requests are folded into one row. */
export const TINY_WORKLOAD_REQUESTS = 5;
/** Presets per cost table (more are split over several tables to stay within MAX_WIDTH). */
const PRESETS_PER_TABLE = 4;
/** Width of a cost cell (`27.47 ×0.64` and padding), columns. */
const CELL = 13;

/** Compact token count: 1234 → 1.2k, 3_450_000 → 3.45M. */
export function fmtTokens(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e7 ? 1 : 2)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(n >= 1e4 ? 0 : 1)}k`;
  return String(Math.round(n));
}

export function pct(x: number | null | undefined): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '–' : `${(x * 100).toFixed(0)}%`;
}

export { wrapName };

function breakCount(b: Record<string, number>): number {
  return Object.values(b).reduce((a, x) => a + x, 0);
}

function compactText(s: RunSummary): string {
  const c = s.compactions;
  if (!c.count && !c.contextEdits) return '0';
  return [c.count ? `${c.count}` : '', c.contextEdits ? `${c.contextEdits} edits` : ''].filter(Boolean).join(' + ');
}

function tableStyle(color: boolean) {
  return color ? {} : { head: [], border: [] };
}

function ratio(a: number, b: number | undefined): string {
  return b && b > 0 ? `×${(a / b).toFixed(2)}` : '–';
}

/** The totals table: one row per preset (recorded first), cheapest preset first. */
function totalsTable(report: BenchReport, color: boolean): string {
  const rec = report.totals[RECORDED];
  const rows: string[][] = [];
  for (const label of [...(rec ? [RECORDED] : []), ...report.ranking]) {
    const s = report.totals[label]!;
    const synth = s.syntheticRequests ? `+${s.syntheticRequests}` : '';
    rows.push([label, `${s.requests - s.syntheticRequests}${synth}`, s.costUsd.toFixed(2), label === RECORDED ? '' : ratio(s.costUsd, rec?.costUsd), pct(s.cacheReadShare), s.cacheEfficiency.toFixed(3), String(breakCount(s.breaks)), compactText(s), fmtTokens(s.peakContext)]);
  }
  const fit = fitColumns(['preset', 'req', 'cost $', 'vs rec.', 'read %', 'eff.', 'breaks', 'compactions', 'peak ctx'], rows, { maxWidth: MAX_WIDTH, minName: 14, maxName: 30 });
  const t = new Table({ head: fit.head, colWidths: fit.colWidths, style: tableStyle(color) });
  for (const r of fit.rows) t.push(r);
  const n = report.comparable.workloads.length;
  const left = report.comparable.leftOut.length;
  const head = `Totals on ${n} workload${n === 1 ? '' : 's'}${left ? ` (${left} left out: a run on them was incomplete or failed)` : ''}, cheapest preset first:`;
  return `${head}\n${t.toString()}${rec && report.ranking.length ? `\n${vsRecordedNote(report)}` : ''}`;
}

/**
 * What `vs rec.` holds besides the preset's strategies: the replay's own distance from what the
 * provider billed, which only a client mimic's run measures (fidelity.ts). Without one the note says
 * it is not measured, so a gap to the recording is not read as a strategy's saving.
 */
export function vsRecordedNote(report: BenchReport): string {
  const f = report.fidelity;
  const base = 'vs rec.: ÷ what the provider billed the recorded clients. It includes the replay\'s own error';
  if (!f || !f.aggregate.workloads) return `${base}, not measured in this run: add the recording client's mimic preset (bench/presets/claude-code-like.yaml, pi-like.yaml) for a fidelity table, and compare presets with each other on the same replay.`;
  const sessions = f.rows.filter((r) => r.checked && !r.unranked && Number.isFinite(r.ratio)).map((r) => r.ratio);
  const range = sessions.length ? `, ${Math.min(...sessions).toFixed(2)}–${Math.max(...sessions).toFixed(2)} per session of ≥${f.targets.minRequests} requests` : '';
  return `${base}: mimic ÷ recorded = ${f.aggregate.ratio.toFixed(3)} over ${f.aggregate.workloads === 1 ? 'the 1 recording' : `the ${f.aggregate.workloads} recordings`} a mimic replayed${range} (fidelity table). Compare presets with each other and with the mimics, on the same replay.`;
}

function isTiny(w: WorkloadReport): boolean {
  const rec = w.runs.find((r) => r.preset === RECORDED);
  return (rec ? rec.summary.requests : w.steps) <= TINY_WORKLOAD_REQUESTS;
}

/**
 * A workload's cost for one run, with its ratio to `base`'s cost (the recording, or the workload's
 * mimic: costTables), or `tag` in its place: on a second line when both do not fit the cell, never
 * cut short.
 */
export function costCell(r: RunReport | undefined, base: RunReport | undefined, tag?: string): string {
  if (!r) return '';
  if (r.error) return 'failed';
  const cost = `${r.summary.costUsd.toFixed(2)}${r.incomplete ? '*' : ''}`;
  const x = tag ?? (!base || r.preset === RECORDED ? undefined : ratio(r.summary.costUsd, base.summary.costUsd));
  if (x === undefined) return cost;
  return cost.length + 1 + x.length <= CELL - 2 ? `${cost} ${x}` : `${cost}\n${x}`;
}

/**
 * Each workload's own-client mimic run (the fidelity table's), by workload name, when it replayed
 * every step: the base a preset's cost is compared with on the same replay.
 */
function mimicRuns(report: BenchReport): Map<string, RunReport> {
  const out = new Map<string, RunReport>();
  for (const row of report.fidelity?.rows ?? []) {
    if (row.unranked) continue;
    const run = report.workloads.find((w) => w.name === row.workload)?.runs.find((r) => r.preset === row.preset);
    if (run && !run.error && !run.incomplete) out.set(row.workload, run);
  }
  return out;
}

/** Cost per workload and preset, tiny workloads folded into one row; split when there are many presets. */
function costTables(report: BenchReport, color: boolean): string {
  const hasRec = report.workloads.some((w) => w.runs.some((r) => r.preset === RECORDED));
  const mimics = mimicRuns(report);
  const out: string[] = [];
  for (let k = 0; k < report.presets.length; k += PRESETS_PER_TABLE) {
    const presets = report.presets.slice(k, k + PRESETS_PER_TABLE);
    const cols = [...(hasRec ? [RECORDED] : []), ...presets];
    // Borders: one more than the columns.
    const nameWidth = Math.min(28, MAX_WIDTH - cols.length * CELL - (cols.length + 2));
    const t = new Table({ head: ['workload', ...cols.map((c) => wrapName(c, CELL - 2))], colWidths: [nameWidth, ...cols.map(() => CELL)], style: tableStyle(color) });
    const tiny = report.workloads.filter(isTiny);
    for (const w of report.workloads) {
      if (isTiny(w)) continue;
      const rec = w.runs.find((r) => r.preset === RECORDED);
      // With mimics in the run, a ratio is to the workload's mimic, so the replay's own error
      // (mimic ÷ recorded) is not read as a strategy's saving; no ratio where no mimic replayed it.
      const mimic = mimics.get(w.name);
      const cell = (c: string) => {
        const r = w.runs.find((x) => x.preset === c);
        if (!mimics.size) return costCell(r, rec);
        if (c === RECORDED) return costCell(r, undefined);
        return r === mimic ? costCell(r, undefined, 'mimic') : costCell(r, mimic);
      };
      t.push([wrapName(`${w.name}${w.sidechain ? ' (sub)' : ''}`, nameWidth - 2), ...cols.map(cell)]);
    }
    if (tiny.length) {
      const sum = (label: string) => tiny.reduce((a, w) => a + (w.runs.find((r) => r.preset === label)?.summary.costUsd ?? 0), 0);
      t.push([wrapName(`${tiny.length} tiny (≤${TINY_WORKLOAD_REQUESTS} req.)`, nameWidth - 2), ...cols.map((c) => sum(c).toFixed(2))]);
    }
    out.push(t.toString());
  }
  const what = mimics.size
    ? '× the cost of the workload\'s own-client mimic on the same replay, so the replay\'s own error is not in it; none where no mimic replayed the workload'
    : '× the recorded cost, which includes the replay\'s own error: add the recording client\'s mimic preset to compare with it instead';
  return `Cost per workload, $ (${what}; * = incomplete run, not in the totals):\n${out.join('\n')}`;
}

/** Renders the report as text (≤ MAX_WIDTH columns). `color: false` for files and tests. */
export function renderTable(report: BenchReport, options: { color?: boolean } = {}): string {
  const color = options.color === true;
  const requests = report.workloads.reduce((a, w) => a + w.steps, 0);
  const out: string[] = [];
  out.push(`rein bench: ${report.workloads.length} workload${report.workloads.length === 1 ? '' : 's'} (${requests} recorded requests) × ${report.presets.length} preset${report.presets.length === 1 ? '' : 's'}. Costs are simulated by rein's prompt-cache simulator.`);
  out.push(totalsTable(report, color));
  const idle = idleLines(report);
  if (idle) out.push(idle);
  out.push(recallTable(report, color));
  const fidelity = fidelityLines(report, color);
  if (fidelity) out.push(fidelity);
  if (report.unranked.length) {
    out.push(['Not ranked (their cost covers less work than the recording):', ...report.unranked.map((u) => `- ${u.preset} × ${u.workload}: ${u.status}: ${u.detail}${u.status === 'incomplete' ? `; $${u.costUsd.toFixed(2)} for what it sent` : ''}`)].join('\n'));
  }
  out.push(costTables(report, color));
  if (report.subagents?.length) {
    out.push(['Subagents (their own requests; cache-read tokens, child beside parent):', ...report.subagents.flatMap((a) => a.runs.map((r) => `- ${a.child} (of ${a.parent}) × ${r.preset}: child ${fmtTokens(r.childCacheRead)} of ${fmtTokens(r.childPrompt)} read from cache, parent ${fmtTokens(r.parentCacheRead)} of ${fmtTokens(r.parentPrompt)}${r.first ? `; ${firstRequestText(r, fmtTokens)}` : ''}`))].join('\n'));
  }
  out.push(notes(report).map((n) => `- ${n}`).join('\n'));
  out.push(`${report.efficiency}. Prices: ${report.prices}. Per-request detail, breaks by cause, each problem and every skip reason: --json / --html.`);
  return out.filter(Boolean).map(wrapLines).join('\n\n');
}

/**
 * Per preset, its strategies that never acted on the ranked workloads, with why: such a preset
 * costs what it would without them, so two presets that differ only there rank equal.
 */
export function idleLines(report: BenchReport): string {
  const entries = Object.entries(report.idleStrategies ?? {}).filter(([, why]) => why.length);
  if (!entries.length) return '';
  return ['Strategies that never acted on the ranked workloads (the preset costs what it would without them):', ...entries.flatMap(([preset, why]) => why.map((w) => `- ${preset}: ${w}`))].join('\n');
}

/** Reasons load.ts gives for files left out by design, not for lack of a readable session. */
const EXPECTED_SKIP = /^(documentation, not a session|a run result|same session as|same subagent as)/;

/** Short notes: the counter's error, importer skips in one line each, files not replayed, problems. */
function notes(report: BenchReport): string[] {
  const out: string[] = [];
  const est = report.workloads.filter((w) => w.estimate && w.estimate.pairs > 0);
  if (est.length) {
    let pairs = 0;
    let worst = 0;
    for (const w of est) { pairs += w.estimate!.pairs; worst = Math.max(worst, w.estimate!.inputMedianAbsError || 0); }
    const ratios = est.map((w) => w.estimate!.inputRatio).filter(Number.isFinite);
    out.push(`token counter (${est[0]!.estimate!.counter}) vs the provider's counts: prompt growth ratio ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)} per workload, median |error| up to ${pct(worst)} (${pairs} request pairs)`);
  }
  // One line per workload whatever the number of presets: the detail (each problem, each skip
  // reason) is in the JSON and the HTML.
  for (const w of report.workloads) {
    const parts: string[] = [];
    const skipped = Object.values(w.stats.skipped).reduce((a, b) => a + b, 0);
    if (skipped || w.stats.malformed) parts.push(`${w.stats.lines} lines, ${w.steps} requests, ${skipped} lines not replayed${w.stats.malformed ? ` (${malformedLines(w.stats)})` : ''}`);
    const runs = w.runs.filter((r) => r.preset !== RECORDED);
    const added = [...new Set(runs.flatMap((r) => r.addedTools ?? []))];
    if (added.length) parts.push(`tools added from the recording: ${added.join(', ')}`);
    const synthetic = runs.filter((r) => r.syntheticPrompts).map((r) => `${r.preset} ${r.syntheticPrompts}`);
    if (synthetic.length) parts.push(`turns started with "Continue.": ${synthetic.join(', ')}`);
    const problems = runs.filter((r) => r.problems?.length).map((r) => `${r.preset} ${r.problems!.length}`);
    if (problems.length) parts.push(`problems: ${problems.join(', ')}`);
    if (parts.length) out.push(`${w.name}: ${parts.join('; ')}`);
  }
  // Files left out by design are counted; a file that could not be read or imported is named with
  // why, since the totals lack it.
  const expected = report.skippedFiles.filter((f) => EXPECTED_SKIP.test(f.reason));
  for (const f of report.skippedFiles) if (!expected.includes(f)) out.push(`not replayed: ${f.path}: ${f.reason}`);
  if (expected.length) out.push(`${expected.length} file${expected.length === 1 ? '' : 's'} not replayed (documentation, run results, the same session in another format): listed in the JSON`);
  return out;
}

/** Wraps prose lines longer than MAX_WIDTH at spaces (table lines are already narrow). */
export function wrapLines(block: string): string {
  return block.split('\n').map((line) => {
    if (line.length <= MAX_WIDTH || /^[\u2502\u250c\u251c\u2514]/.test(line)) return line;
    const indent = line.startsWith('- ') ? '  ' : '';
    const words = line.split(' ');
    const lines: string[] = [];
    let cur = '';
    for (const word of words) {
      if (cur && cur.length + 1 + word.length > MAX_WIDTH) { lines.push(cur); cur = indent + word; } else cur = cur ? `${cur} ${word}` : word;
    }
    if (cur) lines.push(cur);
    return lines.map((l) => (l.length > MAX_WIDTH ? l.slice(0, MAX_WIDTH - 1) + '…' : l)).join('\n');
  }).join('\n');
}

/** The malformed lines of a workload: how many, and the first line numbers the import kept. */
function malformedLines(stats: WorkloadReport['stats']): string {
  const lines = stats.examples.filter((e) => e.line !== undefined && e.reason.startsWith('malformed')).map((e) => e.line!);
  const n = stats.malformed;
  return `${n} malformed${lines.length ? `: line${n === 1 ? '' : 's'} ${lines.join(', ')}${n > lines.length ? ', …' : ''}` : ''}`;
}
