/**
 * `compaction/snip`: drops the oldest whole turns when the context reaches a threshold, with no model
 * call. A turn here is one API round: an assistant message and the tool results after it, so a
 * tool_use never loses its tool_result. Pinned messages, the messages before the first reply (the
 * opening prompt) and the user's latest prompt are never dropped. One snip drops enough rounds to
 * get down to the target (default half the threshold), so the cached prefix is rewritten once per
 * snip rather than on every request. A short note takes the place of what was dropped.
 */
import { z } from 'zod';
import {
  CONTEXT_STAGE, type Kernel, DEFAULT_MAX_TOKENS, definePlugin,
  type Message,
} from '../../../kernel/index.js';
import { tokenCounter, type TokenCounter } from '../../../lib/index.js';
import { expectCacheDrop } from '../shared/cache-signal.js';
import { groupByRound, isPinned, latestUserPromptIndex } from '../shared/history.js';
import { computeThresholds, DEFAULT_CONTEXT_WINDOW } from '../shared/threshold.js';

export const PLUGIN_NAME = 'compaction/snip';

export const snipOptions = z.object({
  /** Snip at this many context tokens. Default: the auto-compaction default threshold. */
  triggerTokens: z.number().int().positive().optional().register(z.globalRegistry, { description: 'Snip when the context reaches this many tokens; default: the default auto-compaction threshold (window − min(output cap, 20,000) − 13,000); not with triggerRatio.' }),
  /** Snip at this share of the context window. */
  triggerRatio: z.number().gt(0).max(1).optional().register(z.globalRegistry, { description: 'Snip when the context reaches this share of the context window; not with triggerTokens.' }),
  /** After a snip the context is at most this share of the trigger. */
  targetRatio: z.number().gt(0).lt(1).default(0.5).register(z.globalRegistry, { description: 'One snip drops the oldest rounds until the context is at most this share of the trigger, so the cached prefix is rewritten once per snip.' }),
  /** Context window, tokens. Default: the preset's `model.contextWindow`, else 200,000. */
  contextWindow: z.number().int().positive().optional().register(z.globalRegistry, { description: 'Context window, tokens; default: the preset\'s `model.contextWindow`, else 200,000.' }),
}).strict().refine((o) => o.triggerTokens === undefined || o.triggerRatio === undefined, { message: 'set triggerTokens or triggerRatio, not both' });

/** The note that replaces dropped turns. */
export function snipNote(messages: number): string {
  return `[${messages} earlier messages of this conversation were removed to keep it within the context window. Read files again or rerun commands if you need their content.]`;
}

export interface SnipResult {
  messages: Message[];
  /** Messages removed. */
  dropped: number;
  /** Estimated tokens freed (removed minus the note). */
  tokens: number;
}

/**
 * Drops the oldest rounds until `tokensNow − freed ≤ target`. Rounds are droppable from the second
 * group on (the first holds the opening messages), never the last one (the turn in progress). The
 * user's latest prompt and pinned messages inside a dropped round are kept, in order, before the note
 * that stands for what was dropped. Returns the input array when nothing can be dropped.
 */
export function snipRounds(messages: Message[], tokensNow: number, target: number, counter: Pick<TokenCounter, 'messagesTokens' | 'messageTokens'>): SnipResult {
  const latest = latestUserPromptIndex(messages);
  const keep = (i: number) => i === latest || isPinned(messages[i]!);
  const groups = groupByRound(messages.map((_, i) => i), messages);
  const stop = groups.length - 1;
  let end = 1;
  let freed = 0;
  let dropped = 0;
  while (end < stop && tokensNow - freed > target) {
    const gone = groups[end]!.filter((i) => !keep(i));
    freed += counter.messagesTokens(gone.map((i) => messages[i]!));
    dropped += gone.length;
    end++;
  }
  if (!dropped) return { messages, dropped: 0, tokens: 0 };
  const note: Message = { role: 'user', content: [{ type: 'text', text: snipNote(dropped) }], meta: { meta: true, source: PLUGIN_NAME, at: Date.now() } };
  const span = groups.slice(1, end).flat();
  const out: Message[] = [];
  for (const g of groups.slice(0, 1)) for (const i of g) out.push(messages[i]!);
  for (const i of span) if (keep(i)) out.push(messages[i]!);
  out.push(note);
  for (const g of groups.slice(end)) for (const i of g) out.push(messages[i]!);
  return { messages: out, dropped, tokens: freed - counter.messageTokens(note) };
}

/** Counters for reports and the benchmark. */
export interface SnipStats {
  snips: number;
  dropped: number;
  tokensFreed: number;
  trigger: number;
  target: number;
}

const stats = new WeakMap<Kernel, SnipStats>();

/** The plugin's counters for a kernel. */
export function snipStats(kernel: Kernel): SnipStats | undefined {
  return stats.get(kernel);
}

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'drops the oldest whole turns (API rounds) when the context reaches a threshold; pinned messages and the latest prompt stay',
  options: snipOptions,
  apply(kernel, options) {
    const counter = tokenCounter(kernel);
    const window = options.contextWindow ?? kernel.preset.model?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
    const trigger = options.triggerTokens ?? (options.triggerRatio !== undefined
      ? Math.floor(window * options.triggerRatio)
      : computeThresholds({ contextWindow: window, maxOutputTokens: kernel.preset.model?.maxTokens ?? DEFAULT_MAX_TOKENS }).threshold);
    const target = Math.floor(trigger * options.targetRatio);
    const s: SnipStats = { snips: 0, dropped: 0, tokensFreed: 0, trigger, target };
    stats.set(kernel, s);

    kernel.hooks.context.tapPromise({ name: PLUGIN_NAME, stage: CONTEXT_STAGE.SNIP }, async (state, ctx) => {
      await counter.prime(ctx);
      const now = counter.count(state.messages).tokens;
      if (now < trigger) return state;
      const r = snipRounds(state.messages, now, target, counter);
      if (!r.dropped) {
        kernel.emit({ type: 'notice', level: 'warn', source: PLUGIN_NAME, message: `the context (${now} tokens) is over the snip threshold (${trigger}) but no whole turn can be dropped` });
        return state;
      }
      s.snips++;
      s.dropped += r.dropped;
      s.tokensFreed += r.tokens;
      expectCacheDrop(kernel, { kind: 'compaction', source: PLUGIN_NAME, detail: `${r.dropped} messages dropped` });
      kernel.emit({ type: 'notice', level: 'info', source: PLUGIN_NAME, message: `dropped the ${r.dropped} oldest messages (${r.tokens} tokens) at ${now} tokens (threshold ${trigger}, target ${target})` });
      return { ...state, messages: r.messages, tokensFreed: state.tokensFreed + r.tokens };
    });
  },
});
