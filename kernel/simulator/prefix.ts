/**
 * The prompt as the cache sees it: the cacheable blocks in prefix order (tools → system →
 * messages), each with its tokens, the running prefix total and a hash of the whole prefix up to
 * and including it; and the request's cache breakpoints, validated as the API validates them.
 */
import { createHash } from 'node:crypto';
import { blockPositions, type BlockPosition, type EstimatableRequest } from '../tokens/estimate.js';
import { invalidRequest } from './errors.js';

/** At most this many breakpoints per request, explicit and automatic together (prompt-caching docs). */
export const MAX_BREAKPOINTS = 4;

/** A cache TTL as the API spells it. */
export type CacheTtl = '5m' | '1h';

/** TTLs in ms. */
export const TTL_MS: Readonly<Record<CacheTtl, number>> = Object.freeze({ '5m': 5 * 60_000, '1h': 60 * 60_000 });

/** One cacheable block of the prompt. */
export interface PrefixBlock extends BlockPosition {
  /** Hash of the prefix up to and including this block (model and request parameters included). */
  hash: string;
}

/** A cache breakpoint: the prefix up to and including block `block` is a cache candidate. */
export interface Breakpoint {
  /** Index into `PromptPrefix.blocks`. */
  block: number;
  ttl: CacheTtl;
  /** Placed by the request's top-level `cache_control` (automatic caching). */
  automatic: boolean;
}

export interface PromptPrefix {
  blocks: PrefixBlock[];
  /** Sorted by block index; at most one per block. */
  breakpoints: Breakpoint[];
  /** Tokens of the whole prompt. */
  totalTokens: number;
}

/** The request fields the prefix depends on. */
export interface PrefixRequest extends EstimatableRequest {
  model: string;
  messages: ReadonlyArray<{ role?: string; content: string | readonly unknown[] }>;
  cache_control?: unknown;
  tool_choice?: unknown;
  thinking?: unknown;
}

type Obj = Record<string, unknown>;

function readCacheControl(cc: unknown, where: string): CacheTtl | undefined {
  if (cc == null) return undefined;
  if (typeof cc !== 'object') throw invalidRequest(`${where}.cache_control: Input should be an object`);
  const { type, ttl } = cc as Obj;
  if (type !== 'ephemeral') throw invalidRequest(`${where}.cache_control.type: Input should be 'ephemeral'`);
  if (ttl === undefined || ttl === null) return '5m';
  if (ttl !== '5m' && ttl !== '1h') throw invalidRequest(`${where}.cache_control.ttl: Input should be '5m' or '1h'`);
  return ttl;
}

/** The TTL of the explicit marker on a block (a `tool_result` also counts markers on its inner blocks). */
function blockTtl(block: unknown, where: string): CacheTtl | undefined {
  if (!block || typeof block !== 'object') return undefined;
  const b = block as Obj;
  let ttl = readCacheControl(b.cache_control, where);
  if (b.type === 'tool_result' && Array.isArray(b.content)) {
    b.content.forEach((inner, i) => {
      const t = inner && typeof inner === 'object' ? readCacheControl((inner as Obj).cache_control, `${where}.content.${i}`) : undefined;
      if (t === '1h' || (t && !ttl)) ttl = t;
    });
  }
  return ttl;
}

function whereOf(p: BlockPosition): string {
  if (p.level === 'tools') return `tools.${p.index}`;
  if (p.level === 'system') return `system.${p.index}`;
  return `messages.${p.index}.content.${p.blockIndex}`;
}

const NOT_AUTO_CACHEABLE = new Set(['thinking', 'redacted_thinking']);

function stableJson(block: unknown): string {
  if (typeof block === 'string') return JSON.stringify(block);
  const json = JSON.stringify(block);
  // Markers are not part of the cached bytes: moving a breakpoint must not invalidate the prefix.
  if (!json.includes('"cache_control"')) return json;
  return JSON.stringify(block, (key, value) => (key === 'cache_control' ? undefined : value));
}

function digest(data: string): string {
  return createHash('sha1').update(data).digest('base64');
}

/**
 * Builds the hashed prefix of a request and its breakpoints.
 *
 * The hash chain starts from the model id (a model switch misses everything) and mixes
 * `tool_choice` and `thinking` in before the first message block (changing them invalidates the
 * messages level only, as the prompt-caching docs' invalidation table says). `cache_control`
 * markers are left out of the hashed bytes.
 *
 * Throws SimulatorApiError (400) for: more than 4 breakpoints, a malformed `cache_control`, a
 * 1-hour breakpoint after a 5-minute one.
 */
export function buildPrefix(request: PrefixRequest): PromptPrefix {
  const positions = blockPositions(request);
  const blocks: PrefixBlock[] = new Array(positions.length);
  const byBlock = new Map<number, Breakpoint>();
  let explicitCount = 0;
  let hash = digest(`model:${request.model}`);
  let messagesSeeded = false;
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i]!;
    let tag: string;
    if (p.level === 'messages') {
      if (!messagesSeeded) {
        hash = digest(`${hash}|params:${JSON.stringify(request.tool_choice ?? null)}|${JSON.stringify(request.thinking ?? null)}`);
        messagesSeeded = true;
      }
      tag = `m${p.index}:${request.messages[p.index]?.role ?? ''}`;
    } else {
      tag = p.level === 'tools' ? `t${p.index}` : `s${p.index}`;
    }
    hash = digest(`${hash}|${tag}|${stableJson(p.block)}`);
    blocks[i] = { ...p, hash };
    const ttl = blockTtl(p.block, whereOf(p));
    if (ttl) {
      explicitCount++;
      byBlock.set(i, { block: i, ttl, automatic: false });
    }
  }
  let count = explicitCount;
  const autoTtl = request.cache_control == null ? undefined : readCacheControl(request.cache_control, 'request');
  if (autoTtl) {
    count++;
    let last = blocks.length - 1;
    while (last >= 0 && blocks[last]!.level === 'messages' && isNotAutoCacheable(blocks[last]!.block)) last--;
    if (last >= 0) {
      const existing = byBlock.get(last);
      if (existing) existing.ttl = existing.ttl === '1h' || autoTtl === '1h' ? '1h' : '5m';
      else byBlock.set(last, { block: last, ttl: autoTtl, automatic: true });
    }
  }
  if (count > MAX_BREAKPOINTS) {
    throw invalidRequest(`A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${count}.`);
  }
  const breakpoints = [...byBlock.values()].sort((a, b) => a.block - b.block);
  let seen5m: Breakpoint | undefined;
  for (const bp of breakpoints) {
    if (bp.ttl === '5m') seen5m ??= bp;
    else if (seen5m) {
      throw invalidRequest(
        `cache_control with ttl '1h' at ${whereOf(blocks[bp.block]!)} comes after a cache_control with ttl '5m' at ` +
          `${whereOf(blocks[seen5m.block]!)}; longer TTLs must come first in the prompt (tools, then system, then messages).`,
      );
    }
  }
  const totalTokens = blocks.length ? blocks[blocks.length - 1]!.prefixTokens : 0;
  return { blocks, breakpoints, totalTokens };
}

function isNotAutoCacheable(block: unknown): boolean {
  if (!block || typeof block !== 'object') return typeof block === 'string' && block.length === 0;
  const b = block as Obj;
  return NOT_AUTO_CACHEABLE.has(String(b.type)) || (b.type === 'text' && b.text === '');
}
