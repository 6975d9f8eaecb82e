/**
 * Prompt-cache accounting: given the cache's state and one request, what the API would report as
 * `input_tokens`, `cache_creation_input_tokens` (split 5m / 1h) and `cache_read_input_tokens`,
 * and how the cache changes.
 *
 * The rules (platform.claude.com/docs prompt-caching; summarised in rein's spec):
 * 1. The prompt is a prefix of blocks in the order tools → system → messages (see prefix.ts).
 * 2. Only prefixes ending at a breakpoint are written. A breakpoint whose prefix is shorter than
 *    the model's minimum cacheable length is ignored (no write, no read, no error).
 * 3. Reading: for each breakpoint, the cache is checked at the breakpoint's own block and at each
 *    of the 20 blocks before it (the lookback), and the longest live entry found there is used.
 *    The request reads the longest prefix found over all breakpoints: A tokens.
 * 4. Writing (the docs' mixed-TTL rule): with B = the prefix of the last 1-hour breakpoint after
 *    A (or A if none) and C = the prefix of the last breakpoint, the request writes B − A tokens
 *    at the 1-hour rate and C − B at the 5-minute rate; every breakpoint's prefix is then cached.
 * 5. `input_tokens` is what follows the last breakpoint (total − max(A, C)).
 *    So total prompt = input_tokens + cache_creation_input_tokens + cache_read_input_tokens.
 * 6. A hit restarts the entry's TTL (5 minutes or 1 hour) from the request's time.
 */
import type { PromptCache } from './cache.js';
import { buildPrefix, type Breakpoint, type CacheTtl, type PrefixRequest, type PromptPrefix } from './prefix.js';

/** How many blocks before a breakpoint the cache lookup walks back (prompt-caching docs). */
export const LOOKBACK_BLOCKS = 20;

/** The input side of `usage`, exactly as the API reports it (tokens). */
export interface CacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/** What happened at one breakpoint. */
export interface BreakpointReport extends Breakpoint {
  /** Where the block is: `tools.3`, `system.1`, `messages.12.content.0`. */
  where: string;
  /** Tokens of the prefix up to and including the breakpoint. */
  prefixTokens: number;
  /** The prefix is shorter than the model's minimum: the breakpoint did nothing. */
  belowMinimum: boolean;
  /** Block index of the cache entry this breakpoint's lookup found (itself or up to 20 earlier), or null. */
  hitBlock: number | null;
  /** This breakpoint's prefix was not cached before the request and is now. */
  written: boolean;
}

export interface CacheAccounting {
  usage: CacheUsage;
  /** Tokens of the whole prompt. */
  totalTokens: number;
  /** Block index of the end of the prefix read from cache, or null on a full miss. */
  readBlock: number | null;
  /** Number of cacheable blocks in the prompt. */
  blockCount: number;
  breakpoints: BreakpointReport[];
  /** The minimum cacheable prefix used, tokens. */
  minCacheableTokens: number;
}

export interface AccountOptions {
  /** The request's time on the simulator's clock, ms. */
  now: number;
  /** Minimum cacheable prefix for this request's model, tokens. */
  minCacheableTokens: number;
  /** false: compute the numbers without changing the cache (count_tokens, what-if). Default true. */
  commit?: boolean;
}

function whereOf(prefix: PromptPrefix, i: number): string {
  const b = prefix.blocks[i]!;
  if (b.level === 'messages') return `messages.${b.index}.content.${b.blockIndex}`;
  return `${b.level}.${b.index}`;
}

/**
 * Accounts one request against `cache` (and, unless `commit: false`, updates it). The request is
 * taken as sent: apply context edits first (context-edits.ts). Throws SimulatorApiError (400) for
 * breakpoint errors (see buildPrefix).
 */
export function accountRequest(cache: PromptCache, request: PrefixRequest, options: AccountOptions): CacheAccounting {
  return accountPrefix(cache, buildPrefix(request), options);
}

/** As accountRequest, for a prefix already built. */
export function accountPrefix(cache: PromptCache, prefix: PromptPrefix, options: AccountOptions): CacheAccounting {
  const { now, minCacheableTokens } = options;
  const commit = options.commit ?? true;
  const { blocks } = prefix;
  const reports: BreakpointReport[] = prefix.breakpoints.map((bp) => ({
    ...bp,
    where: whereOf(prefix, bp.block),
    prefixTokens: blocks[bp.block]!.prefixTokens,
    belowMinimum: blocks[bp.block]!.prefixTokens < minCacheableTokens,
    hitBlock: null,
    written: false,
  }));
  const valid = reports.filter((r) => !r.belowMinimum);

  // Reads: each breakpoint walks back from its own block at most LOOKBACK_BLOCKS blocks.
  let readBlock = -1;
  for (const r of valid) {
    const stop = Math.max(0, r.block - LOOKBACK_BLOCKS);
    for (let j = r.block; j >= stop; j--) {
      const entry = cache.get(blocks[j]!.hash, now);
      if (entry) {
        r.hitBlock = j;
        if (commit) cache.touch(entry, now);
        if (j > readBlock) readBlock = j;
        break;
      }
    }
  }
  const A = readBlock >= 0 ? blocks[readBlock]!.prefixTokens : 0;
  const last = valid[valid.length - 1];
  const C = Math.max(A, last ? last.prefixTokens : 0);
  let B = A;
  for (const r of valid) if (r.ttl === '1h' && r.block > readBlock) B = Math.max(B, r.prefixTokens);
  const write1h = B - A;
  const write5m = C - B;

  for (const r of valid) {
    const hash = blocks[r.block]!.hash;
    r.written = r.block > readBlock && r.hitBlock !== r.block;
    if (commit) cache.put(hash, r.prefixTokens, r.ttl as CacheTtl, now);
  }

  return {
    usage: {
      input_tokens: prefix.totalTokens - C,
      cache_creation_input_tokens: write1h + write5m,
      cache_read_input_tokens: A,
      cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h },
    },
    totalTokens: prefix.totalTokens,
    readBlock: readBlock >= 0 ? readBlock : null,
    blockCount: blocks.length,
    breakpoints: reports,
    minCacheableTokens,
  };
}
