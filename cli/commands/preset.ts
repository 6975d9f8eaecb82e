/**
 * `rein preset validate | print | init`.
 *
 * - validate FILE...: every problem in every file (or built-in preset, by name) as `file:line:column: message` on stdout;
 *   exit 0 when all are valid, 2 otherwise.
 * - print [FILE]: the resolved preset (all layers, FILE as --preset) as YAML; `--origins` adds the
 *   layer and file:line each value came from; `--plugins` prints the plugins that load with the
 *   options they run with; `--json` prints `{ preset, origins, files, plugins }`.
 * - init [FILE]: writes a commented starter preset (default rein.config.yaml) that validates.
 */
import { Document, isMap, isScalar, isSeq } from 'yaml';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { addPresetFlags, type ClaudeFlagValues } from './claude-flags.js';

/** Where command output goes (tests pass their own). */
export interface PresetIO {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

const EXIT_OK = 0;
const EXIT_BAD_INPUT = 2;

function defaultIO(cwd?: string): PresetIO {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    cwd: resolve(cwd ?? process.cwd()),
    env: process.env,
  };
}

/** `rein preset validate FILE...`: returns the exit code (0 valid, 2 any problem). */
export async function presetValidate(files: string[], opts: { json?: boolean }, io: PresetIO): Promise<number> {
  const { validatePresetFile, formatDiagnostic, builtinPresetNames, builtinPresetsDir } = await import('../../agent/preset/index.js');
  const all = [];
  for (const f of files) {
    let file = resolve(io.cwd, f);
    // A built-in preset's name, as --preset takes it, when no file of that name is here.
    if (!existsSync(file) && builtinPresetNames().includes(f)) file = join(builtinPresetsDir(), `${f}.yaml`);
    if (!existsSync(file)) {
      all.push({ file, line: 0, column: 0, key: '', message: 'no such file' });
      continue;
    }
    all.push(...(await validatePresetFile(file, { env: io.env, cwd: io.cwd })));
  }
  if (opts.json) {
    io.out(`${JSON.stringify(all, null, 2)}\n`);
  } else {
    for (const d of all) io.out(`${formatDiagnostic(d, io.cwd)}\n`);
    const bad = new Set(all.map((d) => d.file)).size;
    io.err(all.length
      ? `${all.length} problem${all.length === 1 ? '' : 's'} in ${bad} file${bad === 1 ? '' : 's'}\n`
      : `${files.length} preset${files.length === 1 ? '' : 's'} valid\n`);
  }
  return all.length ? EXIT_BAD_INPUT : EXIT_OK;
}

/** `rein preset print [FILE]`: returns the exit code. */
export async function presetPrint(file: string | undefined, opts: { origins?: boolean; json?: boolean; layers?: boolean; plugins?: boolean } & ClaudeFlagValues, io: PresetIO): Promise<number> {
  const { loadPreset, PresetError } = await import('../../agent/preset/index.js');
  const { flagPlan } = await import('./claude-flags.js');
  let resolved;
  try {
    // Without FILE, the layers `rein run` uses without --preset: `default` beneath the config
    // files. The same flags as `rein run`, as the same command-line layer.
    const plan = flagPlan(opts, io.cwd);
    resolved = await loadPreset({ preset: file, base: 'default', cwd: io.cwd, env: io.env, layers: opts.layers !== false, flags: plan.layer as never, replace: plan.replace, claudeSettings: plan.settings });
  } catch (err) {
    if (err instanceof PresetError || (err instanceof Error && err.name === 'InputError')) {
      io.err(`${err.name === 'InputError' ? 'rein: ' : ''}${(err as Error).message}\n`);
      return EXIT_BAD_INPUT;
    }
    throw err;
  }
  if (opts.json) {
    const plugins = resolved.plugins.map((p) => ({ name: p.key, options: p.options, sources: p.sources }));
    io.out(`${JSON.stringify({ preset: resolved.preset, origins: Object.fromEntries(resolved.origins), files: resolved.files, plugins }, null, 2)}\n`);
    return EXIT_OK;
  }
  if (opts.plugins) {
    io.out(renderPlugins(resolved.plugins, io.cwd));
    return EXIT_OK;
  }
  io.out(await renderPreset(resolved.preset, opts.origins ? resolved.origins : undefined, io.cwd));
  return EXIT_OK;
}

type Where = { layer: string; file?: string; line?: number; keyLine?: number };

/** `layer file:line` (the line of the key), the file relative to `cwd` when it is inside it. */
function whereText(o: Where | undefined, cwd: string): string {
  if (!o) return 'built-in';
  if (!o.file) return o.layer;
  const shown = relative(cwd, o.file);
  const line = o.keyLine ?? o.line;
  return `${o.layer} ${shown.startsWith('..') || isAbsolute(shown) ? o.file : shown}${line ? `:${line}` : ''}`;
}

/**
 * The plugins that load, in load order, each with the options it runs with (what the preset's keys
 * imply and its `plugins:` entry, merged; defaults filled in) and, as a comment, where they came from.
 */
export function renderPlugins(plugins: readonly { key: string; options: unknown; sources: { path: string; origin?: Where }[] }[], cwd: string): string {
  const doc = new Document(Object.fromEntries(plugins.map((p) => [p.key, p.options ?? {}])));
  if (isMap(doc.contents)) {
    doc.contents.items.forEach((pair, i) => {
      const p = plugins[i]!;
      const from = p.sources.map((s) => `${s.path} (${whereText(s.origin, cwd)})`).join(' + ');
      if (from) (pair.key as { comment?: string }).comment = ` ${from}`;
      if (isMap(pair.value) && !pair.value.items.length) pair.value.flow = true;
    });
  }
  return doc.toString({ lineWidth: 0 });
}

/** The resolved preset as YAML, keys in schema order; with `origins`, each value ends in `# layer file:line`. */
export async function renderPreset(preset: Record<string, unknown>, origins: ReadonlyMap<string, { layer: string; file?: string; line?: number }> | undefined, cwd: string): Promise<string> {
  const { keyPath } = await import('../../agent/preset/errors.js');
  const { PRESET_KEYS } = await import('../../agent/preset/schema.js');
  const ordered: Record<string, unknown> = {};
  for (const k of PRESET_KEYS) if (preset[k] !== undefined) ordered[k] = preset[k];
  for (const [k, v] of Object.entries(preset)) if (!(k in ordered)) ordered[k] = v;
  const doc = new Document(ordered);
  if (origins) {
    const label = (path: (string | number)[]) => {
      const o = origins.get(keyPath(path));
      if (!o) return undefined;
      if (!o.file) return ` ${o.layer}`;
      const shown = relative(cwd, o.file);
      return ` ${o.layer} ${shown.startsWith('..') || isAbsolute(shown) ? o.file : shown}${o.line ? `:${o.line}` : ''}`;
    };
    const walk = (node: unknown, path: (string | number)[]): void => {
      if (isMap(node)) {
        if (!node.items.length) {
          node.flow = true;
          node.comment = label(path);
        }
        for (const pair of node.items) walk(pair.value, [...path, String((pair.key as { value: unknown }).value)]);
      } else if (isSeq(node)) {
        if (!node.items.length) {
          node.flow = true;
          node.comment = label(path);
        }
        node.items.forEach((item, i) => walk(item, [...path, i]));
      } else if (isScalar(node)) {
        node.comment = label(path);
      }
    };
    walk(doc.contents, []);
  }
  return doc.toString({ lineWidth: 0 });
}

/** The starter preset `rein preset init` writes; `schemaRef` is the path of agent.schema.json as seen from it. */
export function starterPreset(schemaRef: string): string {
  return `# yaml-language-server: $schema=${schemaRef}
# A rein preset. Check it with \`rein preset validate <file>\`; see the merged result, and which
# layer each value came from, with \`rein preset print --origins\`.
name: my-agent
description: What this agent is for, in one line.

# Build on a built-in preset (minimal, default, ...) or a file; keys here win. Without it, this
# file (as the project config) builds on the \`default\` preset.
extends: minimal

model:
  provider: anthropic        # uses ANTHROPIC_API_KEY, or the embedded simulator without one
  name: claude-sonnet-4-6
  maxTokens: 16000           # max_tokens per request
  # thinking: { type: enabled, budget_tokens: 4000 }

# Tools the model gets, by their Claude Code names.
tools: [Read, Glob, Grep, Write, Edit]

permissions:
  mode: default              # default | acceptEdits | plan | dontAsk | bypassPermissions | auto
  allow: ["Read", "Glob", "Grep"]
  deny: ["Read(./.env)", "Edit(./.env)"]   # a deny in any layer wins

limits:
  maxTurns: 50
  maxBudgetUsd: 2            # USD

# Plugins by name → options; \`false\` switches off one a lower layer turned on.
# plugins:
#   ./plugins-local/my-policy.ts: { strict: true }

# Strings may use \${VAR} and \${VAR:-default}:
# env:
#   GIT_AUTHOR_NAME: \${USER:-rein}
`;
}

/** `rein preset init [FILE]`: returns the exit code. */
export async function presetInit(file: string | undefined, opts: { force?: boolean }, io: PresetIO): Promise<number> {
  const { agentSchemaPath } = await import('../../agent/preset/index.js');
  const target = resolve(io.cwd, file ?? 'rein.config.yaml');
  if (existsSync(target) && !opts.force) {
    io.err(`rein: ${relative(io.cwd, target) || target} already exists; use --force to overwrite it\n`);
    return EXIT_BAD_INPUT;
  }
  const schema = agentSchemaPath();
  let ref = relative(dirname(target), schema);
  // A long climb out of the project is less robust than the absolute path.
  if (ref.split('/').filter((s) => s === '..').length > 3 || isAbsolute(ref)) ref = schema;
  try {
    writeFileSync(target, starterPreset(ref));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? `its folder ${dirname(target)} does not exist` : code === 'EISDIR' ? 'it is a directory' : (err as Error).message;
    io.err(`rein: cannot write ${target}: ${why}; name a file in an existing folder\n`);
    return EXIT_BAD_INPUT;
  }
  io.err(`wrote ${relative(io.cwd, target) || target}; check it with: rein preset validate ${relative(io.cwd, target) || target}\n`);
  return EXIT_OK;
}

/** Registers `rein preset validate | print | init` on the program. */
export function registerPresetCommands(program: Command): void {
  const preset = program.command('preset').description('Check, show and create presets.');
  preset
    .command('validate')
    .description('Check preset files: every problem as file:line:column: message. Exit 0 when all are valid, 2 otherwise.')
    .argument('<files...>', 'preset files, or built-in preset names (default, minimal, ...)')
    .option('--json', 'print the diagnostics as JSON')
    .action(async (files: string[], opts: { json?: boolean }) => {
      process.exitCode = await presetValidate(files, opts, defaultIO());
    });
  const print = preset
    .command('print')
    .description('Print the resolved preset: defaults < user < project < local < FILE < Claude Code settings < flags, merged (without FILE, the preset `rein run` gets without --preset). Takes the flags of `rein run` that shape the agent.')
    .argument('[file]', 'a preset file or built-in name (the --preset layer)')
    .option('--preset <file|name>', 'the same as FILE, as `rein run` spells it')
    .option('--origins', 'show the layer and file:line each value came from')
    .option('--json', 'print JSON: { preset, origins, files }')
    .option('--cwd <dir>', 'working directory (where project and local layers are searched from)')
    .option('--no-layers', 'ignore user, project and local config layers')
    .option('--plugins', 'print the plugins that load, in order, with the options they run with and where those came from');
  addPresetFlags(print)
    .action(async (file: string | undefined, opts: { preset?: string; origins?: boolean; json?: boolean; cwd?: string; layers?: boolean; plugins?: boolean } & ClaudeFlagValues) => {
      // `--preset X` is how `rein run` names the preset layer; FILE is the older spelling of it.
      if (file !== undefined && opts.preset !== undefined && file !== opts.preset) {
        process.stderr.write(`rein: preset print got two presets, ${file} and --preset ${opts.preset}: pass one\n`);
        process.exitCode = EXIT_BAD_INPUT;
        return;
      }
      process.exitCode = await presetPrint(file ?? opts.preset, opts, defaultIO(opts.cwd));
    });
  preset
    .command('init')
    .description('Write a commented starter preset that validates.')
    .argument('[file]', 'where to write it', 'rein.config.yaml')
    .option('--force', 'overwrite an existing file')
    .action(async (file: string, opts: { force?: boolean }) => {
      process.exitCode = await presetInit(file, opts, defaultIO());
    });
}
