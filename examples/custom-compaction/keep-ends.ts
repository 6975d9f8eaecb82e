/**
 * A compaction strategy: keep the first user message and the last N turns, drop everything between
 * and leave a marker where it was. No model request is made, so it is instant and free, at the price
 * of forgetting the middle of the conversation.
 *
 * It only answers the `compact` hook (how to compact). When to compact is decided elsewhere:
 * `kernel.compact()` from a program, or the `compaction/auto` plugin at its token threshold.
 * `compact` is a bail hook: the first strategy that returns a result wins, so this one taps at an
 * early stage to answer before `compaction/auto`'s own summary, and returns `undefined` when it
 * cannot help so the next strategy gets the request.
 */
import { z } from 'zod';
import { definePlugin, estimateMessageTokens, type CompactRequest, type CompactResult, type Message } from '../../index.js';

export const STRATEGY = 'keep-ends';

/** Stage of the `compact` tap: before strategies tapped at the default stage 0. */
export const KEEP_ENDS_STAGE = -10;

const options = z.object({
  keepTurns: z.number().int().min(1).default(2)
    .describe('Model turns kept at the end (each with the prompt or tool results that led to it).'),
}).strict();

/** True for a user message a person (or a program) typed, as opposed to one carrying tool results. */
function isPrompt(m: Message): boolean {
  return m.role === 'user' && !m.content.some((b) => b.type === 'tool_result');
}

/**
 * The new history, or undefined when there is nothing to drop or a pinned message (a memory file,
 * say) sits in the part that would be dropped.
 */
export function keepEnds(messages: readonly Message[], keepTurns: number): Message[] | undefined {
  const first = messages[0];
  if (!first || first.role !== 'user') return undefined;
  // Start of the tail: the keepTurns-th assistant message from the end...
  let start = -1;
  for (let i = messages.length - 1, seen = 0; i > 0; i--) {
    if (messages[i]!.role === 'assistant' && ++seen === keepTurns) {
      start = i;
      break;
    }
  }
  if (start < 0) return undefined;
  // ...and the prompt it answered, when that is a prompt. A tool_result message is not kept without
  // the tool_use before it: the API refuses a tool_result whose tool_use is gone.
  if (start > 1 && isPrompt(messages[start - 1]!)) start--;
  const dropped = messages.slice(1, start);
  if (dropped.length === 0 || dropped.some((m) => m.meta?.pinned)) return undefined;

  const marker = { type: 'text' as const, text: `[${dropped.length} earlier messages were removed here to save context.]` };
  const out: Message[] = [{ role: 'user', content: [...first.content, marker], meta: { ...first.meta, source: STRATEGY } }];
  for (const m of messages.slice(start)) {
    const last = out[out.length - 1]!;
    // Keep roles alternating: a kept prompt joins the first message.
    if (last.role === m.role) out[out.length - 1] = { ...last, content: [...last.content, ...m.content] };
    else out.push(m);
  }
  return out;
}

export default definePlugin({
  name: STRATEGY,
  description: 'Compaction strategy: keep the first user message and the last N turns, drop the middle.',
  options,
  apply(kernel, { keepTurns }) {
    kernel.hooks.compact.tapPromise({ name: STRATEGY, stage: KEEP_ENDS_STAGE }, async (req: CompactRequest): Promise<CompactResult | undefined> => {
      const messages = keepEnds(req.messages, keepTurns);
      if (!messages) return undefined;
      const tokensAfter = messages.reduce((n, m) => n + estimateMessageTokens(m), 0);
      return { messages, tokensAfter, strategy: STRATEGY };
    });
  },
});
