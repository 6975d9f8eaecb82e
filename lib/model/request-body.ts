/**
 * The JSON text of a Messages API request body, byte for byte what `JSON.stringify(body)` writes,
 * without serialising the whole history on every request.
 *
 * The protocol sends the whole conversation with every request, so `JSON.stringify` of the body
 * costs time in proportion to the session's length, on every turn. Here the JSON of each message
 * is written once and kept (by message object) while the message lives, so a request costs the
 * JSON of the messages not seen before plus joining the kept texts.
 *
 * This relies on how rein treats its history (see `kernel/incremental.ts`): a message is never
 * changed in place once it is in the history, and request-stage taps copy a message or block before
 * they change it (the cache markers of `cache/breakpoints` and `cache/ttl`, the reminders of
 * `system-prompt`, the note of `final-answer` all do). A kept text is still checked before use,
 * by identity only (no hashing, no walk of the blocks): the message's `role` and `content` must be
 * the same values as when its text was written and, for a content array, the same block objects in
 * the same order, so an edit that replaces the content, or adds, removes or replaces a block in
 * place, writes the message again. A change made inside a block object in place is not seen; no
 * code of rein makes one.
 */

type Obj = Record<string, unknown>;

/** A message's JSON text and what it was written from. */
interface Kept {
  role: unknown;
  content: unknown;
  /** The content array's blocks when the text was written (undefined for string content). */
  blocks: readonly unknown[] | undefined;
  json: string;
}

/** JSON text of each message written so far, by message object. */
const kept = new WeakMap<object, Kept>();

/**
 * True for an object `JSON.stringify` writes as its own enumerable properties, with nothing of its
 * own to say about its form: a plain object (its prototype `Object.prototype` or null) with no
 * `toJSON`. Anything else (an array, a class instance, a Date, a Proxy's trap results) is left to
 * `JSON.stringify` whole.
 */
function isPlainRecord(value: unknown): value is Obj {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as Obj).toJSON !== 'function';
}

/** The same blocks, in the same order, as `before`. */
function sameBlocks(before: readonly unknown[], now: readonly unknown[]): boolean {
  if (before.length !== now.length) return false;
  for (let i = 0; i < now.length; i++) if (before[i] !== now[i]) return false;
  return true;
}

/** The JSON text of one message (a plain object): the kept one when it is still valid. */
function messageJson(m: Obj): string {
  const role = m.role;
  const content = m.content;
  const hit = kept.get(m);
  if (hit !== undefined && hit.role === role && hit.content === content) {
    if (hit.blocks === undefined ? !Array.isArray(content) : Array.isArray(content) && sameBlocks(hit.blocks, content)) return hit.json;
  }
  const json = JSON.stringify(m);
  kept.set(m, { role, content, blocks: Array.isArray(content) ? content.slice() : undefined, json });
  return json;
}

/**
 * The JSON text of a `messages` array, or undefined when one of its items is not a plain object
 * (the caller then serialises the whole body with `JSON.stringify`).
 */
function messagesJson(messages: readonly unknown[]): string | undefined {
  const parts = new Array<string>(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isPlainRecord(m)) return undefined;
    parts[i] = messageJson(m);
  }
  return '[' + parts.join(',') + ']';
}

/**
 * `JSON.stringify(body)`, the same string, for a Messages API request body: each message's JSON
 * is written once per message object and reused by later requests that send the same message
 * (checked as the module comment says), so a long session's request costs O(new messages + bytes
 * joined) instead of O(history) of serialisation. The other keys (`system`, `tools`, `model`, ...)
 * are written with `JSON.stringify` on every call; they do not grow with the session.
 *
 * Falls back to `JSON.stringify(body)` for a body that is not a plain object, or whose `messages`
 * is not an array of plain objects, or when a value has a `toJSON` (which `JSON.stringify` calls
 * with the key it is under). Throws what `JSON.stringify` throws (a `TypeError` for a BigInt or a
 * cycle).
 *
 * @param body The request body, as it would be passed to `JSON.stringify`.
 * @returns The body's JSON text (UTF-16 string; characters, not bytes).
 */
export function requestBodyJson(body: object): string {
  if (!isPlainRecord(body)) return JSON.stringify(body);
  const messages = (body as Obj).messages;
  if (!Array.isArray(messages) || typeof (messages as unknown as Obj).toJSON === 'function') return JSON.stringify(body);
  let out = '';
  for (const key of Object.keys(body)) {
    const value = (body as Obj)[key];
    let json: string | undefined;
    if (key === 'messages') {
      json = messagesJson(messages);
      if (json === undefined) return JSON.stringify(body);
    } else {
      if (value !== null && typeof value === 'object' && typeof (value as Obj).toJSON === 'function') return JSON.stringify(body);
      // undefined for an undefined, function or symbol value: JSON.stringify leaves the key out.
      json = JSON.stringify(value);
      if (json === undefined) continue;
    }
    out += (out ? ',' : '{') + JSON.stringify(key) + ':' + json;
  }
  return out ? out + '}' : '{}';
}
