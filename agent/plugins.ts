/**
 * The built-in plugin registry: plugin name → lazy import of its module. Names are the plugin folders
 * under `plugins/`. Loading is lazy so a preset pays only for the plugins it lists.
 */
import type { z } from 'zod';
import type { Plugin } from '../kernel/plugin.js';

type Loader = () => Promise<Plugin>;

const loaders = {
  retry: async () => (await import('../plugins/retry/index.js')).default,
  'max-output-tokens': async () => (await import('../plugins/max-output-tokens/index.js')).default,
  printer: async () => (await import('../plugins/printer/index.js')).default,
  'structured-output': async () => (await import('../plugins/structured-output/index.js')).default,
  'tools/task': async () => (await import('../plugins/tools/task/index.js')).default,
  'tools/skill': async () => (await import('../plugins/tools/skill/index.js')).default,
  'tools/mcp': async () => (await import('../plugins/tools/mcp/index.js')).default,
  'tools/todo-write': async () => (await import('../plugins/tools/todo-write/index.js')).default,
  'tools/web-fetch': async () => (await import('../plugins/tools/web-fetch/index.js')).default,
  'tools/read': async () => (await import('../plugins/tools/read/index.js')).default,
  'tools/write': async () => (await import('../plugins/tools/write/index.js')).default,
  'tools/edit': async () => (await import('../plugins/tools/edit/index.js')).default,
  'tools/glob': async () => (await import('../plugins/tools/glob/index.js')).default,
  'tools/grep': async () => (await import('../plugins/tools/grep/index.js')).default,
  'tools/bash': async () => (await import('../plugins/tools/bash/index.js')).default,
  'tools/tool-search': async () => (await import('../plugins/tools/tool-search/index.js')).default,
  'tool-result-budget': async () => (await import('../plugins/tool-result-budget/index.js')).default,
  'tool-concurrency': async () => (await import('../plugins/tool-concurrency/index.js')).default,
  permissions: async () => (await import('../plugins/permissions/index.js')).default,
  'permissions/default': async () => (await import('../plugins/permissions/default/index.js')).default,
  'permissions/acceptEdits': async () => (await import('../plugins/permissions/acceptEdits/index.js')).default,
  'permissions/plan': async () => (await import('../plugins/permissions/plan/index.js')).default,
  'permissions/dontAsk': async () => (await import('../plugins/permissions/dontAsk/index.js')).default,
  'permissions/bypassPermissions': async () => (await import('../plugins/permissions/bypassPermissions/index.js')).default,
  'permissions/prompt-tool': async () => (await import('../plugins/permissions/prompt-tool/index.js')).default,
  classifier: async () => (await import('../plugins/permissions/classifier/index.js')).default,
  'hooks/shell': async () => (await import('../plugins/hooks/shell/index.js')).default,
  'sandbox/bubblewrap': async () => (await import('../plugins/sandbox/bubblewrap/index.js')).default,
  sanitize: async () => (await import('../plugins/sanitize/index.js')).default,
  'subprocess-env-scrub': async () => (await import('../plugins/subprocess-env-scrub/index.js')).default,
  'system-prompt': async () => (await import('../plugins/system-prompt/index.js')).default,
  'memory-files': async () => (await import('../plugins/memory-files/index.js')).default,
  'compaction/auto': async () => (await import('../plugins/compaction/auto/index.js')).default,
  'compaction/microcompact': async () => (await import('../plugins/compaction/microcompact/index.js')).default,
  'compaction/snip': async () => (await import('../plugins/compaction/snip/index.js')).default,
  'compaction/context-edits': async () => (await import('../plugins/compaction/context-edits/index.js')).default,
  'compaction/dedup': async () => (await import('../plugins/compaction/dedup/index.js')).default,
  'cache/breakpoints': async () => (await import('../plugins/cache/breakpoints/index.js')).default,
  'cache/break-detector': async () => (await import('../plugins/cache/break-detector/index.js')).default,
  'cache/keepalive': async () => (await import('../plugins/cache/keepalive/index.js')).default,
  'cache/ttl': async () => (await import('../plugins/cache/ttl/index.js')).default,
  'final-answer': async () => (await import('../plugins/final-answer/index.js')).default,
} satisfies Record<string, Loader>;

/** Every built-in plugin by name. */
export const BUILTIN_PLUGINS: Record<string, Loader> = loaders;

/**
 * The options of each built-in plugin as a preset writes them: the input type of the plugin's own
 * zod schema (the schema agent.schema.json is generated from), by plugin name.
 */
export type BuiltinPluginOptions = { [K in keyof typeof loaders]: z.input<Awaited<ReturnType<(typeof loaders)[K]>>['options']> };

/**
 * Built-in tools by the name the model calls them → the plugin that registers them. The preset's
 * `tools:` list is resolved through this map.
 */
export const TOOL_PLUGINS: Record<string, string> = {
  Read: 'tools/read',
  Write: 'tools/write',
  Edit: 'tools/edit',
  Glob: 'tools/glob',
  Grep: 'tools/grep',
  Bash: 'tools/bash',
  // Background shells come with Bash (its `background` option); listing them is allowed and explicit.
  BashOutput: 'tools/bash',
  KillShell: 'tools/bash',
  TodoWrite: 'tools/todo-write',
  WebFetch: 'tools/web-fetch',
  'mcp__*': 'tools/mcp',
  Task: 'tools/task',
  Skill: 'tools/skill',
  ToolSearch: 'tools/tool-search',
};

/** Listed plugins loaded first, before the tools and the rest (see impliedPlugins). */
const EARLY_PLUGINS: readonly string[] = ['subprocess-env-scrub'];

/** A preset as far as plugin selection reads it. */
interface PluginSelection {
  tools?: string[];
  plugins?: Record<string, unknown>;
  mcpServers?: Record<string, unknown>;
  subagents?: Record<string, unknown>;
  agents?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * One plugin a preset loads. Its options are the `implied` ones, what the preset's other keys
 * say (`hooks` for `hooks/shell`, `autoMode` for `classifier`, `{servers: mcpServers}` for
 * `tools/mcp`), with the `listed` ones (its `plugins:` entry) merged over them by the preset merge
 * rules (agent/preset/merge.ts: objects deeply, `autoMode` lists unioned, other lists and scalars
 * replaced). The preset loader does the merge, so it can say where each value came from.
 */
export interface WantedPlugin {
  name: string;
  /** The options the preset's other keys imply (`{}` when none). */
  implied: unknown;
  /**
   * Where the implied options are written in the preset: the key (`hooks`, `autoMode`,
   * `mcpServers`, `subagents`) and, when the options hold it under a name, that name (`servers`,
   * `presets`).
   */
  impliedFrom?: { key: string; as?: string };
  /** The `plugins:` entry (`{}` for `true` or an empty value); undefined when not listed. */
  listed?: unknown;
  /** Where it was asked for: `plugins.<name>` when listed, else `tools[2]`, `mcpServers`, `permissions.mode`, `hooks`, `built-in`. */
  origin: string;
}

/**
 * The plugins a preset loads, in load order: the built-ins its keys imply (`retry` and `max-output-tokens` always,
 * `tool-result-budget` and `tool-concurrency` with tools, one
 * plugin per entry of `tools`, the MCP plugin for `mcpServers`, the Task tool for `subagents`, the
 * permission and hook plugins for `permissions` / `hooks`), then every entry of `plugins` that is
 * not `false`. An implied plugin
 * that `plugins` also lists keeps its place and gets both sets of options (see WantedPlugin);
 * `plugins: { retry: false }` switches an implied one off.
 */
export function impliedPlugins(preset: PluginSelection): WantedPlugin[] {
  const listed = preset.plugins ?? {};
  const out: WantedPlugin[] = [];
  const seen = new Set<string>();
  const add = (name: string, implied: unknown, origin: string, impliedFrom?: WantedPlugin['impliedFrom']) => {
    if (seen.has(name)) return;
    seen.add(name);
    const own = listed[name];
    if (own === false) return;
    const entry: WantedPlugin = { name, implied, origin: own !== undefined ? `plugins.${name}` : origin };
    if (impliedFrom) entry.impliedFrom = impliedFrom;
    if (own !== undefined) entry.listed = own === true || own === null ? {} : own;
    out.push(entry);
  };
  add('retry', {}, 'built-in');
  add('max-output-tokens', {}, 'built-in');
  // Plugins that shape every child process come before anything that may start one while it loads
  // (MCP servers connect, the system prompt runs git).
  for (const name of EARLY_PLUGINS) if (listed[name] !== undefined && listed[name] !== false) add(name, {}, `plugins.${name}`);
  // The per-message tool-result budget and parallel batches matter only when there are tools;
  // `plugins: { tool-result-budget: false }` (or `tool-concurrency: false`) turns one off.
  if (preset.tools?.length || (preset.mcpServers && Object.keys(preset.mcpServers).length)) {
    add('tool-result-budget', {}, 'built-in');
    add('tool-concurrency', {}, 'built-in');
  }
  // `subagents` are agent kinds for the Task tool (its `presets` option), and bring the tool with them.
  // `agents` are inline agent kinds (its `agents` option), and bring the tool too.
  const subagents = preset.subagents && typeof preset.subagents === 'object' && Object.keys(preset.subagents).length ? preset.subagents : undefined;
  const agents = preset.agents && typeof preset.agents === 'object' && Object.keys(preset.agents).length ? preset.agents : undefined;
  const task = TOOL_PLUGINS.Task!;
  const taskImplied = { ...(subagents ? { presets: subagents } : {}), ...(agents ? { agents } : {}) };
  const taskFrom = agents ? { key: 'agents', as: 'agents' } : { key: 'subagents', as: 'presets' };
  for (const [i, tool] of (preset.tools ?? []).entries()) {
    const plugin = TOOL_PLUGINS[tool];
    // An unknown tool name is left to the preset validator, which names the line; here it is skipped.
    if (plugin === task && (subagents || agents)) add(plugin, taskImplied, `tools[${i}]`, taskFrom);
    else if (plugin) add(plugin, {}, `tools[${i}]`);
  }
  if (preset.mcpServers && Object.keys(preset.mcpServers).length && TOOL_PLUGINS['mcp__*']) {
    add(TOOL_PLUGINS['mcp__*'], { servers: preset.mcpServers }, 'mcpServers', { key: 'mcpServers', as: 'servers' });
  }
  if (subagents || agents) add(task, taskImplied, agents ? 'agents' : 'subagents', taskFrom);
  for (const [name, options, origin, from] of policyPlugins(preset)) add(name, options, origin, from);
  for (const name of Object.keys(listed)) add(name, {}, `plugins.${name}`);
  return out;
}

/**
 * Permission and hook plugins implied by `permissions`, `autoMode` and `hooks`: [name, implied
 * options, origin, where the options come from].
 * Always the rules engine (`permissions`) and the mode's plugin (`permissions/<mode>`, or
 * `classifier` for `auto`, which takes the preset's `autoMode` as options); `sanitize` for the
 * trust boundaries (MCP results, fetched pages); `hooks/shell` when `hooks` has any entry.
 */
export function policyPlugins(preset: PluginSelection): [string, unknown, string, WantedPlugin['impliedFrom']?][] {
  const permissions = (preset.permissions ?? {}) as { mode?: string };
  const mode = permissions.mode ?? 'default';
  const out: [string, unknown, string, WantedPlugin['impliedFrom']?][] = [['permissions', {}, 'permissions']];
  if (mode === 'auto') out.push(['classifier', preset.autoMode ?? {}, 'permissions.mode', { key: 'autoMode' }]);
  else out.push([`permissions/${mode}`, {}, permissions.mode ? 'permissions.mode' : 'permissions (default mode)']);
  out.push(['sanitize', {}, 'built-in']);
  const hooks = (preset.hooks ?? {}) as Record<string, unknown[] | undefined>;
  if (Object.values(hooks).some((groups) => Array.isArray(groups) && groups.length > 0)) out.push(['hooks/shell', hooks, 'hooks', { key: 'hooks' }]);
  return out;
}
