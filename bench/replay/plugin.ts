/**
 * The replay plugin, loaded after the preset's own plugins. It:
 * - swaps every tool for its recorded-result twin (tools.ts), so nothing runs;
 * - allows every call ahead of all permission rules (the recorded session already made those
 *   decisions; a denial here would put a different result into the context);
 * - ends the kernel's turn after the tool results where the recording continued with a new prompt;
 * - sends each request with the model, the thinking parameter and the effort the recording had at
 *   that step (model switches, thinking-level and effort changes happen where they happened);
 * - observes compactions and context-stage rewrites: sizes, latency and retained facts.
 */
import type { Kernel } from '../../kernel/kernel.js';
import { definePlugin, type Plugin } from '../../kernel/plugin.js';
import { estimateMessageTokens, estimateTextTokens } from '../../lib/tokens/estimate.js';
import type { Message } from '../../kernel/types.js';
import { extractFacts, retained, type Facts } from '../metrics/retention.js';
import type { CompactionMetrics } from '../metrics/types.js';
import type { Workload, WorkloadStep } from '../workloads/types.js';
import type { StepCursor } from './client.js';
import type { ModelRequest } from '../../kernel/model/client.js';
import { installRecordedTools } from './tools.js';

/** Name of the replay plugin. */
export const REPLAY_PLUGIN_NAME = 'bench/replay';

/** Stage far before every permission stage (PERMISSION_STAGE starts at −100). */
const FIRST = -1_000_000_000;
/** Stage after every other tap. */
const LAST = 1_000_000_000;

/** What the plugin reports to the driver while the replay runs. */
export interface ReplayObserver {
  /** Requests made so far (main and side), to place a compaction. */
  requestCount(): number;
  compaction(c: CompactionMetrics): void;
}

function tokensOf(messages: readonly Message[]): number {
  let n = 0;
  for (const m of messages) n += estimateMessageTokens(m);
  return n;
}

/** Stage of the per-step request settings: after the preset's own params, before the mimic and the markers. */
const SETTINGS_STAGE = 800;

/** What the replay plugin sets on each request. */
export interface StepSettings {
  /** Send each step's recorded model (false when `--model` pins one). */
  model: boolean;
  /** Tool results exactly as recorded, never cut to the preset's size limits (mimics). */
  resultsAsRecorded?: boolean;
  /** Task calls (tool_use ids) that start a live child (children.ts): the preset's own Task tool runs them. */
  live?: ReadonlySet<string>;
}

/** Builds the replay plugin for one workload replay. */
export function replayPlugin(w: Workload, cursor: StepCursor, typedPrompts: ReadonlySet<string>, observer: ReplayObserver, added: string[], settings: StepSettings = { model: true }): Plugin {
  return definePlugin({
    name: REPLAY_PLUGIN_NAME,
    description: 'Replays a recorded session: recorded tool results, recorded permission decisions, recorded clock.',
    apply(kernel: Kernel) {
      added.push(...installRecordedTools(kernel, w, { asRecorded: settings.resultsAsRecorded === true, ...(settings.live ? { live: settings.live } : {}) }));
      // A recording that tells the effort of some step sent the API default on the others.
      const effortRecorded = w.steps.some((s) => s.effort);

      kernel.hooks.request.tap({ name: REPLAY_PLUGIN_NAME, stage: SETTINGS_STAGE }, (params) => {
        const step = cursor.upcoming();
        if (!step) return params;
        let out = params as ModelRequest;
        if (settings.model && step.model && step.model !== out.model && !step.model.startsWith('<')) out = { ...out, model: step.model };
        const t = step.thinking;
        if (t) {
          if (t.type === 'disabled') {
            if (out.thinking) { out = { ...out }; delete out.thinking; }
          } else {
            // budget_tokens must stay below max_tokens (max_tokens is not part of the cache key).
            const maxTokens = t.type === 'enabled' ? Math.max(out.max_tokens, t.budget_tokens + 4096) : out.max_tokens;
            out = { ...out, thinking: t as ModelRequest['thinking'], max_tokens: maxTokens };
          }
        }
        if (effortRecorded) out = withEffort(out, step.effort);
        return out;
      });

      kernel.hooks.permission.tap({ name: REPLAY_PLUGIN_NAME, stage: FIRST }, () => ({ behavior: 'allow' as const, reason: 'replay: the recorded session ran this call', source: REPLAY_PLUGIN_NAME }));
      kernel.hooks.permissionRequest.tap({ name: REPLAY_PLUGIN_NAME, stage: FIRST }, () => ({ behavior: 'allow' as const, reason: 'replay', source: REPLAY_PLUGIN_NAME }));
      kernel.hooks.postToolUse.tap({ name: REPLAY_PLUGIN_NAME, stage: LAST }, (post, ctx) => {
        // A live child's calls reach these hooks too (ctx.agent): its turns are its own steps'.
        if (!ctx.agent && cursor.turnEndsHere()) post.preventContinuation = 'replay: the recording goes on with a new prompt here';
        return post;
      });

      let before: { messages: Message[]; compactions: number } | undefined;
      let compactionCount = 0;
      kernel.hooks.context.tap({ name: REPLAY_PLUGIN_NAME, stage: FIRST }, (state) => {
        before = { messages: state.messages, compactions: compactionCount };
        return state;
      });
      kernel.hooks.context.tap({ name: REPLAY_PLUGIN_NAME, stage: LAST }, (state) => {
        const b = before;
        before = undefined;
        if (!b || state.messages === b.messages || compactionCount !== b.compactions) return state;
        const tokensBefore = tokensOf(b.messages);
        const tokensAfter = tokensOf(state.messages);
        if (tokensAfter >= tokensBefore) return state;
        const facts = extractFacts(b.messages, typedPrompts);
        observer.compaction({
          kind: 'context-edit', strategy: 'context', afterRequest: observer.requestCount(), tokensBefore, tokensAfter,
          ...(hasFacts(facts) ? { retention: retained(facts, state.messages) } : {}),
        });
        return state;
      });

      let pending: { facts: Facts; started: number } | undefined;
      kernel.hooks.preCompact.tap({ name: REPLAY_PLUGIN_NAME, stage: LAST }, (pre) => {
        if (!pre.cancel) pending = { facts: extractFacts(pre.messages, typedPrompts), started: performance.now() };
        return pre;
      });
      kernel.hooks.postCompact.tap({ name: REPLAY_PLUGIN_NAME, stage: LAST }, (post) => {
        compactionCount++;
        const p = pending;
        pending = undefined;
        const restored = restoredFilesOf(post.result.messages);
        observer.compaction({
          kind: 'compaction',
          strategy: `${post.trigger}:${post.result.strategy}`,
          ...(restored.length ? { restoredFiles: restored.map((r) => ({ path: r.path, step: null, tokens: r.tokens })) } : {}),
          afterRequest: observer.requestCount(),
          tokensBefore: post.tokensBefore,
          tokensAfter: post.result.tokensAfter,
          ...(p ? { latencyMs: performance.now() - p.started } : {}),
          ...(p && hasFacts(p.facts) ? { retention: retained(p.facts, post.result.messages) } : {}),
        });
      });
    },
  });
}

/** `params` with `output_config.effort` set to `effort`, or without one (the API default) when undefined. */
function withEffort(params: ModelRequest, effort: WorkloadStep['effort']): ModelRequest {
  const config = (params.output_config ?? {}) as Record<string, unknown>;
  if (config.effort === effort) return params;
  const { effort: _old, ...rest } = config;
  if (effort) return { ...params, output_config: { ...rest, effort } as ModelRequest['output_config'] };
  if (Object.keys(rest).length) return { ...params, output_config: rest as ModelRequest['output_config'] };
  const { output_config: _o, ...without } = params;
  return without as ModelRequest;
}

// A restored file's block: `File PATH:` or `File PATH (first part):`, then its numbered lines.
const RESTORED_FILE = /^File (.+?)(?: \(first part\))?:\n/gm;

/** The files a compaction's result put back: the restored-file blocks after its summary. */
export function restoredFilesOf(messages: readonly Message[]): { path: string; tokens: number }[] {
  const out: { path: string; tokens: number }[] = [];
  for (const m of messages) {
    if (m.role !== 'user' || !m.meta?.compactSummary) continue;
    for (const b of m.content.slice(1)) {
      if (b.type !== 'text') continue;
      const text = (b as { text: string }).text;
      const heads = [...text.matchAll(RESTORED_FILE)];
      heads.forEach((h, i) => {
        const end = heads[i + 1]?.index ?? text.length;
        out.push({ path: h[1]!, tokens: estimateTextTokens(text.slice(h.index, end)) });
      });
    }
  }
  return out;
}

function hasFacts(f: Facts): boolean {
  return f.files.size + f.identifiers.size + f.instructions.size > 0;
}
