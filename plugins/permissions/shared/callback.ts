/**
 * Answering `ask` decisions from the host program: `answerWith(kernel, fn)` taps the
 * `permissionRequest` hook with a function shaped like Claude Agent SDK's `canUseTool`. An answer
 * that rewrites the input is checked against the deny rules again, so a host cannot approve its
 * way past a deny rule.
 */
import { createKernelState, type PermissionAsk, type RunContext, type Kernel, type PermissionDecision } from '../../../kernel/index.js';
import { permissionContext } from './config.js';
import { denyDecision } from './rules.js';
import { REQUEST_STAGE } from './stages.js';

/** What a host answers (Claude Agent SDK's PermissionResult shape). */
export type PermissionResult =
  | { behavior: 'allow'; updatedInput?: Record<string, unknown>; message?: string }
  /** `interrupt`: also stop the run (terminal `permission_interrupted`), as Claude Code's SDK does. */
  | { behavior: 'deny'; message: string; interrupt?: boolean };

/** Details passed to a host callback. */
export interface PermissionRequestInfo {
  toolUseId: string;
  signal: AbortSignal;
  /** Why the call needs an answer. */
  reason?: string;
  message?: string;
}

/** A host callback: answer, or undefined to leave the question to the next answerer (headless: deny). */
export type CanUseTool = (toolName: string, input: Record<string, unknown>, info: PermissionRequestInfo) =>
  Promise<PermissionResult | undefined> | PermissionResult | undefined;

/**
 * Turns an answer into a decision. An allow that rewrites the input is denied when the new input
 * matches a deny rule; an answer that is not `allow`/`deny` is a deny (fail closed).
 */
export function checkAnswer(kernel: Kernel, ask: PermissionAsk, answer: PermissionResult | undefined, source: string): PermissionDecision | undefined {
  if (answer === undefined || answer === null) return undefined;
  if (answer.behavior === 'deny') {
    return {
      behavior: 'deny', message: answer.message || `Permission to use ${ask.toolName} was denied by ${source}.`,
      reason: `denied by ${source}${answer.message ? `: ${answer.message}` : ''}${answer.interrupt ? ' (and the run interrupted)' : ''}`, source,
      ...(answer.interrupt ? { interrupt: true } : {}),
    };
  }
  if (answer.behavior !== 'allow') {
    return { behavior: 'deny', message: `Permission to use ${ask.toolName} was denied: ${source} gave an answer that is neither allow nor deny.`, reason: `unreadable answer from ${source}`, source };
  }
  if (answer.updatedInput && typeof answer.updatedInput === 'object') {
    const pc = permissionContext(kernel);
    const again = denyDecision(pc.rules, { ...ask, input: answer.updatedInput }, pc.base);
    if (again) return { ...again, reason: `${source} rewrote the input, and ${again.reason}` };
    return { behavior: 'allow', updatedInput: answer.updatedInput, reason: `allowed by ${source}`, source };
  }
  return { behavior: 'allow', reason: `allowed by ${source}`, source };
}

/**
 * `checkAnswer` for answerers outside this family (shell and SDK hooks), which read it from kernel
 * state under `permissions/answer` instead of importing this module:
 * `createKernelState('permissions/answer', () => ({ check: undefined as AnswerCheck | undefined }))`.
 */
export type AnswerCheck = (ask: PermissionAsk, answer: PermissionResult | undefined, source: string) => PermissionDecision | undefined;
const answerState = createKernelState('permissions/answer', () => ({ check: undefined as AnswerCheck | undefined }));

/** Publishes `checkAnswer` for `kernel` in kernel state (the rules engine and every mode plugin do). */
export function publishAnswerCheck(kernel: Kernel): void {
  answerState(kernel).check = (ask, answer, source) => checkAnswer(kernel, ask, answer, source);
}

/**
 * Answers `ask` decisions with `fn` (the library's `canUseTool`). A callback that throws denies the
 * call (the kernel fails closed).
 */
export function answerWith(kernel: Kernel, fn: CanUseTool, name = 'permissions/callback'): void {
  kernel.hooks.permissionRequest.tapPromise({ name, stage: REQUEST_STAGE.HOST }, async (ask: PermissionAsk, ctx: RunContext) => {
    const answer = await fn(ask.toolName, ask.input, { toolUseId: ask.toolUseId, signal: ctx.signal, reason: ask.decision.reason, message: ask.decision.message });
    return checkAnswer(kernel, ask, answer, 'the host');
  });
}
