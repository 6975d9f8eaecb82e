/**
 * `max-output-tokens`: what a run does when a reply stops at `max_tokens` (the `outputCut` hook).
 * The first cut sends the identical request again with the cap raised to `escalateTo` (or the
 * model's own output limit, when lower); after that, what was written is kept and the model is
 * asked to go on, up to `resumes` times; then the run ends with `max_output_tokens`.
 */
import { z } from 'zod';
import { definePlugin } from '../../kernel/index.js';

export const PLUGIN_NAME = 'max-output-tokens';

/** The cap the first cut escalates to, tokens (Claude Code's ESCALATED_MAX_TOKENS, 64k). */
export const ESCALATED_MAX_TOKENS = 64_000;
/** Resume turns after the escalated cap is hit again (Claude Code's MAX_OUTPUT_TOKENS_RECOVERY_LIMIT, 3). */
export const MAX_OUTPUT_TOKENS_RESUMES = 3;
/** The nudge sent after an output cut by max_tokens. Our wording: resume, no recap, smaller pieces. */
export const RESUME_PROMPT =
  'Your previous response was cut off because it reached the output token limit. Continue exactly where it stopped, without apologising or repeating what you already wrote. If the remaining work is large, split it into smaller steps.';

export const maxOutputTokensOptions = z.strictObject({
  /** The cap the first cut escalates to, tokens (capped at the model's output limit); 0: no escalation. */
  escalateTo: z.number().int().min(0).default(ESCALATED_MAX_TOKENS).register(z.globalRegistry, { description: 'The first reply cut by `max_tokens` is sent again with the output cap raised to this, tokens (Claude Code\'s escalated cap: 64,000; at most the model\'s output limit); 0: no escalation.' }),
  /** Resume turns per run after cut replies; 0: end the run at the first cut after escalating. */
  resumes: z.number().int().min(0).max(100).default(MAX_OUTPUT_TOKENS_RESUMES).register(z.globalRegistry, { description: 'Times per run a later cut reply is kept and the model asked to go on; 0: the run ends at the first cut after escalating.' }),
  /** The user message that asks the model to go on. */
  prompt: z.string().min(1).default(RESUME_PROMPT).register(z.globalRegistry, { description: 'The user message that asks the model to go on after a cut reply.' }),
});

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'A reply cut by max_tokens: the same request once more at 64k (or the model\'s limit), then up to 3 resume turns.',
  options: maxOutputTokensOptions,
  apply(kernel, options) {
    kernel.hooks.outputCut.tap(PLUGIN_NAME, ({ request, escalated, resumes }) => {
      const limit = Math.min(options.escalateTo, kernel.services.maxOutputTokens(request.model) ?? options.escalateTo);
      if (!escalated && request.max_tokens < limit) return { action: 'escalate', maxTokens: limit };
      if (resumes >= options.resumes) return { action: 'end', detail: `still cut at ${request.max_tokens} tokens after ${options.resumes} resumes` };
      return { action: 'resume', prompt: options.prompt, detail: `resume ${resumes + 1} of ${options.resumes}` };
    });
  },
});
