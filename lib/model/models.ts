/**
 * What rein knows about each Claude model when it builds a request: the largest `max_tokens` the
 * API accepts for it, whether it takes `thinking: {type: "adaptive"}`, and which
 * `output_config.effort` levels. Every request goes through `fitRequestToModel` before it is sent,
 * so no preset, plugin or retry can send the API a value it rejects for that model.
 *
 * Model ids match by prefix, longest first, so dated ids (`claude-opus-4-1-20250805`) and aliases
 * (`claude-opus-4-1`) behave the same. A model the table does not know is sent as configured.
 */
import type { ModelRequest } from '../../kernel/index.js';

/** Effort levels of `output_config.effort`, lowest first (`xhigh` sits between `high` and `max`). */
export type EffortLevel = 'low' | 'medium' | 'high' | 'xhigh' | 'max';
const EFFORT_ORDER: readonly EffortLevel[] = ['low', 'medium', 'high', 'xhigh', 'max'];

export interface ModelFacts {
  /** Largest `max_tokens` the API accepts for the model, tokens. */
  maxOutputTokens: number;
  /** Accepts `thinking: {type: "adaptive"}`. */
  adaptiveThinking: boolean;
  /** `output_config.effort` levels it accepts (empty: the parameter is not supported). */
  effort: readonly EffortLevel[];
  /** Accepts tools sent with `defer_loading: true` and `tool_reference` blocks (tool search). */
  toolSearch: boolean;
}

const ALL_EFFORT: readonly EffortLevel[] = EFFORT_ORDER;
/** Effort without `xhigh` (Opus 4.6, Sonnet 4.6: the level came with Opus 4.7). */
const EFFORT_NO_XHIGH: readonly EffortLevel[] = ['low', 'medium', 'high', 'max'];
/** Effort without `max` (Opus 4.5). */
const EFFORT_TO_HIGH: readonly EffortLevel[] = ['low', 'medium', 'high'];
const NONE: readonly EffortLevel[] = [];

/**
 * The table. Sources:
 * - output limits: each model's page of the Claude docs, "Max output"
 *   (https://platform.claude.com/docs/en/models/opus-4-6/overview, …/sonnet-4-6/overview: 128K;
 *   …/opus-4-8/overview: 128K; …/opus-4-5/overview, …/haiku-4-5/overview: 64K), and the models
 *   overview's table for the older models
 *   (https://platform.claude.com/docs/en/about-claude/models/overview: Sonnet 4.5, Sonnet 4 and
 *   Sonnet 3.7 64K, Opus 4.1 and Opus 4 32K, Haiku 3.5 8,192, Haiku 3 4,096);
 * - adaptive thinking: https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking
 *   (Opus 4.6 and later, Sonnet 4.6; Opus 4.7 takes only adaptive; Sonnet 4.5, Opus 4.5 and older
 *   need `type: enabled` with `budget_tokens`);
 * - effort: https://platform.claude.com/docs/en/build-with-claude/effort (supported on Opus 4.5 and
 *   later and Sonnet 4.6; `max` on Opus 4.6 and later and Sonnet 4.6, not on Opus 4.5; `xhigh`,
 *   between `high` and `max`, on Opus 4.7 and later only);
 * - tool search (`defer_loading`, `tool_reference`): the supported models of
 *   https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool (Haiku 4.5,
 *   Sonnet 4.5, Opus 4.5 and later; none of the older models).
 */
export const MODEL_FACTS: readonly (readonly [prefix: string, facts: ModelFacts])[] = Object.freeze(([
  ['claude-opus-4-8', { maxOutputTokens: 128_000, adaptiveThinking: true, effort: ALL_EFFORT, toolSearch: true }],
  ['claude-opus-4-7', { maxOutputTokens: 128_000, adaptiveThinking: true, effort: ALL_EFFORT, toolSearch: true }],
  ['claude-opus-4-6', { maxOutputTokens: 128_000, adaptiveThinking: true, effort: EFFORT_NO_XHIGH, toolSearch: true }],
  ['claude-sonnet-4-6', { maxOutputTokens: 128_000, adaptiveThinking: true, effort: EFFORT_NO_XHIGH, toolSearch: true }],
  ['claude-opus-4-5', { maxOutputTokens: 64_000, adaptiveThinking: false, effort: EFFORT_TO_HIGH, toolSearch: true }],
  ['claude-sonnet-4-5', { maxOutputTokens: 64_000, adaptiveThinking: false, effort: NONE, toolSearch: true }],
  ['claude-haiku-4-5', { maxOutputTokens: 64_000, adaptiveThinking: false, effort: NONE, toolSearch: true }],
  ['claude-opus-4-1', { maxOutputTokens: 32_000, adaptiveThinking: false, effort: NONE, toolSearch: false }],
  ['claude-opus-4', { maxOutputTokens: 32_000, adaptiveThinking: false, effort: NONE, toolSearch: false }],
  ['claude-sonnet-4', { maxOutputTokens: 64_000, adaptiveThinking: false, effort: NONE, toolSearch: false }],
  ['claude-3-7-sonnet', { maxOutputTokens: 64_000, adaptiveThinking: false, effort: NONE, toolSearch: false }],
  ['claude-3-5-haiku', { maxOutputTokens: 8_192, adaptiveThinking: false, effort: NONE, toolSearch: false }],
  ['claude-3-haiku', { maxOutputTokens: 4_096, adaptiveThinking: false, effort: NONE, toolSearch: false }],
] as [string, ModelFacts][]).sort((a, b) => b[0].length - a[0].length));

/** The facts of `model`, or undefined for a model the table does not know. */
export function modelFacts(model: string): ModelFacts | undefined {
  for (const [prefix, facts] of MODEL_FACTS) if (model.startsWith(prefix)) return facts;
  return undefined;
}

/** Largest `max_tokens` the API accepts for `model`, tokens; undefined when unknown. */
export function maxOutputTokens(model: string): number | undefined {
  return modelFacts(model)?.maxOutputTokens;
}

/** Smallest thinking budget the API accepts, tokens (extended thinking docs: `budget_tokens` ≥ 1,024). */
const MIN_BUDGET_TOKENS = 1_024;

/** What `fitRequestToModel` changed, one sentence each (for a notice). */
export type FitChange = string;

/**
 * The request as the model accepts it: `max_tokens` capped at the model's output limit (a thinking
 * budget kept below it), adaptive thinking left out for a model without it, and an effort level the
 * model does not take lowered to the highest it does (or left out when it takes none). Returns the
 * same object when nothing changes; never mutates `params`.
 */
export function fitRequestToModel(params: ModelRequest): { params: ModelRequest; changes: FitChange[] } {
  const facts = modelFacts(params.model);
  if (!facts) return { params, changes: [] };
  const changes: FitChange[] = [];
  let out = params;
  const edit = (patch: Partial<ModelRequest>) => { out = { ...out, ...patch }; };

  if (params.max_tokens > facts.maxOutputTokens) {
    changes.push(`max_tokens ${params.max_tokens} is over ${params.model}'s output limit: sending ${facts.maxOutputTokens}`);
    edit({ max_tokens: facts.maxOutputTokens });
  }
  const thinking = out.thinking as { type: string; budget_tokens?: number } | undefined;
  if (thinking?.type === 'adaptive' && !facts.adaptiveThinking) {
    changes.push(`${params.model} takes no adaptive thinking: sending no thinking`);
    const { thinking: _t, ...rest } = out;
    out = rest as ModelRequest;
  } else if (thinking?.type === 'enabled' && typeof thinking.budget_tokens === 'number' && thinking.budget_tokens >= out.max_tokens) {
    const budget = out.max_tokens - 1;
    if (budget >= MIN_BUDGET_TOKENS) {
      changes.push(`thinking budget ${thinking.budget_tokens} is not below max_tokens ${out.max_tokens}: sending ${budget}`);
      edit({ thinking: { ...thinking, budget_tokens: budget } as ModelRequest['thinking'] });
    } else {
      changes.push(`max_tokens ${out.max_tokens} leaves no room for thinking: sending no thinking`);
      const { thinking: _t, ...rest } = out;
      out = rest as ModelRequest;
    }
  }
  const config = out.output_config as { effort?: EffortLevel } | undefined;
  const effort = config?.effort;
  if (effort && !facts.effort.includes(effort)) {
    const lower = [...facts.effort].filter((e) => EFFORT_ORDER.indexOf(e) < EFFORT_ORDER.indexOf(effort)).pop();
    const { effort: _e, ...restConfig } = config;
    if (lower) {
      changes.push(`${params.model} takes no effort ${effort}: sending ${lower}`);
      edit({ output_config: { ...restConfig, effort: lower } as ModelRequest['output_config'] });
    } else {
      changes.push(`${params.model} takes no effort parameter: sending none`);
      if (Object.keys(restConfig).length) edit({ output_config: restConfig as ModelRequest['output_config'] });
      else {
        const { output_config: _o, ...rest } = out;
        out = rest as ModelRequest;
      }
    }
  }
  return { params: out, changes };
}
