/**
 * Per-run summaries, and the metrics of a recording as its own client reported them (the
 * "recorded" row every table shows beside the presets).
 */
import { promptTokens, type Workload } from '../workloads/types.js';
import { isBreak, recordedBreakCause } from './breaks.js';
import { actualInputCost, applyIdealCosts, efficiencyOf, requestCost } from './efficiency.js';
import type { CompactionMetrics, RequestMetrics, RunSummary } from './types.js';

/** Summarises a run's requests and compactions. */
export function summarize(requests: readonly RequestMetrics[], compactions: readonly CompactionMetrics[] = []): RunSummary {
  const s: RunSummary = {
    requests: requests.length,
    syntheticRequests: 0,
    input: 0, cacheRead: 0, cacheWrite5m: 0, cacheWrite1h: 0, output: 0,
    costUsd: 0,
    cacheReadShare: 0,
    cacheEfficiency: efficiencyOf(requests),
    breaks: {},
    breakTokens: 0,
    compactions: { count: 0, contextEdits: 0, tokensFreed: 0, ratio: null },
    peakContext: 0,
    retention: { files: null, identifiers: null, instructions: null },
    recall: null,
    recallCounts: { needed: 0, recalled: 0 },
    refetch: { requests: 0, tokens: 0, costUsd: 0 },
    closedLoopCostUsd: 0,
    clearings: 0,
  };
  for (const r of requests) {
    if (r.apiClearing) s.clearings++;
    if (r.recall) { s.recallCounts.needed += r.recall.needed; s.recallCounts.recalled += r.recall.recalled; }
    if (r.refetch) { s.refetch.requests += r.refetch.requests; s.refetch.tokens += r.refetch.tokens; s.refetch.costUsd += r.refetch.costUsd; }
    if (r.synthetic) s.syntheticRequests++;
    s.input += r.input;
    s.cacheRead += r.cacheRead;
    s.cacheWrite5m += r.cacheWrite5m;
    s.cacheWrite1h += r.cacheWrite1h;
    s.output += r.output;
    s.costUsd += r.costUsd;
    if (r.source === 'main_loop' || r.source === 'subagent') s.peakContext = Math.max(s.peakContext, r.promptTokens);
    if (r.breakCause) {
      s.breaks[r.breakCause] = (s.breaks[r.breakCause] ?? 0) + 1;
      s.breakTokens += r.breakTokens ?? 0;
    }
  }
  const prompt = s.input + s.cacheRead + s.cacheWrite5m + s.cacheWrite1h;
  s.cacheReadShare = prompt > 0 ? s.cacheRead / prompt : 0;
  s.recall = s.recallCounts.needed > 0 ? s.recallCounts.recalled / s.recallCounts.needed : null;
  s.closedLoopCostUsd = s.costUsd + s.refetch.costUsd;
  let before = 0;
  let after = 0;
  const seen = { files: 0, identifiers: 0, instructions: 0 };
  const kept = { files: 0, identifiers: 0, instructions: 0 };
  for (const c of compactions) {
    if (c.kind === 'compaction') s.compactions.count++;
    else s.compactions.contextEdits++;
    s.compactions.tokensFreed += Math.max(0, c.tokensBefore - c.tokensAfter);
    before += c.tokensBefore;
    after += c.tokensAfter;
    if (c.retention) {
      for (const k of ['files', 'identifiers', 'instructions'] as const) {
        seen[k] += c.retention[k].seen;
        kept[k] += c.retention[k].kept;
      }
    }
  }
  s.compactions.ratio = before > 0 ? after / before : null;
  s.clearings += s.compactions.contextEdits;
  for (const k of ['files', 'identifiers', 'instructions'] as const) s.retention[k] = seen[k] > 0 ? kept[k] / seen[k] : null;
  return s;
}

/**
 * Request metrics of a recording from the provider usage it carries (steps without usage are left
 * out). Breaks are found on the recorded cache reads, their causes given by `causes` (step index →
 * cause, workloads/events.ts) or else from the gap alone; the ideal cost follows efficiency.ts (the
 * same formula as for replays). Recorded compactions count, with the sizes the client reported.
 */
export function recordedMetrics(w: Workload, causes?: ReadonlyMap<number, string>): { requests: RequestMetrics[]; compactions: CompactionMetrics[] } {
  const requests: RequestMetrics[] = [];
  const compactions: CompactionMetrics[] = [];
  let prev: { prompt: number; read: number; at: number } | undefined;
  let compactedSincePrev = false;
  for (const step of w.steps) {
    if (step.compactionBefore) {
      compactedSincePrev = true;
      const c = step.compactionBefore;
      compactions.push({ kind: 'compaction', strategy: `recorded:${c.trigger}`, afterRequest: requests.length, tokensBefore: c.tokensBefore ?? 0, tokensAfter: 0 });
    }
    const u = step.usage;
    if (!u) continue;
    const prompt = promptTokens(u);
    const r: RequestMetrics = {
      n: requests.length + 1,
      source: w.sidechain ? 'subagent' : 'main_loop',
      step: step.index,
      at: step.at,
      model: step.model,
      input: u.input, cacheRead: u.cacheRead, cacheWrite5m: u.cacheWrite5m, cacheWrite1h: u.cacheWrite1h, output: u.output,
      promptTokens: prompt,
      seenTokens: 0,
      costUsd: requestCost(step.model, u),
      inputCostUsd: actualInputCost(step.model, u),
      idealInputCostUsd: 0,
    };
    if (prev && isBreak(prev.read, u.cacheRead)) {
      r.breakCause = causes?.get(step.index) ?? recordedBreakCause(step.at - prev.at, compactedSincePrev, w.timed);
      r.breakTokens = prev.read - u.cacheRead;
    }
    // The compacted size is the first prompt after the compaction (the client reported only "before").
    if (compactedSincePrev) {
      const last = compactions[compactions.length - 1];
      if (last && last.tokensAfter === 0) last.tokensAfter = prompt;
    }
    requests.push(r);
    prev = { prompt, read: u.cacheRead, at: step.at };
    compactedSincePrev = false;
  }
  applyIdealCosts(requests);
  // A compaction with no request after it has no measured size after: leave it out of the ratio.
  return { requests, compactions: compactions.filter((c) => c.tokensAfter > 0 || c.tokensBefore === 0) };
}
