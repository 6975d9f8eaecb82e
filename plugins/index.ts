/**
 * The built-in plugin registry: plugin name → lazy import of its module. Names are the plugin folders
 * under `plugins/`. Loading is lazy so a preset pays only for the plugins it lists.
 */
import type { Plugin } from '../kernel/plugin.js';

type Loader = () => Promise<Plugin>;

/** Every built-in plugin by name. */
export const BUILTIN_PLUGINS: Record<string, Loader> = {
  retry: async () => (await import('./retry/index.js')).default,
};

/**
 * Built-in tools by the name the model calls them → the plugin that registers them. The preset's
 * `tools:` list is resolved through this map.
 */
export const TOOL_PLUGINS: Record<string, string> = {};
