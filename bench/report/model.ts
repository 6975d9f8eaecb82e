/**
 * The bench report: everything `rein bench` measured, as one JSON-serialisable object. The table,
 * the JSON file and the HTML page are all rendered from it.
 */
import type { CompactionMetrics, EstimateError, RequestMetrics, RunSummary } from '../metrics/types.js';
import type { ImportStats, WorkloadFormat } from '../workloads/types.js';
import type { ClientEvent, RecordedPrefix } from '../workloads/events.js';
import type { MimicClient, MimicSizes } from '../replay/mimic.js';
import type { Fidelity } from './fidelity.js';
import type { SkippedFile } from '../workloads/load.js';
import type { SubagentRow } from './subagents.js';
import type { LiveChildRun } from '../replay/children.js';
import { idleStrategies, type StrategyActivity } from '../replay/activity.js';

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
  /** The run lost recorded steps (which, why): it is not comparable with complete runs. */
  incomplete?: { steps: number; reasons: Record<string, number>; firstSteps: number[] };
  syntheticPrompts?: number;
  terminals?: Record<string, number>;
  addedTools?: string[];
  problems?: string[];
  /** Wall time of the replay, ms. */
  durationMs?: number;
  /** The replay failed as a whole (a preset plugin threw, ...). */
  error?: string;
  /** The client this preset models (`bench.mimic`), with the prefix it sent and where its sizes came from. */
  mimic?: { client: MimicClient; sizes: MimicSizes; source: string };
  /** Children the workload started live, each beside the parent request that started it (replay/children.ts). */
  children?: LiveChildRun[];
  /** The preset's strategy plugins and how often each acted in this run (replay/activity.ts). */
  strategies?: StrategyActivity[];
}

export interface WorkloadReport {
  name: string;
  format: WorkloadFormat;
  path?: string;
  client?: string;
  model: string;
  sidechain: boolean;
  /** For a subagent's workload: the workload of the agent that started it (subagents.ts). */
  parent?: string;
  /** The parent's tool_use id that started this subagent, when the recording has it. */
  parentToolUseId?: string;
  steps: number;
  timed: boolean;
  notes: string[];
  stats: ImportStats;
  /** The replay's token counter against the provider's counts, when the recording has usage. */
  estimate?: EstimateError;
  /** The recording client (`claude-code`, `pi`, ...), from the format. */
  clientKind?: MimicClient;
  /** The client's fixed prefix as the recording shows it (events.ts). */
  prefix?: RecordedPrefix;
  /** Client events the recording shows, each at its step (events.ts). */
  events: ClientEvent[];
  runs: RunReport[];
}

/** A run left out of the totals and the ranking, with why. */
export interface UnrankedRun {
  workload: string;
  preset: string;
  /** `incomplete` (lost recorded steps) or `failed` (the replay threw). */
  status: 'incomplete' | 'failed';
  /** Steps lost, by reason; or the error. */
  detail: string;
  /** Cost of what it did send, USD (0 for a failed run). */
  costUsd: number;
}

export interface BenchReport {
  /** Tool and format version of this JSON. */
  version: 2;
  /** Preset labels in the order given. */
  presets: string[];
  workloads: WorkloadReport[];
  skippedFiles: SkippedFile[];
  /**
   * Per preset (and RECORDED): the runs added up over the comparable workloads only, those on which
   * every preset completed, so every row covers the same work.
   */
  totals: Record<string, RunSummary & { workloads: number }>;
  /** The workloads the totals cover, and those left out because some run on them was incomplete or failed. */
  comparable: { workloads: string[]; leftOut: string[] };
  /** Presets by total cost on the comparable workloads, cheapest first (the recorded row is not ranked). */
  ranking: string[];
  /** Runs that are not in the totals: incomplete or failed, each with why. */
  unranked: UnrankedRun[];
  /**
   * Per preset: its strategies that never acted on the ranked workloads, each with why
   * (`compaction never triggered: largest context 61k tokens < threshold 150k`). Such a preset costs
   * what it would without them. Presets whose strategies all acted are absent.
   */
  idleStrategies: Record<string, string[]>;
  /** Per preset with an unranked run: its runs on every workload added up, incomplete ones included (apart from the ranking). */
  allRunTotals: Record<string, RunSummary & { workloads: number; incomplete: number }>;
  /** How cache efficiency is defined (metrics/efficiency.ts). */
  efficiency: string;
  /** Each recording beside the replay of its client's mimic preset (fidelity.ts), when one ran. */
  fidelity?: Fidelity;
  /** Price table used (lib/pricing.ts). */
  prices: string;
  /** Each subagent's workload beside its parent's, with both cache reads (subagents.ts). */
  subagents?: SubagentRow[];
}

/** True when a run is complete: it did not fail and lost no recorded step. */
export function isComplete(r: RunReport): boolean {
  return !r.error && !r.incomplete;
}

/** Text of why a run is unranked: `291 steps lost (prompt_too_long 280, blocking_limit 11)`. */
export function unrankedDetail(r: RunReport): string {
  if (r.error) return r.error;
  const i = r.incomplete!;
  const why = Object.entries(i.reasons).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ');
  return `${i.steps} recorded step${i.steps === 1 ? '' : 's'} lost from step ${i.firstSteps[0] ?? '?'} (${why})`;
}

/**
 * Totals, the comparable set, the ranking and the unranked runs of a report's workloads: every
 * table, the JSON and the HTML read them from here.
 */
export function rankRuns(workloads: readonly WorkloadReport[], labels: readonly string[]): Pick<BenchReport, 'totals' | 'comparable' | 'ranking' | 'unranked' | 'allRunTotals' | 'idleStrategies'> {
  const comparable = workloads.filter((w) => w.runs.every(isComplete));
  const leftOut = workloads.filter((w) => !w.runs.every(isComplete));
  const order = [...(workloads.some((w) => w.runs.some((r) => r.preset === RECORDED)) ? [RECORDED] : []), ...labels];
  const totals: BenchReport['totals'] = {};
  for (const label of order) totals[label] = addSummaries(comparable.flatMap((w) => w.runs.filter((r) => r.preset === label)));
  const ranking = [...labels].sort((a, b) => totals[a]!.costUsd - totals[b]!.costUsd);
  const unranked: UnrankedRun[] = [];
  for (const w of workloads) for (const r of w.runs) {
    if (isComplete(r)) continue;
    unranked.push({ workload: w.name, preset: r.preset, status: r.error ? 'failed' : 'incomplete', detail: unrankedDetail(r), costUsd: r.error ? 0 : r.summary.costUsd });
  }
  const allRunTotals: BenchReport['allRunTotals'] = {};
  for (const label of new Set(unranked.map((u) => u.preset))) {
    const runs = workloads.flatMap((w) => w.runs.filter((r) => r.preset === label));
    allRunTotals[label] = { ...addSummaries(runs, true), incomplete: runs.filter((r) => r.incomplete).length };
  }
  const idle: BenchReport['idleStrategies'] = {};
  for (const label of labels) {
    const why = idleStrategies(comparable.flatMap((w) => w.runs.filter((r) => r.preset === label)));
    if (why.length) idle[label] = why;
  }
  return { totals, comparable: { workloads: comparable.map((w) => w.name), leftOut: leftOut.map((w) => w.name) }, ranking, unranked, allRunTotals, idleStrategies: idle };
}

/** Adds summaries up (efficiency and shares recomputed from the sums); failed runs are left out, and incomplete ones unless `withIncomplete`. */
export function addSummaries(runs: readonly RunReport[], withIncomplete = false): RunSummary & { workloads: number } {
  const t: RunSummary & { workloads: number } = {
    workloads: 0, requests: 0, syntheticRequests: 0, input: 0, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, output: 0,
    costUsd: 0, cacheReadShare: 0, cacheEfficiency: 1, breaks: {}, breakTokens: 0,
    compactions: { count: 0, contextEdits: 0, tokensFreed: 0, ratio: null }, peakContext: 0,
    retention: { files: null, identifiers: null, instructions: null },
    recall: null, recallCounts: { needed: 0, recalled: 0 }, refetch: { requests: 0, tokens: 0, costUsd: 0 }, closedLoopCostUsd: 0, clearings: 0,
  };
  let actual = 0;
  let ideal = 0;
  const ret = { files: [0, 0], identifiers: [0, 0], instructions: [0, 0] };
  let before = 0;
  let after = 0;
  for (const r of runs) {
    if (r.error || (r.incomplete && !withIncomplete)) continue;
    const s = r.summary;
    t.workloads++;
    t.requests += s.requests; t.syntheticRequests += s.syntheticRequests;
    t.input += s.input; t.cacheRead += s.cacheRead; t.cacheWrite5m += s.cacheWrite5m; t.cacheWrite1h += s.cacheWrite1h; t.output += s.output;
    t.costUsd += s.costUsd;
    // Summaries from older reports have no recall fields.
    if (s.recallCounts) { t.recallCounts.needed += s.recallCounts.needed; t.recallCounts.recalled += s.recallCounts.recalled; }
    t.clearings += s.clearings ?? 0;
    if (s.refetch) { t.refetch.requests += s.refetch.requests; t.refetch.tokens += s.refetch.tokens; t.refetch.costUsd += s.refetch.costUsd; }
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
  t.recall = t.recallCounts.needed > 0 ? t.recallCounts.recalled / t.recallCounts.needed : null;
  t.closedLoopCostUsd = t.costUsd + t.refetch.costUsd;
  t.compactions.ratio = before > 0 ? after / before : null;
  for (const k of ['files', 'identifiers', 'instructions'] as const) t.retention[k] = ret[k][0]! > 0 ? ret[k][1]! / ret[k][0]! : null;
  return t;
}
