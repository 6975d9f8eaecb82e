/** Plugins: a name, a zod schema for options (validated at load), and `apply(kernel, options)`. */
import { z } from 'zod';
import type { Kernel, KernelPreset } from './kernel.js';
import type { ModelProvider } from './model/provider.js';

// A zod 3 forced past the peer dependency would fail much later, inside zod: say so at load.
if ((z.string() as { _zod?: unknown })._zod === undefined) {
  throw new Error('rein needs zod 4 (its peer dependency zod@^4.2), but the zod it loaded is zod 3: install zod 4 where rein is installed (npm install zod@^4); code of your own can keep zod 3, or import zod 4 from \'zod/v4\' with zod 3.25');
}

export interface Plugin<S extends z.ZodType = z.ZodType> {
  /** Unique name; built-ins use their folder under `plugins/`. */
  name: string;
  /** One line for `rein hooks` and the preset reference. */
  description?: string;
  /** Zod schema of the options (agent.schema.json is generated from it). */
  options: S;
  /** Plugins that must also be loaded (checked after all plugins are applied). */
  requires?: string[];
  /** Plugins that must not be loaded together with this one. */
  conflicts?: string[];
  /** Checks a schema cannot make (a named file exists); each problem at a path inside the options. Run before `apply`. */
  check?(options: z.output<S>, context: PluginCheckContext): PluginProblem[];
  /** Model providers by the name `model.provider` selects; the chosen one's `create` runs before any `apply`. */
  providers?: Readonly<Record<string, ModelProvider<z.output<S>>>>;
  /** Taps hooks, registers tools. May be async (connecting to an MCP server, say). */
  apply(kernel: Kernel, options: z.output<S>): void | Promise<void>;
}

/** What `Plugin.check` sees besides the options. */
export interface PluginCheckContext {
  /** The whole preset, as loaded. */
  preset: KernelPreset;
  /** The directory the preset's relative paths resolve against. */
  presetDir: string;
}

/** One problem `Plugin.check` found: where in the options (empty: the options as a whole) and what. */
export interface PluginProblem {
  path: (string | number)[];
  message: string;
}

/** Defines a plugin (no `options`: an empty strict object). Throws PluginError for a zod 3 schema. */
export function definePlugin<S extends z.ZodType = z.ZodObject<Record<string, never>>>(
  plugin: Omit<Plugin<S>, 'options'> & { options?: S },
): Plugin<S> {
  const options = (plugin.options ?? z.object({}).strict()) as S;
  const old = zod3Problem(options, `plugin ${plugin.name}: options`);
  if (old) throw new PluginError(plugin.name, old);
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

/**
 * Why `schema` cannot be used, when it is zod 3's (`_def` without `_zod`); undefined otherwise.
 * @param what names the schema in the message (`plugin word-count: options`).
 */
export function zod3Problem(schema: unknown, what: string): string | undefined {
  const s = schema as { _zod?: unknown; _def?: unknown } | null;
  if (!s || typeof s !== 'object' || s._zod !== undefined || s._def === undefined) return undefined;
  return `${what}: the schema was made with zod 3, and rein's plugin API needs zod 4 (its peer dependency zod@^4.2); install zod 4 where the plugin is (npm install zod@^4), or with zod 3.25 import { z } from 'zod/v4'`;
}

/** Validates `raw` against the plugin's schema; throws PluginError naming each bad field. */
export function parsePluginOptions<S extends z.ZodType>(plugin: Plugin<S>, raw: unknown): z.output<S> {
  const old = zod3Problem(plugin.options, `plugin ${plugin.name}: options`);
  if (old) throw new PluginError(plugin.name, old);
  const parsed = plugin.options.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(options)'}: ${i.message}`);
  throw new PluginError(plugin.name, `plugin ${plugin.name}: invalid options: ${lines.join('; ')}`, parsed.error.issues);
}

/** Checks `requires` and `conflicts`; throws PluginError on the first problem. */
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
