/**
 * `compaction/context-edits`: asks the API to clear old content server side, with the request's
 * `context_management.edits` (beta `context-management-2025-06-27`):
 * - `clear_tool_uses_20250919`: past `trigger` input tokens, tool results older than the newest
 *   `keep` tool uses are cleared, oldest first, if at least `clear_at_least` tokens can be;
 * - `clear_thinking_20251015` (only when thinking is on, and first, as the API requires): keep all
 *   thinking while the cache is warm; after an idle gap of more than an hour (the cache is cold)
 *   keep only the last thinking turn for the rest of the session.
 * Defaults are Claude Code's: trigger 180,000, clear at least 140,000 (keep a
 * 40,000-token target), keep 3 tool uses (the API's default). The edits are the same on every request,
 * so they never change the cache key by themselves; the server's clearing does, when it happens,
 * and the response reports it in `context_management.applied_edits`.
 */
import { z } from 'zod';
import { REQUEST_STAGE, type Kernel, type ModelRequest, definePlugin} from '../../../kernel/index.js';
import { tokenCounter } from '../../../lib/index.js';

export const PLUGIN_NAME = 'compaction/context-edits';

/** The beta that enables `context_management` (context-editing docs). */
export const CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27';
/** Clear tool uses past this many input tokens (Claude Code's DEFAULT_MAX_INPUT_TOKENS = 180,000). */
export const DEFAULT_TRIGGER_TOKENS = 180_000;
/** Tokens to keep after clearing (Claude Code's DEFAULT_TARGET_INPUT_TOKENS = 40,000). */
export const DEFAULT_TARGET_TOKENS = 40_000;
/** Tool uses kept (the API's default for clear_tool_uses_20250919). */
export const DEFAULT_KEEP_TOOL_USES = 3;
/** Idle gap after which thinking is cleared down to one turn, ms (Claude Code: 1 hour). */
export const THINKING_CLEAR_IDLE_MS = 60 * 60_000;

export const contextEditsOptions = z.object({
  clearToolUses: z.object({
    enabled: z.boolean().default(true).register(z.globalRegistry, { description: 'Send the `clear_tool_uses_20250919` edit.' }),
    /** Clear past this many input tokens. */
    triggerTokens: z.number().int().positive().default(DEFAULT_TRIGGER_TOKENS).register(z.globalRegistry, { description: 'Clear tool results once the request has this many input tokens (Claude Code: 180,000).' }),
    /** Clear at least `trigger − target` tokens, or nothing. */
    targetTokens: z.number().int().min(0).default(DEFAULT_TARGET_TOKENS).register(z.globalRegistry, { description: 'Clear at least triggerTokens − targetTokens tokens, or nothing (Claude Code: 40,000); must be below triggerTokens.' }),
    /** Newest tool uses kept. */
    keep: z.number().int().min(0).default(DEFAULT_KEEP_TOOL_USES).register(z.globalRegistry, { description: 'Newest tool uses whose results are never cleared (the API\'s default: 3).' }),
    /** Tools whose uses are never cleared. */
    excludeTools: z.array(z.string()).default([]).register(z.globalRegistry, { description: 'Tools whose uses are never cleared.' }),
    /** Also clear the inputs of cleared tool uses: true, or the tools whose inputs may go. */
    clearToolInputs: z.union([z.boolean(), z.array(z.string())]).default(false).register(z.globalRegistry, { description: 'Also clear the inputs of cleared tool uses: true for every tool, or the names of the tools whose inputs may go.' }),
  }).strict().default({ enabled: true, triggerTokens: DEFAULT_TRIGGER_TOKENS, targetTokens: DEFAULT_TARGET_TOKENS, keep: DEFAULT_KEEP_TOOL_USES, excludeTools: [], clearToolInputs: false }).register(z.globalRegistry, { description: 'The `clear_tool_uses_20250919` edit: the server clears old tool results past a token trigger (defaults: Claude Code\'s).' }),
  clearThinking: z.object({
    /** `auto`: when the preset turns thinking on. */
    enabled: z.union([z.boolean(), z.literal('auto')]).default('auto').register(z.globalRegistry, { description: 'Send the `clear_thinking_20251015` edit: `auto` when the preset turns thinking on, or always (true) or never (false).' }),
    /** Clear down to one thinking turn after an idle gap of an hour. */
    clearWhenIdle: z.boolean().default(true).register(z.globalRegistry, { description: 'After an idle gap of more than an hour (the cache is cold), keep only the last thinking turn for the rest of the session.' }),
  }).strict().default({ enabled: 'auto', clearWhenIdle: true }).register(z.globalRegistry, { description: 'The `clear_thinking_20251015` edit: keeps all thinking while the cache is warm, one thinking turn after an idle gap.' }),
}).strict().refine((o) => o.clearToolUses.targetTokens < o.clearToolUses.triggerTokens, { message: 'clearToolUses.targetTokens must be below triggerTokens' });

export type ContextEditsOptions = z.output<typeof contextEditsOptions>;

/** What the plugin records: the thinking latch (survives resume). */
export interface ContextEditsRecord {
  thinkingLatched: true;
}

/** The edits for one request. */
export function buildEdits(o: ContextEditsOptions, thinkingOn: boolean, clearAllThinking: boolean): Record<string, unknown>[] {
  const edits: Record<string, unknown>[] = [];
  const thinking = o.clearThinking.enabled === 'auto' ? thinkingOn : o.clearThinking.enabled;
  if (thinking) {
    edits.push(clearAllThinking
      ? { type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 1 } }
      : { type: 'clear_thinking_20251015', keep: 'all' });
  }
  const c = o.clearToolUses;
  if (c.enabled) {
    edits.push({
      type: 'clear_tool_uses_20250919',
      trigger: { type: 'input_tokens', value: c.triggerTokens },
      keep: { type: 'tool_uses', value: c.keep },
      clear_at_least: { type: 'input_tokens', value: c.triggerTokens - c.targetTokens },
      ...(c.excludeTools.length ? { exclude_tools: c.excludeTools } : {}),
      ...(c.clearToolInputs !== false ? { clear_tool_inputs: c.clearToolInputs } : {}),
    });
  }
  return edits;
}

/** One entry of a response's `context_management.applied_edits`. */
export interface AppliedEdit {
  type: string;
  cleared_tool_uses?: number;
  cleared_thinking_turns?: number;
  cleared_input_tokens?: number;
}

/** The applied edits of a complete (non-streamed) message, or []. */
export function appliedEdits(message: unknown): AppliedEdit[] {
  return (message as { context_management?: { applied_edits?: AppliedEdit[] } } | undefined)?.context_management?.applied_edits ?? [];
}

/** Counters for reports and the benchmark: what the server said it cleared. */
export interface ContextEditsStats {
  appliedEdits: number;
  clearedToolUses: number;
  clearedInputTokens: number;
}

const stats = new WeakMap<Kernel, ContextEditsStats>();

/** The plugin's counters for a kernel. */
export function contextEditsStats(kernel: Kernel): ContextEditsStats | undefined {
  return stats.get(kernel);
}

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'server-side context edits: clear_tool_uses_20250919 (180k trigger, keep 3) and clear_thinking_20251015',
  options: contextEditsOptions,
  apply(kernel, options) {
    const counter = tokenCounter(kernel);
    const s: ContextEditsStats = { appliedEdits: 0, clearedToolUses: 0, clearedInputTokens: 0 };
    stats.set(kernel, s);
    let latched: boolean | undefined;
    const isLatched = () => {
      if (latched === undefined) latched = kernel.transcript.pluginData<ContextEditsRecord>(PLUGIN_NAME).some((r) => r.thinkingLatched);
      return latched;
    };

    kernel.hooks.request.tap({ name: PLUGIN_NAME, stage: REQUEST_STAGE.PARAMS }, (params) => {
      const p = params as ModelRequest;
      const thinkingOn = p.thinking !== undefined && (p.thinking as { type?: string }).type !== 'disabled';
      if (thinkingOn && options.clearThinking.clearWhenIdle && !isLatched()) {
        const last = counter.lastResponseAt;
        if (last !== undefined && Date.now() - last > THINKING_CLEAR_IDLE_MS) {
          latched = true;
          kernel.transcript.append({ type: 'plugin', plugin: PLUGIN_NAME, data: { thinkingLatched: true } satisfies ContextEditsRecord });
        }
      }
      const edits = buildEdits(options, thinkingOn, isLatched());
      if (!edits.length) return p;
      const betas = p.betas?.includes(CONTEXT_MANAGEMENT_BETA) ? p.betas : [...(p.betas ?? []), CONTEXT_MANAGEMENT_BETA];
      return { ...p, betas, context_management: { edits } };
    });

    // A streamed response carries the applied edits in its message_delta event (the SDK's message
    // accumulator does not keep them); a plain response has them on the message.
    let streamed: AppliedEdit[] | undefined;
    kernel.hooks.streamEvent.tap(PLUGIN_NAME, (e) => {
      if (e.type === 'message_start') streamed = undefined;
      const cm = (e as { context_management?: { applied_edits?: AppliedEdit[] } }).context_management;
      if (e.type === 'message_delta' && cm) streamed = cm.applied_edits ?? [];
    });
    kernel.hooks.response.tap(PLUGIN_NAME, (info) => {
      const applied = streamed ?? appliedEdits(info.message);
      streamed = undefined;
      for (const e of applied) {
        s.appliedEdits++;
        s.clearedToolUses += e.cleared_tool_uses ?? 0;
        s.clearedInputTokens += e.cleared_input_tokens ?? 0;
      }
    });
  },
});
