/**
 * The strategy configurations the benchmark compares, as plugin lists (name → options) resolved
 * through the built-in registry. `default` is the context-management part of rein's default preset.
 */
import type { Plugin } from '../../kernel/plugin.js';
import { BUILTIN_PLUGINS } from '../../agent/plugins.js';

export type PluginList = [name: string, options: Record<string, unknown>][];

/** The context plugins of the default preset. */
export const DEFAULT_CONTEXT_PLUGINS: PluginList = [
  ['system-prompt', {}],
  ['memory-files', {}],
  ['compaction/microcompact', { trigger: 'idle' }],
  ['compaction/auto', {}],
  ['cache/breakpoints', { layout: 'tools+system+tail', ttl: '5m' }],
  ['cache/break-detector', {}],
];

/** Every configuration the strategy benchmark runs, by name. */
export const STRATEGIES: Record<string, PluginList> = {
  /** No markers, no compaction: the baseline everything is compared with. */
  'none': [['system-prompt', {}], ['memory-files', {}], ['cache/break-detector', {}]],
  'default': DEFAULT_CONTEXT_PLUGINS,
  'default + cached-prefix summary': DEFAULT_CONTEXT_PLUGINS.map(([n, o]) => [n, n === 'compaction/auto' ? { ...o, summaryRequest: 'cached-prefix' } : o]),
  'auto only (no markers)': [['system-prompt', {}], ['memory-files', {}], ['compaction/auto', {}], ['cache/breakpoints', { layout: 'none' }], ['cache/break-detector', {}]],
  'markers: system only': [['system-prompt', {}], ['memory-files', {}], ['compaction/auto', {}], ['cache/breakpoints', { layout: 'system' }], ['cache/break-detector', {}]],
  'markers: auto': [['system-prompt', {}], ['memory-files', {}], ['compaction/auto', {}], ['cache/breakpoints', { layout: 'auto' }], ['cache/break-detector', {}]],
  'markers: two-tail': [['system-prompt', {}], ['memory-files', {}], ['compaction/auto', {}], ['cache/breakpoints', { layout: 'two-tail' }], ['cache/break-detector', {}]],
  'TTL 1h': [['system-prompt', {}], ['memory-files', {}], ['compaction/auto', {}], ['cache/breakpoints', { ttl: '1h' }], ['cache/break-detector', {}]],
  'microcompact by count': [['system-prompt', {}], ['memory-files', {}], ['compaction/microcompact', { trigger: 'count', countTrigger: 30, keepRecent: 10 }], ['compaction/auto', {}], ['cache/breakpoints', {}], ['cache/break-detector', {}]],
  'snip': [['system-prompt', {}], ['memory-files', {}], ['compaction/snip', {}], ['cache/breakpoints', {}], ['cache/break-detector', {}]],
  // The defaults (180k) sit above the auto-compaction threshold and would never fire here.
  'context edits at 100k': [['system-prompt', {}], ['memory-files', {}], ['compaction/context-edits', { clearToolUses: { triggerTokens: 100_000, targetTokens: 40_000 } }], ['compaction/auto', {}], ['cache/breakpoints', {}], ['cache/break-detector', {}]],
};

/** Loads a plugin list through the built-in registry. Throws for an unknown name. */
export async function loadPlugins(list: PluginList, overrides: Record<string, Record<string, unknown>> = {}): Promise<{ plugin: Plugin; options: unknown }[]> {
  const out: { plugin: Plugin; options: unknown }[] = [];
  for (const [name, options] of list) {
    const load = BUILTIN_PLUGINS[name];
    if (!load) throw new Error(`no built-in plugin ${name}`);
    out.push({ plugin: await load(), options: { ...options, ...(overrides[name] ?? {}) } });
  }
  return out;
}
