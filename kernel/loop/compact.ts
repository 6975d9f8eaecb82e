/**
 * Runs one compaction through the hooks: `preCompact` (may cancel) → `compact` (a strategy answers
 * with the new history) → `postCompact` (may add attachments after the summary) → the history is
 * replaced and recorded.
 */
import type { CompactResult, RunContext } from '../hook-payloads.js';
import type { Kernel } from '../kernel.js';
import type { ContentBlock, Message } from '../types.js';

/**
 * Compacts `kernel.messages`. Returns the strategy's result, or undefined when a `preCompact` tap
 * cancelled or no strategy answered. A strategy that throws is reported as a notice and counts as
 * no answer, so the caller decides what happens next (a terminal reason, or going on).
 */
export async function runCompaction(
  kernel: Kernel, trigger: 'auto' | 'manual' | 'reactive', ctx: RunContext, instructions?: string,
  messages: Message[] = kernel.messages,
): Promise<CompactResult | undefined> {
  const services = kernel.services;
  const tokens = services.messageTokens(messages);
  // The `compact` event (stream-json `compact_boundary` pre/post tokens) reports the context's size
  // as the shared counter sees it: tools, system and messages, the number thresholds compare and
  // what Claude Code's `preTokens` means. The hook payloads keep the messages-only estimate.
  const contextBefore = services.contextTokens(kernel, messages);
  const pre = await kernel.hooks.preCompact.promise({ trigger, instructions, messages, tokens }, ctx);
  if (pre.cancel) {
    kernel.emit({ type: 'notice', level: 'info', source: 'compact', message: `compaction cancelled: ${pre.cancel}` });
    return undefined;
  }
  let result: CompactResult | undefined;
  try {
    result = await kernel.hooks.compact.promise({ trigger, instructions: pre.instructions, messages, tokens }, ctx);
  } catch (err) {
    kernel.emit({ type: 'notice', level: 'warn', source: 'compact', message: `compaction failed: ${(err as Error).message}` });
    return undefined;
  }
  if (!result) return undefined;
  const post = { trigger, result, tokensBefore: tokens, attachments: [] as ContentBlock[] };
  await kernel.hooks.postCompact.promise(post, ctx);
  const next = post.attachments.length ? withAttachments(result.messages, post.attachments) : result.messages;
  replaceHistory(kernel, next, `compact:${trigger}:${result.strategy}`);
  kernel.emit({ type: 'compact', trigger, tokensBefore: contextBefore, tokensAfter: services.contextTokens(kernel, next), strategy: result.strategy });
  return next === result.messages ? result : { ...result, messages: next };
}

/**
 * `blocks` added to a compacted history: to its summary message (the one a strategy marked
 * `compactSummary`), else to its last user message, else as a user message of their own.
 */
function withAttachments(messages: Message[], blocks: ContentBlock[]): Message[] {
  let i = messages.findIndex((m) => m.meta?.compactSummary);
  if (i < 0) i = messages.map((m) => m.role).lastIndexOf('user');
  if (i < 0) return [...messages, { role: 'user', content: blocks, meta: { meta: true, source: 'compact', at: Date.now() } }];
  const out = [...messages];
  out[i] = { ...out[i]!, content: [...out[i]!.content, ...blocks] };
  return out;
}

/** Replaces the whole history and records it in the transcript (so a resume sees the same history). */
export function replaceHistory(kernel: Kernel, messages: Message[], reason: string): void {
  kernel.transcript.append({ type: 'history', messages, reason });
  kernel.messages = messages;
}
