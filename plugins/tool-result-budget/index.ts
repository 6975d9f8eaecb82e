/**
 * `tool-result-budget`: keeps the tool results of each user message within a shared character
 * budget (200,000 by default), before every request, at the first context stage
 * (CONTEXT_STAGE.RESULT_BUDGET). Over budget, the largest results are saved to the session folder
 * and replaced by a preview with the saved file's path.
 *
 * Replacements are sticky: each is recorded (tool_use_id → exact replacement text) in memory and in
 * the transcript, and applied again on every later pass, even after compaction shrank the message or
 * when a history is rebuilt from elsewhere (a resume, a replayed trace). The bytes of a replaced
 * result therefore never change back, and the prompt cache keeps its prefix.
 *
 * Why a context strategy and not kernel code: it is one of the context-shaping strategies a
 * benchmark wants to switch and tune; it then covers histories that did not come through the tool
 * pipeline (replays, imported sessions); and it runs in a fixed order with the other strategies.
 */
import { z } from 'zod';
import { CONTEXT_STAGE, type Kernel, definePlugin, estimateMessageTokens, type Message, type ToolUseBlock } from '../../kernel/index.js';
import { applyResultBudget, MAX_RESULTS_PER_MESSAGE_CHARS, type ReplacementMap } from './budget.js';

const NAME = 'tool-result-budget';

export const budgetOptions = z.strictObject({
  /** Most characters of tool results in one user message (Claude Code: 200,000). */
  maxCharsPerMessage: z.number().int().positive().default(MAX_RESULTS_PER_MESSAGE_CHARS),
});

interface Replacement { toolUseId: string; text: string }

const states = new WeakMap<Kernel, ReplacementMap>();

/** The kernel's replacement record (restored from its transcript on first use). */
export function replacements(kernel: Kernel): ReplacementMap {
  let map = states.get(kernel);
  if (!map) {
    map = new Map(kernel.transcript.pluginData<Replacement>(NAME).map((r) => [r.toolUseId, r.text]));
    states.set(kernel, map);
  }
  return map;
}

export default definePlugin({
  name: NAME,
  description: 'Keeps the tool results of one message within 200,000 characters, replacing the largest first; replacements are sticky for cache stability.',
  options: budgetOptions,
  apply(kernel, options) {
    kernel.hooks.context.tapPromise({ name: NAME, stage: CONTEXT_STAGE.RESULT_BUDGET }, async (state) => {
      const replaced = replacements(kernel);
      // Tools that bound their own output (maxResultSizeChars Infinity: Read) are never replaced:
      // the model would read the saved file back with the same tool.
      const toolOf = new Map<string, string>();
      for (const m of state.messages) {
        if (m.role !== 'assistant') continue;
        for (const b of m.content) if (b.type === 'tool_use') toolOf.set((b as ToolUseBlock).id, (b as ToolUseBlock).name);
      }
      const exempt = (id: string) => {
        const name = toolOf.get(id);
        const tool = name ? kernel.tools.get(name) : undefined;
        return tool !== undefined && !Number.isFinite(tool.maxResultSizeChars);
      };
      const r = applyResultBudget(state.messages, {
        maxChars: options.maxCharsPerMessage,
        sessionDir: kernel.sessionDir(),
        replaced,
        exempt,
        onReplace: (toolUseId, text) => kernel.transcript.append({ type: 'plugin', plugin: NAME, data: { toolUseId, text } satisfies Replacement }),
      });
      if (r.messages === state.messages) return state;
      const tokens = (ms: Message[]) => ms.reduce((n, m) => n + estimateMessageTokens(m), 0);
      return { messages: r.messages, tokensFreed: state.tokensFreed + Math.max(0, tokens(state.messages) - tokens(r.messages)) };
    });
  },
});
