/**
 * Recorded-result tools: a replay never runs a tool. Each tool the preset registered keeps its
 * name, description and input schema (so the request's `tools` parameter is exactly what the preset
 * sends) but its `call` returns the recorded result for that tool_use id. Tools the recording
 * called that the preset does not have are added with a minimal schema, so the recorded result
 * still reaches the context instead of a "no such tool" error.
 */
import { z } from 'zod';
import type { Kernel } from '../../kernel/kernel.js';
import { DEFAULT_MAX_RESULT_SIZE_CHARS, defineTool, type JsonSchema, type Tool } from '../../kernel/tool.js';
import { inputSchemaOf } from '../../kernel/tool-registry.js';
import type { RecordedToolResult, Workload } from '../workloads/types.js';

/** What a call with no recorded result returns (the recording ended, or was interrupted, before it). */
export const MISSING_RESULT_TEXT = 'No result was recorded for this call: the session was interrupted before the tool finished.';

/** Description given to tools the preset lacks. */
export const RECORDED_TOOL_DESCRIPTION = 'A tool of the recorded session (its results are replayed).';

const ANY_INPUT = z.record(z.string(), z.unknown());
const OPEN_SCHEMA: JsonSchema = { type: 'object', additionalProperties: true };

/** Every recorded result of a workload by tool_use id. */
export function recordedResults(w: Pick<Workload, 'steps'>): Map<string, RecordedToolResult> {
  const map = new Map<string, RecordedToolResult>();
  for (const s of w.steps) for (const r of s.toolResults) map.set(r.toolUseId, r);
  return map;
}

/** Names of the tools a workload's replies call, in first-call order. */
export function recordedToolNames(w: Pick<Workload, 'steps'>): string[] {
  const names = new Set<string>();
  for (const s of w.steps) for (const b of s.reply) if (b.type === 'tool_use') names.add((b as { name: string }).name);
  return [...names];
}

function replayTool(base: { name: string; description: string; schema: JsonSchema; maxResultSizeChars: number }, results: ReadonlyMap<string, RecordedToolResult>, live?: { tool: Tool; ids: ReadonlySet<string> }): Tool {
  return defineTool({
    name: base.name,
    description: base.description,
    inputSchema: ANY_INPUT,
    inputJsonSchema: base.schema,
    // The recording already validated (or rejected) the input; the replay takes it as it was.
    validateInput: () => undefined,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    maxResultSizeChars: base.maxResultSizeChars,
    async call(input, ctx) {
      // A call the workload runs live (a scripted child agent): the preset's own tool answers it.
      if (live?.ids.has(ctx.toolUseId)) return live.tool.call(live.tool.inputSchema.parse(input), ctx);
      const r = results.get(ctx.toolUseId);
      if (!r) return { content: MISSING_RESULT_TEXT, isError: true };
      // Read once: a generated workload makes the content each time it is read.
      const content = r.content;
      return { content: content.length ? content : '', isError: r.isError };
    },
  });
}

/**
 * Replaces every registered tool of `kernel` by its recorded-result twin and registers the
 * recording's other tools. Returns the names added that the preset did not have. `asRecorded`:
 * results are not cut to the tools' size limits (a mimic sends what its client sent). `live`: the
 * tool_use ids whose calls the preset's own tool runs (the workload's live children).
 */
export function installRecordedTools(kernel: Kernel, w: Pick<Workload, 'steps'>, options: { asRecorded?: boolean; live?: ReadonlySet<string> } = {}): string[] {
  const results = recordedResults(w);
  // A mimic sends each result as the recording's client did: what the model saw, never cut again.
  const cap = (c: number) => (options.asRecorded ? Infinity : c);
  for (const tool of kernel.tools.list()) {
    const schema = inputSchemaOf(tool) as JsonSchema;
    kernel.tools.unregister(tool.name);
    const live = options.live?.size ? { tool, ids: options.live } : undefined;
    kernel.tools.register(replayTool({ name: tool.name, description: tool.description, schema, maxResultSizeChars: cap(tool.maxResultSizeChars) }, results, live), tool.plugin);
  }
  // The preset's own tools by lower-case name: another client's `read` or `bash` is the call the
  // preset's `Read` or `Bash` would have made, so its result is cut where that tool cuts (Read: never,
  // it limits itself by lines; Bash: 30,000 characters) rather than at the default for a tool rein
  // does not know.
  const own = new Map(kernel.tools.list().map((t) => [t.name.toLowerCase(), t.maxResultSizeChars] as const));
  const added: string[] = [];
  for (const name of recordedToolNames(w)) {
    if (kernel.tools.has(name)) continue;
    const limit = own.get(name.toLowerCase()) ?? DEFAULT_MAX_RESULT_SIZE_CHARS;
    kernel.tools.register(replayTool({ name, description: RECORDED_TOOL_DESCRIPTION, schema: OPEN_SCHEMA, maxResultSizeChars: cap(limit) }, results), 'bench/replay');
    added.push(name);
  }
  return added;
}
