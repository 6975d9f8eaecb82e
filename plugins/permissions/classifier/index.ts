/**
 * `classifier`: permission mode `auto`. Calls no rule decided are judged by a side request to a
 * model, in layers, each reached only when the cheaper one could not decide:
 *
 * Allow rules that would let arbitrary code past it (`Bash`, `Bash(python:*)`, `Bash(node *)`, ...)
 * are set aside while auto mode is on.
 *
 * 1. read-only calls inside the working directories run (no request; the shell, network tools
 *    and MCP tools are always judged);
 * 2. calls acceptEdits would allow (file edits inside the working directories, and the in-project
 *    writes of commands Bash rules allow) run (no request);
 * 3. after 3 denials in a row or 20 in the session, the call becomes an `ask` instead;
 * 4. stage 1: a 64-token verdict with stop sequence `</block>`; `no` allows;
 * 5. stage 2, only when stage 1 blocked or could not be read: the model reasons, then decides.
 *
 * Fail closed: an unreadable answer, an API error or a timeout blocks. A block is a deny with the
 * classifier's reason. The requests use source `classifier`, so their usage is recorded apart from
 * the main loop's, and the retry plugin does not retry them on 529.
 */
import {
  PERMISSION_STAGE, type PermissionQuery, type RunContext, type Kernel, definePlugin,
  type ApiMessage, type PermissionDecision,
} from '../../../kernel/index.js';
import { timeoutSignal } from '../../../lib/index.js';
import { z } from 'zod';
import { publishAnswerCheck } from '../shared/callback.js';
import { permissionContext } from '../shared/config.js';
import { MODE_PLUGINS } from '../shared/mode-plugin.js';
import { editDecision, readDecision, shellWriteDecision } from '../shared/modes.js';
import { shellEditDecision } from '../shared/shell-edits.js';
import { classifierSystemPrompt, STAGE1_INSTRUCTION, STAGE2_INSTRUCTION, type AutoModeRules } from './prompt.js';
import { isDangerousAllow } from './dangerous.js';
import { DenialTracker, MAX_CONSECUTIVE_DENIALS, MAX_TOTAL_DENIALS } from './tracker.js';
import { fitTranscript, projectAction, projectTranscript } from './transcript.js';
import { parseVerdict, type Verdict } from './verdict.js';

/** Stage-1 output cap, tokens (Claude Code: 64). */
export const STAGE1_MAX_TOKENS = 64;
/** Stage-2 output cap, tokens (Claude Code: 4096). */
export const STAGE2_MAX_TOKENS = 4096;
/** Stage-1 stop sequence. */
export const STAGE1_STOP = '</block>';


export const classifierOptions = z.object({
  /** Actions the classifier should allow (sentences). */
  allow: z.array(z.string()).default([]).register(z.globalRegistry, { description: 'Actions the classifier should allow, as sentences; empty: the preset\'s `autoMode.allow`.' }),
  /** Actions to block unless the user explicitly asked for them. */
  soft_deny: z.array(z.string()).default([]).register(z.globalRegistry, { description: 'Actions to block unless the user explicitly asked for them, as sentences; empty: the preset\'s `autoMode.soft_deny`.' }),
  /** Actions always blocked. */
  hard_deny: z.array(z.string()).default([]).register(z.globalRegistry, { description: 'Actions always blocked, as sentences; empty: the preset\'s `autoMode.hard_deny`.' }),
  /** Trusted repositories, hosts, buckets. */
  environment: z.array(z.string()).default([]).register(z.globalRegistry, { description: 'Trusted resources (repositories, hosts, buckets) the classifier is told about; empty: the preset\'s `autoMode.environment`.' }),
  /** Model for the classifier; default: the preset's `autoMode.model`, else the main model. */
  model: z.string().min(1).optional().register(z.globalRegistry, { description: 'Model the classifier asks; default: the preset\'s `autoMode.model`, else the main model.' }),
  stage1MaxTokens: z.number().int().positive().default(STAGE1_MAX_TOKENS).register(z.globalRegistry, { description: '`max_tokens` of the quick stage-1 verdict (stop sequence `</block>`), tokens (Claude Code: 64).' }),
  stage2MaxTokens: z.number().int().positive().default(STAGE2_MAX_TOKENS).register(z.globalRegistry, { description: '`max_tokens` of the stage-2 review, run when stage 1 blocked or could not be read, tokens (Claude Code: 4096).' }),
  /** Longest wait for one classifier request, ms; then the call is blocked. */
  timeoutMs: z.number().int().positive().default(60_000).register(z.globalRegistry, { description: 'Longest wait for one classifier request, ms; then the call is blocked.' }),
  maxConsecutiveDenials: z.number().int().positive().default(MAX_CONSECUTIVE_DENIALS).register(z.globalRegistry, { description: 'After this many classifier denials in a row, the calls it would judge become an `ask` instead (Claude Code: 3).' }),
  maxTotalDenials: z.number().int().positive().default(MAX_TOTAL_DENIALS).register(z.globalRegistry, { description: 'After this many classifier denials in the session, the calls it would judge become an `ask` instead (Claude Code: 20).' }),
  /** Most transcript characters sent (the first line and the latest ones are kept). */
  maxTranscriptChars: z.number().int().positive().default(100_000).register(z.globalRegistry, { description: 'Most transcript characters sent to the classifier; the first entry and the latest ones are kept, the middle is left out.' }),
}).strict();

export type ClassifierOptions = z.output<typeof classifierOptions>;

/** What one classification found. */
export interface Classification {
  block: boolean;
  reason: string;
  /** Model requests made (0 when a layer before the model decided). */
  requests: number;
  stage: 0 | 1 | 2;
}

function textOf(m: ApiMessage): string {
  return m.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

/** Runs the two stages for one call. Never throws: failures block. */
export async function classify(kernel: Kernel, q: PermissionQuery, ctx: RunContext, o: ClassifierOptions): Promise<Classification> {
  const rules: AutoModeRules = o;
  const system = classifierSystemPrompt(rules);
  const transcript = fitTranscript(projectTranscript(kernel.messages), o.maxTranscriptChars);
  const model = o.model ?? ctx.model;
  const content = (instruction: string) => [
    { type: 'text' as const, text: `<transcript>\n${transcript}\n</transcript>` },
    { type: 'text' as const, text: `<action>\n${projectAction(q.toolName, q.input)}\n</action>`, cache_control: { type: 'ephemeral' as const } },
    { type: 'text' as const, text: instruction },
  ];
  const ask = async (instruction: string, maxTokens: number, stop?: string[]): Promise<Verdict | Error> => {
    const deadline = timeoutSignal(ctx.signal, o.timeoutMs);
    const signal = deadline.signal;
    try {
      const reply = await kernel.sideRequest({
        model, max_tokens: maxTokens, system: [{ type: 'text', text: system }],
        messages: [{ role: 'user', content: content(instruction) }],
        ...(stop ? { stop_sequences: stop } : {}),
      }, 'classifier', { ...ctx, signal });
      return parseVerdict(textOf(reply));
    } catch (err) {
      return deadline.timedOut() && !ctx.signal.aborted ? new Error(`no answer within ${o.timeoutMs} ms`) : (err as Error);
    } finally {
      deadline.clear();
    }
  };
  const first = await ask(STAGE1_INSTRUCTION, o.stage1MaxTokens, [STAGE1_STOP]);
  if (first instanceof Error) return { block: true, reason: `the classifier is unavailable (${first.message}), so the call is blocked`, requests: 1, stage: 1 };
  if (first && !first.block) return { block: false, reason: 'the classifier allowed it', requests: 1, stage: 1 };
  const second = await ask(STAGE2_INSTRUCTION, o.stage2MaxTokens);
  if (second instanceof Error) return { block: true, reason: `the classifier is unavailable (${second.message}), so the call is blocked`, requests: 2, stage: 2 };
  if (!second) return { block: true, reason: 'the classifier gave no readable verdict, so the call is blocked', requests: 2, stage: 2 };
  if (!second.block) return { block: false, reason: 'the classifier allowed it after review', requests: 2, stage: 2 };
  return { block: true, reason: second.reason ? `the classifier blocked it: ${second.reason}` : 'the classifier blocked it', requests: 2, stage: 2 };
}

export default definePlugin({
  name: 'classifier',
  description: 'Permission mode auto: a side request to a model judges calls no rule decided (two stages, fail closed).',
  options: classifierOptions,
  conflicts: MODE_PLUGINS.filter((n) => n !== 'classifier'),
  apply(kernel, options) {
    const auto = (kernel.preset.autoMode ?? {}) as Partial<ClassifierOptions>;
    const o: ClassifierOptions = {
      ...options,
      allow: options.allow.length ? options.allow : auto.allow ?? [],
      soft_deny: options.soft_deny.length ? options.soft_deny : auto.soft_deny ?? [],
      hard_deny: options.hard_deny.length ? options.hard_deny : auto.hard_deny ?? [],
      environment: options.environment.length ? options.environment : auto.environment ?? [],
      model: options.model ?? auto.model,
    };
    const pc = permissionContext(kernel);
    pc.mode = 'auto';
    publishAnswerCheck(kernel);
    // Interpreter-wide allow rules would let any code past the classifier: set them aside.
    const stripped = pc.rules.allow.filter(isDangerousAllow);
    if (stripped.length) {
      pc.rules.allow = pc.rules.allow.filter((r) => !isDangerousAllow(r));
      kernel.hooks.sessionStart.tap('classifier', () => {
        kernel.emit({ type: 'notice', level: 'warn', source: 'classifier', message: `auto mode sets aside allow rules that would bypass the classifier: ${stripped.map((r) => r.text).join(', ')}` });
      });
    }
    const tracker = new DenialTracker(o.maxConsecutiveDenials, o.maxTotalDenials);
    kernel.hooks.permission.tapPromise({ name: 'classifier', stage: PERMISSION_STAGE.MODE }, async (q, ctx): Promise<PermissionDecision> => {
      // Network and MCP tools are never "read-only" here (tools.ts REACHES_OUTSIDE): they are judged.
      const read = readDecision('auto', pc, q);
      if (read?.behavior === 'allow') return read;
      const edit = editDecision('auto', pc, q) ?? shellEditDecision('auto', pc, q) ?? shellWriteDecision('auto', pc, q);
      if (edit) return edit;
      const fallback = tracker.fallbackReason();
      if (fallback) return { behavior: 'ask', message: `${q.toolName} needs approval: ${fallback}.`, reason: `${fallback}; asking instead (mode auto)`, source: 'classifier' };
      const c = await classify(kernel, q, ctx, o);
      if (!c.block) {
        tracker.allowed();
        return { behavior: 'allow', reason: `${c.reason} (mode auto, stage ${c.stage})`, source: 'classifier' };
      }
      tracker.denied();
      return { behavior: 'deny', message: `Permission to use ${q.toolName} was denied: ${c.reason}. Try another way, or stop and explain what you need.`, reason: `${c.reason} (mode auto, stage ${c.stage})`, source: 'classifier' };
    });
  },
});

export { classifierSystemPrompt, STAGE1_INSTRUCTION, STAGE2_INSTRUCTION } from './prompt.js';
export { projectTranscript, projectAction, fitTranscript } from './transcript.js';
export { parseVerdict, stripThinking } from './verdict.js';
export { isDangerousAllow, DANGEROUS_COMMANDS } from './dangerous.js';
export { DenialTracker, MAX_CONSECUTIVE_DENIALS, MAX_TOTAL_DENIALS } from './tracker.js';
