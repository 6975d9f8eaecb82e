/**
 * `tool-concurrency`: runs the tool calls of one assistant message in batches through the
 * `toolBatch` hook. Consecutive calls whose tool says `isConcurrencySafe` form one batch that runs
 * in parallel (at most `maxConcurrency` at once); every other call runs alone, in order. When a call
 * of a `siblingCancel` tool (Bash) fails inside a parallel batch, the other calls of that tool in the
 * batch are cancelled; the run itself goes on. Results come back in call order.
 */
import { z } from 'zod';
import {
  abortedOutcome, definePlugin, runToolCall, ToolError,
  type Kernel, type RunContext, type ToolCallOutcome, type ToolUseBlock,
} from '../../kernel/index.js';

export const PLUGIN_NAME = 'tool-concurrency';

/** Most calls of one batch running at once (Claude Code's default, 10). */
export const MAX_TOOL_CONCURRENCY = 10;

/**
 * Tools whose failure in a parallel batch cancels the other calls of the same tool in that batch
 * (Claude Code: only Bash; parallel shell commands tend to depend on each other, while a failed
 * Read or WebFetch says nothing about its siblings).
 */
export const SIBLING_CANCEL_TOOLS: readonly string[] = Object.freeze(['Bash']);

export const toolConcurrencyOptions = z.strictObject({
  /** Most calls of one parallel batch running at once. */
  maxConcurrency: z.number().int().min(1).max(100).default(MAX_TOOL_CONCURRENCY).register(z.globalRegistry, { description: 'Most calls of one parallel batch running at once (Claude Code: 10).' }),
  /** Tools whose failed call cancels the other calls of the same tool in its parallel batch. */
  siblingCancel: z.array(z.string().min(1)).default([...SIBLING_CANCEL_TOOLS]).register(z.globalRegistry, { description: 'Tools whose failed call cancels the other calls of the same tool in its parallel batch (Claude Code: only Bash).' }),
});

/**
 * The abort reason a call sees when a sibling of the same batch failed. A ToolError, so the
 * cancelled call's tool_result is this message (kernel `abortedText`). The batch's own
 * AbortController is a child of the run's signal, never the other way round.
 */
export class SiblingAbortError extends ToolError {
  constructor(
    /** The tool of the call that failed (`Bash`). */
    readonly toolName: string,
    /** What the failed call was (its `description`, else its command, cut to 100 characters). */
    readonly failedCall: string,
  ) {
    super(`Cancelled: a parallel ${toolName} call failed (${failedCall}), so this call was stopped. Fix that call first, then run this one again if it is still needed.`);
    this.name = 'SiblingAbortError';
  }
}

export type Batch = { concurrent: boolean; calls: ToolUseBlock[] };

/** Greedy partition: runs of concurrency-safe calls form one parallel batch; a predicate that throws means unsafe. */
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
        safe = false;
      }
    }
    const last = batches[batches.length - 1];
    if (safe && last?.concurrent) last.calls.push(call);
    else batches.push({ concurrent: safe, calls: [call] });
  }
  return batches;
}

/** A short label for a call in messages: its `description`, else its `command`, else its name. */
function describeCall(call: ToolUseBlock): string {
  const input = (call.input ?? {}) as Record<string, unknown>;
  const label = typeof input.description === 'string' && input.description ? input.description
    : typeof input.command === 'string' ? input.command : call.name;
  return label.length > 100 ? `${label.slice(0, 99)}…` : label;
}

/** `fn` over `items`, at most `limit` at once; results in item order. */
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

/**
 * One parallel batch. Calls of `cancel` tools get the batch's own signal (aborted with the run, or
 * by a failing sibling); the others get the run's.
 */
async function runParallelBatch(kernel: Kernel, calls: readonly ToolUseBlock[], ctx: RunContext, limit: number, cancel: ReadonlySet<string>): Promise<ToolCallOutcome[]> {
  const siblings = new AbortController();
  const onRunAbort = () => siblings.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onRunAbort, { once: true });
  const siblingCtx: RunContext = { ...ctx, signal: siblings.signal };
  try {
    return await runConcurrently(calls, limit, async (call) => {
      const cascades = cancel.has(call.name);
      const outcome = await runToolCall(kernel, call, cascades ? siblingCtx : ctx);
      if (cascades && outcome.toolFailed && !siblings.signal.aborted) siblings.abort(new SiblingAbortError(call.name, describeCall(call)));
      return outcome;
    });
  } finally {
    ctx.signal.removeEventListener('abort', onRunAbort);
  }
}

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'Runs consecutive concurrency-safe tool calls in parallel (at most 10 at once); a failed Bash call cancels its Bash siblings.',
  options: toolConcurrencyOptions,
  apply(kernel, options) {
    const cancel = new Set(options.siblingCancel);
    kernel.hooks.toolBatch.tapPromise(PLUGIN_NAME, async ({ calls }, ctx) => {
      const outcomes: ToolCallOutcome[] = [];
      for (const batch of partitionToolCalls(kernel, calls)) {
        if (ctx.signal.aborted) outcomes.push(...batch.calls.map(abortedOutcome));
        else if (batch.concurrent) outcomes.push(...(await runParallelBatch(kernel, batch.calls, ctx, options.maxConcurrency, cancel)));
        else for (const call of batch.calls) outcomes.push(ctx.signal.aborted ? abortedOutcome(call) : await runToolCall(kernel, call, ctx));
      }
      return outcomes;
    });
  },
});
