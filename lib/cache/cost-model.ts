/**
 * The prompt-cache cost model: what a planned change to the request costs over the expected rest of
 * the session, in USD. Plugins ask it before they act (`cache/keepalive` before a keep-alive request,
 * `cache/ttl` before choosing a marker's TTL, microcompact before clearing old tool results).
 *
 * Prices come from pricing.ts (Anthropic's prompt-caching pricing: a 5-minute write costs 1.25× the
 * input price, a 1-hour write 2×, a read 0.1×; platform.claude.com/docs/en/build-with-claude/prompt-caching).
 * An entry lives for its TTL after its last use and every read refreshes it (same page). The time to
 * the next request comes from the gap model (gap-model.ts). The session's cache state (what the last
 * request left cached, when, and what the agent now waits on) is tracked per kernel by
 * `cacheCostModel(kernel)`: the same figures `cache/break-detector` compares (read + written of the
 * last main-loop response).
 */
import { createKernelState, type Kernel } from '../../kernel/index.js';
import { priceFor } from '../pricing.js';
import { GapModel, waitKindOf, type WaitKind } from './gap-model.js';

export type CacheTtl = '5m' | '1h';

/** TTL lengths, seconds (prompt-caching docs). */
export const TTL_SECONDS: Readonly<Record<CacheTtl, number>> = Object.freeze({ '5m': 300, '1h': 3600 });

/** Prices of one token, USD (pricing.ts's per-million figures / 1e6). */
export interface TokenPrices { input: number; output: number; write5m: number; write1h: number; read: number }

/** USD per token for `model` (Sonnet prices for an unknown model, as pricing.ts does). */
export function tokenPrices(model: string): TokenPrices {
  const p = priceFor(model).price;
  const M = 1_000_000;
  return { input: p.input / M, output: p.output / M, write5m: p.cacheWrite5m / M, write1h: p.cacheWrite1h / M, read: p.cacheRead / M };
}

/** Write price of one token for a TTL, USD. */
export function writePrice(p: TokenPrices, ttl: CacheTtl): number {
  return ttl === '1h' ? p.write1h : p.write5m;
}

/**
 * Fewest requests assumed still to come. The rest of a session is estimated as long as what has
 * passed (a session that has run n requests is about as likely to run n more: the "Lindy" estimate
 * for lifetimes of unknown length), and at least this many.
 */
export const MIN_REMAINING_REQUESTS = 4;

/** Output tokens a keep-alive request asks for (`max_tokens: 1`). */
export const KEEPALIVE_OUTPUT_TOKENS = 1;

/** The cache state of a session as the tracker last saw it. */
export interface CacheSnapshot {
  model: string;
  /** Tokens the last main-loop request left cached: its `cache_read_input_tokens` + `cache_creation_input_tokens`. */
  cachedTokens: number;
  /** Of those, tokens under 1-hour markers (the rest expire after 5 minutes). */
  tokens1h: number;
  /** When the entries were last used (the last request, or a keep-alive), ms on the cache clock. */
  lastUseAt: number;
  /** What the agent waits on since the last response. */
  waiting: WaitKind;
  /** Main-loop requests so far. */
  requests: number;
}

/** A decision's price: what it costs now, what it is expected to save, and the difference (USD). */
export interface Estimate { costUsd: number; savingUsd: number; netUsd: number }

const estimate = (costUsd: number, savingUsd: number): Estimate => ({ costUsd, savingUsd, netUsd: savingUsd - costUsd });

/** Answers "what does this change cost over the rest of the session". Pure: state is passed in. */
export class CacheCostModel {
  constructor(readonly gaps: GapModel = new GapModel()) {}

  /** Requests expected after `requestsSoFar`: as many again, at least MIN_REMAINING_REQUESTS. */
  expectedRemainingRequests(requestsSoFar: number): number {
    return Math.max(requestsSoFar, MIN_REMAINING_REQUESTS);
  }

  /**
   * P(the next gap outlives a `ttl` entry), over a mix of waits: the share of end-of-turn waits is
   * their share of the gap model's observations (fitted and learned).
   */
  pExpire(ttl: CacheTtl): number {
    const T = TTL_SECONDS[ttl];
    const user = this.gaps.params('user');
    const tool = this.gaps.params('tool');
    const f = user.n + tool.n > 0 ? user.n / (user.n + tool.n) : 0.5;
    return f * this.gaps.pOver('user', T) + (1 - f) * this.gaps.pOver('tool', T);
  }

  /**
   * Rewriting the prefix after block k now, to remove `tokensRemoved` from it (clearing old tool
   * results, a dedup). `tokensRewritten`: what stays after block k and must be written again (paid
   * at write instead of read price, unless the cache is `cold` anyway). Saving: the removed tokens
   * are not paid on this request (write price if cold, read price if warm) nor on the
   * `remainingRequests` after it (a read each, a re-write after each expiry).
   */
  rewrite(model: string, o: { tokensRewritten: number; tokensRemoved: number; remainingRequests: number; cold: boolean; ttl?: CacheTtl }): Estimate {
    const p = tokenPrices(model);
    const ttl = o.ttl ?? '5m';
    const w = writePrice(p, ttl);
    const cost = o.cold ? 0 : o.tokensRewritten * (w - p.read);
    const now = o.tokensRemoved * (o.cold ? w : p.read);
    const later = o.tokensRemoved * o.remainingRequests * (p.read + this.pExpire(ttl) * (w - p.read));
    return estimate(cost, now + later);
  }

  /**
   * A 1-hour instead of a 5-minute write for a marker covering `tokens`, over the next
   * `remainingGaps` gaps of `kind` (`user` for an end of turn). Positive `netUsd`: 1h pays. The
   * cost is the dearer write now; the saving, per gap, a 5m re-write after each gap past 5 minutes
   * less a 1h re-write after each gap past an hour.
   */
  ttl(model: string, o: { tokens: number; kind: WaitKind; remainingGaps: number }): Estimate & { choose: CacheTtl } {
    const p = tokenPrices(model);
    const extra = o.tokens * (p.write1h - p.write5m);
    const p5 = this.gaps.pOver(o.kind, TTL_SECONDS['5m']);
    const p1 = this.gaps.pOver(o.kind, TTL_SECONDS['1h']);
    // Each gap past 5 minutes re-writes a 5m entry; a 1h one only past an hour (and at the 2× price).
    const saving = o.remainingGaps * o.tokens * (p5 * (p.write5m - p.read) - p1 * (p.write1h - p.read));
    const e = estimate(extra, saving);
    return { ...e, choose: e.netUsd > 0 ? '1h' : '5m' };
  }

  /**
   * What one keep-alive request costs at most: it reads the whole prefix and writes `outputTokens`
   * (its `max_tokens`: 1, or the thinking budget + 1 when extended thinking is on).
   */
  keepAliveCost(model: string, prefixTokens: number, outputTokens = KEEPALIVE_OUTPUT_TOKENS): number {
    const p = tokenPrices(model);
    return prefixTokens * p.read + outputTokens * p.output;
  }

  /**
   * A keep-alive request `elapsedSeconds` after the prefix's last use, waiting on `kind`. It pays
   * when the next request comes after the entry expires (TTL) but before the refreshed one does
   * (elapsed + TTL): that request then reads `prefixTokens` instead of writing them again.
   */
  keepAlive(model: string, o: { prefixTokens: number; ttl: CacheTtl; elapsedSeconds: number; kind: WaitKind }): Estimate & { pNeeded: number } {
    const p = tokenPrices(model);
    const T = TTL_SECONDS[o.ttl];
    const pNeeded = this.gaps.pBetween(o.kind, T, o.elapsedSeconds + T, o.elapsedSeconds);
    const saving = pNeeded * o.prefixTokens * (writePrice(p, o.ttl) - p.read);
    return { ...estimate(this.keepAliveCost(model, o.prefixTokens), saving), pNeeded };
  }

  /**
   * The same decision when the next request's time is known (a scripted workload, a replay): the
   * cost with keep-alives at `keepAliveAtSeconds` minus the cost without, for the prefix part
   * (USD; negative: the keep-alives save). Times are seconds since the prefix's last use.
   */
  keepAliveOutcome(model: string, o: { prefixTokens: number; ttl: CacheTtl; keepAliveAtSeconds: readonly number[]; nextRequestAtSeconds: number }): number {
    const p = tokenPrices(model);
    const T = TTL_SECONDS[o.ttl];
    const prefixCost = (lastUse: number) => (o.nextRequestAtSeconds - lastUse < T ? p.read : writePrice(p, o.ttl)) * o.prefixTokens;
    let lastUse = 0;
    let keepAlives = 0;
    for (const t of o.keepAliveAtSeconds) {
      if (t >= o.nextRequestAtSeconds) break;
      keepAlives += t - lastUse < T ? this.keepAliveCost(model, o.prefixTokens) : o.prefixTokens * writePrice(p, o.ttl) + KEEPALIVE_OUTPUT_TOKENS * p.output;
      lastUse = t;
    }
    return keepAlives + prefixCost(lastUse) - prefixCost(0);
  }
}

/** The clock cache plugins time entries with: `Date.now` and timers by default; tests install a virtual one. */
export interface CacheClock {
  now(): number;
  /** Calls `fn` after `ms` (a virtual clock awaits what it returns); returns a handle for `clear`. */
  setTimer(fn: () => unknown, ms: number): unknown;
  clear(handle: unknown): void;
}

/** The system clock. */
export const SYSTEM_CLOCK: CacheClock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => { const t = setTimeout(fn, ms); t.unref?.(); return t; },
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

const clockState = createKernelState<{ clock: CacheClock }>('cache/clock', () => ({ clock: SYSTEM_CLOCK }));

/** The clock of a kernel's cache plugins. */
export function cacheClock(kernel: Kernel): CacheClock {
  return clockState(kernel).clock;
}

/** Installs the clock a kernel's cache plugins use (a virtual one in tests: no test waits minutes). */
export function setCacheClock(kernel: Kernel, clock: CacheClock): void {
  clockState(kernel).clock = clock;
}

/** A session's cost model and its cache state, kept up to date from the kernel's responses. */
export interface SessionCostModel {
  model: CacheCostModel;
  /** Undefined before the first main-loop response. */
  snapshot?: CacheSnapshot;
  /** A side request (keep-alive) read the whole prefix at `at` (ms on the cache clock): its entries were refreshed. */
  touched(at: number): void;
}

const sessions = createKernelState<{ session?: SessionCostModel }>('cache/cost-model', () => ({}));

/** Tokens under 1-hour markers in a request: up to its last marker with `ttl: '1h'`, estimated by the response's usage split. */
function oneHourTokens(usage: { cache_creation?: { ephemeral_1h_input_tokens?: number } | null }, previous: CacheSnapshot | undefined, cached: number): number {
  const written1h = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  // A 1h entry once written is read afterwards: keep the largest 1h part seen, bounded by what is cached.
  return Math.min(cached, Math.max(written1h, previous?.tokens1h ?? 0));
}

/**
 * When the session's cache entries were last used (a main-loop request or a keep-alive refresh),
 * ms on the cache clock; undefined when no plugin has asked for the cost model or nothing was sent.
 * Does not start the tracking.
 */
export function lastCacheUse(kernel: Kernel): number | undefined {
  return sessions(kernel).session?.snapshot?.lastUseAt;
}

/**
 * The cost model of a kernel's session. The first call taps the kernel's `response` hook: every
 * main-loop response updates the snapshot, and the gap since the previous request teaches the gap
 * model (learning from the session as it goes).
 */
export function cacheCostModel(kernel: Kernel): SessionCostModel {
  const s = sessions(kernel);
  if (s.session) return s.session;
  const session: SessionCostModel = {
    model: new CacheCostModel(),
    touched(at) { if (session.snapshot) session.snapshot = { ...session.snapshot, lastUseAt: at }; },
  };
  let lastRequestAt: number | undefined;
  let lastKind: WaitKind | undefined;
  kernel.hooks.response.tap('cache/cost-model', (info) => {
    if (info.source !== 'main_loop') return;
    const clock = cacheClock(kernel);
    const sentAt = clock === SYSTEM_CLOCK ? info.at : clock.now() - info.durationMs;
    if (lastRequestAt !== undefined && lastKind) session.model.gaps.observe(lastKind, (sentAt - lastRequestAt) / 1000);
    lastRequestAt = sentAt;
    const u = info.usage;
    const cached = (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
    const waiting = waitKindOf(info.message.content as unknown[], info.stopReason);
    lastKind = waiting;
    session.snapshot = {
      model: info.message.model ?? info.request.model,
      cachedTokens: cached,
      tokens1h: oneHourTokens(u, session.snapshot, cached),
      lastUseAt: sentAt,
      waiting,
      requests: (session.snapshot?.requests ?? 0) + 1,
    };
  });
  s.session = session;
  return session;
}
