/**
 * The simulator's prompt cache: entries keyed by prefix hash, each remembering its size and TTL,
 * expiring against the caller's clock (ms). One store per simulator, shared by all requests, as
 * the API's cache is shared by all requests of an organisation.
 */
import { TTL_MS, type CacheTtl } from './prefix.js';

export interface CacheEntry {
  /** Tokens of the cached prefix. */
  tokens: number;
  ttl: CacheTtl;
  /** ms (the simulator's clock) after which the entry is gone. */
  expiresAt: number;
  /** ms when it was written. */
  createdAt: number;
}

/** Prune expired entries when the store grows past this many (keeps memory flat on long replays). */
const PRUNE_AT = 4096;

export class PromptCache {
  private readonly entries = new Map<number, CacheEntry>();
  private pruneAt = PRUNE_AT;

  /** The live entry for a prefix hash at `now` (ms), or undefined. */
  get(hash: number, now: number): CacheEntry | undefined {
    const e = this.entries.get(hash);
    if (!e) return undefined;
    if (e.expiresAt <= now) {
      this.entries.delete(hash);
      return undefined;
    }
    return e;
  }

  /**
   * Writes (or refreshes) the entry of a prefix. A refresh restarts the TTL from `now`; the longer of
   * the old and new TTL wins, so a 5-minute read never shortens a 1-hour entry.
   */
  put(hash: number, tokens: number, ttl: CacheTtl, now: number): CacheEntry {
    const old = this.get(hash, now);
    if (old) {
      if (ttl === '1h') old.ttl = '1h';
      if (old.expiresAt !== Infinity) old.expiresAt = now + TTL_MS[old.ttl];
      return old;
    }
    const e: CacheEntry = { tokens, ttl, expiresAt: now + TTL_MS[ttl], createdAt: now };
    this.entries.set(hash, e);
    if (this.entries.size > this.pruneAt) this.prune(now);
    return e;
  }

  /** Restarts an entry's TTL at `now` (a cache hit). */
  touch(entry: CacheEntry, now: number): void {
    if (entry.expiresAt !== Infinity) entry.expiresAt = now + TTL_MS[entry.ttl];
  }

  /**
   * Keeps a prefix cached whatever the clock, as traffic outside this simulator (other sessions of
   * the same client) would: the entry never expires. For replays whose recording shows such a prefix.
   */
  pin(hash: number, tokens: number, now: number): void {
    const e = this.put(hash, tokens, '5m', now);
    e.expiresAt = Infinity;
  }

  /** Drops entries expired at `now`. */
  prune(now: number): void {
    for (const [k, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(k);
    this.pruneAt = Math.max(PRUNE_AT, this.entries.size * 2);
  }

  /** Number of entries held (live or not yet pruned). */
  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
