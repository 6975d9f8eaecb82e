/**
 * Runs the tool calls of one assistant message: each call goes validate → `permission` →
 * (`permissionRequest` on ask) → `preToolUse` → call → `postToolUse`. The `toolBatch` hook may run
 * them itself (`tool-concurrency` runs safe ones in parallel); otherwise they run one at a time.
 * Results come back in call order, one tool_result per tool_use, whatever happened.
 */
import type { PermissionQuery, RunContext, ToolCallOutcome } from '../hook-payloads.js';
import type { Kernel } from '../kernel.js';
import { ToolError, type Tool, type ToolOutput } from '../tool.js';
import type { ContentBlock, PermissionDecision, PermissionDenial, ToolResultBlock, ToolUseBlock } from '../types.js';
import { finalizeResult } from './tool-results.js';
import { HookTapError } from '../hooks.js';

/**
 * A warning notice for a tap that threw where the loop goes on by itself (a guard hook fails
 * closed, a `postToolUse` failure becomes the result; a tap of a hook whose failure is ignored:
 * `postToolUseFailure`, the last `turnEnd`, `runEnd`, `sessionEnd`): the model's text does not name
 * the plugin, so the user learns here which one failed, in which hook, and what became of the
 * call or run. A notice cannot fail the run: an event tap that throws on it is ignored here (the
 * run is ending, or the loop goes on as it would have).
 */
export function tapFailureNotice(kernel: Kernel, hook: 'permission' | 'preToolUse' | 'postToolUse' | 'postToolUseFailure' | 'turnEnd' | 'runEnd' | 'sessionEnd', err: unknown, outcome: string): void {
  const what = err instanceof HookTapError ? err.describe() : `a ${hook} tap failed: ${(err as Error)?.message ?? String(err)}`;
  try {
    kernel.emit({ type: 'notice', level: 'warn', source: hook, message: `${what} (${outcome})` });
  } catch { /* a failing printer cannot report it either */ }
}

/** Text of the tool_result given for a call that never ran because the run was aborted. */
export const ABORTED_RESULT_TEXT = 'The tool call was not completed: the run was aborted.';

/** The tool_result text for a call stopped by an abort: a `ToolError` reason's message, else ABORTED_RESULT_TEXT. */
export function abortedText(reason: unknown): string {
  return reason instanceof ToolError ? reason.message : ABORTED_RESULT_TEXT;
}

export interface ToolBatchOutcome {
  results: ToolResultBlock[];
  denials: PermissionDenial[];
  preventContinuation?: string;
  /** Set when a permission answer asked to stop the run (terminal `permission_interrupted`). */
  interrupt?: string;
  /** Extra text hooks asked to show the model, appended after the results. */
  additionalContext: string[];
}

/** Runs all calls of one assistant message through `toolBatch` (else one at a time); results in call order. */
export async function runToolCalls(kernel: Kernel, calls: readonly ToolUseBlock[], ctx: RunContext): Promise<ToolBatchOutcome> {
  let outcomes = await kernel.hooks.toolBatch.promise({ calls }, ctx);
  if (!outcomes) {
    outcomes = [];
    for (const call of calls) outcomes.push(ctx.signal.aborted ? abortedOutcome(call) : await runToolCall(kernel, call, ctx));
  }
  return {
    results: outcomes.map((o) => o.block),
    denials: outcomes.flatMap((o) => (o.denial ? [o.denial] : [])),
    preventContinuation: outcomes.find((o) => o.preventContinuation)?.preventContinuation,
    interrupt: outcomes.find((o) => o.interrupt)?.interrupt,
    additionalContext: outcomes.flatMap((o) => o.additionalContext),
  };
}

/** The outcome of a call that never started because the run was aborted (no tool events). */
export function abortedOutcome(call: ToolUseBlock): ToolCallOutcome {
  return { block: errorResult(call.id, ABORTED_RESULT_TEXT), additionalContext: [] };
}

function errorResult(id: string, text: string): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: id, content: [{ type: 'text', text }], is_error: true };
}

/** Zod issues → one line naming each field and its problem, for the model to fix its call. */
function describeInputError(toolName: string, issues: readonly { path: PropertyKey[]; message: string }[]): string {
  const parts = issues.map((i) => `${i.path.length ? i.path.map(String).join('.') : '(input)'}: ${i.message}`);
  return `InputValidationError: ${toolName} was called with invalid input: ${parts.join('; ')}`;
}

/**
 * The final permission decision for one call: the `permission` hook (a throwing tap denies), then
 * for an `ask` the `permissionRequest` hook; no answer to an ask denies (headless, fail closed).
 * With no plugin deciding, read-only calls are allowed and the rest asked. Never returns `ask`.
 * Exported for child agents, whose calls must get exactly the decision the parent would give.
 */
export async function decidePermission(kernel: Kernel, q: PermissionQuery, ctx: RunContext): Promise<PermissionDecision> {
  let d: PermissionDecision | undefined;
  try {
    d = await kernel.hooks.permission.promise(q, ctx);
  } catch (err) {
    tapFailureNotice(kernel, 'permission', err, 'the call was denied');
    return { behavior: 'deny', message: `Permission check failed: ${(err as Error).message}`, reason: 'permission check threw (fail closed)' };
  }
  // No plugin decided: read-only calls run, anything else needs an answer (Claude Code: default mode asks).
  if (!d) d = q.tool.isReadOnly(q.input) ? { behavior: 'allow', reason: 'read-only' } : { behavior: 'ask', reason: 'no rule allows it' };
  if (d.behavior !== 'ask') return d;
  let answer: PermissionDecision | undefined;
  try {
    answer = await kernel.hooks.permissionRequest.promise({ ...q, decision: d }, ctx);
  } catch (err) {
    return { behavior: 'deny', message: `Permission request failed: ${(err as Error).message}`, reason: 'permission request threw (fail closed)' };
  }
  if (!answer || answer.behavior === 'ask') {
    const why = d.reason ?? d.message ?? 'permission required';
    return { behavior: 'deny', message: `Permission to use ${q.toolName} was denied: ${why}, and no one is there to approve it (headless run).`, reason: `ask with no answer: ${why}` };
  }
  return answer;
}

/** Runs one tool call through validation, permission, hooks and the tool itself. Never throws. */
export async function runToolCall(kernel: Kernel, call: ToolUseBlock, ctx: RunContext): Promise<ToolCallOutcome> {
  const started = performance.now();
  kernel.emit({ type: 'tool_start', toolUseId: call.id, name: call.name, input: call.input });
  const outcome = await runToolCallInner(kernel, call, ctx);
  kernel.emit({ type: 'tool_end', toolUseId: call.id, name: call.name, isError: outcome.block.is_error === true, durationMs: performance.now() - started });
  return outcome;
}

async function runToolCallInner(kernel: Kernel, call: ToolUseBlock, ctx: RunContext): Promise<ToolCallOutcome> {
  // A call queued behind the concurrency cap whose batch was cancelled meanwhile never starts.
  if (ctx.signal.aborted) return { block: errorResult(call.id, abortedText(ctx.signal.reason)), additionalContext: [] };
  const tool = kernel.tools.get(call.name);
  if (!tool) {
    return { block: errorResult(call.id, `No such tool: ${call.name}. Available tools: ${kernel.tools.names().join(', ')}`), additionalContext: [] };
  }
  // 1. Validate.
  let input: Record<string, unknown>;
  const invalid = validate(tool, call.input);
  if (typeof invalid === 'string') return { block: errorResult(call.id, invalid), additionalContext: [] };
  input = invalid.value;

  // 2. Permission (guards fail closed). The call's path is resolved once, here: the decision judges
  // it and the tool opens exactly what was judged.
  let target = kernel.resolveTarget(tool, input);
  const q: PermissionQuery = { tool, toolName: tool.name, input, toolUseId: call.id, ...(target ? { target } : {}) };
  const decision = await decidePermission(kernel, q, ctx);
  if (decision.behavior === 'deny') {
    const denial: PermissionDenial = { tool_name: tool.name, tool_use_id: call.id, tool_input: input, reason: decision.reason ?? decision.message };
    kernel.emit({ type: 'permission_denied', denial });
    return { block: errorResult(call.id, decision.message), denial, additionalContext: [], ...(decision.interrupt ? { interrupt: denial.reason } : {}) };
  }
  if (decision.behavior === 'allow' && decision.updatedInput) {
    const again = validate(tool, decision.updatedInput);
    if (typeof again === 'string') return { block: errorResult(call.id, again), additionalContext: [] };
    input = again.value;
  }

  // 3. preToolUse (fail closed).
  let pre;
  try {
    pre = await kernel.hooks.preToolUse.promise({ tool, toolName: tool.name, toolUseId: call.id, input, additionalContext: [] }, ctx);
  } catch (err) {
    tapFailureNotice(kernel, 'preToolUse', err, 'the call was blocked');
    return { block: errorResult(call.id, `Blocked: a PreToolUse hook failed: ${(err as Error).message}`), additionalContext: [] };
  }
  if (pre.blocked) {
    return { block: errorResult(call.id, pre.blocked), preventContinuation: pre.preventContinuation, additionalContext: pre.additionalContext };
  }
  if (pre.input !== input) {
    const again = validate(tool, pre.input);
    if (typeof again === 'string') return { block: errorResult(call.id, again), additionalContext: [] };
    input = again.value;
  }

  // 4. Call. An input rewritten since the decision may name another path: it is resolved again.
  if (input !== q.input) {
    const again = kernel.resolveTarget(tool, input);
    if (again?.written !== target?.written) target = again;
  }
  const t0 = performance.now();
  let output: ToolOutput;
  let isError = false;
  try {
    output = await tool.call(input, kernel.toolContext(call.id, ctx, { toolName: tool.name, target }));
    if (typeof output === 'object' && !Array.isArray(output) && output.isError) isError = true;
  } catch (err) {
    isError = true;
    // A ToolError's message is written for the model and goes back as it is; anything else is labelled.
    // By name too: a plugin loaded from a file or package may bring its own copy of rein's ToolError.
    const toolError = err instanceof ToolError || (err as Error | undefined)?.name === 'ToolError';
    output = ctx.signal.aborted ? abortedText(ctx.signal.reason) : toolError ? (err as Error).message : `Error: ${(err as Error).message ?? String(err)}`;
  }
  // A call stopped by a failing sibling is a consequence, not a new failure: it must not cascade again.
  const toolFailed = isError && !ctx.signal.aborted;
  const durationMs = performance.now() - t0;
  if (isError) {
    await kernel.hooks.postToolUseFailure.promise({ tool, toolName: tool.name, toolUseId: call.id, input, error: textOf(output) }, ctx)
      .catch((err: unknown) => tapFailureNotice(kernel, 'postToolUseFailure', err, 'the call\'s error result stands'));
  }

  // 5. postToolUse.
  let post;
  try {
    post = await kernel.hooks.postToolUse.promise({ tool, toolName: tool.name, toolUseId: call.id, input, output, isError, durationMs, additionalContext: [...pre.additionalContext] }, ctx);
  } catch (err) {
    tapFailureNotice(kernel, 'postToolUse', err, 'the result became an error');
    post = { output: `Error: a PostToolUse hook failed: ${(err as Error).message}`, isError: true, additionalContext: [], preventContinuation: undefined };
  }
  const block = await finalizeResult(kernel, tool, call.id, post.output, post.isError, ctx);
  return { block, toolFailed, preventContinuation: post.preventContinuation ?? pre.preventContinuation, additionalContext: post.additionalContext };
}

function validate(tool: Tool, raw: unknown): string | { value: Record<string, unknown> } {
  if (tool.inputJsonSchema && tool.validateInput) {
    const msg = tool.validateInput(raw);
    return msg ? `InputValidationError: ${tool.name} was called with invalid input: ${msg}` : { value: (raw ?? {}) as Record<string, unknown> };
  }
  const parsed = tool.inputSchema.safeParse(raw ?? {});
  if (!parsed.success) return describeInputError(tool.name, parsed.error.issues);
  return { value: parsed.data as Record<string, unknown> };
}

function textOf(output: ToolOutput): string {
  const content = typeof output === 'object' && !Array.isArray(output) ? output.content : output;
  if (typeof content === 'string') return content;
  return content.map((b: ContentBlock) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}

