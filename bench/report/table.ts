/**
 * The stdout table of `rein bench`: one row per workload and preset (the recording client's own
 * numbers first), then the totals per preset, then what the importers skipped and why.
 */
import Table from 'cli-table3';
import { RECORDED, type BenchReport, type RunReport } from './model.js';
import type { RunSummary } from '../metrics/types.js';

/** Compact token count: 1234 → 1.2k, 3_450_000 → 3.45M. */
export function fmtTokens(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e7 ? 1 : 2)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(n >= 1e4 ? 0 : 1)}k`;
  return String(Math.round(n));
}

function pct(x: number | null | undefined): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '–' : `${(x * 100).toFixed(0)}%`;
}

function breaksText(b: Record<string, number>): string {
  const parts = Object.entries(b).sort((x, y) => y[1] - x[1]).map(([k, v]) => `${v} ${k}`);
  return parts.length ? parts.join(', ') : '0';
}

function compactText(s: RunSummary): string {
  const c = s.compactions;
  if (!c.count && !c.contextEdits) return '0';
  const parts = [];
  if (c.count) parts.push(`${c.count}`);
  if (c.contextEdits) parts.push(`${c.contextEdits} edits`);
  return `${parts.join(' + ')} (−${fmtTokens(c.tokensFreed)}${c.ratio !== null ? `, ×${c.ratio.toFixed(2)}` : ''})`;
}

function retentionText(s: RunSummary): string {
  const r = s.retention;
  if (r.files === null && r.identifiers === null && r.instructions === null) return '–';
  return `${pct(r.files)}/${pct(r.identifiers)}/${pct(r.instructions)}`;
}

const HEAD = ['workload', 'preset', 'req', 'cost $', 'read %', 'cache eff.', 'breaks (cause)', 'compactions (freed, ratio)', 'peak ctx', 'kept f/id/instr'];

function row(name: string, r: RunReport | { preset: string; summary: RunSummary; error?: string }): string[] {
  if (r.error) return [name, r.preset, '–', '–', '–', '–', `failed: ${r.error}`, '', '', ''];
  const s = r.summary;
  const synth = s.syntheticRequests ? `+${s.syntheticRequests}` : '';
  return [name, r.preset, `${s.requests - s.syntheticRequests}${synth}`, s.costUsd.toFixed(2), pct(s.cacheReadShare), s.cacheEfficiency.toFixed(3), breaksText(s.breaks), compactText(s), fmtTokens(s.peakContext), retentionText(s)];
}

/** Renders the report as text tables. `color: false` for files and tests. */
export function renderTable(report: BenchReport, options: { color?: boolean; width?: number } = {}): string {
  const style = options.color ? {} : { head: [], border: [] };
  const t = new Table({ head: HEAD, style, wordWrap: true, colWidths: [28, 14, 7, 9, 7, 7, 30, 24, 9, 14] });
  for (const w of report.workloads) {
    const label = `${w.name}${w.sidechain ? ' (sub)' : ''}`;
    for (const r of w.runs) t.push(row(label, r));
  }
  const out = [t.toString()];
  const tt = new Table({ head: ['all workloads', 'preset', 'req', 'cost $', 'read %', 'cache eff.', 'breaks (cause)', 'compactions (freed, ratio)', 'peak ctx', 'kept f/id/instr'], style, wordWrap: true, colWidths: [28, 14, 7, 9, 7, 7, 30, 24, 9, 14] });
  for (const [preset, s] of Object.entries(report.totals)) tt.push(row(`${s.workloads} workload${s.workloads === 1 ? '' : 's'}`, { preset, summary: s }));
  out.push(tt.toString());
  const est = report.workloads.filter((w) => w.estimate && w.estimate.pairs > 0);
  if (est.length) {
    const e = new Table({ head: ['workload', 'pairs', 'est/recorded growth', 'median |err|', 'est/recorded output'], style });
    for (const w of est) e.push([w.name, String(w.estimate!.pairs), w.estimate!.inputRatio.toFixed(2), pct(w.estimate!.inputMedianAbsError), w.estimate!.outputRatio.toFixed(2)]);
    out.push('rein token estimate vs the provider\'s counts on the same content:\n' + e.toString());
  }
  const notes: string[] = [];
  for (const w of report.workloads) {
    const skipped = Object.entries(w.stats.skipped);
    if (skipped.length || w.notes.length || w.stats.malformed) {
      notes.push(`${w.name}: ${w.stats.lines} lines, ${w.steps} requests` +
        (skipped.length ? `; skipped ${skipped.map(([k, v]) => `${v} × ${k}`).join('; ')}` : '') +
        (w.notes.length ? `; ${w.notes.join('; ')}` : ''));
    }
    for (const r of w.runs) {
      if (r.preset === RECORDED) continue;
      const extra: string[] = [];
      if (r.skippedSteps) extra.push(`${r.skippedSteps} recorded steps not sent (the preset ended their turn early)`);
      if (r.syntheticPrompts) extra.push(`${r.syntheticPrompts} turns started with "Continue."`);
      if (r.addedTools?.length) extra.push(`tools added from the recording: ${r.addedTools.join(', ')}`);
      if (r.problems?.length) extra.push(`problems: ${r.problems.slice(0, 3).join('; ')}${r.problems.length > 3 ? ' …' : ''}`);
      if (extra.length) notes.push(`${w.name} × ${r.preset}: ${extra.join('; ')}`);
    }
  }
  for (const f of report.skippedFiles) notes.push(`file not replayed: ${f.path}: ${f.reason}`);
  if (notes.length) out.push(notes.map((n) => `- ${n}`).join('\n'));
  out.push(`Prices: ${report.prices}. Cache efficiency: ideal input cost (every prompt token written once at 1.25×, read at 0.1× after, TTL ignored) / actual.`);
  return out.join('\n\n');
}
