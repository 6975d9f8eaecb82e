/**
 * Phase 2 of cache-break detection: after a response, decide whether the request read enough of
 * what the previous request cached, and name the cause when it did not.
 *
 * What the previous request cached is its read plus its write (`cache_read_input_tokens` +
 * `cache_creation_input_tokens`): the prefix it left in the cache. Comparing reads with reads alone
 * misses a break that repeats every request: a prompt that changes early (a timestamp in a static
 * system section) re-writes the whole conversation each time while the reads stay flat.
 */
import { compareFingerprints, type Fingerprint, type PrefixChange, type RecordedFingerprint } from './fingerprint.js';
import type { ExpectedDrop } from './signals.js';

/** A drop is a break only when reads fell more than this share below the previous cached prefix (Claude Code: 5%). */
export const MIN_RELATIVE_DROP = 0.05;
/** … and by at least this many tokens (Claude Code's MIN_CACHE_MISS_TOKENS = 2,000). */
export const MIN_ABSOLUTE_DROP_TOKENS = 2_000;
/** The 5-minute TTL, ms (prompt-caching docs). */
export const TTL_5M_MS = 5 * 60_000;
/** The 1-hour TTL, ms (prompt-caching docs). */
export const TTL_1H_MS = 60 * 60_000;

/**
 * The cause of a break:
 * - `client`: a part of the request rein sent changed (named in `changes`);
 * - `ttl`: nothing changed, but the gap since the previous response exceeded the cache TTL;
 * - `server`: nothing changed and the gap was within the TTL: the cache was lost server side
 *   (routing, eviction; Claude Code's own detector attributes most unexplained breaks to this).
 */
export type BreakCause = 'client' | 'ttl' | 'server';

/** The detector's verdict on one response. */
export type Verdict =
  | { kind: 'first' }
  | { kind: 'ok' }
  | { kind: 'expected'; reason: string }
  /** `prevCached`: what the previous request left in the cache (read + written), tokens; `drop` = prevCached − read. */
  | { kind: 'break'; cause: BreakCause; reason: string; changes: PrefixChange[]; prevCached: number; read: number; drop: number };

/** The detector's memory between responses. */
export interface DetectorState {
  /** The previous request's fingerprint (as recorded, for the last request before a resume). */
  prev?: Fingerprint | RecordedFingerprint;
  /** What the previous response left in the cache (read + written), tokens, or null to make the next one a first observation. */
  prevCached: number | null;
  /** ms since the epoch when the previous response completed. */
  prevAt?: number;
  /** A signal received since the previous response. */
  pending?: ExpectedDrop;
  /**
   * Set for the first request after a resume when the server is known to start with an empty
   * prompt cache (a new process of rein's embedded simulator): says why, for the verdict.
   */
  emptyCache?: string;
}

export interface Observation {
  fp: Fingerprint;
  /** `cache_read_input_tokens` of the response. */
  read: number;
  /** `cache_creation_input_tokens` of the response. */
  written: number;
  /** ms since the epoch when the request was sent. */
  sentAt: number;
  /** Tokens the server's context edits cleared in this request (0 when none). */
  serverCleared: number;
}

export interface DetectOptions {
  minRelativeDrop: number;
  minAbsoluteDropTokens: number;
}

/**
 * Is `read` a break, given `prevCached`, what the previous request left in the cache (its read plus
 * its write)? Both conditions must hold.
 */
export function isBreak(prevCached: number, read: number, o: DetectOptions = { minRelativeDrop: MIN_RELATIVE_DROP, minAbsoluteDropTokens: MIN_ABSOLUTE_DROP_TOKENS }): boolean {
  const drop = prevCached - read;
  return read < prevCached * (1 - o.minRelativeDrop) && drop >= o.minAbsoluteDropTokens;
}

function minutes(ms: number): string {
  return `${(ms / 60_000).toFixed(1)} min`;
}

/**
 * Judges one observation against the state and returns the verdict; the caller then updates the
 * state with `advance`. Pure.
 */
export function judge(state: DetectorState, obs: Observation, o: DetectOptions): Verdict {
  if (state.pending?.kind === 'compaction') return { kind: 'expected', reason: `history rebuilt by ${state.pending.source}${state.pending.detail ? ` (${state.pending.detail})` : ''}` };
  if (state.prevCached === null || state.prev === undefined) return { kind: 'first' };
  if (!isBreak(state.prevCached, obs.read, o)) return { kind: 'ok' };
  if (state.pending?.kind === 'deletion') return { kind: 'expected', reason: `content cleared by ${state.pending.source}${state.pending.detail ? ` (${state.pending.detail})` : ''}` };
  if (obs.serverCleared > 0) return { kind: 'expected', reason: `the server's context edits cleared ${obs.serverCleared} tokens` };
  // The comparison (a pass over every message) is made only for a drop that may be a break.
  const changes = compareFingerprints(state.prev, obs.fp);
  const base = { prevCached: state.prevCached, read: obs.read, drop: state.prevCached - obs.read, changes };
  if (changes.length) return { kind: 'break', cause: 'client', reason: changes.map((c) => c.text).join('; '), ...base };
  const gap = state.prevAt !== undefined ? obs.sentAt - state.prevAt : undefined;
  const ttl = obs.fp.ttl === '1h' ? TTL_1H_MS : TTL_5M_MS;
  if (gap !== undefined && gap > ttl) {
    return { kind: 'break', cause: 'ttl', reason: `${obs.fp.ttl === '1h' ? '1-hour' : '5-minute'} TTL expired (prompt unchanged, ${minutes(gap)} since the previous response)`, ...base };
  }
  // Not the server losing it: a server known to start empty (a TTL expiry or a changed prompt
  // above would have broken the cache on the API as well, so they are reported first).
  if (state.emptyCache) return { kind: 'expected', reason: state.emptyCache };
  const when = gap !== undefined ? `, ${minutes(gap)} since the previous response` : '';
  return { kind: 'break', cause: 'server', reason: `no client change found (prompt unchanged${when}): likely server side`, ...base };
}

/** The state after an observation. */
export function advance(_state: DetectorState, obs: Observation, completedAt: number): DetectorState {
  return { prev: obs.fp, prevCached: obs.read + obs.written, prevAt: completedAt };
}
