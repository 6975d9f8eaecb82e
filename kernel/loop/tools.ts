/**
 * Runs the tool calls of one assistant message: each call goes validate → `permission` →
 * (`permissionRequest` on ask) → `preToolUse` → call → `postToolUse`; consecutive concurrency-safe
 * calls run in parallel (at most 10 at once), others one at a time; results come
 * back in call order, one tool_result per tool_use, whatever happened.
 */
import type { PermissionQuery, RunContext } from '../hook-payloads.js';
import type { Kernel } from '../kernel.js';
import { ToolError, type Tool, type ToolOutput } from '../tool.js';
import type { ContentBlock, PermissionDecision, PermissionDenial, ToolResultBlock, ToolUseBlock } from '../types.js';
import { finalizeResult } from './tool-results.js';

/** Most calls of one batch running at once (Claude Code: default 10). */
export const MAX_TOOL_CONCURRENCY = 10;

/** Text of the tool_result given for a call that never ran because the run was aborted. */
export const ABORTED_RESULT_TEXT = 'The tool call was not completed: the run was aborted.';

/**
 * Tools whose failure in a parallel batch cancels the other calls of the same tool in that batch
 * (Claude Code: only Bash; parallel shell commands tend to depend on each other, while a failed
 * Read or WebFetch says nothing about its siblings).
 */
export const SIBLING_CANCEL_TOOLS: ReadonlySet<string> = new Set(['Bash']);

/**
 * The abort reason a call sees when a sibling of the same batch failed. The run itself goes on:
 * the batch's own AbortController is a child of the run's signal, never the other way round.
 */
export class SiblingAbortError extends Error {
  constructor(
    /** The tool of the call that failed (`Bash`). */
    readonly toolName: string,
    /** What the failed call was (its `description`, else its command, cut to 100 characters). */
    readonly failedCall: string,
  ) {
    super(`a parallel ${toolName} call failed (${failedCall})`);
    this.name = 'SiblingAbortError';
  }
}

/** The tool_result text for a call stopped by `signal`: sibling failure or run abort. */
export function abortedText(reason: unknown): string {
  if (reason instanceof SiblingAbortError) {
    return `Cancelled: ${reason.message}, so this call was stopped. Fix that call first, then run this one again if it is still needed.`;
  }
  return ABORTED_RESULT_TEXT;
}

export interface ToolCallOutcome {
  block: ToolResultBlock;
  /** True when the tool itself ran and failed (not a validation error, denial or cancellation). */
  toolFailed?: boolean;
  denial?: PermissionDenial;
  preventContinuation?: string;
  additionalContext: string[];
}

export interface ToolBatchOutcome {
  results: ToolResultBlock[];
  denials: PermissionDenial[];
  preventContinuation?: string;
  /** Extra text hooks asked to show the model, appended after the results. */
  additionalContext: string[];
}

type Batch = { concurrent: boolean; calls: ToolUseBlock[] };

/** Greedy partition: runs of concurrency-safe calls form one parallel batch. */
export function partitionToolCalls(kernel: Kernel, calls: readonly ToolUseBlock[]): Batch[] {
  const batches: Batch[] = [];
  for (const call of calls) {
    const tool = kernel.tools.get(call.name);
    let safe = false;
    if (tool) {
      const parsed = tool.inputSchema.safeParse(call.input);
      try {
        safe = parsed.success && tool.isConcurrencySafe(parsed.data);
      } catch {
        safe = false; // a predicate that throws is treated as unsafe
      }
    }
    const last = batches[batches.length - 1];
    if (safe && last?.concurrent) last.calls.push(call);
    else batches.push({ concurrent: safe, calls: [call] });
  }
  return batches;
}

/** Runs all calls of one assistant message; the results are in call order. */
export async function runToolCalls(kernel: Kernel, calls: readonly ToolUseBlock[], ctx: RunContext): Promise<ToolBatchOutcome> {
  const outcomes: ToolCallOutcome[] = [];
  for (const batch of partitionToolCalls(kernel, calls)) {
    if (ctx.signal.aborted) {
      outcomes.push(...batch.calls.map((c) => abortedOutcome(c)));
      continue;
    }
    if (!batch.concurrent) {
      for (const call of batch.calls) outcomes.push(ctx.signal.aborted ? abortedOutcome(call) : await runToolCall(kernel, call, ctx));
      continue;
    }
    outcomes.push(...(await runParallelBatch(kernel, batch.calls, ctx)));
  }
  return {
    results: outcomes.map((o) => o.block),
    denials: outcomes.flatMap((o) => (o.denial ? [o.denial] : [])),
    preventContinuation: outcomes.find((o) => o.preventContinuation)?.preventContinuation,
    additionalContext: outcomes.flatMap((o) => o.additionalContext),
  };
}

/**
 * One concurrency-safe batch, at most MAX_TOOL_CONCURRENCY at once. Calls of SIBLING_CANCEL_TOOLS get
 * the batch's own signal (aborted with the run, or by a failing sibling); the others get the run's.
 */
async function runParallelBatch(kernel: Kernel, calls: readonly ToolUseBlock[], ctx: RunContext): Promise<ToolCallOutcome[]> {
  const siblings = new AbortController();
  const onRunAbort = () => siblings.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onRunAbort, { once: true });
  const siblingCtx: RunContext = { ...ctx, signal: siblings.signal };
  try {
    return await runConcurrently(calls, MAX_TOOL_CONCURRENCY, async (call) => {
      const cascades = SIBLING_CANCEL_TOOLS.has(call.name);
      const outcome = await runToolCall(kernel, call, cascades ? siblingCtx : ctx);
      if (cascades && outcome.toolFailed && !siblings.signal.aborted) {
        siblings.abort(new SiblingAbortError(call.name, describeCall(call)));
      }
      return outcome;
    });
  } finally {
    ctx.signal.removeEventListener('abort', onRunAbort);
  }
}

/** A short label for a call in messages: its `description`, else its `command`, else its name. */
function describeCall(call: ToolUseBlock): string {
  const input = (call.input ?? {}) as Record<string, unknown>;
  const label = typeof input.description === 'string' && input.description ? input.description
    : typeof input.command === 'string' ? input.command : call.name;
  return label.length > 100 ? `${label.slice(0, 99)}…` : label;
}

async function runConcurrently<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

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
    return { block: errorResult(call.id, decision.message), denial, additionalContext: [] };
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
    await kernel.hooks.postToolUseFailure.promise({ tool, toolName: tool.name, toolUseId: call.id, input, error: textOf(output) }, ctx).catch(() => undefined);
  }

  // 5. postToolUse.
  let post;
  try {
    post = await kernel.hooks.postToolUse.promise({ tool, toolName: tool.name, toolUseId: call.id, input, output, isError, durationMs, additionalContext: [...pre.additionalContext] }, ctx);
  } catch (err) {
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

