/**
 * Plugins: a name, a zod schema for options, and `apply(kernel, options)` that taps hooks and
 * registers tools. Options are validated when the plugin is loaded, so a bad preset fails before the
 * first request.
 */
import { z } from 'zod';
import type { Kernel, KernelPreset } from './kernel.js';
import type { ModelProvider } from './model/provider.js';

// rein is written against zod 4; a project that forced zod 3 on it (npm --legacy-peer-deps or
// --force past the peer dependency) would fail much later, inside zod. Say so when rein loads.
if ((z.string() as { _zod?: unknown })._zod === undefined) {
  throw new Error('rein needs zod 4 (its peer dependency zod@^4.2), but the zod it loaded is zod 3: install zod 4 where rein is installed (npm install zod@^4); code of your own can keep zod 3, or import zod 4 from \'zod/v4\' with zod 3.25');
}

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
   * Checks the options schema cannot make: a file they name exists, another preset key allows
   * them, a compaction threshold fits the model's window. Returns the problems, each at a path
   * inside the options. The preset loader calls it after the options parse, so `rein preset
   * validate` and `rein run` report the same problems at the option's file:line:column;
   * `Kernel.use` calls it before `apply` for presets built in code.
   */
  check?(options: z.output<S>, context: PluginCheckContext): PluginProblem[];
  /**
   * Model providers this plugin adds, by the name `model.provider` selects them with. The chosen
   * one's `create` runs before any plugin is applied (the kernel needs its client), with this
   * plugin's parsed options. A name may not be a built-in's (`anthropic`, `simulator`) or another
   * loaded plugin's.
   */
  providers?: Readonly<Record<string, ModelProvider<z.output<S>>>>;
  /** Taps hooks, registers tools. May be async (connecting to an MCP server, say). */
  apply(kernel: Kernel, options: z.output<S>): void | Promise<void>;
}

/** What `Plugin.check` sees besides the options. */
export interface PluginCheckContext {
  /** The whole preset, as loaded. */
  preset: KernelPreset;
  /** The directory relative paths in the preset are resolved against (the kernel's `presetDir`). */
  presetDir: string;
}

/** One problem `Plugin.check` found: where in the options (empty: the options as a whole) and what. */
export interface PluginProblem {
  path: (string | number)[];
  message: string;
}

/**
 * Defines a plugin. A plugin with no options may omit `options` (an empty strict object is used).
 * Throws PluginError when `options` is a zod 3 schema (zod3Problem).
 */
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
 * Why `schema` cannot be used by rein, when it is a zod 3 schema (it has zod 3's `_def` and not
 * zod 4's `_zod`); undefined otherwise. rein's plugin API is zod 4: `zod` is a peer dependency
 * (`^4.2`, the first release whose metadata registry is shared between copies of zod), and a
 * zod 3 schema would only fail later, when its JSON Schema is generated for a request.
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
