/**
 * The fidelity report: each recording beside the replay of its own client's mimic preset (a preset
 * with `bench.mimic` equal to the recording's client), so a reader can see how close the replay
 * comes to the provider-billed cost before trusting any comparison made with it.
 *
 * Per session: recorded and mimic cost and their ratio, the recorded cache breaks by cause next to
 * the replay's, the client events found, and the recorded breaks no cause the replay models
 * explains (a server-side miss, or a client change the recording does not show). Aggregate: the
 * ratio of the sums. Targets: aggregate within ±5%, each session of at least 20 requests within
 * ±15%. Incomplete or failed mimic runs are listed and left out of the aggregate.
 */
import Table from 'cli-table3';
import { RECORDED_CAUSES } from '../workloads/events.js';
import { RECORDED, type WorkloadReport } from './model.js';
import type { BenchReport } from './model.js';
import { wrapName } from './table.js';

/** Aggregate target: mimic / recorded within 1 ± this. */
export const AGGREGATE_TOLERANCE = 0.05;
/** Per-session target for sessions with at least MIN_SESSION_REQUESTS requests. */
export const SESSION_TOLERANCE = 0.15;
export const MIN_SESSION_REQUESTS = 20;

export interface FidelityRow {
  workload: string;
  client: string;
  /** The mimic preset's label. */
  preset: string;
  requests: number;
  recordedUsd: number;
  mimicUsd: number;
  /** mimic / recorded. */
  ratio: number;
  /** The session counts toward the per-session target (≥ MIN_SESSION_REQUESTS requests). */
  checked: boolean;
  /** Recorded cache breaks by cause, and the replay's. */
  recordedBreaks: Record<string, number>;
  replayBreaks: Record<string, number>;
  /** Recorded breaks with no cause the replay can model. */
  unexplained: number;
  /** Client events found, by kind. */
  events: Record<string, number>;
  /** The mimic run lost steps or failed: not in the aggregate. */
  unranked?: string;
}

export interface Fidelity {
  rows: FidelityRow[];
  aggregate: { recordedUsd: number; mimicUsd: number; ratio: number; workloads: number };
  targets: { aggregate: number; session: number; minRequests: number };
  /** Aggregate within its target and every checked session within its own. */
  withinTargets: boolean;
  /** Checked sessions outside ±SESSION_TOLERANCE, with why when the recording shows unexplained breaks. */
  outliers: { workload: string; ratio: number; why: string }[];
}

function mimicRun(w: WorkloadReport) {
  return w.clientKind ? w.runs.find((r) => r.mimic?.client === w.clientKind) : undefined;
}

/** The fidelity report of some workloads, or undefined when no mimic preset replayed a recording of its client. */
export function fidelityOf(workloads: readonly WorkloadReport[]): Fidelity | undefined {
  const rows: FidelityRow[] = [];
  for (const w of workloads) {
    const rec = w.runs.find((r) => r.preset === RECORDED);
    const run = mimicRun(w);
    if (!rec || !run) continue;
    const events: Record<string, number> = {};
    for (const e of w.events) events[e.kind] = (events[e.kind] ?? 0) + 1;
    const row: FidelityRow = {
      workload: w.name, client: w.clientKind!, preset: run.preset, requests: rec.summary.requests,
      recordedUsd: rec.summary.costUsd, mimicUsd: run.error ? 0 : run.summary.costUsd,
      ratio: rec.summary.costUsd > 0 && !run.error ? run.summary.costUsd / rec.summary.costUsd : NaN,
      checked: rec.summary.requests >= MIN_SESSION_REQUESTS,
      recordedBreaks: rec.summary.breaks, replayBreaks: run.error ? {} : run.summary.breaks,
      unexplained: rec.summary.breaks[RECORDED_CAUSES.unexplained] ?? 0,
      events,
    };
    if (run.error) row.unranked = `failed: ${run.error}`;
    else if (run.incomplete) row.unranked = `incomplete: ${run.incomplete.steps} steps lost`;
    rows.push(row);
  }
  if (!rows.length) return undefined;
  const counted = rows.filter((r) => !r.unranked);
  const recordedUsd = counted.reduce((a, r) => a + r.recordedUsd, 0);
  const mimicUsd = counted.reduce((a, r) => a + r.mimicUsd, 0);
  const ratio = recordedUsd > 0 ? mimicUsd / recordedUsd : NaN;
  const outliers = rows.filter((r) => r.checked && !r.unranked && Math.abs(r.ratio - 1) > SESSION_TOLERANCE).map((r) => ({
    workload: r.workload, ratio: r.ratio,
    why: r.unexplained ? `${r.unexplained} recorded cache break${r.unexplained === 1 ? '' : 's'} with no cause the replay can model` : 'no recorded break left unexplained: the difference is in prompt sizes',
  }));
  const withinTargets = Math.abs(ratio - 1) <= AGGREGATE_TOLERANCE && outliers.length === 0 && rows.every((r) => !r.checked || !r.unranked);
  return {
    rows,
    aggregate: { recordedUsd, mimicUsd, ratio, workloads: counted.length },
    targets: { aggregate: AGGREGATE_TOLERANCE, session: SESSION_TOLERANCE, minRequests: MIN_SESSION_REQUESTS },
    withinTargets,
    outliers,
  };
}

/** Sessions of at most this many requests are folded into one row of the table. */
const TINY = 5;

function sum(o: Record<string, number>): number {
  return Object.values(o).reduce((a, b) => a + b, 0);
}

function cut(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** The fidelity table as text (≤ 100 columns), or '' when there is no fidelity report. */
export function fidelityLines(report: BenchReport, color: boolean): string {
  const f = report.fidelity;
  if (!f) return '';
  const style = color ? {} : { head: [], border: [] };
  const t = new Table({ head: ['session', 'mimic', 'req', 'recorded $', 'mimic $', 'ratio', 'breaks', 'events'], colWidths: [22, 12, 6, 12, 10, 7, 9, 13], style });
  const short: Record<string, string> = { 'model switch': 'M', 'thinking change': 'T', 'context cleared': 'C', restart: 'R', 'aborted request': 'A' };
  const tiny = f.rows.filter((r) => r.requests <= TINY);
  for (const r of f.rows) {
    if (r.requests <= TINY) continue;
    const ev = Object.entries(r.events).map(([k, v]) => `${v}${short[k] ?? k}`).join(' ');
    t.push([wrapName(r.workload, 20), wrapName(r.preset, 10), String(r.requests), r.recordedUsd.toFixed(2), r.unranked ? 'n/a' : r.mimicUsd.toFixed(2), r.unranked ? cut(r.unranked, 5) : `${r.ratio.toFixed(2)}${r.checked && Math.abs(r.ratio - 1) > f.targets.session ? '!' : ''}`, `${sum(r.recordedBreaks)}/${sum(r.replayBreaks)}`, cut(ev || '–', 12)]);
  }
  if (tiny.length) {
    const rec = tiny.reduce((a, r) => a + r.recordedUsd, 0);
    const mim = tiny.reduce((a, r) => a + r.mimicUsd, 0);
    t.push([`${tiny.length} tiny (≤${TINY} req.)`, '', String(tiny.reduce((a, r) => a + r.requests, 0)), rec.toFixed(2), mim.toFixed(2), rec > 0 ? (mim / rec).toFixed(2) : '–', '', '']);
  }
  const a = f.aggregate;
  const head = `Fidelity: each recording beside its client's mimic (targets: aggregate ±${Math.round(f.targets.aggregate * 100)}%, sessions of ≥${f.targets.minRequests} requests ±${Math.round(f.targets.session * 100)}%):`;
  const foot = [`Breaks: recorded/replayed cache breaks. Events: R restart, T thinking change, M model switch, C context cleared, A aborted request.`, `Aggregate: $${a.mimicUsd.toFixed(2)} mimic / $${a.recordedUsd.toFixed(2)} recorded = ${a.ratio.toFixed(3)} over ${a.workloads} recordings; ${f.withinTargets ? 'within the targets' : 'outside the targets'}.`];
  for (const o of f.outliers) foot.push(`- ${o.workload}: ${o.ratio.toFixed(2)}: ${o.why}`);
  const unexplained = f.rows.reduce((n, r) => n + r.unexplained, 0);
  if (unexplained) foot.push(`${unexplained} recorded cache break${unexplained === 1 ? '' : 's'} had no cause the replay can model (server-side, or a client change the recording does not show); events per step are in the JSON.`);
  return `${head}\n${t.toString()}\n${foot.join('\n')}`;
}
