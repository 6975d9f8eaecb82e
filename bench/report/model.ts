/**
 * The bench report: everything `rein bench` measured, as one JSON-serialisable object. The table,
 * the JSON file and the HTML page are all rendered from it.
 */
import type { CompactionMetrics, EstimateError, RequestMetrics, RunSummary } from '../metrics/types.js';
import type { ImportStats, WorkloadFormat } from '../workloads/types.js';
import type { SkippedFile } from '../workloads/load.js';

/** The row name used for the recording client's own numbers. */
export const RECORDED = 'recorded';

export interface RunReport {
  /** Preset name, or RECORDED for the recording client's own usage. */
  preset: string;
  /** Preset file or built-in name (absent for RECORDED). */
  source?: string;
  model: string;
  summary: RunSummary;
  requests: RequestMetrics[];
  compactions: CompactionMetrics[];
  skippedSteps?: number;
  syntheticPrompts?: number;
  terminals?: Record<string, number>;
  addedTools?: string[];
  problems?: string[];
  /** Wall time of the replay, ms. */
  durationMs?: number;
  /** The replay failed as a whole (a preset plugin threw, ...). */
  error?: string;
}

export interface WorkloadReport {
  name: string;
  format: WorkloadFormat;
  path?: string;
  client?: string;
  model: string;
  sidechain: boolean;
  steps: number;
  timed: boolean;
  notes: string[];
  stats: ImportStats;
  /** rein's token estimate against the provider's counts, when the recording has usage. */
  estimate?: EstimateError;
  runs: RunReport[];
}

export interface BenchReport {
  /** Tool and format version of this JSON. */
  version: 1;
  /** Preset labels in the order given. */
  presets: string[];
  workloads: WorkloadReport[];
  skippedFiles: SkippedFile[];
  /** Per preset (and RECORDED): the runs of every workload added up. */
  totals: Record<string, RunSummary & { workloads: number }>;
  /** Price table used (kernel/pricing.ts). */
  prices: string;
}

/** Adds summaries up (efficiency and shares recomputed from the sums). */
export function addSummaries(runs: readonly RunReport[]): RunSummary & { workloads: number } {
  const t: RunSummary & { workloads: number } = {
    workloads: 0, requests: 0, syntheticRequests: 0, input: 0, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, output: 0,
    costUsd: 0, cacheReadShare: 0, cacheEfficiency: 1, breaks: {}, breakTokens: 0,
    compactions: { count: 0, contextEdits: 0, tokensFreed: 0, ratio: null }, peakContext: 0,
    retention: { files: null, identifiers: null, instructions: null },
  };
  let actual = 0;
  let ideal = 0;
  const ret = { files: [0, 0], identifiers: [0, 0], instructions: [0, 0] };
  let before = 0;
  let after = 0;
  for (const r of runs) {
    if (r.error) continue;
    const s = r.summary;
    t.workloads++;
    t.requests += s.requests; t.syntheticRequests += s.syntheticRequests;
    t.input += s.input; t.cacheRead += s.cacheRead; t.cacheWrite5m += s.cacheWrite5m; t.cacheWrite1h += s.cacheWrite1h; t.output += s.output;
    t.costUsd += s.costUsd;
    for (const [k, v] of Object.entries(s.breaks)) t.breaks[k] = (t.breaks[k] ?? 0) + v;
    t.breakTokens += s.breakTokens;
    t.compactions.count += s.compactions.count; t.compactions.contextEdits += s.compactions.contextEdits; t.compactions.tokensFreed += s.compactions.tokensFreed;
    t.peakContext = Math.max(t.peakContext, s.peakContext);
    for (const q of r.requests) { actual += q.inputCostUsd; ideal += q.idealInputCostUsd; }
    for (const c of r.compactions) {
      before += c.tokensBefore; after += c.tokensAfter;
      if (c.retention) for (const k of ['files', 'identifiers', 'instructions'] as const) { ret[k][0]! += c.retention[k].seen; ret[k][1]! += c.retention[k].kept; }
    }
  }
  const prompt = t.input + t.cacheRead + t.cacheWrite5m + t.cacheWrite1h;
  t.cacheReadShare = prompt > 0 ? t.cacheRead / prompt : 0;
  t.cacheEfficiency = actual > 0 ? ideal / actual : 1;
  t.compactions.ratio = before > 0 ? after / before : null;
  for (const k of ['files', 'identifiers', 'instructions'] as const) t.retention[k] = ret[k][0]! > 0 ? ret[k][1]! / ret[k][0]! : null;
  return t;
}
