/**
 * `prompt` hooks (Claude Code's settings format): a side request to a small model decides. The
 * hook's `prompt` gets the event JSON in place of `$ARGUMENTS` (or after it, when absent); the model
 * answers with JSON, `{"decision": "allow"|"deny"|"ask", "reason": "..."}` or Claude Code's
 * `{"ok": true|false, "reason": "..."}`, which becomes the hook's answer for its event. An answer
 * that cannot be read, an API error or a timeout is a failure (guard events fail closed). The
 * request's usage is reported under the run's side usage as source `hook`.
 */
import type { Kernel, RunContext } from '../../../kernel/index.js';
import type { PromptHook, ShellHookEvent } from './config.js';
import type { HookJson, HookOutcome } from './outcome.js';

/** Model of a prompt hook that names none (a small fast model, as Claude Code uses for them). */
export const PROMPT_HOOK_MODEL = 'claude-haiku-4-5';
/** Output cap of the decision, tokens (a JSON object with one reason). */
export const PROMPT_HOOK_MAX_TOKENS = 512;

/** rein's instructions for the model (its own wording). */
export const PROMPT_HOOK_SYSTEM = [
  'You are a policy check inside a coding agent. You are shown one event of the agent (a tool call about to run, a prompt, the end of a turn) as JSON, and a rule from the user.',
  'Decide whether the rule allows the event. Answer with one JSON object and nothing else:',
  '{"decision": "allow" | "deny" | "ask", "reason": "<one sentence>"}',
  'Use "deny" when the rule forbids it, "allow" when the rule permits it, and "ask" only when a person must decide.',
].join('\n');

type Verdict = { decision: 'allow' | 'deny' | 'ask'; reason: string };

/** Reads the model's answer: the first JSON object in the text. Undefined when there is none usable. */
export function parsePromptVerdict(text: string): Verdict | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start === -1 || end <= start) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
  if (!raw || typeof raw !== 'object') return undefined;
  const o = raw as Record<string, unknown>;
  const reason = typeof o.reason === 'string' ? o.reason : '';
  const d = typeof o.decision === 'string' ? o.decision.toLowerCase() : undefined;
  if (d === 'allow' || d === 'approve') return { decision: 'allow', reason };
  if (d === 'deny' || d === 'block') return { decision: 'deny', reason };
  if (d === 'ask') return { decision: 'ask', reason };
  if (typeof o.ok === 'boolean') return { decision: o.ok ? 'allow' : 'deny', reason };
  return undefined;
}

/** The verdict as the JSON answer a command hook of `event` would print. */
export function verdictJson(event: ShellHookEvent, v: Verdict): HookJson {
  const reason = v.reason || `the prompt hook answered ${v.decision}`;
  if (event === 'PreToolUse') return { hookSpecificOutput: { hookEventName: event, permissionDecision: v.decision, permissionDecisionReason: reason } };
  if (event === 'PermissionRequest') {
    if (v.decision === 'ask') return {};
    return { hookSpecificOutput: { hookEventName: event, decision: v.decision === 'allow' ? { behavior: 'allow' } : { behavior: 'deny', message: reason } } };
  }
  return v.decision === 'deny' ? { decision: 'block', reason } : {};
}

/** Runs one prompt hook. Never throws. `timeoutS` in seconds. */
export async function runPromptHook(kernel: Kernel, h: PromptHook, event: ShellHookEvent, input: string, ctx: RunContext, timeoutS: number): Promise<HookOutcome> {
  const text = h.prompt.includes('$ARGUMENTS') ? h.prompt.replaceAll('$ARGUMENTS', input) : `${h.prompt}\n\n${input}`;
  const deadline = AbortSignal.timeout(timeoutS * 1000);
  let reply;
  try {
    reply = await kernel.sideRequest({
      model: h.model ?? PROMPT_HOOK_MODEL,
      max_tokens: PROMPT_HOOK_MAX_TOKENS,
      system: [{ type: 'text', text: PROMPT_HOOK_SYSTEM }],
      messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    }, 'hook', { ...ctx, signal: AbortSignal.any([ctx.signal, deadline]) });
  } catch (err) {
    if (deadline.aborted && !ctx.signal.aborted) return { kind: 'failure', message: `the prompt hook got no answer within ${timeoutS} s` };
    return { kind: 'failure', message: `the prompt hook's request failed: ${(err as Error).message}` };
  }
  const answer = reply.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  const v = parsePromptVerdict(answer);
  if (!v) return { kind: 'failure', message: `the prompt hook's answer is not a decision: ${JSON.stringify(answer.slice(0, 200))}` };
  return { kind: 'ok', stdout: answer, json: verdictJson(event, v) };
}
