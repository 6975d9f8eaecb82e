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
import { CONTEXT_STAGE, type Kernel, definePlugin, Incremental, type Message, type ToolUseBlock } from '../../kernel/index.js';
import { estimateMessageTokens } from '../../lib/index.js';
import { applyResultBudget, MAX_RESULTS_PER_MESSAGE_CHARS, type ReplacementMap } from './budget.js';

const NAME = 'tool-result-budget';

export const budgetOptions = z.strictObject({
  /** Most characters of tool results in one user message (Claude Code: 200,000). */
  maxCharsPerMessage: z.number().int().positive().default(MAX_RESULTS_PER_MESSAGE_CHARS).register(z.globalRegistry, { description: 'Most characters of tool results in one user message; over it, the largest results are saved to the session folder and replaced by a preview (Claude Code: 200,000).' }),
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

/**
 * What a pass keeps for the next one: the tool name of every tool_use seen so far, and how many
 * messages have passed the budget. Each pass checks only the messages added since (the earlier
 * ones are the previous pass's output, and replacements are sticky per tool_use id); a history
 * that was replaced is checked from its first message.
 */
interface PassState {
  toolOf: Map<string, string>;
  checked: number;
}

function passTracker(): Incremental<Message, PassState> {
  return new Incremental<Message, PassState>({
    init: () => ({ toolOf: new Map(), checked: 0 }),
    add: (s, m) => {
      if (m.role !== 'assistant') return;
      for (const b of m.content) if (b.type === 'tool_use') s.toolOf.set((b as ToolUseBlock).id, (b as ToolUseBlock).name);
    },
  });
}

export default definePlugin({
  name: NAME,
  description: 'Keeps the tool results of one message within 200,000 characters, replacing the largest first; replacements are sticky for cache stability.',
  options: budgetOptions,
  apply(kernel, options) {
    const tracker = passTracker();
    kernel.hooks.context.tapPromise({ name: NAME, stage: CONTEXT_STAGE.RESULT_BUDGET }, async (state) => {
      const replaced = replacements(kernel);
      const pass = tracker.update(state.messages);
      // Tools that bound their own output (maxResultSizeChars Infinity: Read) are never replaced:
      // the model would read the saved file back with the same tool.
      const exempt = (id: string) => {
        const name = pass.toolOf.get(id);
        const tool = name ? kernel.tools.get(name) : undefined;
        return tool !== undefined && !Number.isFinite(tool.maxResultSizeChars);
      };
      const from = pass.checked;
      const r = applyResultBudget(state.messages, {
        maxChars: options.maxCharsPerMessage,
        sessionDir: kernel.sessionDir(),
        replaced,
        exempt,
        from,
        onReplace: (toolUseId, text) => kernel.transcript.append({ type: 'plugin', plugin: NAME, data: { toolUseId, text } satisfies Replacement }),
      });
      pass.checked = r.messages.length;
      if (r.messages === state.messages) return state;
      // The output differs only in tool results of the messages checked now: the names stay valid.
      tracker.adopt(r.messages);
      let freed = 0;
      for (let i = from; i < r.messages.length; i++) {
        if (r.messages[i] !== state.messages[i]) freed += estimateMessageTokens(state.messages[i]!) - estimateMessageTokens(r.messages[i]!);
      }
      return { messages: r.messages, tokensFreed: state.tokensFreed + Math.max(0, freed) };
    });
  },
});
