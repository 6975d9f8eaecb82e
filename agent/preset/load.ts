/**
 * Loading a preset: find the layer files, read each one and what it `extends`, interpolate
 * `${VAR}`, check it, resolve its paths, merge everything, check the merged result, load the
 * plugins. Every problem on the way is collected; at the end either a ResolvedPreset comes back or
 * one PresetError with every diagnostic is thrown.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { DiagnosticSink, keyPath, PresetError, sortDiagnostics, type KeyPath, type PresetDiagnostic, type SourcePos } from './errors.js';
import { interpolateString } from './interpolate.js';
import { BUILTIN_DEFAULTS, discoverLayerFiles, searchDirs } from './layers.js';
import { approvedMcpServers, projectMcpFile, settingsAsPreset, settingsBaseDir, settingsFiles, type ClaudeSettingsOptions } from './claude-settings.js';
import { applyDenyWins, clearOrigins, findOrigin, isPlainObject, mergeLayer, mergeLayers, type LayerName, type MergeLayer, type MergeState, type Origin } from './merge.js';
import { builtinPresetNames, builtinPresetsDir, isPluginPath, isPresetPath, resolvePresetPath } from './paths.js';
import { loadPresetPlugins, type PresetPlugin } from './resolve-plugins.js';
import type { Preset, PresetInput } from './schema.js';
import { checkPresetFile, objectSource, readPresetSource, type PresetSource } from './source.js';
import { closest, didYouMean } from './suggest.js';
import { checkSchema, checkSemantics, knownToolNames } from './validate.js';
import { BUILTIN_PLUGINS, TOOL_PLUGINS } from '../plugins.js';

/** Options of loadPreset. */
export interface LoadPresetOptions {
  /**
   * The `--preset` layer: a file (relative to cwd), a built-in name (`minimal`), or a preset object
   * (a program's `createAgent({ preset: {...} })`), checked like a file: its `extends` are followed
   * (relative to cwd) and its diagnostics name `<preset object>` and the key.
   */
  preset?: string | PresetInput;
  /**
   * When no `preset` is given: a built-in name or file read into the built-in layer, beneath the
   * user, project and local layers (`rein run` and `rein preset print` pass `default`, so a
   * project's `rein.config.yaml` overrides it). Left out when `preset` is given, and when a config
   * layer file `extends` a preset of its own (that is the base it chose).
   */
  base?: string;
  /** Working directory; the project and local layers are searched from here up. */
  cwd: string;
  /** The command-line layer, highest of all. Relative paths in it are relative to cwd. */
  flags?: PresetInput;
  /** Environment for `${VAR}` interpolation and XDG_CONFIG_HOME. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Home directory (user layer, `~/` paths). Default: os.homedir(). */
  homeDir?: string;
  /** false: skip the user, project and local layers (defaults, --preset and flags only). Default true. */
  layers?: boolean;
  /** false: do not import plugins or check their options. Default true. */
  plugins?: boolean;
  /** Claude Code settings files to read as layers above `--preset` (`--setting-sources`, `--settings`). */
  claudeSettings?: ClaudeSettingsOptions;
  /** Top-level keys the flag layer replaces instead of merging into (`--strict-mcp-config`: `mcpServers`). */
  replace?: readonly string[];
}

/** A loaded preset. */
export interface ResolvedPreset {
  preset: Preset;
  /** Dotted key path (errors.ts keyPath) → where the value came from. */
  origins: Map<string, Origin>;
  /** Every file read, in the order read (layers, and what they extend). */
  files: string[];
  /** Directory of the --preset file (else of the project config, else cwd), for `/`-anchored permission rules. */
  baseDir: string;
  /** The plugins, options validated, in load order (empty with `plugins: false`). Ready for createKernel. */
  plugins: PresetPlugin[];
  /**
   * The files of plugin code the run executes, its Task agents' presets' included (see
   * codeFiles), for the permission plugins to protect like the preset files.
   */
  code: CodeFile[];
  /**
   * What was left out of a layer with a warning instead of an error, as file:line:column
   * diagnostics: the hooks of a Claude Code settings file for events rein does not fire
   * (claude-settings.ts CLAUDE_HOOK_EVENTS_NOT_FIRED). createAgent reports them when the session starts.
   */
  warnings: PresetDiagnostic[];
}

/** A file (or, with `dir`, a folder and all below it) rein runs as code, and why, for messages. */
export interface CodeFile {
  /** Absolute path. */
  path: string;
  dir?: boolean;
  /** What it is, after "… is code rein runs": `plugin ./x.ts named in rein.config.yaml`. */
  why: string;
}

/**
 * The plugin code of a loaded preset: each plugin's entry, the modules loaded with it and, where
 * the loader cannot show them all, its folder (resolve-plugins.ts importWithGraph). `cwd` makes the
 * preset file names in messages relative.
 */
export function codeFiles(plugins: readonly PresetPlugin[], cwd: string): CodeFile[] {
  const out: CodeFile[] = [];
  for (const p of plugins) {
    if (!p.code) continue;
    const where = p.code.namedIn ? ` named in ${relative(cwd, p.code.namedIn).startsWith('..') ? p.code.namedIn : relative(cwd, p.code.namedIn)}` : '';
    const plugin = `plugin ${p.code.name}${where}`;
    for (const f of p.code.entry) out.push({ path: f, why: plugin });
    for (const f of p.code.files) out.push({ path: f, why: `a module loaded by ${plugin}` });
    for (const d of p.code.dirs) out.push({ path: d, dir: true, why: `the folder of ${plugin}` });
  }
  return out;
}

/** The value a file contributes, with positions. */
interface FileEntry {
  source: PresetSource;
  value: Record<string, unknown>;
  extends: { spec: string; path: KeyPath }[];
  locate: NonNullable<MergeLayer['locate']>;
}

/** How diagnostics name a preset given as an object rather than a file. */
export const PRESET_OBJECT = '<preset object>';

const HOOK_COMMAND = (p: KeyPath) => p.length === 6 && p[0] === 'hooks' && p[3] === 'hooks' && p[5] === 'command';

/** Reads files, follows `extends`, and collects diagnostics. One per load. */
class Loader {
  readonly sink = new DiagnosticSink();
  readonly files: string[] = [];
  /** Plugin code of the agent presets checked with this one (validateTree): a Task agent runs it in this run. */
  readonly code: CodeFile[] = [];
  /** What was left out of a layer without stopping the load (a Claude Code hook event rein does not fire). */
  readonly warnings: PresetDiagnostic[] = [];
  private readonly entries = new Map<string, Promise<FileEntry | undefined>>();
  private readonly known: Set<string>;

  constructor(readonly env: Record<string, string | undefined>, readonly homeDir: string, readonly cwd: string) {
    this.known = knownToolNames(Object.keys(TOOL_PLUGINS));
  }

  /** The layers a file contributes: what it extends (recursively, bases first), then itself. */
  async chain(file: string, layer: LayerName, stack: string[] = [], ref?: { source: PresetSource; path: KeyPath; spec: string }): Promise<MergeLayer[]> {
    if (stack.includes(file)) {
      const loop = [...stack.slice(stack.indexOf(file)), file];
      const base = dirname(loop[0]!);
      const names = loop.map((f) => relative(base, f) || f);
      this.report(ref!.source, ref!.path, `extends cycle: ${names.join(' → ')}`);
      return [];
    }
    const entry = await this.entry(file, ref);
    if (!entry) return [];
    const bases: MergeLayer[] = [];
    for (const e of entry.extends) {
      const target = this.resolveRef(e.spec, dirname(file), entry.source, e.path);
      if (target) bases.push(...(await this.chain(target, layer, [...stack, file], { source: entry.source, path: e.path, spec: e.spec })));
    }
    return [...bases, { layer, file, value: entry.value, locate: entry.locate }];
  }

  /** The Claude Code settings layers that exist, lowest first. */
  async settingsLayers(opts: ClaudeSettingsOptions): Promise<MergeLayer[]> {
    const out: MergeLayer[] = [];
    const found: { layer: MergeLayer['layer']; source: PresetSource | undefined; baseDir: string; mcp?: boolean }[] = [];
    for (const f of settingsFiles({ cwd: this.cwd, homeDir: this.homeDir, dirs: searchDirs(this.cwd, this.homeDir), sources: opts.sources })) {
      found.push({ layer: f.layer, source: await this.readSettings(f.file), baseDir: settingsBaseDir(f.file) });
    }
    const flag = opts.flagSettings;
    if (flag) {
      const source = 'file' in flag ? await this.readSettings(flag.file) : await readPresetSource('<--settings>', this.sink, { text: flag.text });
      found.push({ layer: 'settings:flag', source, baseDir: 'file' in flag ? dirname(flag.file) : this.cwd });
    }
    // The project's .mcp.json: the servers the settings approve, as part of the project layer
    // (below the project's settings files, whose own keys win).
    const mcpFile = opts.sources.includes('project') ? projectMcpFile({ homeDir: this.homeDir, dirs: searchDirs(this.cwd, this.homeDir) }) : undefined;
    if (mcpFile) {
      const source = await this.readSettings(mcpFile);
      if (source && !source.broken) {
        const { servers } = approvedMcpServers(found.map((f) => f.source?.value), source.value);
        if (Object.keys(servers).length) found.splice(found.filter((f) => f.layer === 'settings:user').length, 0, { layer: 'settings:project', source: { ...source, value: { mcpServers: servers } }, baseDir: dirname(mcpFile), mcp: true });
      }
    }
    for (const f of found) {
      if (!f.source) continue;
      const source = f.source;
      const skipped = (path: KeyPath, message: string) => {
        const pos = source.locate(path, 'key');
        this.warnings.push({ file: source.file, line: pos.line, column: pos.col, key: keyPath(path), message });
      };
      const entry = this.accept(f.mcp ? source : settingsAsPreset(source, skipped), f.baseDir);
      if (entry) out.push({ layer: f.layer, file: f.source.file, value: entry.value, locate: entry.locate });
    }
    return out;
  }

  private async readSettings(file: string): Promise<PresetSource | undefined> {
    try {
      const source = await readPresetSource(file, this.sink);
      this.files.push(file);
      return source;
    } catch (err) {
      this.sink.add(file, undefined, '', `cannot read the settings file: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** The layers a preset object contributes: what it extends (relative to `baseDir`), then itself. */
  async chainObject(value: unknown, layer: LayerName, baseDir: string): Promise<MergeLayer[]> {
    const entry = this.accept(objectSource(PRESET_OBJECT, value), baseDir);
    if (!entry) return [];
    const bases: MergeLayer[] = [];
    for (const e of entry.extends) {
      const target = this.resolveRef(e.spec, baseDir, entry.source, e.path);
      if (target) bases.push(...(await this.chain(target, layer, [], { source: entry.source, path: e.path, spec: e.spec })));
    }
    return [...bases, { layer, value: entry.value }];
  }

  /** A file or built-in name in `extends` / `--preset` → an absolute file, or undefined (reported). */
  resolveRef(spec: string, fromDir: string, source: PresetSource | undefined, path: KeyPath): string | undefined {
    if (isPresetPath(spec)) return resolvePresetPath(spec, fromDir, this.homeDir);
    const names = builtinPresetNames();
    if (names.includes(spec)) return join(builtinPresetsDir(), `${spec}.yaml`);
    const msg = `unknown built-in preset "${spec}"${didYouMean(spec, names)} (built-ins: ${names.join(', ') || 'none'}; for a file, write ./${spec}.yaml)`;
    if (source) this.report(source, path, `${keyPath(path)}: ${msg}`);
    else this.sink.add('--preset', undefined, '', msg);
    return undefined;
  }

  /** Whether an already read file names a preset of its own to build on (`extends`). */
  async extendsSomething(file: string): Promise<boolean> {
    return ((await this.entries.get(file))?.extends.length ?? 0) > 0;
  }

  report(source: PresetSource, path: KeyPath, message: string, part: 'key' | 'value' = 'value'): void {
    this.sink.add(source.file, source.locate(path, part), path, message);
  }

  private entry(file: string, ref?: { source: PresetSource; path: KeyPath; spec: string }): Promise<FileEntry | undefined> {
    let e = this.entries.get(file);
    if (!e) {
      e = this.read(file, ref);
      this.entries.set(file, e);
    }
    return e;
  }

  private async read(file: string, ref?: { source: PresetSource; path: KeyPath; spec: string }): Promise<FileEntry | undefined> {
    let source: PresetSource;
    try {
      source = await readPresetSource(file, this.sink);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (err as Error).message;
      if (ref) this.report(ref.source, ref.path, `${keyPath(ref.path)}: cannot read "${ref.spec}": ${why} (${file})`);
      else this.sink.add(file, undefined, '', `cannot read the preset: ${why}`);
      return undefined;
    }
    this.files.push(file);
    return this.accept(source);
  }

  /** Interpolates, checks and normalises one parsed source. */
  accept(source: PresetSource, baseDir = dirname(source.file)): FileEntry | undefined {
    if (source.broken) return undefined;
    const raw = source.value ?? {};
    if (!isPlainObject(raw)) {
      this.report(source, [], `a preset must be a mapping of keys (model, tools, permissions, plugins, ...), got ${Array.isArray(raw) ? 'a list' : `${typeof raw} ${JSON.stringify(raw)}`}`);
      return undefined;
    }
    const value = this.interpolate(source, raw, []) as Record<string, unknown>;
    checkSchema(source, value, this.sink);
    checkSemantics(source, value, this.sink, this.known);
    const ext = value.extends;
    const extendsList = typeof ext === 'string' ? [{ spec: ext, path: ['extends'] }]
      : Array.isArray(ext) ? ext.flatMap((s, i) => (typeof s === 'string' && s ? [{ spec: s, path: ['extends', i] }] : [])) : [];
    const { value: normal, renames } = this.normalize(source, value, baseDir);
    const locate = (path: KeyPath) => {
      let p = path;
      if (p[0] === 'plugins' && typeof p[1] === 'string' && renames.has(p[1])) p = ['plugins', renames.get(p[1])!, ...p.slice(2)];
      const v = source.locate(p, 'value');
      if (v.line === 0) return undefined;
      return { value: v, key: source.locate(p, 'key') };
    };
    return { source, value: normal, extends: extendsList, locate };
  }

  private interpolate(source: PresetSource, v: unknown, path: (string | number)[]): unknown {
    if (typeof v === 'string') {
      if (HOOK_COMMAND(path)) return v;
      const r = interpolateString(v, this.env);
      for (const p of r.problems) {
        const close = v.indexOf('}', p.index);
        const needle = close > p.index ? v.slice(p.index, close + 1) : '${';
        this.sink.add(source.file, source.locateInside(path, needle), path, `${keyPath(path) || 'value'}: ${p.message}`);
      }
      return r.value;
    }
    if (Array.isArray(v)) return v.map((x, i) => this.interpolate(source, x, [...path, i]));
    if (isPlainObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.interpolate(source, x, [...path, k])]));
    return v;
  }

  /** Resolves relative paths against the file's directory; reads section files. */
  private normalize(source: PresetSource, value: Record<string, unknown>, dir: string): { value: Record<string, unknown>; renames: Map<string, string> } {
    const out: Record<string, unknown> = { ...value };
    const renames = new Map<string, string>();
    delete out.extends;
    delete out.$schema;
    const abs = (p: string) => resolvePresetPath(p, dir, this.homeDir);

    if (isPlainObject(out.plugins)) {
      const plugins: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(out.plugins)) {
        if (isPluginPath(k)) {
          const a = abs(k);
          plugins[a] = v;
          renames.set(a, k);
          continue;
        }
        plugins[k] = v;
        if (v === false && !BUILTIN_PLUGINS[k]) {
          // Switching off a plugin that does not exist does nothing: most likely a typo.
          const near = closest(k, Object.keys(BUILTIN_PLUGINS));
          if (near) this.report(source, ['plugins', k], `plugins: "${k}" is not a built-in plugin, so "false" switches nothing off; did you mean "${near}"?`, 'key');
        }
      }
      out.plugins = plugins;
    }
    const system = out.system;
    if (isPlainObject(system) && Array.isArray(system.sections)) {
      out.system = {
        ...system,
        sections: system.sections.map((s, i) => {
          if (!isPlainObject(s) || typeof s.file !== 'string' || 'text' in s) return s;
          const file = abs(s.file);
          const { file: _f, ...rest } = s;
          try {
            checkPresetFile(file);
            return { ...rest, text: readFileSync(file, 'utf8') };
          } catch (err) {
            const code = (err as NodeJS.ErrnoException).code;
            this.report(source, ['system', 'sections', i, 'file'], `system.sections.${i}.file: cannot read "${s.file}": ${code === 'ENOENT' ? 'no such file' : (err as Error).message} (${file})`);
            return s;
          }
        }),
      };
    }
    if (isPlainObject(out.subagents)) {
      const subs: Record<string, unknown> = {};
      for (const [name, ref] of Object.entries(out.subagents)) {
        if (typeof ref !== 'string' || !ref) {
          subs[name] = ref;
          continue;
        }
        if (isPresetPath(ref)) {
          const a = abs(ref);
          if (!existsSync(a)) this.report(source, ['subagents', name], `subagents.${name}: cannot read "${ref}": no such file (${a})`);
          subs[name] = a;
        } else {
          const names = builtinPresetNames();
          if (!names.includes(ref)) this.report(source, ['subagents', name], `subagents.${name}: unknown built-in preset "${ref}"${didYouMean(ref, names)} (built-ins: ${names.join(', ')}; for a file, write ./${ref}.yaml)`);
          subs[name] = ref;
        }
      }
      out.subagents = subs;
    }
    const perms = out.permissions;
    if (isPlainObject(perms) && Array.isArray(perms.additionalDirectories)) {
      out.permissions = { ...perms, additionalDirectories: perms.additionalDirectories.map((d) => (typeof d === 'string' && d ? abs(d) : d)) };
    }
    const session = out.session;
    if (isPlainObject(session) && typeof session.dir === 'string' && session.dir) out.session = { ...session, dir: abs(session.dir) };
    return { value: out, renames };
  }
}

/** Checks that only make sense on the merged preset. */
function checkMerged(state: MergeState, sink: DiagnosticSink): void {
  const v = state.value;
  const at = (path: KeyPath): [string, SourcePos | undefined] => {
    const o = findOrigin(state.origins, path);
    return [o?.file ?? `<${o?.layer ?? 'preset'}>`, o?.line ? { line: o.line, col: o.col ?? 1 } : undefined];
  };
  const perms = v.permissions;
  if (isPlainObject(perms) && perms.mode === 'bypassPermissions' && perms.allowBypassPermissions !== true) {
    const [file, pos] = at(['permissions', 'mode']);
    sink.add(file, pos, 'permissions.mode', 'permissions.mode: bypassPermissions skips every permission check; it also needs permissions.allowBypassPermissions: true, as an explicit opt-in (on the command line: --dangerously-skip-permissions, or --allow-dangerously-skip-permissions as the opt-in)');
  }
  const model = v.model;
  if (isPlainObject(model) && isPlainObject(model.thinking) && model.thinking.type === 'enabled') {
    const budget = model.thinking.budget_tokens;
    if (typeof budget === 'number' && typeof model.maxTokens === 'number' && budget >= model.maxTokens) {
      const [file, pos] = at(['model', 'thinking', 'budget_tokens']);
      sink.add(file, pos, 'model.thinking.budget_tokens', `model.thinking.budget_tokens (${budget}) must be less than model.maxTokens (${model.maxTokens})`);
    }
  }
}

/**
 * The preset the plugin stage may look at, given the errors already reported: without the keys
 * (or plugin entries) that have errors, since a plugin fed a bad value would only add noise;
 * undefined when a file could not be parsed at all.
 */
function prunedForPlugins(preset: Record<string, unknown>, list: readonly PresetDiagnostic[]): Preset | undefined {
  if (list.some((d) => d.key === '')) return undefined;
  const keys = list.map((d) => d.key);
  const under = (k: string) => keys.some((x) => x === k || x.startsWith(`${k}.`) || x.startsWith(`${k}[`));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(preset)) {
    if (k === 'plugins' && isPlainObject(v)) {
      out.plugins = Object.fromEntries(Object.entries(v).filter(([name]) => !under(keyPath(['plugins', name]))));
    } else if (!under(keyPath([k]))) out[k] = v;
  }
  return out as Preset;
}

function defaultsLayer(): MergeLayer {
  return { layer: 'default', value: structuredClone(BUILTIN_DEFAULTS) as unknown as Record<string, unknown> };
}

/**
 * Loads the preset for a run: built-in defaults (and `base`) < user < project < local <
 * `--preset` < flags, each with what it `extends`. Returns the merged preset, where each value
 * came from, the files read, and the plugins with validated options.
 *
 * Throws PresetError with every diagnostic (`file:line:column: message`) when anything is wrong:
 * YAML syntax or strict-YAML traps, schema violations, unknown keys, unset `${VAR}`, missing or
 * cyclic `extends`, unknown plugins, bad plugin options, `requires` / `conflicts`.
 */
export async function loadPreset(opts: LoadPresetOptions): Promise<ResolvedPreset> {
  const env = opts.env ?? process.env;
  const homeDir = opts.homeDir ?? homedir();
  const cwd = resolve(opts.cwd);
  const loader = new Loader(env, homeDir, cwd);
  const layers: MergeLayer[] = [defaultsLayer()];
  let projectDir: string | undefined;
  let presetDir: string | undefined;

  let chooseOwnBase = false;
  if (opts.layers !== false) {
    const found = await discoverLayerFiles({ cwd, homeDir, env });
    loader.sink.list.push(...found.problems);
    for (const f of found.files) {
      if (f.layer === 'project') projectDir = dirname(f.file);
      layers.push(...(await loader.chain(f.file, f.layer)));
      if (await loader.extendsSomething(f.file)) chooseOwnBase = true;
    }
  }
  if (opts.base && !opts.preset && !chooseOwnBase) {
    const file = loader.resolveRef(opts.base, cwd, undefined, []);
    if (file) layers.splice(1, 0, ...(await loader.chain(file, 'default')));
  }
  if (typeof opts.preset === 'object' && opts.preset !== null) {
    layers.push(...(await loader.chainObject(opts.preset, 'preset', cwd)));
  } else if (opts.preset) {
    const file = loader.resolveRef(opts.preset, cwd, undefined, []);
    if (file) {
      presetDir = dirname(file);
      layers.push(...(await loader.chain(file, 'preset')));
    }
  }
  if (opts.claudeSettings) layers.push(...(await loader.settingsLayers(opts.claudeSettings)));

  const state = mergeLayers(layers);
  if (opts.flags) {
    const entry = loader.accept(objectSource('<flags>', opts.flags), cwd);
    for (const key of opts.replace ?? []) {
      delete state.value[key];
      clearOrigins(state.origins, [key]);
    }
    if (entry) mergeLayer(state, { layer: 'flags', value: entry.value });
  }
  applyDenyWins(state);
  checkMerged(state, loader.sink);
  const preset = state.value as Preset;
  let plugins: PresetPlugin[] = [];
  const pruned = opts.plugins !== false ? prunedForPlugins(preset, loader.sink.list) : undefined;
  if (pruned) plugins = await loadPresetPlugins(pruned, state.origins, loader.sink, { cwd, homeDir, partial: loader.sink.size > 0, presetDir: presetDir ?? projectDir ?? cwd });
  if (pruned && !loader.sink.size) checkToolsKnown(preset, plugins, state.origins, loader.sink);
  const baseDir = presetDir ?? projectDir ?? cwd;
  // The agents the Task tool may start are loaded and checked now, with their parent.
  if (pruned) await validateAgentPresets(loader, agentPresetRefs(preset, plugins, baseDir, homeDir), state.origins, homeDir, new Set());
  if (loader.sink.size) throw new PresetError(loader.sink.list);
  return { preset, origins: state.origins, files: loader.files, baseDir, plugins, code: [...codeFiles(plugins, cwd), ...loader.code], warnings: loader.warnings };
}

/**
 * A `tools:` name must be a built-in tool unless a plugin from outside rein is loaded (it may
 * register that tool; the kernel checks after loading). Near misses are reported earlier with a
 * "did you mean"; this catches the names far from any.
 */
function checkToolsKnown(preset: Preset, plugins: readonly PresetPlugin[], origins: ReadonlyMap<string, Origin>, sink: DiagnosticSink): void {
  if (!Array.isArray(preset.tools) || plugins.some((p) => !BUILTIN_PLUGINS[p.key])) return;
  if (sink.list.some((d) => d.key === 'tools' || d.key.startsWith('tools.'))) return;
  const builtins = Object.keys(TOOL_PLUGINS).filter((t) => !t.includes('*'));
  (preset.tools ?? []).forEach((tool, i) => {
    if (typeof tool !== 'string' || tool.startsWith('mcp__') || TOOL_PLUGINS[tool] || tool.includes('(')) return;
    const at = origins.get(keyPath(['tools', i]));
    sink.add(at?.file ?? '<preset>', at?.line ? { line: at.line, col: at.col ?? 1 } : undefined, ['tools', i],
      `tools: unknown tool "${tool}"; rein's tools are ${builtins.join(', ')} (a plugin's own tools need no entry here)`);
  });
}

/**
 * The agent presets a merged preset names, where each is written: the values of `subagents` and
 * the `preset` of each Task tool agent (`plugins.tools/task.agents.<name>.preset`, from the loaded
 * options). Files are absolute: `subagents` paths were resolved against the file that wrote them,
 * agent presets the way the Task tool resolves them (against `baseDir`, the preset's folder).
 */
function agentPresetRefs(preset: Record<string, unknown>, plugins: readonly PresetPlugin[], baseDir: string, homeDir: string): { ref: string; path: KeyPath }[] {
  const out: { ref: string; path: KeyPath }[] = [];
  if (isPlainObject(preset.subagents)) {
    for (const [name, ref] of Object.entries(preset.subagents)) if (typeof ref === 'string' && ref) out.push({ ref, path: ['subagents', name] });
  }
  const task = plugins.find((p) => p.key === 'tools/task');
  const agents = isPlainObject(task?.options) ? (task.options as { agents?: unknown }).agents : undefined;
  if (isPlainObject(agents)) {
    for (const [name, def] of Object.entries(agents)) {
      const ref = isPlainObject(def) ? def.preset : undefined;
      if (typeof ref !== 'string' || !ref) continue;
      out.push({ ref: isPresetPath(ref) ? resolvePresetPath(ref, baseDir, homeDir) : ref, path: ['plugins', 'tools/task', 'agents', name, 'preset'] });
    }
  }
  return out;
}

/**
 * Loads and checks a preset file on its own (no layers), as an agent of it would be loaded: the
 * file and what it extends, the merged result, its plugins and their options, and, in turn, the
 * agent presets it names. Problems go to the loader's sink; `validated` stops repeats and cycles.
 */
async function validateTree(loader: Loader, target: string, homeDir: string, validated: Set<string>): Promise<void> {
  if (validated.has(target)) return;
  validated.add(target);
  const layers = await loader.chain(target, 'preset');
  if (!layers.length) return;
  const state = mergeLayers(layers);
  applyDenyWins(state);
  checkMerged(state, loader.sink);
  const pruned = prunedForPlugins(state.value, loader.sink.list);
  let plugins: PresetPlugin[] = [];
  if (pruned) {
    const before = loader.sink.size;
    plugins = await loadPresetPlugins(pruned, state.origins, loader.sink, { cwd: dirname(target), homeDir, partial: loader.sink.size > 0 });
    if (loader.sink.size === before) checkToolsKnown(state.value as Preset, plugins, state.origins, loader.sink);
    loader.code.push(...codeFiles(plugins, loader.cwd));
  }
  await validateAgentPresets(loader, agentPresetRefs(state.value, plugins, dirname(target), homeDir), state.origins, homeDir, validated);
}

/**
 * Checks every agent preset a preset names, with the preset itself: a Task agent whose preset is
 * missing or malformed is reported when the parent loads, at its own file:line:column, not when
 * the model first calls it.
 */
async function validateAgentPresets(loader: Loader, refs: readonly { ref: string; path: KeyPath }[], origins: ReadonlyMap<string, Origin>, homeDir: string, validated: Set<string>): Promise<void> {
  const names = builtinPresetNames();
  for (const { ref, path } of refs) {
    const file = isPresetPath(ref) ? ref : names.includes(ref) ? join(builtinPresetsDir(), `${ref}.yaml`) : undefined;
    if (!file || !existsSync(file)) {
      // `subagents` values were checked when their file was read; the Task tool's are checked here.
      if (path[0] !== 'plugins') continue;
      const o = findOrigin(origins, path);
      const why = file ? `no such file (${file})` : `"${ref}" is not a file, and not a built-in preset${didYouMean(ref, names)} (built-ins: ${names.join(', ')})`;
      loader.sink.add(o?.file ?? PRESET_OBJECT, o?.line ? { line: o.line, col: o.col ?? 1 } : undefined, path, `${keyPath(path)}: cannot load the agent preset: ${why}`);
      continue;
    }
    await validateTree(loader, file, homeDir, validated);
  }
}

/**
 * Validates one preset file on its own (no layers): the file and everything it extends, the merged
 * result, its plugins and their options, and the agent presets it names (`subagents`, the Task
 * tool's agents), recursively. Returns every diagnostic (empty when the file is valid); never
 * throws for a bad preset.
 */
export async function validatePresetFile(file: string, opts: { env?: NodeJS.ProcessEnv; homeDir?: string; cwd?: string } = {}): Promise<PresetDiagnostic[]> {
  const env = opts.env ?? process.env;
  const homeDir = opts.homeDir ?? homedir();
  const abs = resolve(opts.cwd ?? process.cwd(), file);
  const loader = new Loader(env, homeDir, dirname(abs));
  await validateTree(loader, abs, homeDir, new Set());
  return sortDiagnostics(loader.sink.list);
}

export { PresetError };
