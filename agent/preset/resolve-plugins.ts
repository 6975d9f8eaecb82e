/**
 * From a preset's `plugins:` names to Plugin objects with validated options.
 *
 * A plugin name is one of:
 * - a built-in name (`compaction/auto`, `retry`): agent/plugins.ts BUILTIN_PLUGINS,
 * - a file (`./my-policy.ts`, `/abs/x.js`, `~/x.ts`): imported with jiti, so TypeScript works as is,
 * - an npm package name (`rein-plugin-x`, `@org/x`), resolved from the preset's directory.
 *
 * The module's default export, or its named export `plugin`, must be a plugin (definePlugin).
 * Every failure names the plugin and the preset line that asked for it.
 */
import { accessSync, constants, existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { safeParsePluginOptions, zod3Problem, type Plugin } from '../../kernel/plugin.js';
import { BUILTIN_PLUGINS, impliedPlugins, type WantedPlugin } from '../plugins.js';
import { DiagnosticSink, keyPath, type KeyPath, type SourcePos } from './errors.js';
import { findOrigin, isPlainObject, mergeLayers, type Origin } from './merge.js';
import { isPluginPath, reinRoot, resolvePresetPath } from './paths.js';
import { closest, didYouMean } from './suggest.js';
import type { Preset } from './schema.js';
import { importExternal } from '../../lib/node/import-external.js';

/** A plugin could not be resolved or imported. `message` names the plugin. */
export class PluginResolveError extends Error {
  constructor(readonly spec: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PluginResolveError';
  }
}

/** A module in Node's CommonJS cache (`require.cache`), which jiti fills as it loads. */
interface CachedModule { filename?: string; children?: CachedModule[] }

let jitiInstance: {
  import<T>(id: string): Promise<T>;
  esmResolve(id: string, opts: { parentURL: string; try: true }): string | undefined;
  /** Node's module cache, shared with jiti (its `moduleCache` option, on by default). */
  cache: Record<string, CachedModule | undefined>;
} | undefined;

async function jiti() {
  if (!jitiInstance) {
    const { createJiti } = await importExternal<typeof import('jiti')>('jiti');
    jitiInstance = createJiti(import.meta.url, { alias: pluginAliases(), fsCache: transformCacheDir() }) as unknown as typeof jitiInstance;
  }
  return jitiInstance!;
}

/**
 * Where jiti keeps the JavaScript it compiled plugin files (and what they import) to:
 * `node_modules/.cache/jiti` in rein's folder when it can be written there (a clone, a user's own
 * install), as build tools keep their caches; otherwise jiti's default (`<tmpdir>/jiti`). Each run
 * then compiles only the files that changed.
 */
function transformCacheDir(): string | true {
  const modules = join(reinRoot(), 'node_modules');
  try {
    accessSync(modules, constants.W_OK);
    return join(modules, '.cache', 'jiti');
  } catch {
    return true;
  }
}

/** A package.json `exports` field as subpath → entry (`{ ".": ... }` for the sugar forms), without patterns. */
function subpathExports(exports: unknown): Record<string, unknown> {
  const bySubpath = !!exports && typeof exports === 'object' && !Array.isArray(exports) && Object.keys(exports).some((k) => k.startsWith('.'));
  if (!bySubpath) return exports === undefined ? {} : { '.': exports };
  return Object.fromEntries(Object.entries(exports as Record<string, unknown>).filter(([k]) => !k.includes('*') && k !== './package.json'));
}

/** The file an `exports` entry names for `require` or by default (what jiti loads). */
function exportTarget(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  if (!entry || typeof entry !== 'object') return undefined;
  const e = entry as Record<string, unknown>;
  for (const condition of ['require', 'node', 'default', 'import']) {
    const t = exportTarget(e[condition]);
    if (t) return t;
  }
  return undefined;
}

/**
 * What `rein` (and `rein/<subpath>`) and `zod` (and its subpaths) mean in a plugin file: this copy
 * of rein and the zod it resolves. A plugin then gets the rein that loads it, also where neither
 * package is installed beside the plugin (rein on PATH through `npm link` or a global install).
 * Run from the TypeScript sources (tests), `rein` is the sources.
 */
export function pluginAliases(): Record<string, string> {
  const root = reinRoot();
  const aliases: Record<string, string> = {};
  const fromSource = import.meta.url.endsWith('.ts');
  const req = createRequire(join(root, 'package.json'));
  let exports: unknown;
  try {
    exports = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports?: unknown }).exports;
  } catch {
    return aliases;
  }
  for (const [key, entry] of Object.entries(subpathExports(exports))) {
    const target = exportTarget(entry);
    if (!target) continue;
    const file = join(root, target);
    // dist/kernel/index.js was compiled from kernel/index.ts.
    const source = /^\.\/dist\/.*\.js$/.test(target) ? join(root, target.slice('./dist/'.length).replace(/\.js$/, '.ts')) : file;
    aliases[`rein${key.slice(1)}`] = fromSource && existsSync(source) ? source : file;
  }
  try {
    const zodManifest = req.resolve('zod/package.json');
    for (const key of Object.keys(subpathExports((JSON.parse(readFileSync(zodManifest, 'utf8')) as { exports?: unknown }).exports))) {
      const spec = `zod${key.slice(1)}`;
      try {
        aliases[spec] = req.resolve(spec);
      } catch {
        // Not a subpath `require` can load.
      }
    }
  } catch {
    // No zod where rein is: plugins resolve their own.
  }
  return aliases;
}

/** True when `x` has the shape of a Plugin (name, zod options, apply). */
export function isPlugin(x: unknown): x is Plugin {
  const p = x as Partial<Plugin> | null;
  return !!p && typeof p === 'object' && typeof p.name === 'string' && typeof p.apply === 'function'
    && !!p.options && typeof (p.options as { safeParse?: unknown }).safeParse === 'function';
}

function pickExport(spec: string, mod: unknown): Plugin {
  const m = mod as Record<string, unknown> | null;
  for (const candidate of [m?.default, m?.plugin, (m?.default as Record<string, unknown> | undefined)?.default, m]) {
    if (isPlugin(candidate)) return candidate;
  }
  throw new PluginResolveError(spec, `plugin "${spec}" does not export a plugin: expected a default export or an export named "plugin" made with definePlugin({ name, options, apply })`);
}

/**
 * The first line of an error's message, for a one-line report. jiti puts the position of a syntax
 * error (`/abs/file.ts:1:16`) on a line of its own after the parser's message: it is kept, first,
 * as `<position>: <message>`, so the user learns where the mistake is.
 */
function firstLine(err: unknown): string {
  const lines = String((err as Error)?.message ?? err).split('\n');
  const first = lines[0]!.trimEnd();
  // jiti puts where a syntax error is (`/abs/file.ts:4:1`) on a line of its own after the message.
  const at = lines.slice(1).map((l) => l.trim()).find((l) => /^\/.*:\d+:\d+$/.test(l));
  return at ? `${at}: ${first.replace(/^(ParseError|SyntaxError): /, '')}` : first;
}

const cache = new Map<string, Promise<Plugin>>();

/**
 * The files of a plugin's code that rein runs: what a later write must not change without asking
 * (plugins/permissions). `entry` is the file the plugin name leads to (and its real path when
 * that differs), `files` the other modules loaded with it, `dirs` folders whose every file counts
 * (see importWithGraph). Absolute paths.
 */
export interface PluginCode { entry: string[]; files: string[]; dirs: string[] }

const codeOf = new WeakMap<Plugin, PluginCode>();

/** The code files of a plugin loaded from a file or a package (undefined for a built-in). */
export function pluginCode(plugin: Plugin): PluginCode | undefined {
  return codeOf.get(plugin);
}

/** `file` and its real path (a plugin reached through a symbolic link is both). */
function bothForms(file: string): string[] {
  try {
    const real = realpathSync(file);
    return real === file ? [file] : [file, real];
  } catch {
    return [file];
  }
}

/**
 * The folder of the package `file` belongs to: below the last `node_modules/` the package's own
 * folder (`node_modules/@org/x`), else the nearest folder above it with a package.json.
 */
function packageDir(file: string): string {
  const m = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file);
  if (m) return m[1]!;
  let dir = dirname(file);
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return existsSync(join(dir, 'package.json')) ? dir : dirname(file);
}

/**
 * Imports `file` with jiti and says which files were loaded with it.
 *
 * The module graph comes from the loader itself, not from reading import statements: jiti keeps
 * every module it compiles (TypeScript, and JavaScript it turns into CommonJS) and every CommonJS
 * file Node loads for it in Node's module cache, each with its `children`. The files that enter
 * the cache during the import, plus those reachable from the entry's cache record (when an earlier
 * plugin loaded them first), are the graph; `node_modules` files a plugin pulls in are among them.
 * What jiti hands to Node's own `import()` (an `.mjs` file, a `.js` one under `"type": "module"`)
 * leaves no record there, nor does what it imports: when the entry itself is such a module its
 * folder is protected whole instead (the graph cannot be known), and a plugin from a package is
 * protected by its whole package folder as well, since any of its files may be loaded that way.
 */
async function importWithGraph(j: NonNullable<typeof jitiInstance>, file: string, fromPackage: boolean): Promise<{ mod: unknown; code: PluginCode }> {
  const before = new Set(Object.keys(j.cache));
  const mod = await j.import(file);
  const entry = bothForms(file);
  const files = new Set<string>(entry);
  for (const key of Object.keys(j.cache)) if (!before.has(key)) files.add(key);
  const stack = [...files].map((f) => j.cache[f]).filter((m): m is CachedModule => m !== undefined);
  while (stack.length) {
    const m = stack.pop()!;
    for (const c of m.children ?? []) {
      if (c.filename && !files.has(c.filename)) {
        files.add(c.filename);
        stack.push(c);
      }
    }
  }
  const dirs: string[] = [];
  if (fromPackage) dirs.push(...bothForms(file).map(packageDir));
  else if (!bothForms(file).some((f) => j.cache[f])) dirs.push(...bothForms(file).map((f) => dirname(f)));
  return { mod, code: { entry, files: [...files].filter((f) => isAbsolute(f) && !entry.includes(f)), dirs: [...new Set(dirs)] } };
}

/** Forgets loaded plugins (for benchmarks of a cold load). Modules stay in the module cache. */
export function clearPluginCache(): void {
  cache.clear();
}

/** A valid npm package name (scoped or not), loosely. */
function isPackageName(spec: string): boolean {
  return /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(spec);
}

/**
 * Resolves one plugin name to its Plugin. `fromDir` is the directory relative paths and npm package
 * names are resolved from (the directory of the preset that named it).
 * Throws PluginResolveError (naming the plugin) when it is unknown, missing, fails to import, or
 * exports no plugin; `at` (e.g. `rein.config.yaml:12:3`) is added to the message when given.
 */
export async function resolvePlugin(spec: string, fromDir: string, at?: string, homeDir?: string): Promise<Plugin> {
  const home = homeDir ?? homedir();
  const key = BUILTIN_PLUGINS[spec] ? `builtin:${spec}` : isPluginPath(spec) ? `file:${resolvePresetPath(spec, fromDir, home)}` : `npm:${fromDir}:${spec}`;
  let p = cache.get(key);
  if (!p) {
    p = loadPlugin(spec, fromDir, home);
    cache.set(key, p);
    p.catch(() => cache.delete(key));
  }
  try {
    return await p;
  } catch (err) {
    if (err instanceof PluginResolveError && at) throw new PluginResolveError(spec, `${err.message} (asked for at ${at})`, { cause: err.cause });
    throw err;
  }
}

async function loadPlugin(spec: string, fromDir: string, homeDir: string): Promise<Plugin> {
  const builtin = BUILTIN_PLUGINS[spec];
  if (builtin) {
    try {
      return pickExport(spec, { default: await builtin() });
    } catch (err) {
      if (err instanceof PluginResolveError) throw err;
      throw new PluginResolveError(spec, `built-in plugin "${spec}" failed to import: ${firstLine(err)}`, { cause: err });
    }
  }
  if (isPluginPath(spec)) {
    const file = resolvePresetPath(spec, fromDir, homeDir);
    if (!existsSync(file)) throw new PluginResolveError(spec, `plugin "${spec}" not found: no file at ${file}`);
    let loaded: Awaited<ReturnType<typeof importWithGraph>>;
    try {
      loaded = await importWithGraph(await jiti(), file, false);
    } catch (err) {
      throw new PluginResolveError(spec, `plugin "${spec}" failed to import: ${firstLine(err)}`, { cause: err });
    }
    const plugin = pickExport(spec, loaded.mod);
    codeOf.set(plugin, loaded.code);
    return plugin;
  }
  const builtins = Object.keys(BUILTIN_PLUGINS);
  if (!isPackageName(spec) || (spec.includes('/') && !spec.startsWith('@'))) {
    throw new PluginResolveError(spec, `unknown plugin "${spec}": not a built-in plugin${didYouMean(spec, builtins)}`);
  }
  const j = await jiti();
  const resolved = j.esmResolve(spec, { parentURL: pathToFileURL(`${fromDir}/`).href, try: true });
  if (!resolved) {
    const near = closest(spec, builtins);
    throw new PluginResolveError(spec, near
      ? `unknown plugin "${spec}"; did you mean the built-in "${near}"?`
      : `unknown plugin "${spec}": not a built-in plugin, and no npm package of that name is installed where the preset is`);
  }
  let loaded: Awaited<ReturnType<typeof importWithGraph>>;
  try {
    loaded = await importWithGraph(j, resolved.startsWith('file:') ? fileURLToPath(resolved) : resolved, true);
  } catch (err) {
    throw new PluginResolveError(spec, `plugin "${spec}" failed to import: ${firstLine(err)}`, { cause: err });
  }
  const plugin = pickExport(spec, loaded.mod);
  codeOf.set(plugin, loaded.code);
  return plugin;
}

/** A plugin ready for createKernel: the plugin, its validated options, and the preset line that asked for it. */
export interface PresetPlugin {
  /** The name as the resolved preset has it (a built-in name, an absolute path, or a package name). */
  key: string;
  plugin: Plugin;
  options: unknown;
  /** `file:line:col` of the preset entry that asked for it (or of the `tools:` entry). */
  origin: string;
  /**
   * Where its options come from, lowest first: the preset key that implies them (`hooks`,
   * `autoMode`, `mcpServers`, or the key that asked for the plugin) and its `plugins:` entry.
   */
  sources: { path: string; origin?: Origin }[];
  /**
   * For a plugin from a file or a package: the files of its code (pluginCode), the name as the
   * preset wrote it, and the file of the preset entry that named it.
   */
  code?: PluginCode & { name: string; namedIn?: string };
}

/** A plugin name as the preset wrote it: an absolute path is shown relative to the file that named it. */
export function pluginDisplayName(key: string, origin: Origin | undefined): string {
  if (!isAbsolute(key) || !origin?.file) return key;
  const rel = relative(dirname(origin.file), key);
  return rel.startsWith('.') || isAbsolute(rel) ? rel : `./${rel}`;
}

function at(o: Origin | undefined, useKey = true): string | undefined {
  if (!o?.file) return o ? `${o.layer} layer` : undefined;
  const line = useKey ? (o.keyLine ?? o.line) : o.line;
  const col = useKey ? (o.keyCol ?? o.col) : o.col;
  return line ? `${o.file}:${line}:${col}` : o.file;
}

function posOf(o: Origin | undefined, useKey: boolean): SourcePos | undefined {
  if (!o?.line) return undefined;
  return useKey && o.keyLine ? { line: o.keyLine, col: o.keyCol! } : { line: o.line, col: o.col! };
}

function report(sink: DiagnosticSink, origins: ReadonlyMap<string, Origin>, path: KeyPath, message: string, useKey = true): void {
  const o = findOrigin(origins, path);
  sink.add(o?.file ?? `<${o?.layer ?? 'preset'}>`, posOf(o, useKey), path, message);
}

/**
 * The key at the end of `path` when the options object `raw` leaves it out (its parent is an object
 * without that key): zod's "expected string, received undefined" is then a missing option.
 */
function missingKey(raw: unknown, path: readonly PropertyKey[]): string | undefined {
  const key = path[path.length - 1];
  if (typeof key !== 'string') return undefined;
  let v: unknown = raw ?? {};
  for (const k of path.slice(0, -1)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !Object.hasOwn(v, key) ? key : undefined;
}

/** Option names a zod schema accepts at a path inside it (for "did you mean"). */
function zodKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let s: any = schema;
  const unwrap = () => {
    for (let i = 0; i < 10 && s?._zod?.def; i++) {
      const d = s._zod.def;
      if (['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional'].includes(d.type)) s = d.innerType;
      else if (d.type === 'pipe') s = d.in;
      else if (d.type === 'lazy') s = d.getter();
      else break;
    }
  };
  unwrap();
  for (const seg of path) {
    const d = s?._zod?.def;
    if (!d) return [];
    if (d.type === 'object') s = d.shape[seg as string];
    else if (d.type === 'array') s = d.element;
    else if (d.type === 'record') s = d.valueType;
    else return [];
    unwrap();
  }
  const d = s?._zod?.def;
  return d?.type === 'object' ? Object.keys(d.shape) : [];
}

/**
 * The key path a agent/plugins.ts `impliedPlugins` origin refers to: `plugins.<name>`, `tools[2]`,
 * `permissions.mode`, `mcpServers`, `permissions (default mode)`; `built-in` has none.
 */
export function originPath(origin: string, name: string): (string | number)[] {
  if (origin.startsWith('plugins.')) return ['plugins', name];
  const bare = origin.replace(/\s*\(.*\)$/, '');
  if (!/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*|\[\d+\])*$/.test(bare)) return [];
  return bare.split(/\.|(?=\[)/).map((seg) => (seg.startsWith('[') ? Number(seg.slice(1, -1)) : seg));
}

/**
 * The options a plugin runs with: the ones the preset's other keys imply, with its `plugins:` entry
 * merged over them by the preset merge rules (merge.ts: objects deeply, `autoMode` lists unioned,
 * every other list and scalar replaced), as if the entry were a higher layer of the same key.
 */
export function pluginOptions(w: WantedPlugin): unknown {
  if (w.listed === undefined) return w.implied;
  if (!isPlainObject(w.implied) || !Object.keys(w.implied).length || !isPlainObject(w.listed)) return w.listed;
  // Merged under the key that implied them, so the key's own rules apply (`autoMode.allow` is a union list).
  const at = w.impliedFrom && !w.impliedFrom.as ? w.impliedFrom.key : 'options';
  const merged = mergeLayers([
    { layer: 'default', value: { [at]: w.implied } },
    { layer: 'preset', value: { [at]: w.listed } },
  ]);
  return merged.value[at];
}

/**
 * Loads every plugin a resolved preset asks for, in the order the kernel loads them
 * (agent/plugins.ts `impliedPlugins`: the built-ins its keys imply, then `plugins:` in layer order,
 * minus those set to `false`). `partial`: parts of the preset were left out because of errors
 * already reported, so a missing `requires` is not reported. Validates each plugin's options with its zod schema and checks
 * `requires` / `conflicts`. Problems go to `sink` as diagnostics at the preset line that named the
 * plugin or option; the plugins that loaded are returned.
 */
export async function loadPresetPlugins(
  preset: Preset,
  origins: ReadonlyMap<string, Origin>,
  sink: DiagnosticSink,
  opts: { cwd: string; homeDir?: string; partial?: boolean; presetDir?: string },
): Promise<PresetPlugin[]> {
  const wanted = impliedPlugins(preset as Parameters<typeof impliedPlugins>[0]).map((e) => {
    const path = originPath(e.origin, e.name);
    const name = pluginDisplayName(e.name, findOrigin(origins, path));
    return { key: e.name, name, raw: pluginOptions(e), path, useKey: path[0] === 'plugins', want: e };
  });
  // Where an option path inside a plugin's options is written: under `plugins.<name>` when the
  // listed options have it, else under the preset key that implied it (`hooks`, `autoMode`, `mcpServers`).
  const optionPath = (w: (typeof wanted)[number], p: readonly (string | number)[]): (string | number)[] => {
    const { listed, impliedFrom } = w.want;
    if ((isPlainObject(listed) && p.length && p[0]! in listed) || !impliedFrom) return [...w.path, ...p];
    if (impliedFrom.as) return p[0] === impliedFrom.as ? [impliedFrom.key, ...p.slice(1)] : [...w.path, ...p];
    return [impliedFrom.key, ...p];
  };
  // Key paths in messages use the plugin name as written (`plugins["./x.ts"].strict`).
  const shown = (w: (typeof wanted)[number], rest: readonly (string | number)[]) => keyPath(w.path[0] === 'plugins' ? ['plugins', w.name, ...rest] : [...w.path, ...rest]);

  // One at a time, in load order: imports are CPU-bound anyway, and concurrent imports of modules
  // that import each other can see half-initialised modules under some loaders (jiti).
  const loaded: ({ w: (typeof wanted)[number]; plugin: Plugin } | undefined)[] = [];
  for (const w of wanted) {
    const o = findOrigin(origins, w.path);
    const fromDir = o?.file ? dirname(o.file) : opts.cwd;
    try {
      loaded.push({ w, plugin: await resolvePlugin(w.name, fromDir, undefined, opts.homeDir) });
    } catch (err) {
      const msg = err instanceof PluginResolveError ? err.message : `plugin "${w.name}" failed to load: ${firstLine(err)}`;
      report(sink, origins, w.path, msg, w.useKey);
      loaded.push(undefined);
    }
  }

  const out: PresetPlugin[] = [];
  for (const entry of loaded) {
    if (!entry) continue;
    const { w, plugin } = entry;
    const old = zod3Problem(plugin.options, `plugin ${w.name}: options`);
    if (old) {
      report(sink, origins, w.path, old, w.useKey);
      continue;
    }
    const parsed = safeParsePluginOptions(plugin, w.raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        if (issue.code === 'unrecognized_keys') {
          const names = zodKeysAt(plugin.options, issue.path);
          for (const k of issue.keys) {
            const p = optionPath(w, [...(issue.path as (string | number)[]), k]);
            const known = names.length ? ` (options: ${names.join(', ')})` : '';
            const near = closest(k, names);
            report(sink, origins, p, `${shown(w, [...(issue.path as (string | number)[]), k])}: unknown option "${k}" for plugin ${w.name}${near ? `; did you mean "${near}"?` : known}`);
          }
        } else {
          const p = optionPath(w, issue.path as (string | number)[]);
          const missing = issue.code === 'invalid_type' ? missingKey(w.raw, issue.path) : undefined;
          report(sink, origins, p, missing !== undefined && issue.code === 'invalid_type'
            ? `${shown(w, issue.path as (string | number)[])}: missing required option "${missing}" for plugin ${w.name} (expected ${issue.expected})`
            : `${shown(w, issue.path as (string | number)[])}: ${issue.message} (plugin ${w.name})`, false);
        }
      }
      continue;
    }
    // The plugin's own checks beyond its schema, at the preset line they concern.
    // A check that throws is the plugin's failure, reported at its entry like any other problem.
    let problems: readonly { path: readonly (string | number)[]; message: string }[];
    try {
      problems = plugin.check?.(parsed.data, { preset: preset as never, presetDir: opts.presetDir ?? opts.cwd }) ?? [];
    } catch (err) {
      report(sink, origins, w.path, `${shown(w, [])}: plugin ${plugin.name} failed in its check: ${err instanceof Error ? err.message : String(err)}`, w.useKey);
      continue;
    }
    for (const problem of problems) {
      report(sink, origins, optionPath(w, problem.path), `${shown(w, problem.path)}: ${problem.message} (plugin ${w.name})`, false);
    }
    if (problems.length) continue;
    const sources: PresetPlugin['sources'] = [];
    const from = w.want.impliedFrom;
    if (from) sources.push({ path: from.key, origin: findOrigin(origins, [from.key]) });
    else if (!w.useKey && w.path.length) sources.push({ path: keyPath(w.path), origin: findOrigin(origins, w.path) });
    if (w.want.listed !== undefined) sources.push({ path: keyPath(['plugins', w.name]), origin: findOrigin(origins, ['plugins', w.key]) });
    const code = pluginCode(plugin);
    const namedIn = findOrigin(origins, w.path)?.file;
    out.push({ key: w.key, plugin, options: parsed.data, origin: at(findOrigin(origins, w.path), w.useKey) ?? w.key, sources, ...(code ? { code: { ...code, name: w.name, ...(namedIn ? { namedIn } : {}) } } : {}) });
  }

  // requires / conflicts, by plugin name, with positions.
  const byName = new Map(out.map((p) => [p.plugin.name, p]));
  for (const p of out) {
    const path = wanted.find((w) => w.key === p.key)!.path;
    for (const r of p.plugin.requires ?? []) {
      // With parts of the preset left out because of earlier errors, a missing requirement may be there.
      if (!byName.has(r) && !opts.partial && out.length === wanted.length) report(sink, origins, path, `plugin "${p.plugin.name}" requires plugin "${r}", which this preset does not load; add it under plugins`);
    }
    for (const c of p.plugin.conflicts ?? []) {
      const other = byName.get(c);
      if (!other) continue;
      const mine = findOrigin(origins, path);
      const theirs = findOrigin(origins, wanted.find((w) => w.key === other.key)!.path);
      const where = theirs?.file && theirs.file === mine?.file ? `line ${theirs.keyLine ?? theirs.line}` : theirs?.file ? `${basename(theirs.file)}:${theirs.keyLine ?? theirs.line}` : `${theirs?.layer ?? 'built-in'}`;
      report(sink, origins, path, `plugin "${p.plugin.name}" conflicts with plugin "${c}" (${where}); load only one of them`);
    }
  }
  return out;
}
