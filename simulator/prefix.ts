/**
 * The prompt as the cache sees it: the cacheable blocks in prefix order (tools → system →
 * messages), each with its tokens, the running prefix total and a hash of the whole prefix up to
 * and including it; and the request's cache breakpoints, validated as the API validates them.
 */
import * as crypto from 'node:crypto';
import { BYTE_COUNTER, type BlockPosition, type ContentTokenCounter as TokenCounter, type EstimatableRequest } from '../lib/index.js';
import { sealedSharedLength } from './body.js';
import { invalidRequest } from './errors.js';

/** At most this many breakpoints per request, explicit and automatic together (prompt-caching docs). */
export const MAX_BREAKPOINTS = 4;

/** A cache TTL as the API spells it. */
export type CacheTtl = '5m' | '1h';

/** TTLs in ms. */
export const TTL_MS: Readonly<Record<CacheTtl, number>> = Object.freeze({ '5m': 5 * 60_000, '1h': 60 * 60_000 });

/** One cacheable block of the prompt. */
export interface PrefixBlock extends BlockPosition {
  /** Hash of the prefix up to and including this block (model and request parameters included), 53 bits. */
  hash: number;
  /** Chain state after this block and the facts it was built from (lets the next request reuse the entry). */
  lane1: number;
  lane2: number;
  /** The block's own digest (SHA-1 words 0-3 of its JSON without markers). */
  digest0: number;
  digest1: number;
  digest2: number;
  digest3: number;
  tag: number;
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
  model: string;
  /** `tool_choice` and `thinking` as hashed into the messages level. */
  params: string;
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
function blockTtl(block: unknown, at: BlockPosition): CacheTtl | undefined {
  if (!block || typeof block !== 'object') return undefined;
  const b = block as Obj;
  let ttl = b.cache_control == null ? undefined : readCacheControl(b.cache_control, whereOf(at));
  if (b.type === 'tool_result' && Array.isArray(b.content)) {
    // A plain loop: this runs for every block of every request (no closure per block).
    const content: unknown[] = b.content;
    for (let i = 0; i < content.length; i++) {
      const inner = content[i];
      const t = inner && typeof inner === 'object' && (inner as Obj).cache_control != null ? readCacheControl((inner as Obj).cache_control, `${whereOf(at)}.content.${i}`) : undefined;
      if (t === '1h' || (t && !ttl)) ttl = t;
    }
  }
  return ttl;
}

function whereOf(p: BlockPosition): string {
  if (p.level === 'tools') return `tools.${p.index}`;
  if (p.level === 'system') return `system.${p.index}`;
  return `messages.${p.index}.content.${p.blockIndex}`;
}

const NOT_AUTO_CACHEABLE = new Set(['thinking', 'redacted_thinking']);

const dropMarkers = (key: string, value: unknown) => (key === 'cache_control' ? undefined : value);

/** The block's JSON without `cache_control` (markers are not part of the cached bytes). */
function stableJson(block: unknown): string {
  if (!block || typeof block !== 'object') return JSON.stringify(block);
  const b = block as Obj;
  const nested = b.type === 'tool_result' && Array.isArray(b.content) && b.content.some((c) => c && typeof c === 'object' && 'cache_control' in c);
  return 'cache_control' in b || nested ? JSON.stringify(block, dropMarkers) : JSON.stringify(block);
}

/** A block's digest (four 32-bit words of its SHA-1) and tokens. */
interface BlockFacts {
  d0: number; d1: number; d2: number; d3: number;
  tokens: number;
}

/**
 * What a memoised block looked like: its own fields by reference (cache_control excluded). The
 * facts are kept as their own object, so every caller sees one object shape (a shape per source
 * made the reuse loop's property reads polymorphic, and several times slower).
 */
interface Memo {
  facts: BlockFacts;
  keys: string[];
  values: unknown[];
}

/**
 * Per-object memo of block facts. Requests of one conversation share most block objects, so a
 * replay hashes each block once instead of once per request. A hit is trusted only if every
 * top-level field still holds the same value (by reference), so replacing `text`, `content` or
 * `input` is seen; editing a nested object of an already-sent block in place is not (blocks are
 * treated as immutable once sent, as the transcript does).
 */
const memos = new WeakMap<TokenCounter, CounterMemos>();

/**
 * The block memos of one counter: the same block has other tokens under another counter, and as
 * the first block of a message (the per-message constant) than further in. `content` finds a block
 * by its canonical bytes (its JSON without markers), prefixed by its kind (`t` tool, `f` first block
 * of a message, `l` any other block): a block that arrived in an earlier request as another object
 * (a body parsed from HTTP is new objects every time) is found there and not hashed again.
 */
interface CounterMemos {
  first: WeakMap<object, Memo>;
  later: WeakMap<object, Memo>;
  content: Map<string, BlockFacts>;
  /** Characters of keys in `content`. */
  contentChars: number;
  /** The counter's token functions by place, made once per counter (see TokenFns). */
  fns: TokenFns;
}

/**
 * Tokens of a block by its place: a tool definition, a system block, the first block of a message
 * (with the per-message constant) or a later one, and a tool_result that expands deferred tools
 * (its own tokens plus each definition it expands). One set per counter, not one per request: V8
 * drops the optimised code of closures made afresh on every call at each full garbage collection.
 */
interface TokenFns {
  tool: (b: unknown) => number;
  system: (b: unknown) => number;
  first: (b: unknown) => number;
  later: (b: unknown) => number;
  expandedFirst: (b: unknown) => number;
  expandedLater: (b: unknown) => number;
}

function tokenFns(counter: TokenCounter): TokenFns {
  const expanded = (b: unknown, first: boolean) => {
    const e = b as Expanded;
    return counter.block(e[EXPANDS].block, first) + e[EXPANDS].definitions.reduce((n, d) => n + counter.tool(d), 0);
  };
  return {
    tool: (t) => counter.tool(t),
    system: (b) => counter.block(b, false),
    first: (b) => counter.block(b, true),
    later: (b) => counter.block(b, false),
    expandedFirst: (b) => expanded(b, true),
    expandedLater: (b) => expanded(b, false),
  };
}

function memosOf(counter: TokenCounter): CounterMemos {
  let m = memos.get(counter);
  if (!m) { m = { first: new WeakMap(), later: new WeakMap(), content: new Map(), contentChars: 0, fns: tokenFns(counter) }; memos.set(counter, m); }
  return m;
}

/** Characters of JSON a content memo may hold (at most 8 MB), enough for the new blocks of thousands of requests. */
const CONTENT_MEMO_MAX_CHARS = 4_000_000;
/** Blocks a content memo may hold; past either bound the oldest entries go first. */
const CONTENT_MEMO_MAX_ENTRIES = 50_000;

/** A block's kind for the memos: `t` a tool definition, `f` the first block of a message, `l` the rest. */
type BlockKind = 't' | 'f' | 'l';

// One-shot `crypto.hash` (Node ≥ 20.12) skips a Hash object per block; older Nodes use createHash.
const sha1: (data: string) => Buffer = typeof (crypto as { hash?: unknown }).hash === 'function'
  ? (data) => (crypto as unknown as { hash(a: string, d: string, e: 'buffer'): Buffer }).hash('sha1', data, 'buffer')
  : (data) => crypto.createHash('sha1').update(data).digest();

function factsOf(data: string, tokens: number): BlockFacts {
  const h = sha1(data);
  return { d0: h.readUInt32LE(0), d1: h.readUInt32LE(4), d2: h.readUInt32LE(8), d3: h.readUInt32LE(12), tokens };
}

function memoHit(memo: WeakMap<object, Memo>, block: Obj): Memo | undefined {
  const m = memo.get(block);
  if (!m) return undefined;
  let n = 0;
  for (const k in block) {
    if (k === 'cache_control') continue;
    if (m.keys[n] !== k || m.values[n] !== block[k]) return undefined;
    n++;
  }
  return n === m.keys.length ? m : undefined;
}

/**
 * The facts of `block` (whose JSON without markers is `json`) by `key`, its JSON prefixed by its
 * kind. The tokens are counted (`tokensOf(block)`) only on a miss; a primitive other than a
 * string has none.
 */
function factsByContent(m: CounterMemos, key: string, json: string, block: unknown, tokensOf: (b: unknown) => number): BlockFacts {
  const hit = m.content.get(key);
  if (hit) return hit;
  const facts = factsOf(json, (block !== null && typeof block === 'object') || typeof block === 'string' ? tokensOf(block) : 0);
  m.content.set(key, facts);
  m.contentChars += key.length;
  while (m.contentChars > CONTENT_MEMO_MAX_CHARS || m.content.size > CONTENT_MEMO_MAX_ENTRIES) {
    const oldest = m.content.keys().next();
    if (oldest.done) break;
    m.contentChars -= oldest.value.length;
    m.content.delete(oldest.value);
  }
  return facts;
}

/**
 * The facts of an object block: its memo's when every field still holds the same value, else
 * `blockFacts`'. The hit (most calls: every block of every request) has this small function to
 * itself; through `blockFacts` it allocated about 40 bytes per block (sampling heap profiler,
 * Node 20), which a replay paid some 80,000 times per job.
 */
function objectFacts(m: CounterMemos, kind: BlockKind, block: Obj, tokensOf: (b: unknown) => number): BlockFacts {
  const hit = memoHit(kind === 'f' ? m.first : m.later, block);
  return hit ? hit.facts : blockFacts(m, kind, block, tokensOf);
}

// No closure here: one that captured `block` made V8 allocate this function's context on every
// call, memo hits included (most calls: every block of every request).
function blockFacts(m: CounterMemos, kind: BlockKind, block: unknown, tokensOf: (b: unknown) => number): BlockFacts {
  if (!block || typeof block !== 'object') {
    const json = stableJson(block);
    return factsByContent(m, kind + json, json, block, tokensOf);
  }
  const memo = kind === 'f' ? m.first : m.later;
  const hit = memoHit(memo, block as Obj);
  if (hit) return hit.facts;
  const json = stableJson(block);
  const facts = factsByContent(m, kind + json, json, block, tokensOf);
  const keys = Object.keys(block).filter((k) => k !== 'cache_control');
  memo.set(block, { facts, keys, values: keys.map((k) => (block as Obj)[k]) });
  return facts;
}

/**
 * Whether two blocks have the same JSON once markers are dropped (what stableJson gives), without
 * building it: keys in the same order, `cache_control` and undefined values skipped at every
 * depth. Lets a block parsed from HTTP be matched with the previous request's block at its place
 * at the cost of a walk, with no string, hash or allocation.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Obj;
  const y = b as Obj;
  const kx = Object.keys(x);
  const ky = Object.keys(y);
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < kx.length && (kx[i] === 'cache_control' || x[kx[i]!] === undefined)) i++;
    while (j < ky.length && (ky[j] === 'cache_control' || y[ky[j]!] === undefined)) j++;
    if (i === kx.length || j === ky.length) return i === kx.length && j === ky.length;
    if (kx[i] !== ky[j] || !sameJson(x[kx[i]!], y[ky[j]!])) return false;
    i++;
    j++;
  }
}

// The prefix chain mixes block digests with MurmurHash3's 32-bit steps in two lanes (64 bits of
// state): cheap enough to run over every block of every request, wide enough that unrelated
// prefixes do not collide in practice.
function mix(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The prefix chain's state while a prefix is built: the lanes after the last block, and its prefix tokens. */
class ChainState {
  sum = 0;
  constructor(public h1: number, public h2: number) {}
}

const LEVEL_CODE = { tools: 1, system: 2, messages: 3 } as const;

/**
 * The state of one prefix being built, and `push`, which adds a block to it. A class rather than
 * closures inside buildPrefix: those were made afresh for every request, and V8 drops the
 * optimised code of such closures at each full garbage collection and compiles them again.
 */
class PrefixBuilder {
  readonly blocks: PrefixBlock[] = [];
  readonly byBlock = new Map<number, Breakpoint>();
  readonly explicit: Array<{ block: number; ttl: CacheTtl }> = [];
  readonly firstBlock: number[] = [];
  explicitCount = 0;
  inStep: boolean;

  constructor(
    readonly memos: CounterMemos,
    /** The previous prefix's entries, when it was built for the same model. */
    readonly prev: readonly PrefixBlock[] | undefined,
    /**
     * The chain's two lanes and the running token total, as fields of one object: a number that
     * is not a small integer (most lane values) written to a closure's or a function's variable
     * is a new heap box each time, where a field that holds doubles is updated in place.
     */
    readonly chain: ChainState,
  ) {
    this.inStep = prev !== undefined;
  }

  push(level: BlockPosition['level'], index: number, blockIndex: number, block: unknown, tokensOf: (b: unknown) => number, roleBit: number): void {
    const { blocks, prev, chain, memos: counterMemos } = this;
    const fns = counterMemos.fns;
    const tag = (LEVEL_CODE[level] | (roleBit << 2) | (index << 3)) >>> 0;
    const i = blocks.length;
    const kind: BlockKind = tokensOf === fns.tool ? 't' : tokensOf === fns.first || tokensOf === fns.expandedFirst ? 'f' : 'l';
    const old = this.inStep ? prev![i] : undefined;
    // In step with the previous request, another object with the same JSON as the block at its
    // place needs no digest, only a walk of both: a body parsed from HTTP has new objects every
    // time. (The same object goes through the memo, which sees a field replaced in place.)
    const same = old !== undefined && old.tag === tag && old.blockIndex === blockIndex && old.block !== block
      && typeof block === 'object' && block !== null && !(kind === 'f' ? counterMemos.first : counterMemos.later).has(block) && sameJson(old.block, block);
    const facts = same ? undefined : typeof block === 'object' && block !== null ? objectFacts(counterMemos, kind, block as Obj, tokensOf) : blockFacts(counterMemos, kind, block, tokensOf);
    if (old && (same || (old.tag === tag && old.blockIndex === blockIndex && old.digest0 === facts!.d0 && old.digest1 === facts!.d1 && old.digest2 === facts!.d2 && old.digest3 === facts!.d3))) {
      // Same chain before, same block: the chain after it is the old one by construction. A copy
      // for another object is built field by field: one object shape for every entry.
      blocks.push(old.block === block ? old : {
        level: old.level, index: old.index, blockIndex: old.blockIndex, block, tokens: old.tokens, prefixTokens: old.prefixTokens, hash: old.hash,
        lane1: old.lane1, lane2: old.lane2, digest0: old.digest0, digest1: old.digest1, digest2: old.digest2, digest3: old.digest3, tag: old.tag,
      });
      chain.h1 = old.lane1;
      chain.h2 = old.lane2;
      chain.sum = old.prefixTokens;
    } else {
      this.inStep = false;
      const f = facts ?? blockFacts(counterMemos, kind, block, tokensOf);
      const h1 = (chain.h1 = fmix(mix(mix(mix(chain.h1, f.d0), f.d1), tag)));
      const h2 = (chain.h2 = fmix(mix(mix(mix(chain.h2, f.d2), f.d3), tag ^ 0x5bd1e995)));
      const sum = (chain.sum += f.tokens);
      // 32 bits of one lane and 21 of the other: an exact integer, a cheap Map key.
      blocks.push({
        level, index, blockIndex, block, tokens: f.tokens, prefixTokens: sum, hash: h1 * 0x200000 + (h2 & 0x1fffff),
        lane1: h1, lane2: h2, digest0: f.d0, digest1: f.d1, digest2: f.d2, digest3: f.d3, tag,
      });
    }
    const ttl = blockTtl(block, blocks[i]!);
    if (ttl) {
      this.explicitCount++;
      this.byBlock.set(i, { block: i, ttl, automatic: false });
      this.explicit.push({ block: i, ttl });
    }
  }
}

/**
 * Builds the hashed prefix of a request and its breakpoints.
 *
 * The hash chain starts from the model id (a model switch misses everything) and mixes
 * `tool_choice` and `thinking` in before the first message block (changing them invalidates the
 * messages level only, as the prompt-caching docs' invalidation table says). Each block adds its
 * level, its message's index and role, and the SHA-1 of its JSON without `cache_control` markers.
 *
 * Tokens come from `counter` (rein's byte estimate by default); the first block of each message
 * carries the counter's per-message constant.
 *
 * Throws SimulatorApiError (400) for: more than 4 breakpoints, a malformed `cache_control`, a
 * 1-hour breakpoint after a 5-minute one.
 */
export function buildPrefix(request: PrefixRequest, previous?: PromptPrefix, counter: TokenCounter = BYTE_COUNTER): PromptPrefix {
  const counterMemos = memosOf(counter);
  const { tool: toolTokens, system: systemTokens, first: firstTokens, later: laterTokens, expandedFirst, expandedLater } = counterMemos.fns;
  const seed = factsOf(`model:${request.model}`, 0);
  const params = `${JSON.stringify(request.tool_choice ?? null)}|${JSON.stringify(request.thinking ?? null)}`;
  // While the chain is in step with the previous request's prefix (same model, same blocks so far),
  // an entry whose block has the same place and digest is the previous entry: a growing
  // conversation only chains its new blocks. The block need not be the same object: a marked copy
  // of an unchanged block (the last tool, the static system block) keeps the chain in step, so the
  // whole history after it is reused instead of chained again.
  const pb = new PrefixBuilder(counterMemos, previous && previous.model === request.model ? previous.blocks : undefined, new ChainState(seed.d0, seed.d1));
  const { blocks, byBlock, explicit, firstBlock, chain } = pb;
  const prev = pb.prev;
  // Deferred tools (`defer_loading: true`) are not part of the prefix: the API expands a deferred
  // definition where a `tool_reference` block in a `tool_result` names it, so finding a tool
  // appends to the conversation and leaves the cached prefix as it was.
  // https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching
  const deferredSet = deferredTools(request.tools);
  const deferred = deferredSet.byName;
  const tools = request.tools ?? [];
  for (let i = 0; i < tools.length; i++) if (!isDeferred(tools[i])) pb.push('tools', i, 0, tools[i], toolTokens, 0);
  const system = request.system;
  if (typeof system === 'string') {
    if (system.length > 0) pb.push('system', 0, 0, system, systemTokens, 0);
  } else if (system) {
    for (let i = 0; i < system.length; i++) pb.push('system', i, 0, system[i], systemTokens, 0);
  }
  if (request.messages.length) {
    if (pb.inStep && previous!.params !== params) pb.inStep = false;
    // When the first message block is reused, push() takes its lanes and this mix is overwritten.
    const p = factsOf(`params:${params}`, 0);
    chain.h1 = fmix(mix(mix(chain.h1, p.d0), p.d1));
    chain.h2 = fmix(mix(mix(chain.h2, p.d2), p.d3));
  }
  const messages = request.messages;
  // Leading messages that are the previous request's own sealed objects (parsed once by the HTTP
  // server, frozen: body.ts) at the same places, after an identical chain: their entries are the
  // previous ones, taken without looking at a single block.
  let from = 0;
  const before = previous ? extras.get(previous) : undefined;
  if (previous && before) extras.delete(previous);
  // Deferred definitions expand inside message blocks: the same set expands them the same way.
  if (pb.inStep && before && before.firstBlock[0] === blocks.length && sameDeferred(before.deferred, deferredSet)) {
    from = sealedSharedLength(messages, before.messages);
    const start = blocks.length;
    const end = before.firstBlock[from]!;
    for (let i = 0; i < from; i++) firstBlock.push(before.firstBlock[i]!);
    for (let j = start; j < end; j++) blocks.push(prev![j]!);
    for (const e of before.explicit) {
      if (e.block < start || e.block >= end) continue;
      pb.explicitCount++;
      byBlock.set(e.block, { block: e.block, ttl: e.ttl, automatic: false });
      explicit.push(e);
    }
    if (end > start) {
      const last = blocks[end - 1]!;
      chain.h1 = last.lane1;
      chain.h2 = last.lane2;
      chain.sum = last.prefixTokens;
    }
  }
  // Plain loops: this runs over every block of every request, where a closure (and a context for
  // the loop's variables) per message was most of this function's garbage.
  for (let i = from; i < messages.length; i++) {
    const m = messages[i]!;
    firstBlock.push(blocks.length);
    const roleBit = m.role === 'assistant' ? 1 : 0;
    const content = m.content;
    if (typeof content === 'string') pb.push('messages', i, 0, content, firstTokens, roleBit);
    else {
      for (let j = 0; j < content.length; j++) {
        const b = content[j];
        const expanded = deferred.size ? expandReferences(b, deferred) : undefined;
        if (expanded) pb.push('messages', i, j, expanded, j === 0 ? expandedFirst : expandedLater, roleBit);
        else pb.push('messages', i, j, b, j === 0 ? firstTokens : laterTokens, roleBit);
      }
    }
  }
  firstBlock.push(blocks.length);
  let count = pb.explicitCount;
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
  const prefix: PromptPrefix = { blocks, breakpoints, totalTokens, model: request.model, params };
  extras.set(prefix, { messages, firstBlock, explicit, deferred: deferredSet });
  return prefix;
}

/**
 * What the next request of the same conversation needs from a prefix to take its leading messages
 * whole: the messages it was built from, where each one's blocks start (one more entry: the end),
 * the explicit markers by block, and the deferred definitions it expanded. Kept beside the prefix
 * (not in it: a PromptPrefix is reported as it was) and dropped once a later prefix used it, so
 * only the last prefix of a conversation holds it.
 */
interface PrefixExtra {
  messages: PrefixRequest['messages'];
  firstBlock: number[];
  explicit: ReadonlyArray<{ block: number; ttl: CacheTtl }>;
  deferred: DeferredTools;
}

const extras = new WeakMap<PromptPrefix, PrefixExtra>();

/** Whether a `tools` entry is deferred (`defer_loading: true`): loaded only through a `tool_reference`. */
export function isDeferred(tool: unknown): boolean {
  return !!tool && typeof tool === 'object' && (tool as Obj).defer_loading === true;
}

/**
 * The deferred tools of a request by name, as the API expands them (without `defer_loading` and
 * markers), and the request's own `tools` entries they came from, in order.
 */
interface DeferredTools {
  byName: Map<string, Obj>;
  entries: unknown[];
  /** Their JSON, once made (`deferredKey`). */
  key: string | undefined;
}

function deferredTools(tools: readonly unknown[] | null | undefined): DeferredTools {
  const byName = new Map<string, Obj>();
  const entries: unknown[] = [];
  if (tools) {
    for (let i = 0; i < tools.length; i++) {
      const t = tools[i];
      if (!isDeferred(t)) continue;
      const { defer_loading: _d, cache_control: _c, ...def } = t as Obj;
      byName.set(String(def.name), def);
      entries.push(t);
    }
  }
  return { byName, entries, key: undefined };
}

/** The deferred definitions' JSON by name (what the comparison below falls back to), made once per set. */
function deferredKey(d: DeferredTools): string {
  return (d.key ??= d.byName.size ? JSON.stringify([...d.byName]) : '');
}

/**
 * Whether two requests' deferred definitions expand `tool_reference` blocks the same way: the same
 * `tools` entries (objects) in the same order, or else the same JSON. The JSON (several KB of tool
 * schemas) is made only when the entries are other objects, as in bodies parsed from HTTP: a replay
 * in the same process sends the same objects every time.
 */
function sameDeferred(a: DeferredTools, b: DeferredTools): boolean {
  if (a.entries.length !== b.entries.length) return false;
  let i = 0;
  while (i < a.entries.length && a.entries[i] === b.entries[i]) i++;
  return i === a.entries.length || deferredKey(a) === deferredKey(b);
}

const EXPANDS = Symbol('expands');

/** A tool_result as the cache sees it once its `tool_reference` blocks are expanded: the definitions ride along. */
interface Expanded extends Obj {
  [EXPANDS]: { block: unknown; definitions: Obj[] };
}

/**
 * The block with the definitions its `tool_reference` blocks load, or undefined when it references
 * none. The definitions are part of the block's JSON (so its digest changes with them) and are
 * counted as tool definitions, at this place in the prompt.
 */
function expandReferences(block: unknown, deferred: ReadonlyMap<string, Obj>): Expanded | undefined {
  if (!block || typeof block !== 'object') return undefined;
  const b = block as Obj;
  if (b.type !== 'tool_result' || !Array.isArray(b.content)) return undefined;
  // Made on the first reference found: this runs for every block of every request.
  let definitions: Obj[] | undefined;
  const content: unknown[] = b.content;
  for (let i = 0; i < content.length; i++) {
    const c = content[i];
    if (c && typeof c === 'object' && (c as Obj).type === 'tool_reference') {
      const def = deferred.get(String((c as Obj).tool_name));
      if (def) (definitions ??= []).push(def);
    }
  }
  if (!definitions) return undefined;
  const expanded: Obj = { ...b, expanded_tools: definitions };
  Object.defineProperty(expanded, EXPANDS, { value: { block, definitions }, enumerable: false });
  return expanded as Expanded;
}

function isNotAutoCacheable(block: unknown): boolean {
  if (!block || typeof block !== 'object') return typeof block === 'string' && block.length === 0;
  const b = block as Obj;
  return NOT_AUTO_CACHEABLE.has(String(b.type)) || (b.type === 'text' && b.text === '');
}
