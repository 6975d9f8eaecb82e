/**
 * Fits the gap model (lib/cache/gap-model.ts) on recorded sessions: for every two consecutive
 * requests of one timed recording, the time between them (seconds, request to request) is one
 * observation of the wait kind the first request's reply started (`waitKindOf`). Per kind, the
 * log-normal's `mu` and `sigma` are the mean and deviation of `ln(seconds)`.
 */
import { waitKindOf, type GapParamSet, type GapParams } from '../../lib/index.js';
import type { Workload } from '../workloads/types.js';

/** Tool kinds with fewer observations than this are left to the pooled `tool` kind. */
export const MIN_FIT_OBSERVATIONS = 5;

/** One observed gap: its kind and length, seconds. */
export interface GapObservation { kind: string; seconds: number; workload: string }

/** The gaps of a recording (none when its timestamps cannot drive a clock). */
export function gapObservations(w: Workload): GapObservation[] {
  if (!w.timed) return [];
  const out: GapObservation[] = [];
  for (let i = 0; i + 1 < w.steps.length; i++) {
    const a = w.steps[i]!;
    const b = w.steps[i + 1]!;
    const seconds = (b.at - a.at) / 1000;
    if (!(seconds > 0)) continue;
    out.push({ kind: waitKindOf(a.reply as unknown[], a.stopReason), seconds, workload: w.name });
  }
  return out;
}

function fitOne(xs: readonly number[]): GapParams {
  const logs = xs.map((x) => Math.log(x));
  const mu = logs.reduce((s, l) => s + l, 0) / logs.length;
  const variance = logs.reduce((s, l) => s + (l - mu) ** 2, 0) / Math.max(1, logs.length - 1);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return { mu: round(mu), sigma: round(Math.sqrt(variance)), n: logs.length };
}

/** Fits every kind with enough observations, plus the pooled `tool` kind and `user`. */
export function fitGaps(obs: readonly GapObservation[], fittedOn: string): GapParamSet {
  const byKind = new Map<string, number[]>();
  const add = (k: string, s: number) => { const a = byKind.get(k) ?? []; a.push(s); byKind.set(k, a); };
  for (const o of obs) {
    add(o.kind, o.seconds);
    if (o.kind.startsWith('tool:')) add('tool', o.seconds);
  }
  const kinds: Record<string, GapParams> = {};
  for (const [k, xs] of [...byKind].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (xs.length >= MIN_FIT_OBSERVATIONS || k === 'user' || k === 'tool') kinds[k] = fitOne(xs);
  }
  return { fittedOn, kinds };
}
