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

/**
 * Options objects that are the output of a plugin options schema's own successful parse, with that
 * schema. Weak: an entry lives as long as the options object does.
 */
const parsedBy = new WeakMap<object, z.ZodType>();

/**
 * `plugin.options.safeParse(raw ?? {})`, remembering a successful object output: handed to
 * `parsePluginOptions` for the same plugin (the preset loader validates a preset's plugin options
 * first, to report problems at their preset lines, and the kernel loads the plugins with its
 * output), it is used as it is instead of being parsed a second time. A schema's output is not
 * always valid input for it (a transform), and a first parse of a schema is the costly one at
 * start-up. Throws only what the schema itself throws (zod 3 schemas: see zod3Problem).
 */
export function safeParsePluginOptions<S extends z.ZodType>(plugin: Plugin<S>, raw: unknown): z.ZodSafeParseResult<z.output<S>> {
  const parsed = plugin.options.safeParse(raw ?? {});
  if (parsed.success && parsed.data !== null && typeof parsed.data === 'object') parsedBy.set(parsed.data, plugin.options);
  return parsed;
}

/**
 * Validates `raw` against the plugin's schema; throws PluginError naming each bad field. `raw` that
 * `safeParsePluginOptions` produced with this plugin's schema is returned as it is.
 */
export function parsePluginOptions<S extends z.ZodType>(plugin: Plugin<S>, raw: unknown): z.output<S> {
  const old = zod3Problem(plugin.options, `plugin ${plugin.name}: options`);
  if (old) throw new PluginError(plugin.name, old);
  if (raw !== null && typeof raw === 'object' && parsedBy.get(raw) === plugin.options) return raw as z.output<S>;
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
