/**
 * `compaction/microcompact`: clears the content of old tool results without a model call.
 *
 * Only results of clearable tools are touched (by default the ones whose output can be fetched
 * again: Read, Bash, Grep, Glob, WebSearch, WebFetch, Edit, Write; Claude Code's
 * COMPACTABLE_TOOLS), and the newest `keepRecent` always stay. Two triggers:
 * - `count`: more than `countTrigger` results are still uncleared: clear all but the newest
 *   `keepRecent` at once (one cache rewrite per batch instead of one per turn);
 * - `idle`: the last response is older than the cache TTL, so the cache is cold anyway and the next
 *   request rewrites the whole prefix: shrink it first;
 * - `prune`: the newest `protectTokens` of tool output stay; when the older uncleared output adds up
 *   to at least `pruneMinimumTokens`, all of it is cleared at once (opencode's pruning: 40,000
 *   protected, at least 20,000 cleared).
 * A cleared result keeps its tool_use_id and says what it was: the tool, its target, the size.
 * Cleared ids are recorded in the transcript; the history rewrite itself is recorded by the loop.
 */
import { z } from 'zod';
import {
  CONTEXT_STAGE, type Kernel, createKernelState, definePlugin, Incremental,
  type ContentBlock, type Message, type ToolResultBlock,
} from '../../../kernel/index.js';
import { tokenCounter, estimateBlockTokens, estimateMessageTokens, cacheCostModel, lastCacheUse } from '../../../lib/index.js';
import { expectCacheDrop } from '../shared/cache-signal.js';
import { filePathOf, toolResultText, toolUses } from '../shared/history.js';

export const PLUGIN_NAME = 'compaction/microcompact';

/** The session's cache settings, shared by `cache/breakpoints` under its name (absent when it is not loaded). */
const cacheSettings = createKernelState<{ current?: { ttl: '5m' | '1h' } }>('cache/breakpoints', () => ({}));

/**
 * Tools whose results may be cleared (Claude Code: COMPACTABLE_TOOLS). Names match
 * case-insensitively: other agents spell the same tools in lower case (pi's `read`, `bash`, `edit`,
 * `write`, `grep`; opencode's `read`, `glob`, `webfetch`), and their sessions replay under those names.
 */
export const CLEARABLE_TOOLS: readonly string[] = Object.freeze(['Read', 'Bash', 'Grep', 'Glob', 'WebSearch', 'WebFetch', 'Edit', 'Write']);
/** Newest results always kept (Claude Code: keepRecent = 5). */
export const KEEP_RECENT = 5;
/** The API's default cache TTL, minutes (prompt-caching docs), used when `cache/breakpoints` is not loaded. */
export const DEFAULT_TTL_MINUTES = 5;
/** Text that starts every cleared result. */
export const CLEARED_PREFIX = '[Old tool result cleared to save context:';

export const microcompactOptions = z.object({
  /**
   * `count`, `idle`, `both` (count or idle), `prune`, or `cost`: after an idle gap (the cache is
   * cold anyway), or when the cache cost model expects the saving over the rest of the session to
   * beat the re-write of the prefix after the first cleared result.
   */
  trigger: z.enum(['count', 'idle', 'both', 'prune', 'cost']).default('idle').register(z.globalRegistry, { description: 'When to clear: `idle` (the last response is older than the cache TTL), `count` (more than countTrigger results uncleared), `both`, `prune` (older output beyond protectTokens, opencode\'s pruning) or `cost` (when the cache is cold, or when the cache cost model expects the clearing to pay).' }),
  /** `prune` trigger: the newest tool output kept, tokens. */
  protectTokens: z.number().int().min(0).default(40_000).register(z.globalRegistry, { description: '`prune` trigger: the newest tool output kept, tokens (opencode: 40,000).' }),
  /** `prune` trigger: clear only when at least this much older output would go, tokens. */
  pruneMinimumTokens: z.number().int().min(0).default(20_000).register(z.globalRegistry, { description: '`prune` trigger: clear only when at least this much older output would go, tokens (opencode: 20,000).' }),
  /** The newest clearable results kept (at least 1). */
  keepRecent: z.number().int().min(1).default(KEEP_RECENT).register(z.globalRegistry, { description: 'The newest clearable results always kept (Claude Code: 5).' }),
  /** `count` trigger: clear when more than this many clearable results are uncleared. */
  countTrigger: z.number().int().min(1).default(20).register(z.globalRegistry, { description: '`count` and `both` triggers, and `cost` while the cache is warm: clear when more than this many clearable results are uncleared; must be larger than keepRecent.' }),
  /** `idle` trigger: minutes since the last response. Default: the session's cache TTL (5 or 60). */
  idleMinutes: z.number().positive().optional().register(z.globalRegistry, { description: '`idle`, `both` and `cost` triggers: the cache counts as cold this many minutes after the last response; default: the session\'s cache TTL (5 or 60).' }),
  /** Tools whose results may be cleared (names compared case-insensitively). */
  tools: z.array(z.string().min(1)).default([...CLEARABLE_TOOLS]).register(z.globalRegistry, { description: 'Tools whose results may be cleared, compared case-insensitively (Claude Code\'s compactable tools: output that can be fetched again).' }),
  /**
   * The working set a clearing keeps besides the newest `keepRecent`: the latest read of each of
   * the `maxFiles` files used most recently (read, edited or written), when it is at most
   * `perFileTokens`, within `totalTokens` in all (a read that does not fit is skipped and the next
   * file is tried). The budget is the one compaction restores files with (Claude Code: 5 files,
   * 5,000 tokens each, 50,000 in all), but what is kept is the read as it was: after an edit it
   * shows the file before the edit, where compaction reads the file again. Absent (the default):
   * off; `keepFiles: {}` keeps 5 files. Ignored by the `prune` trigger.
   */
  keepFiles: z.object({
    maxFiles: z.number().int().min(0).default(5).register(z.globalRegistry, { description: 'Most recently used files whose latest read is kept (compaction\'s restore budget, Claude Code: 5).' }),
    perFileTokens: z.number().int().min(1).default(5_000).register(z.globalRegistry, { description: 'A read is kept only when it is at most this many tokens (Claude Code: 5,000).' }),
    totalTokens: z.number().int().min(0).default(50_000).register(z.globalRegistry, { description: 'Most tokens of kept reads together; a read that does not fit is skipped and the next file is tried (Claude Code: 50,000).' }),
    /** Tools whose `file_path` (or `path`) input reads a file (compared case-insensitively). */
    readTools: z.array(z.string().min(1)).min(1).default(['Read']).register(z.globalRegistry, { description: 'Tools whose `file_path` (or `path`) input reads a file, compared case-insensitively.' }),
  }).strict().optional().register(z.globalRegistry, { description: 'Also keep the latest read of each of the most recently used files (read, edited or written), within a budget; absent: off, `{}`: 5 files; ignored by the `prune` trigger.' }),
  /**
   * Results the model is still using are kept besides the newest `keepRecent`: an older result
   * (not an error) whose distinctive words the model wrote at least `minWords` of, all different,
   * in its last `turns` assistant messages after the result (text and the string values of tool
   * inputs); the most used first, within `totalTokens` (estimated tokens) in all. Distinctive
   * words: identifiers of 6 or more characters in camelCase or snake_case or with a digit, paths
   * (and their last component) and file names (`name.ext`). Absent (the default): off;
   * `keepReferenced: {}` keeps up to 10,000 tokens. Ignored by the `prune` trigger.
   */
  keepReferenced: z.object({
    turns: z.number().int().min(1).default(40).register(z.globalRegistry, { description: 'How many of the model\'s latest assistant messages after a result are searched for its words.' }),
    minWords: z.number().int().min(1).default(2).register(z.globalRegistry, { description: 'A result is kept when the model wrote at least this many different distinctive words of it.' }),
    totalTokens: z.number().int().min(0).default(10_000).register(z.globalRegistry, { description: 'Most tokens (estimated) of results kept as in use, the most used first.' }),
  }).strict().optional().register(z.globalRegistry, { description: 'Also keep older results the model is still using: those whose distinctive words (long identifiers, paths, file names) it wrote again after them; absent: off, `{}`: up to 10,000 tokens; ignored by the `prune` trigger.' }),
}).strict().refine((o) => o.countTrigger > o.keepRecent, { message: 'countTrigger must be larger than keepRecent' });

export type MicrocompactOptions = z.output<typeof microcompactOptions>;

/** What the plugin records in the transcript: the ids cleared by one pass. */
export interface MicrocompactRecord {
  cleared: string[];
  reason: 'count' | 'idle' | 'prune' | 'cost';
  tokens: number;
  /** `idle` and `cost` triggers: the cost model's figures for the clearing, USD (re-write cost, expected saving, net). */
  predicted?: { costUsd: number; savingUsd: number; netUsd: number };
}

/** Counters for reports and the benchmark. */
export interface MicrocompactStats {
  passes: number;
  cleared: number;
  tokensFreed: number;
}

const stats = new WeakMap<Kernel, MicrocompactStats>();

/** The plugin's counters for a kernel. */
export function microcompactStats(kernel: Kernel): MicrocompactStats | undefined {
  return stats.get(kernel);
}

/** The placeholder of a cleared result: the tool, its target, and the size it had. */
export function placeholderFor(tool: string, input: Record<string, unknown>, tokens: number): string {
  const target = ['file_path', 'path', 'pattern', 'command', 'url', 'query'].map((k) => input[k]).find((v) => typeof v === 'string' && v) as string | undefined;
  const what = target ? `${tool} ${target.length > 120 ? `${target.slice(0, 117)}...` : target}` : tool;
  return `${CLEARED_PREFIX} ${what} (${tokens} tokens). Call the tool again if you need it.]`;
}

function isCleared(block: ToolResultBlock): boolean {
  const c = block.content;
  const text = typeof c === 'string' ? c : Array.isArray(c) && c.length === 1 && c[0]!.type === 'text' ? c[0]!.text : undefined;
  return text !== undefined && text.startsWith(CLEARED_PREFIX);
}

/** A test for clearable tool names: `tools` compared case-insensitively. */
export function clearableMatcher(tools: readonly string[]): (name: string) => boolean {
  const names = new Set(tools.map((t) => t.toLowerCase()));
  return (name) => names.has(name.toLowerCase());
}

export interface ClearResult {
  messages: Message[];
  cleared: string[];
  tokens: number;
}

/**
 * Clears every clearable result but the newest `keepRecent`. Returns the input array itself when
 * nothing changed; otherwise a new array in which only the changed messages are copies.
 */
export function clearOldResults(messages: Message[], tools: readonly string[], keepRecent: number, select?: (results: readonly { m: number; b: number; id: string }[]) => { m: number; b: number; id: string }[]): ClearResult {
  const clearable = clearableMatcher(tools);
  const uses = toolUses(messages);
  const results: { m: number; b: number; id: string }[] = [];
  messages.forEach((msg, m) => {
    if (msg.role !== 'user') return;
    msg.content.forEach((block, b) => {
      if (block.type !== 'tool_result') return;
      const use = uses.get((block as ToolResultBlock).tool_use_id);
      if (use && clearable(use.name)) results.push({ m, b, id: (block as ToolResultBlock).tool_use_id });
    });
  });
  const old = select ? select(results) : results.slice(0, Math.max(0, results.length - keepRecent));
  const copies = new Map<number, ContentBlock[]>();
  const cleared: string[] = [];
  let tokens = 0;
  for (const r of old) {
    const block = messages[r.m]!.content[r.b] as ToolResultBlock;
    if (isCleared(block)) continue;
    const use = uses.get(r.id)!;
    const before = estimateBlockTokens(block);
    const replacement: ToolResultBlock = { ...block, content: [{ type: 'text', text: placeholderFor(use.name, use.input, before) }] };
    tokens += before - estimateBlockTokens(replacement);
    let content = copies.get(r.m);
    if (!content) { content = messages[r.m]!.content.slice(); copies.set(r.m, content); }
    content[r.b] = replacement;
    cleared.push(r.id);
  }
  if (!cleared.length) return { messages, cleared, tokens: 0 };
  return { messages: messages.map((msg, i) => (copies.has(i) ? { ...msg, content: copies.get(i)! } : msg)), cleared, tokens };
}

/**
 * The `prune` trigger's choice (opencode's pruning): walking back from the newest result, the
 * first `protectTokens` of uncleared output stay; everything older goes, but only when it adds up
 * to at least `minimumTokens` (else nothing is cleared, so one clearing frees a worthwhile amount).
 * For `clearOldResults`' `select`.
 */
export function pruneSelection(messages: readonly Message[], protectTokens: number, minimumTokens: number) {
  return (results: readonly { m: number; b: number; id: string }[]) => {
    let newest = 0;
    const older: { m: number; b: number; id: string }[] = [];
    let olderTokens = 0;
    for (let i = results.length - 1; i >= 0; i--) {
      const r = results[i]!;
      const block = messages[r.m]!.content[r.b] as ToolResultBlock;
      if (isCleared(block)) continue;
      const t = estimateBlockTokens(block);
      if (newest + t <= protectTokens) { newest += t; continue; }
      newest = protectTokens;
      older.push(r);
      olderTokens += t;
    }
    return olderTokens >= minimumTokens ? older.reverse() : [];
  };
}

/** One clearable result: its message index `m`, block index `b` and `tool_use_id` `id`. */
export interface ResultRef {
  m: number;
  b: number;
  id: string;
}

/**
 * The `keepFiles` choice, for `clearOldResults`' `select`: of `results` (every clearable result,
 * oldest first), all but the newest `keepRecent`, less the latest read of each of the `maxFiles`
 * most recently used files (a read, edit or write of the path, by any tool whose input names it)
 * that fits the budget (estimated tokens). Returns the results to clear, oldest first. `results`
 * must index `messages` and each must have its tool_use there (else a TypeError).
 */
export function workingSetSelection(messages: readonly Message[], keepRecent: number, o: { maxFiles: number; perFileTokens: number; totalTokens: number; readTools: readonly string[] }) {
  return (results: readonly ResultRef[]): ResultRef[] => {
    const old = results.slice(0, Math.max(0, results.length - keepRecent));
    if (!o.maxFiles || !old.length) return old;
    const uses = toolUses(messages);
    const isRead = clearableMatcher(o.readTools);
    // Files by their last use, newest first: every tool_use naming a path counts as a use.
    const lastUse = new Map<string, number>();
    for (const [, use] of uses) {
      const p = filePathOf(use.input);
      if (p !== undefined) lastUse.set(p, Math.max(lastUse.get(p) ?? -1, use.message));
    }
    const recent = [...lastUse.entries()].sort((a, b) => b[1] - a[1]).slice(0, o.maxFiles).map(([p]) => p);
    // The latest successful read of each of those files among the older results (the newest
    // `keepRecent` stay anyway, and would only spend the budget).
    const latestRead = new Map<string, ResultRef>();
    for (const r of old) {
      const use = uses.get(r.id)!;
      const p = filePathOf(use.input);
      const block = messages[r.m]!.content[r.b] as ToolResultBlock;
      if (p !== undefined && isRead(use.name) && !block.is_error && !isCleared(block)) latestRead.set(p, r);
    }
    const keep = new Set<string>();
    let used = 0;
    for (const p of recent) {
      const r = latestRead.get(p);
      if (!r) continue;
      const t = estimateBlockTokens(messages[r.m]!.content[r.b]!);
      if (t > o.perFileTokens || used + t > o.totalTokens) continue;
      used += t;
      keep.add(r.id);
    }
    return keep.size ? old.filter((r) => !keep.has(r.id)) : old;
  };
}

// A text is cut into words at anything but letters, digits and `_ $ . / -` (one pass, linear in
// its length); then each word is classified. The patterns are made on first use, not when the
// plugin loads: V8 parses a pattern when it makes the RegExp, and resolving Unicode property
// classes from ICU is start-up work a run does not need before its first request.
let wordPatterns: { split: RegExp; identifier: RegExp; camelSnakeDigit: RegExp; fileName: RegExp } | undefined;
function patterns(): NonNullable<typeof wordPatterns> {
  return wordPatterns ??= {
    split: /[^\p{L}\p{N}_$./-]+/u,
    identifier: /^[\p{L}_$][\p{L}\p{N}_$]{5,}$/u,
    camelSnakeDigit: /\p{Ll}\p{Lu}|[\p{L}\p{N}]_[\p{L}\p{N}]|\p{N}/u,
    fileName: /^[\p{L}\p{N}_$-]{2,}(?:\.[\p{L}\p{N}_$-]+)*\.[a-z]{1,4}$/u,
  };
}

/**
 * The distinctive words of a text: identifiers of 6 or more characters in camelCase or snake_case
 * or with a digit, paths (with a `/`; also their last component) and file names (`name.ext`).
 */
export function distinctiveWords(text: string): Set<string> {
  const out = new Set<string>();
  const { split, identifier, camelSnakeDigit, fileName } = patterns();
  for (const raw of text.split(split)) {
    const w = raw.replace(/^[.-]+|[.-]+$/g, '');
    if (w.length < 3) continue;
    if (w.includes('/')) {
      const path = w.replace(/^\.?\/+/, '').replace(/\/+$/, '');
      if (path.length > 2) out.add(path);
      const base = path.slice(path.lastIndexOf('/') + 1);
      if (fileName.test(base) || (identifier.test(base) && camelSnakeDigit.test(base))) out.add(base);
      continue;
    }
    if (fileName.test(w)) out.add(w);
    for (const part of w.split(/[.-]/)) if (identifier.test(part) && camelSnakeDigit.test(part)) out.add(part);
  }
  return out;
}

/** The string values of a tool input, at any depth (JSON escapes would glue `\n` to a word). */
function inputStrings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(inputStrings);
  if (v && typeof v === 'object') return Object.values(v).flatMap(inputStrings);
  return [];
}

/**
 * The `keepReferenced` choice, for `clearOldResults`' `select`: of the results `base` would clear
 * (a subset of `results`, oldest first), keeps the ones (not errors) whose distinctive words the
 * model wrote again in its last `turns` assistant messages after the result, at least `minWords`
 * different ones; the most used first, within `totalTokens` (estimated tokens). Returns the
 * results to clear, oldest first. Throws a TypeError when `results` does not index `messages`.
 */
export function referencedSelection(messages: readonly Message[], o: { turns: number; minWords: number; totalTokens: number }, base: (results: readonly ResultRef[]) => ResultRef[]) {
  return (results: readonly ResultRef[]): ResultRef[] => {
    const old = base(results);
    if (!o.totalTokens || !old.length) return old;
    // The model's own words in its last `turns` messages, each with the index of its newest message.
    const said = new Map<string, number>();
    let turns = 0;
    for (let i = messages.length - 1; i >= 0 && turns < o.turns; i--) {
      const m = messages[i]!;
      if (m.role !== 'assistant') continue;
      turns++;
      for (const b of m.content) {
        const text = b.type === 'text' ? b.text : b.type === 'tool_use' ? inputStrings(b.input).join('\n') : '';
        for (const w of distinctiveWords(text)) if (!said.has(w)) said.set(w, i);
      }
    }
    const scored: { r: ResultRef; used: number; tokens: number }[] = [];
    for (const r of old) {
      const block = messages[r.m]!.content[r.b] as ToolResultBlock;
      if (isCleared(block) || block.is_error) continue;
      let used = 0;
      for (const w of distinctiveWords(toolResultText(block))) if ((said.get(w) ?? -1) > r.m) used++;
      if (used >= o.minWords) scored.push({ r, used, tokens: estimateBlockTokens(block) });
    }
    scored.sort((a, b) => b.used - a.used);
    const keep = new Set<string>();
    let total = 0;
    for (const x of scored) {
      if (total + x.tokens > o.totalTokens) continue;
      total += x.tokens;
      keep.add(x.r.id);
    }
    return keep.size ? old.filter((r) => !keep.has(r.id)) : old;
  };
}

/** Number of clearable results not cleared yet. */
export function unclearedCount(messages: readonly Message[], tools: readonly string[]): number {
  const clearable = clearableMatcher(tools);
  const uses = toolUses(messages);
  let n = 0;
  for (const msg of messages) {
    if (msg.role !== 'user') continue;
    for (const block of msg.content) {
      if (block.type !== 'tool_result') continue;
      const use = uses.get((block as ToolResultBlock).tool_use_id);
      if (use && clearable(use.name) && !isCleared(block as ToolResultBlock)) n++;
    }
  }
  return n;
}

/** What the `count` trigger keeps between requests: tool names by id, and the uncleared count. */
interface CountState {
  names: Map<string, string>;
  uncleared: number;
}

/**
 * `unclearedCount` kept as the history grows: each request counts only the messages added since
 * (a tool_result always follows its tool_use), and counts again from the start after the history
 * was replaced (a clearing pass, a compaction).
 */
export function unclearedCounter(tools: readonly string[]): (messages: readonly Message[]) => number {
  const clearable = clearableMatcher(tools);
  const tracker = new Incremental<Message, CountState>({
    init: () => ({ names: new Map(), uncleared: 0 }),
    add: (s, msg) => {
      for (const block of msg.content) {
        if (block.type === 'tool_use' && msg.role === 'assistant') s.names.set(block.id, block.name);
        else if (block.type === 'tool_result' && msg.role === 'user') {
          const name = s.names.get(block.tool_use_id);
          if (name !== undefined && clearable(name) && !isCleared(block)) s.uncleared++;
        }
      }
    },
  });
  return (messages) => tracker.update(messages).uncleared;
}

/** ms since the epoch of the last assistant message of the history, if it has one with a time. */
function lastAssistantAt(messages: readonly Message[]): number | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'assistant') return messages[i]!.meta?.at;
  return undefined;
}

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'clears old results of clearable tools (keeping the newest N), by count or after an idle gap longer than the cache TTL',
  options: microcompactOptions,
  apply(kernel, options) {
    const counter = tokenCounter(kernel);
    const s: MicrocompactStats = { passes: 0, cleared: 0, tokensFreed: 0 };
    stats.set(kernel, s);
    const idleMs = () => (options.idleMinutes ?? (cacheSettings(kernel).current?.ttl === '1h' ? 60 : DEFAULT_TTL_MINUTES)) * 60_000;
    const uncleared = unclearedCounter(options.tools);
    // What a clearing keeps besides the newest keepRecent (undefined: nothing else).
    const workingSet = (messages: readonly Message[]) => {
      const files = options.keepFiles?.maxFiles ? workingSetSelection(messages, options.keepRecent, options.keepFiles) : undefined;
      if (options.keepReferenced?.totalTokens) return referencedSelection(messages, options.keepReferenced, files ?? ((r) => r.slice(0, Math.max(0, r.length - options.keepRecent))));
      return files;
    };
    // A batch (count trigger, or cost with a warm cache) is worth a cache re-write only when it
    // clears as many results as the plain rule would: results the working set keeps still count as
    // uncleared, and without this a kept set near countTrigger would clear one result per turn.
    const batchTooSmall = (r: ClearResult) => r.cleared.length <= options.countTrigger - options.keepRecent;

    // Only the `cost` trigger asks the cost model (which then follows every response).
    const costModel = options.trigger === 'cost' ? cacheCostModel(kernel) : undefined;
    // The `cost` trigger: clear when the cache is cold, or when the model says the clearing pays.
    const costTriggered = <S extends { messages: Message[]; tokensFreed: number }>(state: S, model: string): S => {
      if (!costModel) return state;
      const n = uncleared(state.messages);
      if (n <= options.keepRecent) return state;
      // A keep-alive refresh counts as a use of the cache (the cost model's snapshot has it).
      const last = Math.max(counter.lastResponseAt ?? lastAssistantAt(state.messages) ?? -Infinity, lastCacheUse(kernel) ?? -Infinity);
      const cold = Number.isFinite(last) && Date.now() - last > idleMs();
      // Warm: clear in batches of more than countTrigger results, one re-write per batch.
      if (!cold && n <= options.countTrigger) return state;
      const r = clearOldResults(state.messages, options.tools, options.keepRecent, workingSet(state.messages));
      if (!r.cleared.length || (!cold && batchTooSmall(r))) return state;
      // Everything after the first cleared result is written again (unless the cache is cold).
      const first = r.messages.findIndex((m, i) => m !== state.messages[i]);
      let rewritten = 0;
      for (let i = Math.max(0, first); i < r.messages.length; i++) rewritten += estimateMessageTokens(r.messages[i]!);
      const snap = costModel.snapshot;
      const ttl = cacheSettings(kernel).current?.ttl ?? '5m';
      // The removed tokens pay back until the session ends or the cache next goes cold (when the idle
      // clearing would remove them for free): 1 / P(expiry) requests on average.
      const horizon = Math.min(costModel.model.expectedRemainingRequests(snap?.requests ?? 0), Math.ceil(1 / Math.max(costModel.model.pExpire(ttl), 1e-3)));
      const est = costModel.model.rewrite(model, { tokensRewritten: rewritten, tokensRemoved: r.tokens, remainingRequests: horizon, cold, ttl });
      if (!cold && est.netUsd <= 0) return state;
      return cleared(state, r, cold ? 'idle' : 'cost', est);
    };

    kernel.hooks.context.tap({ name: PLUGIN_NAME, stage: CONTEXT_STAGE.MICROCOMPACT }, (state, ctx) => {
      if (options.trigger === 'prune') {
        const r = clearOldResults(state.messages, options.tools, options.keepRecent, pruneSelection(state.messages, options.protectTokens, options.pruneMinimumTokens));
        if (!r.cleared.length) return state;
        return cleared(state, r, 'prune');
      }
      if (options.trigger === 'cost') return costTriggered(state, ctx.model);
      let reason: 'count' | 'idle' | undefined;
      if (options.trigger !== 'count') {
        // A keep-alive refresh since the last response kept the cache warm: not idle.
        const response = counter.lastResponseAt ?? lastAssistantAt(state.messages);
        const refreshed = lastCacheUse(kernel);
        const last = response !== undefined && refreshed !== undefined ? Math.max(response, refreshed) : response ?? refreshed;
        if (last !== undefined && Date.now() - last > idleMs()) reason = 'idle';
      }
      if (!reason && options.trigger !== 'idle' && uncleared(state.messages) > options.countTrigger) reason = 'count';
      if (!reason) return state;
      const r = clearOldResults(state.messages, options.tools, options.keepRecent, workingSet(state.messages));
      if (!r.cleared.length || (reason === 'count' && batchTooSmall(r))) return state;
      return cleared(state, r, reason);
    });

    const cleared = <S extends { messages: Message[]; tokensFreed: number }>(state: S, r: ClearResult, reason: MicrocompactRecord['reason'], predicted?: MicrocompactRecord['predicted']): S => {
      s.passes++;
      s.cleared += r.cleared.length;
      s.tokensFreed += r.tokens;
      kernel.transcript.append({ type: 'plugin', plugin: PLUGIN_NAME, data: { cleared: r.cleared, reason, tokens: r.tokens, ...(predicted ? { predicted } : {}) } satisfies MicrocompactRecord });
      expectCacheDrop(kernel, { kind: 'deletion', source: PLUGIN_NAME, detail: `${r.cleared.length} old tool results cleared (${reason})` });
      const why = reason === 'idle' ? 'idle longer than the cache TTL' : reason === 'cost' ? `the cost model expects $${predicted!.netUsd.toFixed(4)} saved over the rest of the session` : reason === 'prune' ? `tool output beyond the newest ${options.protectTokens} tokens` : `more than ${options.countTrigger} results`;
      kernel.emit({ type: 'notice', level: 'info', source: PLUGIN_NAME, message: `cleared ${r.cleared.length} old tool result${r.cleared.length === 1 ? '' : 's'} (${r.tokens} tokens; trigger: ${why})` });
      return { ...state, messages: r.messages, tokensFreed: state.tokensFreed + r.tokens };
    };
  },
});
