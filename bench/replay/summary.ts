/**
 * The replay's answer to a compaction request: a deterministic, extractive summary of what the
 * request asks to summarise, in the nine sections of a compaction summary (requests and intent,
 * technical context, files and code, errors and fixes, problem solving, user messages, pending
 * tasks, current work, next step), filled in priority order up to a token budget.
 *
 * The budget is the request's `max_tokens` capped by the size model (`SUMMARY_SIZE`): a summary is
 * at most `ratioHigh` of the context it summarises, as in the recorded compactions. A preset that
 * asks for a longer summary (up to the cap) gets one that keeps more facts; one that asks for less
 * gets fewer.
 */
import type { ContentTokenCounter } from '../../lib/index.js';
import type { Workload } from '../workloads/types.js';
import { promptTokens } from '../workloads/types.js';
import { blockStrings, factsIn, type Fact } from '../metrics/recall.js';

/**
 * Summary size against the context it summarised, fitted by `fitSummarySize` on the recorded
 * compactions of `../shared/traces` that keep their summary text: pi's two compactions of
 * `before-compaction.jsonl` (1,303 tokens of summary for a 174,738-token context, 1,014 for
 * 184,915; calibrated counter). Claude Code's recordings there carry no compaction.
 */
export const SUMMARY_SIZE = Object.freeze({ ratioLow: 0.0055, ratioHigh: 0.0075, samples: 2 });

/** The least budget a summary gets, tokens (a short session still gets its requests and files). */
export const MIN_SUMMARY_TOKENS = 400;

/** The size model fitted on recordings: summary tokens / tokens of the context before, lowest and highest. */
export function fitSummarySize(workloads: readonly Workload[], counter: ContentTokenCounter): { ratioLow: number; ratioHigh: number; samples: number; ratios: number[] } {
  const ratios: number[] = [];
  for (const w of workloads) {
    w.steps.forEach((s, i) => {
      const summary = s.compactionBefore?.summary;
      if (!summary) return;
      const prev = w.steps.slice(0, i).reverse().find((x) => x.usage);
      if (!prev?.usage) return;
      ratios.push(counter.block(summary, false) / promptTokens(prev.usage));
    });
  }
  return { ratioLow: ratios.length ? Math.min(...ratios) : NaN, ratioHigh: ratios.length ? Math.max(...ratios) : NaN, samples: ratios.length, ratios };
}

/** The budget of a summary of a `contextTokens` context asked with `maxTokens`, tokens. */
export function summaryBudget(maxTokens: number, contextTokens: number): number {
  return Math.max(1, Math.min(maxTokens, Math.max(MIN_SUMMARY_TOKENS, Math.round(SUMMARY_SIZE.ratioHigh * contextTokens))));
}

// Where a summariser's instructions start in the request (rein's and the common wordings).
const INSTRUCTIONS = /(Write a handoff summary of the session above|Your task is to create a detailed summary of the conversation|summari[sz]e the conversation)/i;
const SENTENCE_CHARS = 300;
const PROMPT_CHARS = 600;

function clip(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length <= n ? t : `${t.slice(0, n - 1)}…`;
}

/** A compaction request's body as far as the summary reads it. */
type SummaryBody = { messages?: ReadonlyArray<{ role?: string; content: string | readonly unknown[] }> };

/** A section of the summary: its title and its items, in the order they are offered. */
interface Section {
  title: string;
  items: string[];
}

// extractiveSummary runs once per compaction, on a request whose messages and blocks come in many
// shapes (the kernel's, each plugin's, the recording's), so V8 throws its optimised code away and
// recompiles it often. It is split into small functions, each of which costs little to recompile,
// and the round-robin fill (the loop V8 optimises while it runs) is one of them.

/**
 * The summary text (without the `<summary>` tags) of a compaction request `body`, within `budget`
 * tokens. `prompts` are the texts people typed in the recording, in order: those the request shows
 * are the user's requests and messages.
 */
export function extractiveSummary(body: SummaryBody, prompts: readonly string[], budget: number, counter: ContentTokenCounter): string {
  const strings = summarisedStrings(body);
  const typed = promptsIn(strings.join('\n'), prompts);
  const sections = summarySections(strings, typed);
  // Fill in priority order: what the user asked, where the work stands, files, errors, names, the rest.
  const priority = [0, 6, 7, 8, 5, 2, 3, 1, 4];
  const kept = fillSections(sections, priority, budget, counter);
  const render = () => sections.map((s, i) => `${s.title}:\n${kept[i]!.map((j) => s.items[j]).join('\n') || '(none)'}`).join('\n\n');
  // The parts were counted one by one; the whole may count a little more: drop the lowest-priority
  // items until it fits.
  let text = render();
  for (let k = priority.length - 1; k >= 0 && counter.block(text, false) > budget;) {
    const list = kept[priority[k]!]!;
    if (!list.length) { k--; continue; }
    list.pop();
    text = render();
  }
  return text;
}

/**
 * The prompts a text shows, in their order (a prompt counts when its first 80 characters, trimmed,
 * occur in `all`; blank prompts never): `prompts.filter((p) => p.trim() && all.includes(key(p)))`
 * without testing every prompt of the workload against the text. A workload has a prompt every few
 * steps and a long replay compacts every few hundred, so testing them all made each compaction cost
 * more the longer the replay had run. Only prompts whose anchor word (`PromptIndex`) is a word of
 * `all` are tested, so the work per call follows the length of `all`, not the number of prompts.
 */
export function promptsIn(all: string, prompts: readonly string[]): string[] {
  let index = promptIndexes.get(prompts);
  if (!index) promptIndexes.set(prompts, (index = indexPrompts(prompts)));
  const candidates = index.unanchored.slice();
  // Each word run of `all` is hashed from its character codes as it is scanned and looked up by
  // its hash; only a hash that some anchor has is compared with the text. Building a string per
  // word run (`all.match(/\w+/g)`) was 4-6 MB per replay job, for words that are nearly all no
  // prompt's anchor.
  const mark = ++index.calls;
  const n = all.length;
  let start = -1;
  let h = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? all.charCodeAt(i) : 0;
    if (isWordCode(c)) {
      if (start < 0) { start = i; h = FNV_OFFSET; }
      h = Math.imul(h ^ c, FNV_PRIME);
      continue;
    }
    if (start < 0) continue;
    const groups = index.byHash.get(h & HASH_MASK);
    if (groups) {
      for (const g of groups) {
        if (g.mark === mark || g.word.length !== i - start || !all.startsWith(g.word, start)) continue;
        g.mark = mark;
        for (const k of g.prompts) candidates.push(k);
      }
    }
    start = -1;
  }
  candidates.sort((a, b) => a - b);
  const out: string[] = [];
  for (const i of candidates) if (all.includes(index.keys[i]!)) out.push(prompts[i]!);
  return out;
}

/** Maximal runs of word characters (`\w`, as `RegExp` without the `u` flag defines them). */
const WORD_RUN = /\w+/g;

/** True for the UTF-16 code of a word character: `[A-Za-z0-9_]`, `\w` without the `u` flag. */
function isWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

// 32-bit FNV-1a over UTF-16 code units (http://www.isthe.com/chongo/tech/comp/fnv/), cut to 30
// bits so that the hash is a small integer V8 keeps unboxed as a Map key.
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;
const HASH_MASK = 0x3fffffff;

/** The FNV-1a hash of `word` that `promptsIn` computes for a word run as it scans. */
function wordHash(word: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), FNV_PRIME);
  return h & HASH_MASK;
}

/** The prompts (indexes) whose anchor is `word`; `mark` is the last `promptsIn` call that took them. */
interface AnchorGroup {
  word: string;
  prompts: number[];
  mark: number;
}

/**
 * The prompts of a workload by anchor word: for each prompt, its key (the first 80 characters of
 * its trimmed text) and the longest word run of the key with a non-word character of the key on
 * each side. Wherever the key occurs in a text, that run is a whole word run of the text, so a text
 * none of whose word runs is a prompt's anchor cannot hold the prompt. Prompts whose key has no such
 * run are `unanchored` and always tested; blank prompts are in neither list. Anchors are kept by
 * `wordHash` (several anchors may share a hash); `calls` counts the `promptsIn` calls on the index.
 */
interface PromptIndex {
  keys: string[];
  byHash: Map<number, AnchorGroup[]>;
  unanchored: number[];
  calls: number;
}

/** One index per prompts array: a replay passes the same array to every compaction. */
const promptIndexes = new WeakMap<readonly string[], PromptIndex>();

function indexPrompts(prompts: readonly string[]): PromptIndex {
  const index: PromptIndex = { keys: [], byHash: new Map(), unanchored: [], calls: 0 };
  prompts.forEach((p, i) => {
    const key = p.trim().slice(0, 80);
    index.keys.push(key);
    if (!key) return;
    let anchor = '';
    for (const m of key.matchAll(WORD_RUN)) {
      const end = m.index + m[0].length;
      if (m.index > 0 && end < key.length && m[0].length > anchor.length) anchor = m[0];
    }
    if (!anchor) { index.unanchored.push(i); return; }
    const h = wordHash(anchor);
    let groups = index.byHash.get(h);
    if (!groups) index.byHash.set(h, (groups = []));
    const group = groups.find((g) => g.word === anchor);
    if (group) group.prompts.push(i);
    else groups.push({ word: anchor, prompts: [i], mark: 0 });
  });
  return index;
}

/** The strings of the messages a compaction request summarises: its instructions cut off, in order. */
function summarisedStrings(body: SummaryBody): string[] {
  const strings: string[] = [];
  for (const m of body.messages ?? []) {
    const parts = typeof m.content === 'string' ? [m.content] : m.content.flatMap(blockStrings);
    for (const p of parts) {
      const k = p.search(INSTRUCTIONS);
      if (k === 0) continue;
      strings.push(k > 0 ? p.slice(0, k) : p);
    }
  }
  return strings;
}

/** The nine sections with every item they could hold, each section's items in the order offered. */
function summarySections(strings: readonly string[], typed: readonly string[]): Section[] {
  const of = factsByKind(strings);
  const errorLines: string[] = [];
  for (const e of of('error')) {
    const s = strings.find((x) => x.includes(e));
    const line = s?.split('\n').find((l) => l.includes(e));
    if (line) errorLines.push(clip(line, SENTENCE_CHARS));
  }
  const lastText = [...strings].reverse().find((s) => s.trim().length > 40 && !typed.some((p) => s.includes(p.trim().slice(0, 80))));
  return [
    { title: '1. Requests and intent', items: typed.length ? [`Most recent request: "${clip(typed[typed.length - 1]!, PROMPT_CHARS)}"`, ...typed.slice(0, -1).reverse().map((p) => clip(p, PROMPT_CHARS))] : [] },
    // Identifiers as a list, newest first.
    { title: '2. Technical context', items: of('identifier').map((x) => `- ${x}`) },
    { title: '3. Files and code', items: of('path').map((p) => `- ${p}`) },
    { title: '4. Errors and fixes', items: [...new Set(errorLines)].map((l) => `- ${l}`) },
    { title: '5. Problem solving', items: [...of('url'), ...of('quoted'), ...of('number')].map((x) => `- ${x}`) },
    { title: '6. User messages', items: [...typed].reverse().map((p) => `- "${clip(p, PROMPT_CHARS)}"`) },
    { title: '7. Pending tasks', items: typed.length ? [`- The most recent request above, unless the current work finished it.`] : [] },
    { title: '8. Current work', items: lastText ? [clip(lastText, SENTENCE_CHARS * 2)] : [] },
    { title: '9. Next step', items: typed.length ? ['Continue with the most recent request.'] : [] },
  ];
}

/** The facts of `strings` by kind, newest first (the last mention decides the order): kind → texts. */
function factsByKind(strings: readonly string[]): (kind: Fact['kind']) => string[] {
  const facts = new Map<string, Fact>();
  for (let i = strings.length - 1; i >= 0; i--) for (const f of factsIn(strings[i]!)) if (!facts.has(f.text)) facts.set(f.text, f);
  return (k) => [...facts.values()].filter((f) => f.kind === k).map((f) => f.text);
}

/**
 * The indexes of the items kept of each section within `budget` tokens, titles included.
 * Round-robin over the sections in `priority` order, one item at a time, so a small budget keeps a
 * little of everything important rather than all of one section; an item that does not fit is
 * skipped and a shorter one after it may still fit. Indexes rather than the items themselves: an
 * array that only ever holds small integers keeps one hidden class, where arrays made empty and
 * then given strings change theirs, and V8 dropped the loop's optimised code each time it met one
 * it had not seen.
 */
function fillSections(sections: readonly Section[], priority: readonly number[], budget: number, counter: ContentTokenCounter): number[][] {
  const kept: number[][] = sections.map(() => []);
  const cursors = sections.map(() => 0);
  let left = 0;
  for (const s of sections) left += s.items.length;
  let used = counter.block(sections.map((s) => s.title).join('\n'), false);
  while (left > 0) {
    for (const i of priority) {
      const items = sections[i]!.items;
      const at = cursors[i]!;
      if (at >= items.length) continue;
      cursors[i] = at + 1;
      left--;
      const cost = counter.block(items[at]!, false) + 1;
      if (used + cost > budget) continue;
      used += cost;
      kept[i]!.push(at);
    }
  }
  return kept;
}
