/**
 * Fitting the calibrated token counter (lib/tokens/counter.ts) on growth pairs (pairs.ts).
 *
 * Each pair gives one equation: the features of the blocks that entered the context, less those of
 * the thinking the API dropped, times the weights, equals the recorded growth. The weights minimise
 * the sum of |error| / max(growth, 100) (least relative absolute error: a median-type fit, so the
 * few pairs where the client added text the recording does not show do not pull the weights), by
 * iteratively reweighted least squares. Image tokens are fixed by the vision docs' formula and
 * taken off the recorded growth first.
 *
 * `crossValidate` refits with each session left out and predicts that session: the error a user
 * should expect on sessions the weights were not fitted on.
 */
import { BLOCK_KINDS, blockFeatures, TEXT_FEATURES, type CounterCoefficients } from '../../lib/tokens/counter.js';
import { growthError, type GrowthError, type GrowthPair } from './pairs.js';

const NW = TEXT_FEATURES.length + BLOCK_KINDS.length;

/** A pair as the fit sees it: the fitted features, the fixed (image) tokens and the recorded growth. */
export interface FitRow {
  workload: string;
  x: number[];
  fixed: number;
  y: number;
}

/** The fit's rows for some pairs (features computed once). */
export function fitRows(pairs: readonly GrowthPair[], imageFallback: number): FitRow[] {
  return pairs.map((p) => {
    const x = new Array<number>(NW).fill(0);
    let fixed = 0;
    const add = (block: unknown, first: boolean, sign: number) => {
      const f = blockFeatures(block, first, imageFallback);
      for (let i = 0; i < NW; i++) x[i]! += sign * f[i]!;
      fixed += sign * f[NW]!;
    };
    for (const a of p.added) add(a.block, a.first, 1);
    for (const d of p.dropped) add(d, false, -1);
    return { workload: p.workload, x, fixed, y: p.growth };
  });
}

/** Solves A w = b (A symmetric positive definite, small) by Gaussian elimination with pivoting. */
function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[p]![c]!)) p = r;
    [M[c], M[p]] = [M[p]!, M[c]!];
    const d = M[c]![c]!;
    if (Math.abs(d) < 1e-12) continue;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const k = M[r]![c]! / d;
      if (k === 0) continue;
      for (let j = c; j <= n; j++) M[r]![j]! -= k * M[c]![j]!;
    }
  }
  return M.map((row, i) => (Math.abs(row[i]!) < 1e-12 ? 0 : row[n]! / row[i]!));
}

/**
 * Weights minimising Σ |x·w + fixed − y| / max(|y|, 100), by iteratively reweighted least squares
 * (`iterations` rounds; a tiny ridge keeps features absent from a subset from making the system
 * singular). Returns the weight vector in `blockFeatures` order (without the image slot).
 */
export function fitWeights(rows: readonly FitRow[], iterations = 60): number[] {
  let w = new Array<number>(NW).fill(0);
  let weights = rows.map((r) => 1 / Math.max(Math.abs(r.y), 100) ** 2);
  // Feature scales, so the ridge is the same small fraction for every feature.
  const scale = new Array<number>(NW).fill(0);
  for (const r of rows) for (let i = 0; i < NW; i++) scale[i]! += r.x[i]! * r.x[i]!;
  for (let it = 0; it < iterations; it++) {
    const A = Array.from({ length: NW }, () => new Array<number>(NW).fill(0));
    const b = new Array<number>(NW).fill(0);
    rows.forEach((r, k) => {
      const q = weights[k]!;
      const t = r.y - r.fixed;
      for (let i = 0; i < NW; i++) {
        const xi = r.x[i]!;
        if (xi === 0) continue;
        b[i]! += q * xi * t;
        const Ai = A[i]!;
        for (let j = 0; j < NW; j++) Ai[j]! += q * xi * r.x[j]!;
      }
    });
    for (let i = 0; i < NW; i++) A[i]![i]! += 1e-9 * (scale[i]! || 1) + 1e-9;
    w = solve(A, b);
    // L1 weights: 1 / (|residual| · relative scale), floored so exact fits do not dominate.
    weights = rows.map((r) => {
      let pred = r.fixed;
      for (let i = 0; i < NW; i++) pred += w[i]! * r.x[i]!;
      const rel = Math.max(Math.abs(r.y), 100);
      return 1 / (rel * Math.max(Math.abs(pred - r.y), 0.02 * rel));
    });
  }
  return w;
}

/** Coefficients from a weight vector (blockFeatures order). */
export function coefficientsOf(w: readonly number[], imageFallback: number, source: string): CounterCoefficients {
  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  return {
    text: Object.fromEntries(TEXT_FEATURES.map((k, i) => [k, round(w[i]!)])) as CounterCoefficients['text'],
    block: Object.fromEntries(BLOCK_KINDS.map((k, i) => [k, round(w[TEXT_FEATURES.length + i]!)])) as CounterCoefficients['block'],
    imageFallback,
    source,
  };
}

/** Unrounded growth a weight vector predicts for each row. */
export function predictRows(rows: readonly FitRow[], w: readonly number[]): number[] {
  return rows.map((r) => {
    let p = r.fixed;
    for (let i = 0; i < NW; i++) p += w[i]! * r.x[i]!;
    return p;
  });
}

export interface CrossValidation {
  /** Error of each session predicted by weights fitted on the other sessions. */
  bySession: Record<string, GrowthError>;
  /** All held-out predictions together. */
  overall: GrowthError;
}

/** Leave-one-session-out cross-validation. */
export function crossValidate(pairs: readonly GrowthPair[], rows: readonly FitRow[]): CrossValidation {
  const sessions = [...new Set(rows.map((r) => r.workload))];
  const predicted = new Array<number>(rows.length).fill(0);
  const bySession: Record<string, GrowthError> = {};
  for (const s of sessions) {
    const train = rows.filter((r) => r.workload !== s);
    const w = fitWeights(train);
    const idx = rows.map((r, i) => (r.workload === s ? i : -1)).filter((i) => i >= 0);
    const pred = predictRows(idx.map((i) => rows[i]!), w);
    idx.forEach((i, k) => { predicted[i] = pred[k]!; });
    bySession[s] = growthError(idx.map((i) => pairs[i]!), pred);
  }
  return { bySession, overall: growthError(pairs, predicted) };
}
