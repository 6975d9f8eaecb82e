/** One compaction: `preCompact` (may cancel) → `compact` (a strategy answers) → `postCompact` → history replaced. */
import type { CompactResult, RunContext } from '../hook-payloads.js';
import type { Kernel } from '../kernel.js';
import type { ContentBlock, Message } from '../types.js';

/** Compacts `kernel.messages`: the strategy's result, or undefined (cancelled, no answer, or a strategy threw: a notice). */
export async function runCompaction(
  kernel: Kernel, trigger: 'auto' | 'manual' | 'reactive', ctx: RunContext, instructions?: string,
  messages: Message[] = kernel.messages,
): Promise<CompactResult | undefined> {
  const services = kernel.services;
  const tokens = services.messageTokens(messages);
  // The `compact` event reports the whole context (Claude Code's `preTokens`); the hooks get messages only.
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

/** `blocks` added to the summary message, else the last user message, else a message of their own. */
function withAttachments(messages: Message[], blocks: ContentBlock[]): Message[] {
  let i = messages.findIndex((m) => m.meta?.compactSummary);
  if (i < 0) i = messages.map((m) => m.role).lastIndexOf('user');
  if (i < 0) return [...messages, { role: 'user', content: blocks, meta: { meta: true, source: 'compact', at: Date.now() } }];
  const out = [...messages];
  out[i] = { ...out[i]!, content: [...out[i]!.content, ...blocks] };
  return out;
}

/** Replaces the whole history, recording it. */
export function replaceHistory(kernel: Kernel, messages: Message[], reason: string): void {
  kernel.transcript.append({ type: 'history', messages, reason });
  kernel.messages = messages;
}
