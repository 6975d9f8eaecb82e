/**
 * Fingerprints of a request's cache-relevant parts, and the comparison of two fingerprints.
 *
 * Parts (Claude Code's cache-break fingerprint, reduced to what the public API keys the cache on): model, system text,
 * the markers on system blocks and tools (a TTL flip changes no text), tools (each definition
 * hashed too, so a change names the tool), beta flags (sorted), thinking, tool_choice, effort,
 * context_management edits, the top-level marker, and each message. Markers are stripped before
 * hashing content: moving the tail marker is not a change.
 */
import * as crypto from 'node:crypto';
import { forEachChangedPlace, type ModelRequest } from '../../../kernel/index.js';

// One-shot `crypto.hash` (Node ≥ 20.12) skips a Hash object per call; older Nodes use createHash.
const sha1Base64url: (data: string) => string = typeof (crypto as { hash?: unknown }).hash === 'function'
  ? (data) => (crypto as unknown as { hash(a: string, d: string, e: 'base64url'): string }).hash('sha1', data, 'base64url')
  : (data) => crypto.createHash('sha1').update(data).digest('base64url');

/** Short hash of a string: 12 base64url characters of SHA-1 (collisions are not a concern here). */
export function shortHash(data: string): string {
  return sha1Base64url(data).slice(0, 12);
}

const dropMarkers = (k: string, v: unknown) => (k === 'cache_control' ? undefined : v);

/** JSON with every `cache_control` key dropped. */
export function stripCacheControl(value: unknown): string {
  if (value && typeof value === 'object' && !Array.isArray(value) && 'cache_control' in value) {
    // A marked block: its JSON without the top-level marker is the answer unless a nested object
    // has a marker too (rare); that case takes the replacer, which drops markers at every depth.
    const { cache_control: _marker, ...rest } = value as Obj;
    const json = JSON.stringify(rest);
    if (!json.includes('"cache_control"')) return json;
    return JSON.stringify(value, dropMarkers);
  }
  const json = JSON.stringify(value ?? null);
  if (!json.includes('"cache_control"')) return json;
  return JSON.stringify(value, dropMarkers);
}

/**
 * Memo of `stripCacheControl` by object: tool definitions and history blocks are shared between
 * requests and never mutated once sent, so each is serialised once, not once per request.
 */
const strippedJson = new WeakMap<object, string>();

function strippedOf(value: unknown): string {
  if (!value || typeof value !== 'object') return stripCacheControl(value);
  let json = strippedJson.get(value);
  if (json === undefined) {
    json = stripCacheControl(value);
    strippedJson.set(value, json);
  }
  return json;
}

/**
 * `stripCacheControl` of an array, built from its items' memoised JSON: the same string
 * `JSON.stringify` gives for the whole array (items joined by commas in brackets; an item that
 * serialises to nothing becomes `null`, as in an array).
 */
function strippedArray(items: readonly unknown[]): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    if (i) out += ',';
    out += strippedOf(items[i]) ?? 'null';
  }
  return `${out}]`;
}

/** A request's parts besides its messages: what the cache key depends on, hashed where large. */
export interface FingerprintParts {
  model: string;
  system: string;
  /** Characters of system text. */
  systemChars: number;
  /** Hash of the markers on system blocks and tools (TTL or placement). */
  markers: string;
  tools: string;
  /** Tool name → hash of its definition. */
  toolHashes: Record<string, string>;
  betas: string[];
  thinking: string;
  toolChoice: string;
  effort: string;
  contextManagement: string;
  /** The request's top-level `cache_control`, as JSON (`null` when absent). */
  autoMarker: string;
  /** Longest TTL among the request's markers, or null when it has none. */
  ttl: '5m' | '1h' | null;
}

/** The fingerprint of one request. */
export interface Fingerprint extends FingerprintParts {
  /** Per message: hash of role + content, markers stripped. */
  messages: string[];
}

/**
 * A fingerprint as the transcript keeps it: the parts, and the messages as their number and the
 * digest of their hashes in order (`messagesDigest`), so a record's size does not grow with the
 * session. Enough to tell whether a later request's messages start with the same ones.
 */
export interface RecordedFingerprint extends FingerprintParts {
  messages?: undefined;
  messageCount: number;
  messagesDigest: string;
  /** `messagesDigest` of all the messages but the last (records written before it was kept lack it). */
  messagesPrefixDigest?: string;
}

type Obj = Record<string, unknown>;

/** A message's hash (role initial + content hash) and the longest TTL among its blocks' markers. */
interface MessageFacts {
  hash: string;
  ttl: '5m' | '1h' | null;
}

/** Memo of message facts by content array (history blocks are shared, never mutated). */
const messageMemo = new WeakMap<object, MessageFacts>();

function contentTtl(c: unknown): '5m' | '1h' | null {
  let ttl: '5m' | '1h' | null = null;
  if (Array.isArray(c)) for (const b of c as Obj[]) if (b?.cache_control) ttl = maxTtl(ttl, ttlOf(b.cache_control));
  return ttl;
}

function messageFacts(m: { role: string; content: unknown }): MessageFacts {
  const c = m.content;
  const role = m.role[0]!;
  if (c && typeof c === 'object') {
    const cached = messageMemo.get(c as object);
    if (cached !== undefined && cached.hash[0] === role) return cached;
    // A content array that is new (the tail message with its marker copied in) still shares its
    // other blocks with the history: their JSON comes from the per-block memo.
    const facts = { hash: role + shortHash(Array.isArray(c) ? strippedArray(c) : stripCacheControl(c)), ttl: contentTtl(c) };
    messageMemo.set(c as object, facts);
    return facts;
  }
  return { hash: role + shortHash(JSON.stringify(c ?? null)), ttl: null };
}

/** The last tool list hashed: its definitions (by object) and the hash of their JSON. */
let lastTools: { items: readonly unknown[]; hash: string } | undefined;

/** Hash of the tool list without markers; the same definitions in the same order reuse the last one. */
function toolsHash(tools: readonly unknown[]): string {
  const last = lastTools;
  if (last && last.items.length === tools.length && last.items.every((t, i) => t === tools[i])) return last.hash;
  const hash = shortHash(strippedArray(tools));
  lastTools = { items: tools.slice(), hash };
  return hash;
}

/** Memo of tool-definition hashes by definition object (the registry's definitions are frozen). */
const toolHashMemo = new WeakMap<object, string>();

function toolHash(t: unknown): string {
  if (!t || typeof t !== 'object') return shortHash(stripCacheControl(t));
  let h = toolHashMemo.get(t);
  if (h === undefined) {
    h = shortHash(strippedOf(t));
    toolHashMemo.set(t, h);
  }
  return h;
}

function ttlOf(cc: unknown): '5m' | '1h' | null {
  if (!cc || typeof cc !== 'object') return null;
  return (cc as Obj).ttl === '1h' ? '1h' : '5m';
}

function maxTtl(a: '5m' | '1h' | null, b: '5m' | '1h' | null): '5m' | '1h' | null {
  if (a === '1h' || b === '1h') return '1h';
  return a ?? b;
}

/**
 * The digest of a list of message hashes: each step hashes the previous digest with the next
 * message's hash, so the digest of a list's first k hashes is a step of the digest of the whole
 * list ('' for none).
 */
export function messagesDigest(hashes: readonly string[]): string {
  let d = '';
  for (const h of hashes) d = chainStep(d, h);
  return d;
}

function chainStep(digest: string, hash: string): string {
  return shortHash(digest + hash);
}

/** Fingerprints a request as sent. */
export function fingerprint(params: ModelRequest): Fingerprint {
  const parts = fingerprintParts(params);
  const messages: string[] = [];
  let ttl = parts.ttl;
  for (const m of params.messages) {
    const f = messageFacts(m as { role: string; content: unknown });
    messages.push(f.hash);
    if (f.ttl) ttl = maxTtl(ttl, f.ttl);
  }
  return { ...parts, ttl, messages };
}

/** A function that fingerprints one request after another, and the digest of the last one's messages. */
export interface Fingerprinter {
  (params: ModelRequest): Fingerprint;
  /** `messagesDigest` of the last request's message hashes. */
  readonly digest: string;
  /** `messagesDigest` of the last request's message hashes but its last ('' for one message or none). */
  readonly prefixDigest: string;
}

/**
 * Fingerprints the requests of one session in order, with the same result as `fingerprint`: a
 * message whose content is the same array (or string) as at the same place in the previous
 * request keeps its hash, so a request costs a pass of identity checks plus hashing what is new
 * (the messages added since, a tail whose marker moved), not the whole history. The digest is
 * kept the same way: extended with the new messages, recomputed from the first message whose
 * hash changed. For request lists the kernel makes (kernel `RequestLists`), the pass of identity
 * checks is skipped too: `changedPlaces` names the few places that can differ from the previous
 * request, and only those and the messages added since are read.
 */
export function createFingerprinter(): Fingerprinter {
  const contents: unknown[] = [];
  const roles: string[] = [];
  // The `messages` of the fingerprint returned last. A request that only adds messages appends to
  // it (so the previous fingerprint's list grows too: growth is not a change, and no copy of the
  // whole list is made per request); any other change makes a new list first, so a fingerprint's
  // hashes for the messages it had never change.
  let hashes: string[] = [];
  let prevMsgs: ModelRequest['messages'] = [];
  const ttls: ('5m' | '1h' | null)[] = [];
  const chain: string[] = [];
  let hours = 0;
  let minutes = 0;
  const count = (t: '5m' | '1h' | null, d: number) => {
    if (t === '1h') hours += d;
    else if (t === '5m') minutes += d;
  };
  // The message pass is a function of its own, apart from `next`: V8 optimises its loop while it
  // runs and throws that code away when a message of a shape it has not seen arrives; recompiling
  // it then does not recompile `fingerprintParts`, which V8 inlines into `next`.
  /** Updates the per-message state for `msgs`; returns the first index whose hash changed (msgs.length if none). */
  const updateMessages = (msgs: ModelRequest['messages']): number => {
    let changedFrom = msgs.length;
    let copied = false;
    // The previous request's list: a message that is the same object at the same place is skipped
    // without reading it, and for a list the kernel made from the same history only the places it
    // names and the messages added since are looked at (kernel `forEachChangedPlace`).
    const before = prevMsgs;
    prevMsgs = msgs;
    const own = () => {
      if (!copied) { hashes = hashes.slice(); copied = true; }
    };
    const visit = (i: number) => {
      const m = msgs[i]!;
      if (i < contents.length && contents[i] === m.content && roles[i] === m.role) return;
      const f = messageFacts(m as { role: string; content: unknown });
      if (i >= hashes.length || hashes[i] !== f.hash) {
        changedFrom = Math.min(changedFrom, i);
        if (i < hashes.length) own();
        hashes[i] = f.hash;
      }
      if (i < ttls.length) count(ttls[i]!, -1);
      count(f.ttl, 1);
      contents[i] = m.content;
      roles[i] = m.role;
      ttls[i] = f.ttl;
    };
    forEachChangedPlace(before, msgs, contents.length, visit);
    for (let i = msgs.length; i < ttls.length; i++) count(ttls[i]!, -1);
    if (hashes.length > msgs.length) own();
    contents.length = roles.length = hashes.length = ttls.length = msgs.length;
    return changedFrom;
  };
  const next = (params: ModelRequest): Fingerprint => {
    const parts = fingerprintParts(params);
    const changedFrom = updateMessages(params.messages);
    if (chain.length > changedFrom) chain.length = changedFrom;
    for (let i = chain.length; i < hashes.length; i++) chain.push(chainStep(i ? chain[i - 1]! : '', hashes[i]!));
    const ttl = maxTtl(parts.ttl, hours ? '1h' : minutes ? '5m' : null);
    return { ...parts, ttl, messages: hashes };
  };
  Object.defineProperty(next, 'digest', { get: () => (chain.length ? chain[chain.length - 1]! : '') });
  Object.defineProperty(next, 'prefixDigest', { get: () => (chain.length > 1 ? chain[chain.length - 2]! : '') });
  return next as Fingerprinter;
}

/** Fingerprints a request's parts besides its messages (the TTL counts the parts' markers only). */
export function fingerprintParts(params: ModelRequest): FingerprintParts {
  const p = params as ModelRequest & Obj;
  const system = typeof p.system === 'string' ? [{ type: 'text', text: p.system }] : (p.system ?? []);
  const toolHashes: Record<string, string> = {};
  let ttl: '5m' | '1h' | null = ttlOf(p.cache_control);
  const markerParts: unknown[] = [];
  for (const t of p.tools ?? []) {
    const tool = t as unknown as Obj;
    const name = String(tool.name);
    toolHashes[name] = toolHash(t);
    markerParts.push(tool.cache_control ?? null);
    ttl = maxTtl(ttl, ttlOf(tool.cache_control));
  }
  let systemChars = 0;
  for (const b of system as Obj[]) {
    systemChars += typeof b.text === 'string' ? b.text.length : 0;
    markerParts.push(b.cache_control ?? null);
    ttl = maxTtl(ttl, ttlOf(b.cache_control));
  }
  return {
    model: p.model,
    system: shortHash(strippedArray(system as unknown[])),
    systemChars,
    markers: shortHash(JSON.stringify(markerParts)),
    tools: toolsHash(p.tools ?? []),
    toolHashes,
    betas: [...(p.betas ?? [])].sort(),
    thinking: JSON.stringify(p.thinking ?? null),
    toolChoice: JSON.stringify(p.tool_choice ?? null),
    effort: JSON.stringify((p.output_config as Obj | undefined)?.effort ?? null),
    contextManagement: JSON.stringify(p.context_management ?? null),
    autoMarker: JSON.stringify(p.cache_control ?? null),
    ttl,
  };
}

/** What changed between two requests, as named parts. */
export interface PrefixChange {
  /** Machine name: `model`, `system`, `tools`, `betas`, `thinking`, `tool_choice`, `effort`, `context_management`, `markers`, `messages`. */
  part: string;
  /** One line for people: "system prompt changed (+120 chars)". */
  text: string;
  /** For `messages`: the first message index whose bytes differ. */
  index?: number;
}

/**
 * The client-side changes from `prev` to `cur` that can invalidate a cached prefix. Growth of the
 * conversation (new messages after the previous ones) is not a change; a previous message that now
 * differs, or fewer messages than before, is. A recorded `prev` (the last request before a resume)
 * has only the digest of its messages: a change is then found but not placed.
 */
export function compareFingerprints(prev: Fingerprint | RecordedFingerprint, cur: Fingerprint): PrefixChange[] {
  const out: PrefixChange[] = [];
  if (prev.model !== cur.model) out.push({ part: 'model', text: `model changed (${prev.model} → ${cur.model})` });
  const systemChanged = prev.system !== cur.system;
  if (systemChanged) {
    const d = cur.systemChars - prev.systemChars;
    out.push({ part: 'system', text: `system prompt changed (${d >= 0 ? '+' : '−'}${Math.abs(d)} chars)` });
  }
  let toolsChanged = false;
  if (prev.tools !== cur.tools) {
    toolsChanged = true;
    const before = Object.keys(prev.toolHashes);
    const after = Object.keys(cur.toolHashes);
    const added = after.filter((n) => !(n in prev.toolHashes));
    const removed = before.filter((n) => !(n in cur.toolHashes));
    const changed = after.filter((n) => n in prev.toolHashes && prev.toolHashes[n] !== cur.toolHashes[n]);
    const sameSet = !added.length && !removed.length;
    const reordered = sameSet && !changed.length;
    const bits: string[] = [];
    if (added.length) bits.push(`+${added.map(sanitizeToolName).join(',+')}`);
    if (removed.length) bits.push(`−${removed.map(sanitizeToolName).join(',−')}`);
    if (changed.length) bits.push(`definition changed: ${changed.map(sanitizeToolName).join(', ')}`);
    if (reordered) bits.push('order changed');
    out.push({ part: 'tools', text: `tools changed (${bits.join('; ')})` });
  }
  const pb = prev.betas.join(',');
  const cb = cur.betas.join(',');
  if (pb !== cb) {
    const added = cur.betas.filter((b) => !prev.betas.includes(b));
    const removed = prev.betas.filter((b) => !cur.betas.includes(b));
    out.push({ part: 'betas', text: `betas changed (${[...added.map((b) => `+${b}`), ...removed.map((b) => `−${b}`)].join(' ')})` });
  }
  if (prev.thinking !== cur.thinking) out.push({ part: 'thinking', text: `thinking changed (${prev.thinking} → ${cur.thinking})` });
  if (prev.toolChoice !== cur.toolChoice) out.push({ part: 'tool_choice', text: `tool_choice changed (${prev.toolChoice} → ${cur.toolChoice})` });
  if (prev.effort !== cur.effort) out.push({ part: 'effort', text: `effort changed (${prev.effort} → ${cur.effort})` });
  if (prev.contextManagement !== cur.contextManagement) out.push({ part: 'context_management', text: 'context_management edits changed' });
  // A marker change is only worth naming when the text did not change too (then it is a TTL or
  // placement flip; otherwise it is a consequence).
  if ((prev.markers !== cur.markers || prev.autoMarker !== cur.autoMarker || prev.ttl !== cur.ttl) && !systemChanged && !toolsChanged) {
    const ttl = prev.ttl !== cur.ttl ? ` (TTL ${prev.ttl ?? 'none'} → ${cur.ttl ?? 'none'})` : '';
    out.push({ part: 'markers', text: `cache_control changed${ttl}` });
  }
  if (!prev.messages) {
    if (cur.messages.length < prev.messageCount) {
      out.push({ part: 'messages', index: cur.messages.length, text: `messages removed (${prev.messageCount} → ${cur.messages.length})` });
    } else if (messagesDigest(cur.messages.slice(0, prev.messageCount)) !== prev.messagesDigest) {
      const last = prev.messageCount - 1;
      if (last >= 0 && prev.messagesPrefixDigest !== undefined && messagesDigest(cur.messages.slice(0, last)) === prev.messagesPrefixDigest) {
        out.push(lastMessageChange(last, cur.messages[last]!));
      } else {
        out.push({ part: 'messages', text: 'messages changed since the last recorded request: the history was rewritten' });
      }
    }
    return out;
  }
  // The same list: the fingerprinter's, grown by this request (see createFingerprinter).
  if (prev.messages === cur.messages) return out;
  const n = Math.min(prev.messages.length, cur.messages.length);
  let first = -1;
  for (let i = 0; i < n; i++) {
    if (prev.messages[i] !== cur.messages[i]) { first = i; break; }
  }
  if (first >= 0 && first === prev.messages.length - 1) {
    out.push(lastMessageChange(first, cur.messages[first]!));
  } else if (first >= 0) {
    const role = cur.messages[first]!.startsWith('u') ? 'user' : 'assistant';
    out.push({ part: 'messages', index: first, text: `messages changed from message ${first} (${role}) on: the history was rewritten` });
  } else if (cur.messages.length < prev.messages.length) {
    out.push({ part: 'messages', index: cur.messages.length, text: `messages removed (${prev.messages.length} → ${cur.messages.length})` });
  }
  return out;
}

/**
 * The previous request's last message differs from the history's message at its place, all before
 * it the same: most often that request sent it in a form of its own (a request tap added to it
 * for that request only, as `final-answer`'s note on the last turn a limit allows), not a rewrite
 * of the history. `hash` is the message's hash (role initial first).
 */
function lastMessageChange(index: number, hash: string): PrefixChange {
  const role = hash.startsWith('u') ? 'user' : 'assistant';
  return { part: 'messages', index, text: `message ${index} (${role}) differs from the previous request's last message: that request sent it in a form of its own (such as a note for that request only), or it was rewritten since` };
}

/** MCP tool names are user-configured (they may hold paths); reports name them `mcp`. */
export function sanitizeToolName(name: string): string {
  return name.startsWith('mcp__') ? 'mcp' : name;
}
