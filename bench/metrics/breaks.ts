/**
 * Cache breaks and their causes.
 *
 * A break is a request whose cache read fell against the previous request of the same thread by
 * more than 5% and by at least 2,000 tokens (Claude Code's detector criterion:
 * MIN_CACHE_MISS_TOKENS = 2,000 and the 0.95 ratio), so natural jitter and tiny prompts are not
 * counted. A request after a compaction is compared all the same: the point is to count what the
 * compaction cost.
 *
 * Causes. For a replay the two prompts are compared block by block (prefix hashes), so the cause is
 * where they first differ, or, when the previous prompt is still a prefix of this one, the idle gap
 * (TTL expiry: a gap longer than the TTL of the previous request's last breakpoint, the entry this
 * request would have read) or else the breakpoints (the cache was alive but no breakpoint's
 * 20-block lookback reached it). For a recording only usage and timestamps are known.
 */
import { TTL_MS, type CacheTtl } from '../../simulator/prefix.js';

/** Drop ratio below which a lower cache read is not a break (Claude Code: cur ≥ 0.95 × prev). */
export const BREAK_MIN_RELATIVE_DROP = 0.05;
/** Smallest drop that counts, tokens (Claude Code's MIN_CACHE_MISS_TOKENS = 2,000). */
export const BREAK_MIN_TOKENS = 2_000;

/** Break causes, as reported. */
export const BREAK_CAUSES = {
  tools: 'tools changed',
  system: 'system prompt changed',
  model: 'model changed',
  compaction: 'compaction',
  contextEdit: 'context edit',
  history: 'history changed',
  ttl5m: 'idle > 5 min (TTL)',
  ttl1h: 'idle > 1 h (TTL)',
  lookback: 'breakpoints (lookback missed a live entry)',
  recordedPrefix: 'prefix change or server-side',
  thinkingDropped: 'earlier thinking dropped (API)',
  thinkingChanged: 'thinking changed',
  cleared: 'context cleared',
} as const;

/** True when `cur` cache read is a break against `prev`. */
export function isBreak(prevRead: number, curRead: number): boolean {
  const drop = prevRead - curRead;
  return curRead < prevRead * (1 - BREAK_MIN_RELATIVE_DROP) && drop >= BREAK_MIN_TOKENS;
}

/** What a replayed request's prompt looked like, for comparing with the next one. */
export interface PromptShape {
  model: string;
  at: number;
  /** Prefix hashes in order, with the part each block belongs to (and the block, to name a dropped thinking block). */
  blocks: ReadonlyArray<{ hash: string | number; level: 'tools' | 'system' | 'messages'; block?: unknown }>;
  /** `tool_choice` and `thinking` as hashed before the messages (prefix.ts). */
  params?: string;
  /** TTL of the request's last cache breakpoint (the longest prefix it cached), when it had one. */
  ttl?: CacheTtl;
}

/**
 * The cause of a break between two replayed prompts. `events` says what the agent did between them
 * (a compaction, a context-stage rewrite).
 */
export function replayBreakCause(prev: PromptShape, cur: PromptShape, events: { compaction: boolean; contextEdit: boolean; cleared?: boolean }): string {
  if (prev.model !== cur.model) return BREAK_CAUSES.model;
  const n = Math.min(prev.blocks.length, cur.blocks.length);
  let d = 0;
  while (d < n && prev.blocks[d]!.hash === cur.blocks[d]!.hash) d++;
  if (d < prev.blocks.length) {
    const level = prev.blocks[d]!.level;
    if (level === 'tools') return BREAK_CAUSES.tools;
    if (level === 'system') return BREAK_CAUSES.system;
    if (events.compaction) return BREAK_CAUSES.compaction;
    if (events.cleared) return BREAK_CAUSES.cleared;
    if (prev.params !== undefined && cur.params !== undefined && prev.params !== cur.params) return BREAK_CAUSES.thinkingChanged;
    const b = prev.blocks[d]!.block as { type?: string } | undefined;
    if (b && (b.type === 'thinking' || b.type === 'redacted_thinking')) return BREAK_CAUSES.thinkingDropped;
    if (events.contextEdit) return BREAK_CAUSES.contextEdit;
    return BREAK_CAUSES.history;
  }
  return ttlCause(cur.at - prev.at, prev.ttl) ?? BREAK_CAUSES.lookback;
}

/**
 * The TTL cause for an idle gap, or undefined when the gap is within the TTL. `ttl` is the TTL the
 * previous prompt was cached with (unknown: 5 minutes, the API's default): a 10-minute gap does not
 * expire a 1-hour entry, so a miss after it is not the TTL's doing.
 */
export function ttlCause(gapMs: number, ttl: CacheTtl = '5m'): string | undefined {
  if (gapMs > TTL_MS['1h']) return BREAK_CAUSES.ttl1h;
  if (ttl === '5m' && gapMs > TTL_MS['5m']) return BREAK_CAUSES.ttl5m;
  return undefined;
}

/** The cause of a break in a recording (usage and timestamps only). */
export function recordedBreakCause(gapMs: number, compactedBefore: boolean, timed: boolean): string {
  if (compactedBefore) return BREAK_CAUSES.compaction;
  return (timed ? ttlCause(gapMs) : undefined) ?? BREAK_CAUSES.recordedPrefix;
}
