/**
 * The gap model: how long until the next model request, given what the agent is waiting on.
 *
 * A prompt-cache entry lives for its TTL after its last use (5 minutes or 1 hour, refreshed by every
 * read: platform.claude.com/docs/en/build-with-claude/prompt-caching), so whether a cached prefix
 * survives depends on the time between two requests. That time depends on what the agent waits on:
 * a `Read` returns in a second, a test run in minutes, a person reading an answer in anything from
 * seconds to hours. Each kind of wait gets a log-normal distribution of the gap, in seconds, from
 * request to request (the clock a cache entry's TTL runs on): `ln(gap)` is normal with mean `mu`
 * and deviation `sigma`. Log-normal because gaps span five orders of magnitude and their logs are
 * roughly bell-shaped in the recorded sessions; two numbers per kind keep it small and refittable.
 *
 * The shipped parameters (gap-params.ts) are fitted on recorded sessions by
 * `npm run bench:fit-gaps -- DIR`; a session then updates them with every gap it sees
 * (`observe`): the fitted parameters act as a prior worth at most `priorWeight` observations.
 */
import { GAP_PARAMS } from './gap-params.js';

/**
 * What the agent waits on between a response and the next request:
 * - `user`: an end of turn, waiting for a person;
 * - `subagent`: a subagent (the Task / Agent tool) is running;
 * - `tool:<name>`: a tool call of that name (lower case) is running;
 * - `tool`: any tool call (used when a tool has too few observations of its own).
 */
export type WaitKind = 'user' | 'subagent' | 'tool' | `tool:${string}`;

/** A log-normal gap distribution: `ln(seconds)` ~ Normal(mu, sigma); `n` observations behind it. */
export interface GapParams {
  mu: number;
  sigma: number;
  n: number;
}

/** Fitted parameters per wait kind, and what they were fitted on. */
export interface GapParamSet {
  fittedOn: string;
  kinds: Record<string, GapParams>;
}

/** Tools that start a subagent (rein's and Claude Code's `Task`, newer Claude Code's `Agent`). */
const SUBAGENT_TOOLS = new Set(['task', 'agent']);

/** A kind needs this many observations (fitted and learned) before it is used instead of `tool`. */
export const MIN_KIND_OBSERVATIONS = 5;

/** Smallest sigma used, so a kind with near-identical gaps still has a distribution. */
const MIN_SIGMA = 0.1;

/**
 * The wait kind after a reply: `user` when it asked for no tool, `subagent` when any of its calls
 * starts one, else `tool:<name>` of its first call (lower case, so `Bash` and pi's `bash` agree).
 */
export function waitKindOf(reply: readonly unknown[], stopReason: string | null | undefined): WaitKind {
  const names: string[] = [];
  for (const b of reply) {
    const block = b as { type?: string; name?: unknown };
    if (block && block.type === 'tool_use' && typeof block.name === 'string') names.push(block.name.toLowerCase());
  }
  if (!names.length || (stopReason && stopReason !== 'tool_use' && stopReason !== 'pause_turn')) return 'user';
  if (names.some((n) => SUBAGENT_TOOLS.has(n))) return 'subagent';
  return `tool:${names[0]}`;
}

/**
 * Standard normal CDF, via the Abramowitz–Stegun 7.1.26 approximation of erf (absolute error below
 * 1.5e-7; Handbook of Mathematical Functions, 1964).
 */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + y) : 0.5 * (1 - y);
}

/** P(gap > seconds) under `p`. 1 for seconds ≤ 0. */
export function survival(p: GapParams, seconds: number): number {
  if (seconds <= 0) return 1;
  return 1 - normalCdf((Math.log(seconds) - p.mu) / p.sigma);
}

interface Learned { n: number; sum: number; sumSq: number }

/** A gap model: the fitted parameters, updated by the gaps a session observes. */
export class GapModel {
  private readonly learned = new Map<string, Learned>();

  /**
   * @param fitted parameters per kind (default: the shipped fit). Must hold `user` and `tool`.
   * @param priorWeight the most observations the fitted parameters count for against the session's
   *   own (20: a session's own gaps dominate after a few dozen requests).
   */
  constructor(readonly fitted: GapParamSet = GAP_PARAMS, readonly priorWeight = 20) {}

  /** Records one observed gap of `kind`, seconds (ignored when not positive and finite). */
  observe(kind: WaitKind, seconds: number): void {
    if (!(seconds > 0) || !Number.isFinite(seconds)) return;
    const l = Math.log(seconds);
    for (const k of kind.startsWith('tool:') ? [kind, 'tool'] : [kind]) {
      const s = this.learned.get(k) ?? { n: 0, sum: 0, sumSq: 0 };
      s.n++;
      s.sum += l;
      s.sumSq += l * l;
      this.learned.set(k, s);
    }
  }

  /**
   * The distribution used for `kind`: the fitted parameters (weight min(n, priorWeight)) pooled with
   * the session's observations. A `tool:<name>` with fewer than MIN_KIND_OBSERVATIONS in all falls
   * back to `tool`; an unknown kind to `tool`.
   */
  params(kind: WaitKind): GapParams {
    const prior = this.fitted.kinds[kind];
    const own = this.learned.get(kind);
    const n = (prior?.n ?? 0) + (own?.n ?? 0);
    if (kind !== 'tool' && kind !== 'user' && n < MIN_KIND_OBSERVATIONS) return this.params('tool');
    const base = prior ?? this.fitted.kinds.tool ?? { mu: 0, sigma: 1, n: 0 };
    const w0 = prior ? Math.min(prior.n, this.priorWeight) : 0;
    if (!own || own.n === 0) return { ...base, sigma: Math.max(base.sigma, MIN_SIGMA) };
    const w = w0 + own.n;
    const mu = (w0 * base.mu + own.sum) / w;
    const second = (w0 * (base.sigma * base.sigma + base.mu * base.mu) + own.sumSq) / w;
    const sigma = Math.max(Math.sqrt(Math.max(second - mu * mu, 0)), MIN_SIGMA);
    return { mu, sigma, n };
  }

  /** P(gap > seconds | gap > elapsedSeconds) for `kind`. */
  pOver(kind: WaitKind, seconds: number, elapsedSeconds = 0): number {
    const p = this.params(kind);
    const s0 = survival(p, elapsedSeconds);
    if (s0 <= 0) return 0;
    return Math.min(1, survival(p, seconds) / s0);
  }

  /** P(lo < gap ≤ hi | gap > elapsedSeconds) for `kind`. */
  pBetween(kind: WaitKind, lo: number, hi: number, elapsedSeconds = 0): number {
    if (hi <= lo) return 0;
    return Math.max(0, this.pOver(kind, lo, elapsedSeconds) - this.pOver(kind, hi, elapsedSeconds));
  }
}
