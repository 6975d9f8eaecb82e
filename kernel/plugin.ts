/**
 * Plugins: a name, a zod schema for options, and `apply(kernel, options)` that taps hooks and
 * registers tools. Options are validated when the plugin is loaded, so a bad preset fails before the
 * first request.
 */
import { z } from 'zod';
import type { Kernel, KernelPreset } from './kernel.js';

export interface Plugin<S extends z.ZodType = z.ZodType> {
  /** Unique name; built-ins use their folder under `plugins/` (`compaction/auto`). */
  name: string;
  /** One line for `rein hooks` and the preset reference. */
  description?: string;
  /** Zod schema of the options object; its JSON Schema goes into agent.schema.json. */
  options: S;
  /** Plugins that must also be loaded (checked after all plugins are applied). */
  requires?: string[];
  /** Plugins that must not be loaded together with this one. */
  conflicts?: string[];
  /**
   * Checks the options against the rest of the preset, for what the schema alone cannot say (a
   * compaction threshold against the model's window). Each problem names a path inside the options;
   * the preset loader reports it at that option's file:line:column. Called after the options parse.
   */
  checkPreset?(options: z.output<S>, preset: KernelPreset): PluginOptionProblem[];
  /** Taps hooks, registers tools. May be async (connecting to an MCP server, say). */
  apply(kernel: Kernel, options: z.output<S>): void | Promise<void>;
}

/** A problem `checkPreset` found: the option's path inside the plugin's options, and what is wrong. */
export interface PluginOptionProblem {
  path: (string | number)[];
  message: string;
}

/** Defines a plugin. A plugin with no options may omit `options` (an empty strict object is used). */
export function definePlugin<S extends z.ZodType = z.ZodObject<Record<string, never>>>(
  plugin: Omit<Plugin<S>, 'options'> & { options?: S },
): Plugin<S> {
  const options = (plugin.options ?? z.object({}).strict()) as S;
  return Object.freeze({ ...plugin, options });
}

/** Thrown when a plugin cannot be loaded: bad options, missing dependency, conflict, or `apply` threw. */
export class PluginError extends Error {
  constructor(
    readonly plugin: string,
    message: string,
    /** For bad options: the zod issues, with their paths inside the options object. */
    readonly issues?: z.core.$ZodIssue[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PluginError';
  }
}

/** Validates `raw` against the plugin's schema; throws PluginError naming each bad field. */
export function parsePluginOptions<S extends z.ZodType>(plugin: Plugin<S>, raw: unknown): z.output<S> {
  const parsed = plugin.options.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(options)'}: ${i.message}`);
  throw new PluginError(plugin.name, `plugin ${plugin.name}: invalid options: ${lines.join('; ')}`, parsed.error.issues);
}

/** Checks `requires` and `conflicts` across a set of loaded plugin names; throws PluginError on the first problem. */
export function checkPluginRelations(plugins: readonly Plugin[]): void {
  const names = new Set(plugins.map((p) => p.name));
  for (const p of plugins) {
    for (const r of p.requires ?? []) {
      if (!names.has(r)) throw new PluginError(p.name, `plugin ${p.name} requires plugin ${r}, which is not loaded`);
    }
    for (const c of p.conflicts ?? []) {
      if (names.has(c)) throw new PluginError(p.name, `plugin ${p.name} conflicts with plugin ${c}; load only one of them`);
    }
  }
}
