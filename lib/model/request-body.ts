/**
 * The bytes of a Messages API request body, byte for byte the UTF-8 of `JSON.stringify(body)`,
 * without serialising the whole history on every request.
 *
 * The protocol sends the whole conversation with every request, so `JSON.stringify` of the body,
 * and then encoding that string to UTF-8, cost time in proportion to the session's length on every
 * turn. A `RequestBodyWriter` keeps the UTF-8 bytes of the `messages` array it wrote last; the next
 * request's messages are compared with those (by object, one pointer comparison each), the bytes
 * of the shared leading messages are kept, and only the messages after them are serialised: in a
 * session, the messages added since the last request and the few copies that carry the moving cache
 * markers. The body is then the request's other keys (`model`, `system`, `tools`, ..., serialised
 * each time: they do not grow with the session) around those bytes, in one copy.
 *
 * This relies on how rein treats its history, as the kernel's running state does
 * (`kernel/incremental.ts`): a message is never changed in place once it is in the history, and
 * request-stage taps copy a message or block before they change it (the cache markers of
 * `cache/breakpoints` and `cache/ttl`, the reminders of `system-prompt`, the note of `final-answer`
 * all do). So the same message object sends the same bytes. A different object counts as the same
 * message only when both are plain `{role, content}` objects with the same role and the same
 * `content` (the same array object, or an equal string): the copy `system-prompt` makes of the first
 * message each request, with its memoised content, keeps the bytes after it.
 */

type Obj = Record<string, unknown>;

/**
 * True for an object `JSON.stringify` writes as its own enumerable properties, with nothing of its
 * own to say about its form: a plain object (its prototype `Object.prototype` or null) with no
 * `toJSON`. Anything else (an array, a class instance, a Date) is left to `JSON.stringify` whole.
 */
function isPlainRecord(value: unknown): value is Obj {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as Obj).toJSON !== 'function';
}

/** A plain object whose own keys are exactly `role` then `content`: its JSON is fixed by those two values. */
function isRoleContent(m: unknown): m is { role: unknown; content: unknown } {
  if (!isPlainRecord(m)) return false;
  const keys = Object.keys(m);
  return keys.length === 2 && keys[0] === 'role' && keys[1] === 'content';
}

/** Whether `now` writes the same JSON as `before`, a message whose bytes are kept (see the module comment). */
function sameMessage(before: unknown, now: unknown): boolean {
  if (before === now) return true;
  return isRoleContent(before) && isRoleContent(now) && before.role === now.role && before.content === now.content;
}

const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;

/**
 * The UTF-8 bytes of a `messages` array, kept from one request to the next (see the module
 * comment). Holds the last request's message objects.
 */
class MessagesBytes {
  /** `[`, then each message's JSON, separated by commas (no closing bracket). */
  private buf = Buffer.allocUnsafe(0);
  /** Bytes of `buf` in use. */
  private used = 0;
  /** The messages whose JSON is in `buf`, in order. */
  private items: unknown[] = [];
  /** `ends[i]`: where message `i`'s JSON ends in `buf` (exclusive), bytes. */
  private ends: number[] = [];

  /**
   * Brings the bytes up to date with `messages`. Returns false, keeping nothing, when one of them
   * is not a plain object (the caller then writes the whole body with `JSON.stringify`).
   */
  update(messages: readonly unknown[]): boolean {
    const items = this.items;
    const n = Math.min(items.length, messages.length);
    let k = 0;
    while (k < n && sameMessage(items[k], messages[k])) k++;
    this.used = k === 0 ? 0 : this.ends[k - 1]!;
    items.length = k;
    this.ends.length = k;
    if (k === 0) this.append(OPEN_BRACKET);
    for (let i = k; i < messages.length; i++) {
      const m = messages[i];
      if (!isPlainRecord(m)) {
        this.clear();
        return false;
      }
      if (i > 0) this.append(COMMA);
      this.appendText(JSON.stringify(m));
      items.push(m);
      this.ends.push(this.used);
    }
    return true;
  }

  /** Bytes in use, bytes. */
  get length(): number {
    return this.used;
  }

  /** Copies the bytes in use into `target` at `offset`. */
  copyTo(target: Buffer, offset: number): void {
    this.buf.copy(target, offset, 0, this.used);
  }

  private clear(): void {
    this.items.length = 0;
    this.ends.length = 0;
    this.used = 0;
  }

  private reserve(more: number): void {
    if (this.used + more <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(64 * 1024, 2 * this.buf.length, this.used + more));
    this.buf.copy(next, 0, 0, this.used);
    this.buf = next;
  }

  private append(byte: number): void {
    this.reserve(1);
    this.buf[this.used++] = byte;
  }

  private appendText(text: string): void {
    this.reserve(Buffer.byteLength(text, 'utf8'));
    this.used += this.buf.write(text, this.used, 'utf8');
  }
}

/**
 * Writes request bodies as bytes, keeping the bytes of the last request's `messages` for the next
 * (see the module comment). Meant for one conversation (`RequestBodyWriters` picks the writer): a
 * request of another conversation is written correctly, but drops what was kept.
 */
export class RequestBodyWriter {
  private readonly messages = new MessagesBytes();

  /**
   * The UTF-8 bytes of `JSON.stringify(body)`, the same bytes, for a Messages API request body:
   * the `messages` of the previous request that this one starts with (the same objects) keep their
   * bytes, the rest are serialised; the other keys are serialised on every call. So a long
   * session's request costs the JSON of its new messages and one copy of the body's bytes, instead
   * of serialising and encoding the whole history.
   *
   * Falls back to `JSON.stringify(body)` for a body that is not a plain object, or whose `messages`
   * is not an array of plain objects, or when a value of the body has a `toJSON` (which
   * `JSON.stringify` calls with the key it is under). Throws what `JSON.stringify` throws (a
   * `TypeError` for a BigInt or a cycle).
   *
   * @param body The request body, as it would be passed to `JSON.stringify`.
   * @returns The body's JSON as UTF-8, in a fresh buffer the caller may keep (bytes).
   */
  write(body: object): Buffer {
    const whole = () => Buffer.from(JSON.stringify(body), 'utf8');
    if (!isPlainRecord(body)) return whole();
    const messages = body.messages;
    if (!Array.isArray(messages) || typeof (messages as unknown as Obj).toJSON === 'function') return whole();
    // The JSON of the keys before and after `messages`, in the body's order.
    let head = '';
    let tail = '';
    let seen = false;
    for (const key of Object.keys(body)) {
      if (key === 'messages') {
        head += (head ? ',' : '{') + '"messages":';
        seen = true;
        continue;
      }
      const value = body[key];
      if (value !== null && typeof value === 'object' && typeof (value as Obj).toJSON === 'function') return whole();
      // undefined for an undefined, function or symbol value: JSON.stringify leaves the key out.
      const json = JSON.stringify(value);
      if (json === undefined) continue;
      const part = JSON.stringify(key) + ':' + json;
      if (seen) tail += ',' + part;
      else head += (head ? ',' : '{') + part;
    }
    if (!this.messages.update(messages)) return whole();
    const headBytes = Buffer.byteLength(head, 'utf8');
    const out = Buffer.allocUnsafeSlow(headBytes + this.messages.length + 1 + Buffer.byteLength(tail, 'utf8') + 1);
    let at = out.write(head, 0, 'utf8');
    this.messages.copyTo(out, at);
    at += this.messages.length;
    out[at++] = CLOSE_BRACKET;
    at += out.write(tail, at, 'utf8');
    out[at++] = 0x7d; // }
    return out;
  }
}

/**
 * The body writers of one client: one per request source (`main_loop`, `subagent`, `compact`, ...)
 * and conversation, so requests of other conversations in between (a side request with its own
 * history, parallel subagents) do not drop the bytes a conversation's writer keeps. A conversation
 * is told by its first message's `content` (the same array object from request to request, also
 * when `system-prompt` copies the message for its reminder), or by the message itself when its
 * content is a string. Writers are held weakly by that object: a conversation compacted away
 * (its first message replaced) takes its writer and the bytes it kept with it.
 */
export class RequestBodyWriters {
  private readonly bySource = new Map<string, WeakMap<object, RequestBodyWriter>>();

  /**
   * The writer for a request from `source` with `messages`; a fresh one, keeping nothing, when the
   * first message is not an object.
   */
  for(source: string, messages: readonly unknown[]): RequestBodyWriter {
    const first = messages[0];
    if (typeof first !== 'object' || first === null) return new RequestBodyWriter();
    const content = (first as Obj).content;
    const key = typeof content === 'object' && content !== null ? content : first;
    let writers = this.bySource.get(source);
    if (!writers) this.bySource.set(source, (writers = new WeakMap()));
    let writer = writers.get(key);
    if (!writer) writers.set(key, (writer = new RequestBodyWriter()));
    return writer;
  }
}
