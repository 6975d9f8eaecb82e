/**
 * `final-answer`: on the last request a turn limit allows, the model is told so and given no tool
 * to call (`tool_choice: {type: "none"}`), so the run ends with a text answer rather than after a
 * last tool call nobody will see the result of. The run still ends as `max_turns`. Only when that
 * request answers tool calls: a last request that answers a prompt is left alone.
 *
 * The tools stay in the request (only `tool_choice` changes), so the cached prefix of tools and
 * system prompt is still read; the note is appended to the last user message, after every earlier
 * block. Runs without a turn limit are left alone.
 */
import { z } from 'zod';
import { REQUEST_STAGE, definePlugin, type ContentBlock, type MessageRequest, withReplacedMessages } from '../../kernel/index.js';

export const PLUGIN_NAME = 'final-answer';

/** What the model is told on its last turn. Our wording. */
export const FINAL_TURN_NOTE = 'This is your last turn: the turn limit of this run is reached and no tool can be called any more. Answer now, from what you have found so far, and say plainly what is left undone.';

export const finalAnswerOptions = z.strictObject({
  /** Also withdraw the tools on the last turn (`tool_choice: none`); false only tells the model. */
  withdrawTools: z.boolean().default(true).register(z.globalRegistry, { description: 'On the last turn the limit allows, also withdraw the tools (`tool_choice: none`, the tools stay in the request); false only tells the model.' }),
  /** The note added to the last user message. */
  note: z.string().min(1).default(FINAL_TURN_NOTE).register(z.globalRegistry, { description: 'The text added after the last user message\'s blocks on the last turn.' }),
});

/** True when the request's last message holds tool results: the model was working with its tools. */
function followsToolCalls(params: MessageRequest): boolean {
  const last = params.messages.at(-1);
  return last?.role === 'user' && Array.isArray(last.content) && (last.content as ContentBlock[]).some((b) => b.type === 'tool_result');
}

/** The request with the note after the last user message's blocks (a copy; the history is not changed). */
function withNote(params: MessageRequest, note: string): MessageRequest {
  const i = params.messages.length - 1;
  const last = params.messages[i];
  if (!last || last.role !== 'user') return params;
  const content: ContentBlock[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : [...(last.content as ContentBlock[])];
  content.push({ type: 'text', text: note });
  // In place while the list is the request's own (see withReplacedMessages), else a copy.
  const messages = withReplacedMessages(params.messages, [[i, { ...last, content } as (typeof params.messages)[number]]]);
  return { ...params, messages };
}

/**
 * Stage of the `stop` tap: after every other tap, so that one which continues the run (a shell
 * `Stop` hook, finished background tasks) is asked first; the loop then ends at the limit anyway.
 */
export const STOP_STAGE = 1_000;

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'On the last turn a turn limit allows: tells the model and withdraws the tools, so the run ends (max_turns) with an answer.',
  options: finalAnswerOptions,
  apply(kernel, options) {
    // The turns (their run contexts) on which the model was told it had no turn left.
    const lastTurns = new WeakSet<object>();
    // Before the cache markers are placed: they go on the last block, which is now the note.
    kernel.hooks.request.tap({ name: PLUGIN_NAME, stage: REQUEST_STAGE.PARAMS }, (params, ctx) => {
      if (ctx.maxTurns === undefined || ctx.turn < ctx.maxTurns || !params.tools?.length) return params;
      // Only a request that answers tool calls is a task the limit cuts short. One that answers a
      // prompt (`--max-turns 1`, a resumed session's new prompt) is left as Claude Code sends it:
      // an answer without tools ends the run `end_turn`; a tool call runs and the run ends `max_turns`.
      if (!followsToolCalls(params)) return params;
      const out = withNote(params, options.note);
      if (out === params) return params;
      lastTurns.add(ctx);
      if (options.withdrawTools && out.tools?.length) return { ...out, tool_choice: { type: 'none' } } as MessageRequest;
      return out;
    });
    // The answer ends a run the limit cut short: it reports `max_turns` (exit 1, `error_max_turns`,
    // the answer in `result`), as a run without this plugin would, so scripts that test for the
    // limit still see it.
    kernel.hooks.stop.tap({ name: PLUGIN_NAME, stage: STOP_STAGE }, (_stop, ctx) =>
      lastTurns.has(ctx) ? { action: 'limit', detail: `the turn limit (${ctx.maxTurns}) was reached; the model was asked for a final answer` } : undefined);
  },
});
