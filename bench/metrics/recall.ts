/**
 * Needed-later recall: at each recorded step, the facts the recorded assistant used (in its reply's
 * text and tool inputs) that entered the conversation at an earlier step (a prompt, a tool result,
 * an earlier reply); a fact is recalled when the context a preset sent for that step still holds it.
 *
 * Facts are literal strings of six kinds (see `extractFacts`): paths, URLs, identifiers, numbers
 * (with a unit, or long), quoted strings and error messages. Presence is a literal test (the fact's
 * longest word run is a word run of the context and its text a substring), so a paraphrase does not
 * count. The needed facts depend
 * on the recording alone, so they are computed once per workload (`neededFacts`) and shared by every
 * preset; the presence test per request (`recallTester`) splits each string of the context into
 * words once while it stays among the strings tested lately.
 */
import type { ContentBlock } from '../../kernel/types.js';
import type { ContentTokenCounter } from '../../lib/index.js';
import { TwoGenerationMemo } from '../shared/generations.js';
import type { RecordedToolResult, Workload, WorkloadStep } from '../workloads/types.js';

/** The kinds of fact the extractor finds. */
export type FactKind = 'path' | 'url' | 'identifier' | 'number' | 'quoted' | 'error';

/** A fact as found in a text. */
export interface Fact {
  text: string;
  kind: FactKind;
}

/** Where a needed fact first entered the conversation: one block of one earlier step. */
export interface FactSource {
  /** Index of the source in the workload's list of sources (`NeededFacts.sources`). */
  id: number;
  step: number;
  kind: 'prompt' | 'tool_result' | 'reply';
  /**
   * The source block: what getting it back re-sends (counted when first charged, `sourceTokens`).
   * A tool result's or a reply's block is read from the workload when asked for (a getter), so the
   * facts do not hold every result and reply.
   */
  readonly block: unknown;
  /** The tool_use block that fetched a tool result: what asking for it again costs in output. */
  readonly ask?: unknown;
}

/** Tokens of a source's block and of the call that asked for it, counted once (most sources are never re-fetched). */
export function sourceTokens(src: FactSource, counter: ContentTokenCounter): { tokens: number; askTokens?: number } {
  const memo = src as FactSource & { counted?: { tokens: number; askTokens?: number } };
  memo.counted ??= { tokens: counter.block(src.block, false), ...(src.ask ? { askTokens: counter.block(src.ask, false) } : {}) };
  return memo.counted;
}

/** A fact a step needed, and where it came from. */
export interface NeededFact extends Fact {
  /** The longest run of word characters in the fact: the index key of the presence test. */
  anchor: string;
  source: number;
}

/** The facts every step of a workload needed. */
export interface NeededFacts {
  /** By step index; steps that needed nothing are absent. */
  byStep: Map<number, NeededFact[]>;
  sources: FactSource[];
}

/** Quoted strings and error messages are kept when at most this long, characters. */
const MAX_PHRASE = 80;
/** Shortest anchor a fact may have, characters (a one-character anchor matches almost anywhere). */
const MIN_ANCHOR = 2;

const URL_RE = /\bhttps?:\/\/[^\s"'`<>)\]}]+/g;
// A path: segments joined by `/`, with an extension or a leading `/`, `./`, `../`, `~/`.
const PATH_RE = /(?:~|\.{1,2})?\/?(?:[\w@.+-]+\/)+[\w@.+-]*/g;
const IDENT_RE = /\b[A-Za-z_][A-Za-z0-9_]{5,}\b/g;
const NUMBER_RE = /(?<![\w.])\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds|min|minutes|h|hours|days|B|KB|MB|GB|TB|KiB|MiB|GiB|kB|bytes|%|tokens|lines|files|px|rem|MHz|GHz|fps|rps|x)(?![\w%])|(?<![\w.])\d{4,}(?![\w.])/g;
const HEX_RE = /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b/g;
const QUOTED_RE = /"([^"\n]{4,80})"|`([^`\n]{4,80})`|(?<![\w])'([^'\n]{4,80})'(?![\w])/g;
const ERROR_RE = /\b[A-Z][A-Za-z]*(?:Error|Exception)\b(?::[ \t]?[^\n]{1,80})?|\bE[A-Z]{3,}\b|\bTS\d{4}\b/g;
const WORD_RE = /\w{2,}/g;
/** A run of at least MIN_ANCHOR word characters (not global: `test` keeps no position). */
const ANCHOR_RE = new RegExp(`\\w{${MIN_ANCHOR}}`);

function isIdentifier(w: string): boolean {
  return /[a-z][A-Z]/.test(w) || /[A-Za-z0-9]_[A-Za-z0-9]/.test(w);
}

function isPath(p: string): boolean {
  if (p.length < 4 || p.endsWith('/') && p.split('/').filter(Boolean).length < 2) return false;
  const last = p.slice(p.lastIndexOf('/') + 1);
  return /^[~.]?\.?\//.test(p) || /\.[A-Za-z][\w]{0,5}$/.test(last);
}

/** The longest run of word characters of `text` (the last of equal ones: a file name over its folders). */
export function anchorOf(text: string): string {
  let best = '';
  for (const m of text.matchAll(/\w+/g)) if (m[0].length >= best.length) best = m[0];
  return best;
}

/**
 * The facts in a text, each once. Kinds, in the order they are searched:
 * - url: `http(s)://…` up to a space, quote or bracket (trailing punctuation dropped);
 * - path: `/`-joined segments with an extension or a leading `/`, `./`, `../`, `~/` (a `:line:col` suffix dropped);
 * - identifier: camelCase, PascalCase with an inner case change, or snake_case names of ≥ 6 characters;
 *   and hexadecimal hashes of 7–40 digits with a letter and a digit;
 * - number: a number with a unit (`250ms`, `3.5 MB`, `42%`, `1200 tokens`) or an integer of ≥ 4 digits;
 * - quoted: text in double quotes, backticks or single quotes, 4–80 characters;
 * - error: `SomethingError` / `SomethingException` with the rest of its line (≤ 80 characters) and
 *   alone, errno codes (`ENOENT`), TypeScript codes (`TS2345`).
 * Facts whose longest word run is shorter than 2 characters are dropped.
 */
export function extractFacts(text: string): Fact[] {
  const out = new Map<string, Fact>();
  // `anchorOf(t).length >= MIN_ANCHOR` without building the anchor: some run of two word characters.
  const add = (t: string, kind: FactKind) => {
    if (!out.has(t) && ANCHOR_RE.test(t)) out.set(t, { text: t, kind });
  };
  // `match` with a global pattern gives the matched strings alone, where `matchAll` makes a match
  // object per match (most of what extraction allocated); `matchAll` only where a group is needed.
  for (const m of text.match(URL_RE) ?? []) add(m.replace(/[.,;:!?]+$/, ''), 'url');
  const noUrls = text.includes('://') ? text.replace(URL_RE, ' ') : text;
  for (const m of noUrls.match(PATH_RE) ?? []) {
    const p = m.replace(/:\d+(?::\d+)?$/, '').replace(/[.,;:]+$/, '');
    if (isPath(p)) add(p, 'path');
  }
  for (const m of text.match(IDENT_RE) ?? []) if (isIdentifier(m)) add(m, 'identifier');
  for (const m of text.match(HEX_RE) ?? []) add(m, 'identifier');
  for (const m of text.match(NUMBER_RE) ?? []) add(m, 'number');
  for (const m of text.matchAll(QUOTED_RE)) {
    const q = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    if (q.length >= 4 && q.length <= MAX_PHRASE) add(q, 'quoted');
  }
  for (const m of text.match(ERROR_RE) ?? []) {
    const e = m.trimEnd().slice(0, MAX_PHRASE);
    add(e, 'error');
    // The name alone too: a reply often words the message differently from the output it read.
    const colon = e.indexOf(':');
    if (colon > 0) add(e.slice(0, colon), 'error');
  }
  return [...out.values()];
}

/**
 * Characters of the strings one generation of the facts memo holds (1 M: a long session's history).
 * At 4 M the memo was ~12 MB of a 20,000-request replay's heap; at 1 M that replay peaked ~20 MB
 * lower (279 MB against 300 MB, both at once under `/usr/bin/time -v`) with the same CPU time and
 * the same report (the memo caches a pure function).
 */
const FACT_MEMO_CHARS = 1_000_000;

/**
 * `extractFacts` of strings seen lately, by string: a replay extracts the facts of the same strings
 * again and again (its recording's replies for the needed facts, then the history each compaction
 * summarises, once per preset of the workload). Two generations of up to `FACT_MEMO_CHARS`
 * characters of keys each, so the memo keeps the strings of the current workloads and lets the
 * rest go.
 */
const factsMemo = new TwoGenerationMemo<string, readonly Fact[]>(FACT_MEMO_CHARS, (text) => text.length);

/** `extractFacts(text)`, memoised (see above). The array is shared: callers must not change it. */
export function factsIn(text: string): readonly Fact[] {
  let facts = factsMemo.get(text);
  if (facts === undefined) factsMemo.set(text, (facts = extractFacts(text)));
  return facts;
}

function leafStrings(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number') out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) leafStrings(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) leafStrings(v, out);
}

/**
 * The strings of a content block a fact can be found in: a text block's text, a tool_use block's
 * input values (not its keys), a tool_result's text. Thinking, images and documents hold none.
 */
export function blockStrings(block: unknown): string[] {
  const b = block as Record<string, unknown> | null;
  if (typeof block === 'string') return [block];
  if (!b || typeof b !== 'object') return [];
  switch (b.type) {
    case 'text': return typeof b.text === 'string' ? [b.text] : [];
    case 'tool_use': { const out: string[] = []; leafStrings(b.input, out); return out; }
    case 'tool_result': {
      if (typeof b.content === 'string') return [b.content];
      if (Array.isArray(b.content)) return b.content.flatMap(blockStrings);
      return [];
    }
    default: return [];
  }
}

/**
 * The word runs (≥ 2 characters) of a string, in order, repeats included. `match` with a global
 * pattern gives the strings alone: `matchAll` made a match object per word, most of the garbage a
 * replay's recall made.
 */
function wordList(s: string): string[] {
  return s.match(WORD_RE) ?? [];
}

/** The word runs (≥ 2 characters) of a string. */
function wordsIn(s: string): Set<string> {
  return new Set(wordList(s));
}

/** Whether UTF-16 code unit `c` is a word character (`\w` without the `u` flag: `[A-Za-z0-9_]`). */
function isWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

/** FNV-1a step over one code unit, kept to 30 bits (a small integer: no heap number per word). */
function wordHashStep(h: number, c: number): number {
  return Math.imul(h ^ c, 16777619) & 0x3fffffff;
}
const WORD_HASH_SEED = 0x011c9dc5;

/**
 * A fixed set of words, and the hashes of their code units, to pick those words out of a text
 * without making a string of every word run in it (`wordList` makes one per word: most of what
 * indexing a workload's tool results allocated, for words that were then thrown away).
 */
export class WordFilter {
  private readonly hashes = new Set<number>();

  constructor(readonly words: ReadonlySet<string>) {
    for (const w of words) {
      let h = WORD_HASH_SEED;
      for (let i = 0; i < w.length; i++) h = wordHashStep(h, w.charCodeAt(i));
      this.hashes.add(h);
    }
  }

  /**
   * Appends to `out` the word runs (≥ 2 characters) of `s` that are in the set, in order, repeats
   * included: `wordList(s).filter((w) => words.has(w))`. Returns `out`.
   */
  pick(s: string, out: string[]): string[] {
    const n = s.length;
    let i = 0;
    while (i < n) {
      if (!isWordCode(s.charCodeAt(i))) { i++; continue; }
      const start = i;
      let h = WORD_HASH_SEED;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (!isWordCode(c)) break;
        h = wordHashStep(h, c);
      }
      if (i - start >= 2 && this.hashes.has(h)) {
        const w = s.slice(start, i);
        if (this.words.has(w)) out.push(w);
      }
    }
    return out;
  }
}

/**
 * The word runs (≥ 2 characters) of the strings tested lately, the prefilter of the presence test: a
 * fact is in a string when its anchor is one of the string's word runs and its text a substring of
 * it. Holds the word sets of the last `limit` to 2 × `limit` strings seen (two generations: a string
 * seen in the older one moves to the newer), so a long replay keeps those of its current context,
 * not of every string it ever sent.
 */
export class StringIndex {
  private young = new Map<string, Set<string>>();
  private old = new Map<string, Set<string>>();
  private readonly picked: string[] = [];

  /**
   * `limit`: strings per generation (default 2,048: more than the distinct strings of one context).
   * `anchors`: when given, the only anchors asked for (a replay's needed facts'): a string's set then
   * keeps those of its words alone; a fact with another anchor is tested on the whole string.
   */
  constructor(private readonly limit = 2048, private readonly anchors?: WordFilter) {}

  wordsOf(s: string): Set<string> {
    let w = this.young.get(s);
    if (w) return w;
    w = this.old.get(s) ?? this.split(s);
    if (this.young.size >= this.limit) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(s, w);
    return w;
  }

  private split(s: string): Set<string> {
    if (!this.anchors) return wordsIn(s);
    const words = new Set(this.anchors.pick(s, this.picked));
    this.picked.length = 0;
    return words;
  }

  /** True when `fact` occurs in `s`. */
  has(s: string, fact: { text: string; anchor: string }): boolean {
    if (s.length < fact.text.length) return false;
    const words = this.anchors && !this.anchors.words.has(fact.anchor) ? wordsIn(s) : this.wordsOf(s);
    return words.has(fact.anchor) && s.includes(fact.text);
  }
}

/**
 * A source as `neededFacts` makes it. One class for the three kinds, with every field set in the
 * constructor, so the code that reads sources (the index below, `sourceTokens`) sees one hidden
 * class: sources built as object literals with getters defined on some of them took several shapes,
 * and V8 deoptimised and recompiled those readers each time a new one reached them.
 */
class RecordedSource implements FactSource {
  id = 0;
  /** Tokens of the block and of its ask, once counted (`sourceTokens`). */
  counted: { tokens: number; askTokens?: number } | undefined = undefined;

  /**
   * A source of step `of`: a prompt block (`prompt`), the step's reply block `index` (`reply`), or a
   * tool result (`result`, fetched by the step's reply block `index`, or -1 when none did).
   */
  constructor(
    private readonly of: WorkloadStep,
    readonly kind: FactSource['kind'],
    private readonly index: number,
    private readonly prompt: unknown,
    private readonly result: RecordedToolResult | undefined,
  ) {}

  get step(): number {
    return this.of.index;
  }

  /**
   * The block, made from the workload when read: a generated step makes its reply and results when
   * read, and the sources of a long workload would otherwise hold every reply and result.
   */
  get block(): unknown {
    if (this.kind === 'prompt') return this.prompt;
    if (this.kind === 'reply') return this.of.reply[this.index];
    const r = this.result!;
    return { type: 'tool_result', tool_use_id: r.toolUseId, content: r.content };
  }

  get ask(): unknown {
    return this.kind === 'tool_result' && this.index >= 0 ? this.of.reply[this.index] : undefined;
  }
}

/**
 * Needed facts of the last few workloads, by file, name and size: a worker thread receives a fresh
 * copy of the workload with each preset's task, and the facts depend on the recording alone.
 */
const cache = new Map<string, NeededFacts>();
const CACHED_WORKLOADS = 4;

/**
 * The facts each step of `w` needed: those of its reply's text and tool inputs that occur in an
 * earlier step's prompt, reply (text or tool input) or tool result, and not in the step's own prompt
 * (the user supplies those again). Each keeps its first source. Computed once per workload.
 */
export function neededFacts(w: Workload): NeededFacts {
  const key = `${w.path ?? ''}\0${w.name}\0${w.sessionId ?? ''}\0${w.agentId ?? ''}\0${w.steps.length}\0${w.steps[w.steps.length - 1]?.at ?? 0}`;
  const hit = cache.get(key);
  if (hit) return hit;
  // The facts of each step's reply, found first: only their words are ever looked up, so the word
  // index below keeps those words alone, not every word of every tool result.
  const factsOf = w.steps.map(replyFacts);
  const index = new SourceIndex(wordsOfFacts(factsOf));
  const out = { byStep: needsByStep(w, factsOf, index), sources: index.sources };
  cache.set(key, out);
  if (cache.size > CACHED_WORKLOADS) cache.delete(cache.keys().next().value!);
  return out;
}

// The loops of `neededFacts`, which runs once per replay, are functions of their own: V8 counts a
// function's loop iterations towards optimising it, and optimising the one-call-per-job function
// around them cost compiler time a replay never got back (`node --trace-opt`).

/** Every word (`wordList`) of the facts of `factsOf`. */
function wordsOfFacts(factsOf: readonly (readonly Fact[])[]): Set<string> {
  const words = new Set<string>();
  for (const facts of factsOf) for (const f of facts) for (const word of wordList(f.text)) words.add(word);
  return words;
}

/** Each step's needed facts (`stepNeeds`; steps that need none left out), the index filled in step by step. */
function needsByStep(w: Workload, factsOf: readonly Fact[][], index: SourceIndex): Map<number, NeededFact[]> {
  const byStep = new Map<number, NeededFact[]>();
  for (let k = 0; k < w.steps.length; k++) {
    const step = w.steps[k]!;
    const needed = stepNeeds(step, factsOf[k]!, index);
    // A copy of exactly its length: V8 gives an array grown by push room for 16 or more entries.
    if (needed.length) byStep.set(step.index, needed.slice());
    index.addStep(step);
  }
  return byStep;
}

/** The facts of a step's reply (its text and tool inputs), each once, in order. */
function replyFacts(step: WorkloadStep): Fact[] {
  const facts = new Map<string, Fact>();
  for (const b of step.reply as ContentBlock[]) {
    if (b.type !== 'text' && b.type !== 'tool_use') continue;
    for (const s of blockStrings(b)) for (const f of factsIn(s)) if (!facts.has(f.text)) facts.set(f.text, f);
  }
  return [...facts.values()];
}

/** The facts of `facts` (a step's reply's) that an earlier source holds and the step's own prompt does not. */
function stepNeeds(step: WorkloadStep, facts: readonly Fact[], index: SourceIndex): NeededFact[] {
  const promptStrings = (step.prompt ?? []).flatMap((p) => blockStrings(p.block));
  const needed: NeededFact[] = [];
  for (const f of facts) {
    const anchor = anchorOf(f.text);
    if (promptStrings.some((s) => s.includes(f.text))) continue;
    const source = index.firstSource(f.text);
    if (source !== undefined) needed.push({ text: f.text, kind: f.kind, anchor, source });
  }
  return needed;
}

/**
 * The sources of a workload so far, indexed by the words of facts they hold. A source's strings are
 * not kept: they are read again from the workload (`stringsOf`) when a fact's search reaches it.
 */
class SourceIndex {
  readonly sources: RecordedSource[] = [];
  /** Earlier strings by word (words of facts only): word → source ids, in order. */
  private readonly byWord = new Map<string, number[]>();
  /**
   * The strings of the sources searched last: a search mostly stops at its first candidate, and
   * the next fact's often at the same source.
   */
  private readonly recent = new Map<number, string[]>();
  /**
   * A fact's first source never changes once found; until then, the sources already searched need
   * not be searched again at a later step: fact → its source, or the word searched by and how far.
   */
  private readonly searched = new Map<string, { source: number | undefined; word: string; next: number }>();

  /** The words of the facts: the only words ever looked up. */
  private readonly factWords: WordFilter;
  /** Scratch: the fact words of one source's strings, and which were indexed (reused per source). */
  private readonly picked: string[] = [];
  private readonly seen = new Set<string>();

  constructor(factWords: ReadonlySet<string>) {
    this.factWords = new WordFilter(factWords);
  }

  /** Adds the sources of a step: its prompt blocks, its reply's text and tool_use blocks, its tool results. */
  addStep(step: WorkloadStep): void {
    for (const p of step.prompt ?? []) this.add(new RecordedSource(step, 'prompt', -1, p.block, undefined), p.block);
    const reply = step.reply as ContentBlock[];
    for (const [i, b] of reply.entries()) if (b.type === 'text' || b.type === 'tool_use') this.add(new RecordedSource(step, 'reply', i, undefined, undefined), b);
    for (const r of step.toolResults) {
      const ask = reply.findIndex((b) => b.type === 'tool_use' && (b as { id?: string }).id === r.toolUseId);
      const source = new RecordedSource(step, 'tool_result', ask, undefined, r);
      this.add(source, source.block);
    }
  }

  /** Adds `source`, whose block is `block`, unless it holds no text. */
  private add(source: RecordedSource, block: unknown): void {
    const strings = blockStrings(block);
    if (!strings.some((s) => s.length > 0)) return;
    const id = this.sources.length;
    source.id = id;
    this.sources.push(source);
    const seen = this.seen;
    const words = this.picked;
    for (const s of strings) this.factWords.pick(s, words);
    for (const word of words) {
      if (seen.has(word)) continue;
      seen.add(word);
      let list = this.byWord.get(word);
      if (!list) this.byWord.set(word, (list = []));
      list.push(id);
    }
    seen.clear();
    words.length = 0;
  }

  private stringsOf(id: number): string[] {
    let out = this.recent.get(id);
    if (!out) {
      out = blockStrings(this.sources[id]!.block);
      if (this.recent.size >= 64) this.recent.delete(this.recent.keys().next().value!);
      this.recent.set(id, out);
    }
    return out;
  }

  /**
   * The id of the first source so far that holds `text`, if any. Every word run of the fact must be
   * a word run of the source, so the search walks the sources of its rarest word only.
   */
  firstSource(text: string): number | undefined {
    let memo = this.searched.get(text);
    if (memo?.source !== undefined) return memo.source;
    if (!memo) {
      let word: string | undefined;
      let fewest = 0;
      for (const w of wordList(text)) {
        const n = this.byWord.get(w)?.length;
        if (!n) return undefined;
        if (word === undefined || n < fewest) { word = w; fewest = n; }
      }
      if (word === undefined) return undefined;
      this.searched.set(text, (memo = { source: undefined, word, next: 0 }));
    }
    const list = this.byWord.get(memo.word)!;
    for (; memo.next < list.length; memo.next++) {
      const id = list[memo.next]!;
      if (this.stringsOf(id).some((s) => s.includes(text))) return (memo.source = id);
    }
    return undefined;
  }
}

const anchorFilters = new WeakMap<NeededFacts, WordFilter>();

/**
 * The anchors of every fact `needs` holds, for `StringIndex` (made once per workload's facts): a
 * replay's presence tests ask for these anchors alone.
 */
export function neededAnchors(needs: NeededFacts): WordFilter {
  let f = anchorFilters.get(needs);
  if (!f) {
    const words = new Set<string>();
    for (const facts of needs.byStep.values()) for (const fact of facts) words.add(fact.anchor);
    anchorFilters.set(needs, (f = new WordFilter(words)));
  }
  return f;
}

/** A request body's parts that hold facts. */
export interface SentContext {
  system?: unknown;
  messages: ReadonlyArray<{ content: string | readonly unknown[] }>;
}

/** The outcome of one step's presence test. */
export interface StepRecall {
  needed: number;
  recalled: number;
  /** The facts not found, in the order needed. */
  lost: NeededFact[];
}

/**
 * The presence test of one run: `test(needs, body)` says which of a step's needed facts the sent
 * context holds. A string is split into words once while it stays among the strings tested lately
 * (`index`, which bounds how many word sets are kept); the context is searched from the newest block back, where needed facts mostly are, until every
 * fact is found.
 */
export function recallTester(index = new StringIndex()): (needs: readonly NeededFact[], body: SentContext) => StepRecall {
  // Blocks are mostly the same objects from one request to the next: their strings are kept.
  const strings = new WeakMap<object, string[]>();
  const stringsOf = (b: unknown): string[] => {
    if (!b || typeof b !== 'object') return typeof b === 'string' ? [b] : [];
    let out = strings.get(b);
    if (!out) strings.set(b, (out = blockStrings(b)));
    return out;
  };
  // The facts not found yet: a flag per fact of `needs` and their count, reused from one test to
  // the next. (A Set of them made an iterator per string looked at: most of what a test allocated.)
  let found: boolean[] = [];
  let left = 0;
  let needs: readonly NeededFact[] = [];
  const look = (s: string) => {
    for (let k = 0; k < needs.length; k++) if (!found[k] && index.has(s, needs[k]!)) { found[k] = true; left--; }
  };
  const lookBlock = (b: unknown) => {
    const strings = stringsOf(b);
    for (let k = 0; k < strings.length && left; k++) look(strings[k]!);
  };
  return (stepNeeds, body) => {
    needs = stepNeeds;
    left = needs.length;
    if (found.length < left) found = new Array<boolean>(left).fill(false);
    else found.fill(false, 0, left);
    const messages = body.messages;
    for (let i = messages.length - 1; i >= 0 && left; i--) {
      const c = messages[i]!.content;
      if (typeof c === 'string') { look(c); continue; }
      for (let j = c.length - 1; j >= 0 && left; j--) lookBlock(c[j]);
    }
    const system = body.system;
    if (left && typeof system === 'string') look(system);
    else if (left && Array.isArray(system)) for (let j = 0; j < system.length && left; j++) lookBlock(system[j]);
    const lost = left ? needs.filter((_, k) => !found[k]) : [];
    needs = [];
    return { needed: stepNeeds.length, recalled: stepNeeds.length - lost.length, lost };
  };
}
