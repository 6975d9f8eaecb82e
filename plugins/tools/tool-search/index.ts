/**
 * `tools/tool-search`: defers rarely used tools behind the `ToolSearch` tool (see tool.ts and
 * README.md). A deferred tool is sent with `defer_loading: true`: the API leaves its definition
 * out of the prompt until a `tool_reference` block in a `tool_result` names it, and expands it
 * there, so loading a tool appends to the conversation and the cached prefix survives
 * (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching).
 *
 * `loading: full` (or `auto` with a provider other than Anthropic's API or rein's simulator)
 * sends every tool in full and offers no ToolSearch: the plain tool array.
 */
import { z } from 'zod';
import { definePlugin, type Kernel, type ToolDefinition } from '../../../kernel/index.js';
import { modelFacts } from '../../../lib/index.js';
import { createToolSearchTool, TOOL_SEARCH_NAME, toolSearchDescription } from './tool.js';

export { createToolSearchTool, searchTools, toolSearchDescription, TOOL_SEARCH_NAME, MAX_RESULTS } from './tool.js';

/**
 * Tools deferred when the preset names none: the search tools, the subagent, web and task-list
 * tools, background shells' companions and every MCP server's tools. Their definitions are about
 * 5,300 tokens of the default preset's 9,700-token prefix, sent with every request; in the Claude
 * Code sessions of the shared traces the model called Glob 17 and Grep 12 times, against Bash
 * 343, Read 74, Edit 74 and Write 27 (tool_use blocks), and pi's sessions have no search tool.
 */
export const DEFAULT_DEFERRED = ['Glob', 'Grep', 'Task', 'WebFetch', 'TodoWrite', 'BashOutput', 'KillShell', 'mcp__*'] as const;

/** Providers that accept `defer_loading` and `tool_reference` (`auto` defers only with these). */
export const DEFERRING_PROVIDERS = ['anthropic', 'simulator'] as const;

export const toolSearchOptions = z.strictObject({
  /** Tool names to defer; a name ending in `*` is a prefix (`mcp__*`, `mcp__github__*`). */
  defer: z.array(z.string().min(1)).default([...DEFAULT_DEFERRED]).register(z.globalRegistry, { description: 'Tools deferred behind ToolSearch, by name; a name ending in `*` is a prefix (`mcp__*`, `mcp__github__*`).' }),
  /**
   * `defer`: deferred tools go out with `defer_loading: true` and ToolSearch loads them; `full`:
   * every tool in full, no ToolSearch (a provider without tool search); `auto`: `defer` with the
   * providers in DEFERRING_PROVIDERS (or none named) and a model that takes tool search
   * (`modelFacts(model).toolSearch`; unknown models count as taking it), else `full`.
   */
  loading: z.enum(['auto', 'defer', 'full']).default('auto').register(z.globalRegistry, { description: '`defer`: deferred tools go out with `defer_loading: true` and ToolSearch loads them; `full`: every tool in full, no ToolSearch; `auto`: `defer` with Anthropic\'s API or rein\'s simulator and a model that takes tool search, else `full`.' }),
});

export type ToolSearchOptions = z.output<typeof toolSearchOptions>;

/** Whether `name` is one of the `defer` patterns. */
export function matchesDeferred(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));
}

/** What the last `toolDefinitions` call deferred, per kernel (what ToolSearch searches). */
const deferredByKernel = new WeakMap<Kernel, readonly ToolDefinition[]>();

export default definePlugin({
  name: 'tools/tool-search',
  description: 'Defers rarely used tools (defer_loading) behind a ToolSearch tool that loads them with tool_reference blocks, so the cached prefix stays small and survives.',
  options: toolSearchOptions,
  apply(kernel, options) {
    const provider = kernel.preset.model?.provider;
    const model = kernel.preset.model?.name;
    // `auto` also needs a model that takes deferred tools: the API answers 400 to `defer_loading`
    // from an older one. A model the table does not know is taken as a newer one.
    const modelTakesIt = !model || modelFacts(model)?.toolSearch !== false;
    const defer = options.loading === 'defer' || (options.loading === 'auto' && modelTakesIt && (!provider || (DEFERRING_PROVIDERS as readonly string[]).includes(provider)));
    if (!defer) return;
    kernel.tools.register(createToolSearchTool((k) => deferredByKernel.get(k) ?? []), 'tools/tool-search');
    // One deferred copy per definition object, and one ToolSearch definition per list of names:
    // the same bytes and the same objects request after request (what the cache memos key on).
    const copies = new WeakMap<ToolDefinition, ToolDefinition>();
    let search: { key: string; def: ToolDefinition; from: ToolDefinition } | undefined;
    // The last list of definitions this tap was given and what it returned: a session mostly sends
    // the same definitions every request, and then gets the same list again (a fresh array: a later
    // tap may change it) without its definitions being looked at one by one.
    let lastIn: readonly ToolDefinition[] = [];
    let lastOut: readonly ToolDefinition[] = [];
    // Late, after the taps that filter or rewrite definitions (permissions, sanitize, sorting).
    kernel.hooks.toolDefinitions.tap({ name: 'tools/tool-search', stage: 100 }, (tools) => {
      if (tools.length === lastIn.length && tools.every((t, i) => t === lastIn[i])) return lastOut.slice();
      lastIn = tools.slice();
      lastOut = deferTools(tools);
      return lastOut.slice();
    });
    const deferTools = (tools: ToolDefinition[]): ToolDefinition[] => {
      const deferred: ToolDefinition[] = [];
      const out = tools.map((t) => {
        if (t.name === TOOL_SEARCH_NAME || !matchesDeferred(t.name, options.defer)) return t;
        let copy = copies.get(t);
        if (!copy) { copy = Object.freeze({ ...t, defer_loading: true }) as ToolDefinition; copies.set(t, copy); }
        deferred.push(copy);
        return copy;
      });
      deferredByKernel.set(kernel, deferred);
      const names = deferred.map((d) => d.name);
      const key = names.join('\0');
      const i = out.findIndex((t) => t.name === TOOL_SEARCH_NAME);
      if (i === -1) return out;
      // Nothing deferred (all filtered out, or none listed): no ToolSearch either.
      if (!names.length) return out.filter((_, j) => j !== i);
      if (!search || search.key !== key || search.from !== out[i]) {
        search = { key, from: out[i]!, def: Object.freeze({ ...out[i]!, description: toolSearchDescription(names) }) as ToolDefinition };
      }
      out[i] = search.def;
      return out;
    };
  },
});
