/**
 * Request bodies read over HTTP, parsed against the previous body of the same conversation.
 *
 * A client of the Messages API sends the whole history with every request
 * (https://docs.anthropic.com/en/api/messages), so the body of request n+1 starts with the bytes
 * of request n up to the first block that changed (usually the message that lost its cache
 * marker). `BodyParser.parse` finds how many leading bytes a body shares with the previous body of
 * the same key (a native compare), takes the messages that lie wholly inside them from the
 * previous parse (the same objects), and parses only the rest: the messages after them and the
 * fields around the `messages` array. The result is what `JSON.parse` of the whole text gives;
 * anything the shortcut cannot vouch for (no previous body, a changed head, a second `messages`
 * key, a syntax error) goes through `JSON.parse` of the whole text, whose errors are the ones
 * reported.
 *
 * Messages parsed here are frozen, deeply, and remembered as sealed (`isSealedMessage`): a later
 * request that holds the same object holds the same content, so the simulator can skip checks and
 * hashes it already made for it (validate.ts, prefix.ts).
 */
import { randomBytes } from 'node:crypto';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** Messages made by a BodyParser: deeply frozen, so the same object always has the same content. */
const sealed = new WeakSet<object>();

/** Messages arrays made by a BodyParser: frozen, and every element is sealed. */
const sealedLists = new WeakSet<readonly unknown[]>();

/** True when `message` came from a BodyParser (it and everything in it are frozen). */
export function isSealedMessage(message: unknown): boolean {
  return typeof message === 'object' && message !== null && sealed.has(message);
}

/**
 * How many leading messages of `list` are the same objects as in `before`, counting only sealed
 * ones. A list made by a BodyParser is sealed whole, so that case is a pass over two arrays of
 * pointers, without reading a single message object (the history is spread over the heap: reading
 * each object is a cache miss).
 */
export function sealedSharedLength(list: readonly unknown[], before: readonly unknown[]): number {
  const n = Math.min(list.length, before.length);
  let i = 0;
  if (sealedLists.has(list)) {
    while (i < n && list[i] === before[i]) i++;
  } else {
    while (i < n && list[i] === before[i] && isSealedMessage(list[i])) i++;
  }
  return i;
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
  else for (const k in value) deepFreeze((value as Record<string, unknown>)[k]);
}

function seal(messages: readonly unknown[]): void {
  for (const m of messages) {
    if (typeof m !== 'object' || m === null) continue;
    deepFreeze(m);
    sealed.add(m);
  }
}

function sealList(list: unknown[]): void {
  Object.freeze(list);
  sealedLists.add(list);
}

/** What the previous body of a key looked like. */
interface Parsed {
  bytes: Buffer;
  /** Offset of the `[` that opens the top-level `messages` array. */
  open: number;
  /** For each message, the offset of the `,` or `]` right after it (whitespace included before). */
  ends: number[];
  messages: unknown[];
}

/** Bytes compared per native call before the mismatch is narrowed down. */
const COMPARE_STEP = 1 << 16;

/** Length of the longest common prefix of `a` and `b`, bytes. */
export function commonPrefixLength(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  let lo = 0;
  while (lo < n) {
    const hi = Math.min(n, lo + COMPARE_STEP);
    if (a.compare(b, lo, hi, lo, hi) !== 0) break;
    lo = hi;
  }
  if (lo >= n) return n;
  // [0, lo) is equal and [lo, hi) holds a mismatch.
  let hi = Math.min(n, lo + COMPARE_STEP);
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (a.compare(b, lo, mid, lo, mid) === 0) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** Offset just past the JSON string that opens at `at` (a `"`), or -1 when it does not close. */
function skipString(b: Buffer, at: number): number {
  let q = at + 1;
  for (;;) {
    q = b.indexOf(QUOTE, q);
    if (q < 0) return -1;
    let s = q - 1;
    while (b[s] === BACKSLASH) s--;
    // An even run of backslashes before the quote escapes only itself: the quote ends the string.
    if ((q - 1 - s) % 2 === 0) return q + 1;
    q++;
  }
}

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(b: Buffer, i: number): number {
  while (i < b.length && isSpace(b[i])) i++;
  return i;
}

/**
 * Scans array elements from `from` (just inside the array, or just after a `,` when `afterComma`)
 * to the array's closing `]`: pushes onto `ends` the offset of the `,` or `]` after each element
 * and returns the offset of the `]`, or -1 when the text is not shaped like an array (an empty
 * element, a trailing comma: JSON.parse then says why).
 */
function scanElements(b: Buffer, from: number, ends: number[], afterComma = false): number {
  let depth = 0;
  let value = false;
  let comma = afterComma;
  for (let i = from; i < b.length; i++) {
    const c = b[i]!;
    if (c === QUOTE) {
      const e = skipString(b, i);
      if (e < 0) return -1;
      i = e - 1;
      value = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      value = true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth > 0) { depth--; continue; }
      if (c !== CLOSE_BRACKET || (comma && !value)) return -1;
      if (value) ends.push(i);
      return i;
    } else if (c === COMMA) {
      if (depth > 0) continue;
      if (!value) return -1;
      ends.push(i);
      value = false;
      comma = true;
    } else if (!isSpace(c)) {
      value = true;
    }
  }
  return -1;
}

/** Offset just past the JSON value at `i`, or -1 (only its shape is checked; JSON.parse checks the rest). */
function skipValue(b: Buffer, i: number): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (let j = i; j < b.length; j++) {
      const d = b[j]!;
      if (d === QUOTE) {
        const e = skipString(b, j);
        if (e < 0) return -1;
        j = e - 1;
      } else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
        if (--depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < b.length && b[j] !== COMMA && b[j] !== CLOSE_BRACE && !isSpace(b[j])) j++;
  return j > i ? j : -1;
}

/**
 * Where the top-level `messages` array of an object body is: the offset of its `[` and the end of
 * each element. Undefined when the body is not an object, has no such array, or names `messages`
 * twice (JSON.parse keeps the last; the shortcut would not know which).
 */
function locateMessages(b: Buffer): { open: number; ends: number[] } | undefined {
  let i = skipSpace(b, 0);
  if (b[i] !== OPEN_BRACE) return undefined;
  i = skipSpace(b, i + 1);
  let found: { open: number; ends: number[] } | undefined;
  if (b[i] === CLOSE_BRACE) return undefined;
  for (;;) {
    if (b[i] !== QUOTE) return undefined;
    const keyEnd = skipString(b, i);
    if (keyEnd < 0) return undefined;
    let key: unknown;
    try {
      key = JSON.parse(b.toString('utf8', i, keyEnd));
    } catch {
      return undefined;
    }
    i = skipSpace(b, keyEnd);
    if (b[i] !== COLON) return undefined;
    i = skipSpace(b, i + 1);
    if (key === 'messages') {
      if (found || b[i] !== OPEN_BRACKET) return undefined;
      const ends: number[] = [];
      const close = scanElements(b, i + 1, ends);
      if (close < 0) return undefined;
      found = { open: i, ends };
      i = close + 1;
    } else {
      i = skipValue(b, i);
      if (i < 0) return undefined;
    }
    i = skipSpace(b, i);
    if (b[i] === CLOSE_BRACE) return found;
    if (b[i] !== COMMA) return undefined;
    i = skipSpace(b, i + 1);
  }
}

/** Bodies remembered at once (one per conversation key; the oldest goes first). */
const MAX_KEYS = 16;

/**
 * Parses request bodies, reusing what the previous body of the same key already parsed (see the
 * module comment). `key` names a conversation: the server uses the path and the `x-rein-source`
 * header, so the main loop, a title request and a compaction each match their own previous body.
 */
export class BodyParser {
  private readonly last = new Map<string, Parsed>();
  /** Stands in for the messages array while the fields around it are parsed; no body can contain it by chance. */
  private readonly sentinel = `rein-sim-messages-${randomBytes(12).toString('hex')}`;

  /** The body as `JSON.parse(bytes.toString('utf8'))` gives it; throws its SyntaxError for bad JSON. */
  parse(bytes: Buffer, key: string): unknown {
    const prev = this.last.get(key);
    this.last.delete(key);
    const reused = prev ? this.reuse(bytes, prev) : undefined;
    if (reused) {
      this.remember(key, reused.parsed);
      return reused.body;
    }
    const body: unknown = JSON.parse(bytes.toString('utf8'));
    const messages = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).messages : undefined;
    if (Array.isArray(messages)) {
      const at = locateMessages(bytes);
      if (at && at.ends.length === messages.length) {
        seal(messages);
        sealList(messages);
        this.remember(key, { bytes, open: at.open, ends: at.ends, messages });
      }
    }
    return body;
  }

  private remember(key: string, parsed: Parsed): void {
    this.last.set(key, parsed);
    if (this.last.size > MAX_KEYS) this.last.delete(this.last.keys().next().value!);
  }

  private reuse(bytes: Buffer, prev: Parsed): { body: Record<string, unknown>; parsed: Parsed } | undefined {
    const shared = commonPrefixLength(prev.bytes, bytes);
    if (shared <= prev.open) return undefined;
    // The messages that end inside the shared bytes are the previous ones, at the same places.
    let lo = 0;
    let hi = prev.ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (prev.ends[mid]! <= shared) lo = mid + 1;
      else hi = mid;
    }
    const kept = lo;
    let from = prev.open + 1;
    let afterComma = false;
    if (kept > 0) {
      const at = prev.ends[kept - 1]!;
      if (bytes[at] === COMMA) { from = at + 1; afterComma = true; } else if (bytes[at] === CLOSE_BRACKET) from = at;
      else return undefined;
    }
    const ends = prev.ends.slice(0, kept);
    const close = scanElements(bytes, from, ends, afterComma);
    if (close < 0) return undefined;
    let fresh: unknown[];
    let rest: unknown;
    try {
      fresh = JSON.parse(`[${bytes.toString('utf8', from, close)}]`) as unknown[];
      rest = JSON.parse(bytes.toString('utf8', 0, prev.open) + JSON.stringify(this.sentinel) + bytes.toString('utf8', close + 1));
    } catch {
      return undefined;
    }
    if (fresh.length !== ends.length - kept) return undefined;
    if (!rest || typeof rest !== 'object' || Array.isArray(rest) || (rest as Record<string, unknown>).messages !== this.sentinel) return undefined;
    seal(fresh);
    const messages = kept ? prev.messages.slice(0, kept).concat(fresh) : fresh;
    sealList(messages);
    (rest as Record<string, unknown>).messages = messages;
    return { body: rest as Record<string, unknown>, parsed: { bytes, open: prev.open, ends, messages } };
  }
}
