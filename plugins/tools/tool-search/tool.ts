/**
 * The `ToolSearch` tool: finds deferred tools by name or keyword and answers with `tool_reference`
 * blocks, which the Messages API expands into the tools' definitions at that place in the
 * conversation (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool,
 * "custom tool search"). The cached prefix (tools, system, earlier messages) stays as it was.
 */
import { z } from 'zod';
import { defineTool, type ContentBlock, type Kernel, type Tool, type ToolDefinition } from '../../../kernel/index.js';
import { INPUT_JSON_SCHEMAS } from '../shared/generated/input-schemas.js';

/** The tool's name. */
export const TOOL_SEARCH_NAME = 'ToolSearch';

/** Most tools one keyword search loads (a `select:` query loads every name it gives). */
export const MAX_RESULTS = 5;

export const toolSearchInput = z.lazy(() => z.strictObject({
  query: z.string().min(1),
}));

export type ToolSearchInput = z.output<typeof toolSearchInput>;

/** The description: what the tool does, then the deferred tools by name (so the model knows what to ask for). */
export function toolSearchDescription(deferred: readonly string[]): string {
  return `Loads deferred tools, callable from the next turn on: ${deferred.join(', ') || 'none'}. query: "select:Name,Name" or keywords.`;
}

/** A deferred tool as the search sees it. */
export interface Searchable {
  name: string;
  description: string;
}

/**
 * The tools a query picks, best first: `select:` takes the names it gives (unknown ones are left
 * out); keywords score 3 per word in the name and 1 per word in the description, ties by name, and
 * at most `max` are taken.
 */
export function searchTools(tools: readonly Searchable[], query: string, max: number): string[] {
  const q = query.trim();
  if (/^select:/i.test(q)) {
    const wanted = q.slice('select:'.length).split(',').map((s) => s.trim()).filter(Boolean);
    const byName = new Map(tools.map((t) => [t.name.toLowerCase(), t.name]));
    return [...new Set(wanted.map((w) => byName.get(w.toLowerCase())).filter((n): n is string => !!n))];
  }
  const words = q.toLowerCase().split(/[^a-z0-9_]+/).filter((w) => w.length > 1);
  const scored = tools.map((t) => {
    const name = t.name.toLowerCase();
    const desc = t.description.toLowerCase();
    const score = words.reduce((n, w) => n + (name.includes(w) ? 3 : 0) + (desc.includes(w) ? 1 : 0), 0);
    return { name: t.name, score };
  });
  return scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1)).slice(0, max).map((s) => s.name);
}

/**
 * Builds the tool. `deferredOf(kernel)` gives the definitions currently deferred (what the last
 * request sent with `defer_loading: true`).
 */
export function createToolSearchTool(deferredOf: (kernel: Kernel) => readonly ToolDefinition[]): Tool<ToolSearchInput> {
  return defineTool<ToolSearchInput>({
    name: TOOL_SEARCH_NAME,
    // Replaced in the request by toolSearchDescription() with the names deferred at that time.
    description: toolSearchDescription([]),
    inputSchema: toolSearchInput,
    inputJsonSchema: INPUT_JSON_SCHEMAS.toolSearchInput,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async call(input, ctx) {
      const deferred = deferredOf(ctx.kernel).map((d) => ({ name: d.name, description: d.description ?? '' }));
      const found = searchTools(deferred, input.query, MAX_RESULTS);
      if (!found.length) {
        return `No deferred tool matches ${JSON.stringify(input.query)}. Deferred tools: ${deferred.map((d) => d.name).join(', ') || 'none'}.`;
      }
      // Only references: the API expands a tool_result that holds tool_reference blocks alone.
      // (ContentBlock, the message content type, has no tool_reference: it only occurs in a tool_result.)
      return found.map((name) => ({ type: 'tool_reference', tool_name: name })) as unknown as ContentBlock[];
    },
  });
}
