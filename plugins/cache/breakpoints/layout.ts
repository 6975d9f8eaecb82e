/**
 * Where `cache_control` markers go, as a function of the request params. Never mutates its input:
 * every tool, system block, message and content block that gets a marker is a copy, because the
 * request shares its blocks with the kernel's history. Copies are memoised by original object
 * (see `markedCopy`), so an unchanged block marked again is the same copy.
 */
import { forEachChangedPlace, type ModelRequest, withReplacedMessages } from '../../../kernel/index.js';

/**
 * The marker layouts:
 * - `none`: no markers;
 * - `system`: the end of the static system block (the last system block when there is none);
 * - `tools+system`: also the last tool definition, so the tools survive a system change;
 * - `tools+system+tail`: also the last block of the last message, one marker that moves forward
 *   with the conversation (what Claude Code and pi send);
 * - `two-tail`: as above plus a marker left where the previous request's tail was, so a turn that
 *   adds more than 20 blocks (the API's lookback) still reads the previous prefix;
 * - `tail`: only the last block of the last message (for a system prompt that carries its own
 *   markers, as Claude Code's does);
 * - `system+last-two`: the static system block and the last block of each of the last two messages
 *   (what opencode sends);
 * - `auto`: the request's top-level `cache_control` (the API places it on the last cacheable block).
 */
export const LAYOUTS = ['none', 'system', 'tools+system', 'tools+system+tail', 'two-tail', 'tail', 'system+last-two', 'auto'] as const;
export type Layout = (typeof LAYOUTS)[number];

/** Most `cache_control` markers one request may carry, explicit and top-level together (prompt-caching docs). */
export const MAX_CACHE_BREAKPOINTS = 4;

/** A marker as sent. `5m` is the API's default TTL and is sent without a `ttl` field. */
export type CacheControl = { type: 'ephemeral'; ttl?: '1h' };

/** The marker for a TTL. */
export function cacheControlFor(ttl: '5m' | '1h'): CacheControl {
  return ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

type Obj = Record<string, unknown>;

/** Block types the API does not let carry a marker (thinking) or that cannot be cached (empty text). */
function markable(block: unknown): boolean {
  if (!block || typeof block !== 'object') return false;
  const b = block as Obj;
  if (b.type === 'thinking' || b.type === 'redacted_thinking') return false;
  if (b.type === 'text' && !b.text) return false;
  return true;
}

function hasMarker(block: unknown): boolean {
  if (!block || typeof block !== 'object') return false;
  const b = block as Obj;
  if (b.cache_control != null) return true;
  if (b.type === 'tool_result' && Array.isArray(b.content)) return b.content.some((c) => c && typeof c === 'object' && (c as Obj).cache_control != null);
  return false;
}

/** Markers on the blocks of one message's content. */
function contentMarkers(content: unknown): number {
  let n = 0;
  if (Array.isArray(content)) for (const b of content) if (hasMarker(b)) n++;
  return n;
}

/** Markers on the tools, the system blocks and the request itself (all but the messages). */
function paramMarkers(params: ModelRequest): number {
  let n = 0;
  for (const t of params.tools ?? []) if (hasMarker(t)) n++;
  if (Array.isArray(params.system)) for (const b of params.system) if (hasMarker(b)) n++;
  if ((params as unknown as Obj).cache_control != null) n++;
  return n;
}

function messagesMarkers(messages: ModelRequest['messages']): number {
  let n = 0;
  for (const m of messages) n += contentMarkers(m.content);
  return n;
}

/** Markers already in a request (placed by someone else), top-level included. */
export function countMarkers(params: ModelRequest): number {
  return paramMarkers(params) + messagesMarkers(params.messages);
}

/**
 * Counts the markers on the messages of successive requests, looking into a message only where
 * its content is not the same array as at the same place in the previous request. Requests share
 * their history's content arrays; a request list made by the kernel (kernel `RequestLists`) also
 * says at which places it may differ from the previous one (`changedPlaces`), and then only those
 * places and the messages added since are looked at: a long session's request costs what it
 * changed. Other lists cost a pass of identity checks over every place.
 */
export function messageMarkerCounter(): (messages: ModelRequest['messages']) => number {
  const contents: unknown[] = [];
  const counts: number[] = [];
  let total = 0;
  // The previous call's list: the same message object at the same place is skipped unread.
  let before: ModelRequest['messages'] = [];
  return (messages) => {
    const visit = (i: number) => {
      const c = messages[i]!.content;
      if (i < contents.length && contents[i] === c) return;
      const n = contentMarkers(c);
      total += n - (counts[i] ?? 0);
      contents[i] = c;
      counts[i] = n;
    };
    forEachChangedPlace(before, messages, contents.length, visit);
    before = messages;
    for (let i = messages.length; i < counts.length; i++) total -= counts[i]!;
    contents.length = messages.length;
    counts.length = messages.length;
    return total;
  };
}

/** Where the previous request's tail marker sat: the message index and its content array. */
export interface TailMark {
  index: number;
  content: unknown;
}

export interface PlaceInput {
  layout: Layout;
  cacheControl: CacheControl;
  /** Number of leading system blocks that are static (0 or 1 with rein's request builder). */
  staticSystemBlocks: number;
  /** The previous request's tail (for `two-tail`). */
  previousTail?: TailMark;
  /** Counts the markers already on the messages (default: looks at every block; see messageMarkerCounter). */
  messageMarkers?: (messages: ModelRequest['messages']) => number;
}

export interface PlaceResult {
  params: ModelRequest;
  /** Where markers went: `tools.N`, `system.N`, `messages.N.content.M`, `request`. */
  placed: string[];
  /** Markers the layout wanted but the 4-marker limit did not allow. */
  skipped: string[];
  /** The tail marked in this request (for the next `two-tail` request). */
  tail?: TailMark;
}

/**
 * Marked copies, by original object. The same block marked with the same marker is the very same
 * copy in every request, as is the content array holding it: per-object memos downstream (the
 * prompt-cache simulator's block digests and prefix reuse, the break detector's fingerprints)
 * then see an unchanged block instead of a new one each request, and skip serialising it again.
 * A memo entry is used only while the original still holds the same top-level values; copies,
 * like the history they are made from, are never mutated.
 */
const markedCopies = new WeakMap<object, { ttl: string; source: unknown[]; copy: object }>();

function sameValues(original: Obj, source: readonly unknown[]): boolean {
  let n = 0;
  for (const k in original) {
    if (source[n] !== original[k]) return false;
    n++;
  }
  return n === source.length;
}

function valuesOf(original: Obj): unknown[] {
  const out: unknown[] = [];
  for (const k in original) out.push(original[k]);
  return out;
}

/** `original` with `cache_control: cc` (a copy; the same copy as last time when nothing changed). */
export function markedCopy<T extends object>(original: T, cc: CacheControl): T {
  const ttl = cc.ttl ?? '5m';
  const hit = markedCopies.get(original);
  if (hit && hit.ttl === ttl && sameValues(original as Obj, hit.source)) return hit.copy as T;
  const copy = { ...(original as Obj), cache_control: { ...cc } } as T;
  markedCopies.set(original, { ttl, source: valuesOf(original as Obj), copy });
  return copy;
}

/** Memo of content arrays with one block marked, by original array. */
const markedContents = new WeakMap<readonly unknown[], { index: number; ttl: string; source: unknown[]; copy: unknown[] }>();

/** `content` with its block `bi` marked (a copy; the same copy as last time when nothing changed). */
function markedContent(content: readonly unknown[], bi: number, cc: CacheControl): unknown[] {
  const ttl = cc.ttl ?? '5m';
  const block = markedCopy(content[bi] as object, cc);
  const hit = markedContents.get(content);
  if (hit && hit.index === bi && hit.ttl === ttl && hit.copy[bi] === block && hit.source.length === content.length && hit.source.every((b, i) => b === content[i])) return hit.copy;
  const copy = content.slice();
  copy[bi] = block;
  markedContents.set(content, { index: bi, ttl, source: content.slice(), copy });
  return copy;
}

/** Index of the last block of `content` that may carry a marker, or -1. */
function lastMarkable(content: readonly unknown[]): number {
  for (let i = content.length - 1; i >= 0; i--) if (markable(content[i])) return i;
  return -1;
}

/**
 * Places the layout's markers. Markers already in the request count against the limit of 4; the
 * layout's markers are taken in prefix order (tools, system, previous tail, tail) while the limit
 * allows, and the rest are reported in `skipped`.
 */
export function placeMarkers(input: PlaceInput, params: ModelRequest): PlaceResult {
  const placed: string[] = [];
  const skipped: string[] = [];
  if (input.layout === 'none') return { params, placed, skipped };
  const onMessages = input.messageMarkers ? input.messageMarkers(params.messages) : messagesMarkers(params.messages);
  let budget = MAX_CACHE_BREAKPOINTS - paramMarkers(params) - onMessages;
  const out: ModelRequest = { ...params };
  const cc = input.cacheControl;
  const take = (where: string) => {
    if (budget > 0) {
      budget--;
      placed.push(where);
      return true;
    }
    skipped.push(where);
    return false;
  };

  if (input.layout === 'auto') {
    if ((params as unknown as Obj).cache_control == null && take('request')) (out as unknown as Obj).cache_control = { ...cc };
    return { params: out, placed, skipped };
  }

  const wantTools = input.layout !== 'system' && input.layout !== 'tail' && input.layout !== 'system+last-two';
  // The last tool the prompt holds: a deferred one (`defer_loading`) is not in the prefix.
  const lastTool = out.tools ? out.tools.findLastIndex((t) => (t as unknown as Obj).defer_loading !== true) : -1;
  if (wantTools && lastTool >= 0) {
    const i = lastTool;
    if (!hasMarker(out.tools![i]) && take(`tools.${i}`)) {
      const tools = out.tools!.slice();
      tools[i] = markedCopy(tools[i]!, cc);
      out.tools = tools;
    }
  }

  if (input.layout !== 'tail' && Array.isArray(out.system) && out.system.length) {
    const i = input.staticSystemBlocks > 0 ? Math.min(input.staticSystemBlocks, out.system.length) - 1 : out.system.length - 1;
    if (!hasMarker(out.system[i]) && take(`system.${i}`)) {
      const system = out.system.slice();
      system[i] = markedCopy(system[i]!, cc);
      out.system = system;
    }
  }

  let tail: TailMark | undefined;
  if (input.layout === 'tools+system+tail' || input.layout === 'two-tail' || input.layout === 'tail' || input.layout === 'system+last-two') {
    const messages = out.messages;
    // Marked copies of the messages, by place: the list is changed at these places only (in place
    // while it is the request's own, else in a copy; see withReplacedMessages).
    const replacements: [number, (typeof messages)[number]][] = [];
    const mark = (mi: number, label: string): boolean => {
      const m = messages[mi];
      if (!m || !Array.isArray(m.content)) return false;
      const bi = lastMarkable(m.content);
      if (bi < 0 || hasMarker(m.content[bi])) return false;
      if (!take(`messages.${mi}.content.${bi}${label}`)) return false;
      replacements.push([mi, { ...m, content: markedContent(m.content, bi, cc) } as typeof m]);
      return true;
    };
    const last = messages.length - 1;
    const prev = input.previousTail;
    // The previous tail is marked only while it is still the same message (same content array)
    // and no longer the last one.
    if (input.layout === 'two-tail' && prev && prev.index < last && messages[prev.index]?.content === prev.content) {
      mark(prev.index, '');
    }
    if (input.layout === 'system+last-two' && last >= 1) mark(last - 1, '');
    if (last >= 0) {
      const original = messages[last]!;
      if (mark(last, '')) tail = { index: last, content: original.content };
    }
    if (replacements.length) out.messages = withReplacedMessages(messages, replacements);
  }
  return { params: out, placed, skipped, tail };
}
