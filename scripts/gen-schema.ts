/**
 * Writes the files derived from zod schemas: the preset's (agent/preset/schema.ts) and the built-in
 * tools' input schemas:
 *
 * - agent.schema.json (repository root): JSON Schema draft 2020-12 of a preset for editors
 *   (`# yaml-language-server: $schema=...`), with each built-in plugin's options under
 *   `plugins.properties[<name>]`, generated from the plugin's own zod `options` schema.
 * - agent/preset/generated/preset-validator.ts: the ajv validator of the preset's core schema,
 *   compiled ahead of time (ajv standalone), so loading a preset does not import or compile ajv.
 *   Plugin options are not in it: the loader checks them with each plugin's zod schema.
 * - plugins/tools/shared/generated/input-schemas.ts: the `input_schema` of every built-in tool,
 *   generated from its zod input schema as the kernel would (kernel/tool-registry.ts
 *   `inputSchemaOf`). The tools send these, so a `rein run` does not convert a dozen zod schemas to
 *   JSON Schema before its first request (~4 ms of a cold start with the default preset); input is
 *   still validated with the zod schemas.
 *
 * - agent/preset/generated/builtin-presets.ts: every built-in preset (presets/*.yaml) as the preset
 *   loader parses it (agent/preset/source.ts `parsedYamlForCache`: the value, the positions of its
 *   keys and values, its line starts), with its text. Loading a preset whose text is one of these
 *   uses the kept parse instead of running the YAML parser (~25 M instructions of a cold `rein run`
 *   with the default preset); any other text is parsed.
 *
 * Usage: `npm run schema` (writes), `npm run schema -- --check` (exit 1 when a file is out of date).
 * A test (agent/preset/test/schema-sync.test.ts) fails when the committed files differ from what
 * this script generates.
 */
import { readFile, readdir, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { presetSchema } from '../agent/preset/schema.js';
import { parsedYamlForCache } from '../agent/preset/source.js';
import { BUILTIN_PLUGINS } from '../agent/plugins.js';
import { inputSchemaOf, type Tool } from '../kernel/index.js';
import { bashBackgroundInput, bashInput } from '../plugins/tools/bash/tool.js';
import { bashOutputInput, killShellInput } from '../plugins/tools/bash/shell-tools.js';
import { editInput } from '../plugins/tools/edit/tool.js';
import { globInput } from '../plugins/tools/glob/tool.js';
import { grepInput } from '../plugins/tools/grep/tool.js';
import { readInput } from '../plugins/tools/read/tool.js';
import { skillInput } from '../plugins/tools/skill/tool.js';
import { taskInput } from '../plugins/tools/task/tool.js';
import { todoWriteInput } from '../plugins/tools/todo-write/tool.js';
import { toolSearchInput } from '../plugins/tools/tool-search/tool.js';
import { webFetchInput } from '../plugins/tools/web-fetch/tool.js';
import { writeInput } from '../plugins/tools/write/tool.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the editor schema goes. */
export const AGENT_SCHEMA_PATH = join(ROOT, 'agent.schema.json');
/** Where the precompiled core validator goes. */
export const VALIDATOR_PATH = join(ROOT, 'agent', 'preset', 'generated', 'preset-validator.ts');
/** Where the built-in presets' kept parse goes. */
export const PARSED_PRESETS_PATH = join(ROOT, 'agent', 'preset', 'generated', 'builtin-presets.ts');
/** Where the built-in tools' input JSON Schemas go. */
export const TOOL_SCHEMAS_PATH = join(ROOT, 'plugins', 'tools', 'shared', 'generated', 'input-schemas.ts');

/** The built-in tools' zod input schemas, by the name their module exports them under. */
export const TOOL_INPUT_SCHEMAS: Record<string, z.ZodType> = {
  bashInput, bashBackgroundInput, bashOutputInput, killShellInput, editInput, globInput, grepInput,
  readInput, skillInput, taskInput, todoWriteInput, toolSearchInput, webFetchInput, writeInput,
};

type JsonSchema = Record<string, unknown>;

/** The core preset JSON Schema (no per-plugin options). */
export function coreSchema(): JsonSchema {
  const schema = z.toJSONSchema(presetSchema, { io: 'input', target: 'draft-2020-12' }) as JsonSchema;
  return { ...schema, title: 'rein preset', description: 'A rein preset: which model, tools, permissions and plugins an agent runs with.' };
}

/** Moves a plugin options schema into the root `$defs`, rewriting its internal `$ref`s. */
function embedPluginSchema(root: JsonSchema, name: string, schema: JsonSchema): JsonSchema {
  const id = `plugin:${name}`;
  const { $schema: _drop, $defs, ...rest } = schema as JsonSchema & { $defs?: Record<string, JsonSchema> };
  const rewrite = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rewrite);
    if (v && typeof v === 'object') {
      const out: JsonSchema = {};
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string') {
          out[k] = x === '#' ? `#/$defs/${encodeURIComponent(id)}` : x.replace(/^#\/\$defs\//, `#/$defs/${encodeURIComponent(id)}.`);
        } else out[k] = rewrite(x);
      }
      return out;
    }
    return v;
  };
  const defs = ((root.$defs ??= {}) as Record<string, unknown>);
  for (const [k, v] of Object.entries($defs ?? {})) defs[`${id}.${k}`] = rewrite(v);
  defs[id] = rewrite(rest);
  return { $ref: `#/$defs/${encodeURIComponent(id)}` };
}

/**
 * The editor schema: the core schema plus, for every built-in plugin that loads, its options schema.
 * Plugins whose module cannot be imported are listed in `skipped` (a registry entry ahead of its code).
 */
export async function agentSchema(): Promise<{ schema: JsonSchema; skipped: { name: string; error: string }[] }> {
  const schema = coreSchema();
  const props = schema.properties as Record<string, JsonSchema>;
  const pluginProps: Record<string, JsonSchema> = {};
  const skipped: { name: string; error: string }[] = [];
  for (const name of Object.keys(BUILTIN_PLUGINS).sort()) {
    let plugin;
    try {
      plugin = await BUILTIN_PLUGINS[name]!();
    } catch (err) {
      skipped.push({ name, error: (err as Error).message.split('\n')[0]! });
      continue;
    }
    const options = z.toJSONSchema(plugin.options, { io: 'input', target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
    const ref = embedPluginSchema(schema, name, options);
    pluginProps[name] = {
      ...(plugin.description ? { description: plugin.description } : {}),
      anyOf: [ref, { type: 'boolean', description: 'true: on with default options; false: switch off an inherited plugin' }, { type: 'null' }],
    };
  }
  props.plugins = { ...props.plugins, properties: pluginProps };
  return { schema, skipped };
}

/** The standalone ajv validator module for the core schema, as TypeScript source. */
export function validatorSource(): string {
  const schema = coreSchema();
  const ajv = new Ajv2020({ allErrors: true, strict: true, inlineRefs: false, code: { source: true, esm: true } });
  const validate = ajv.compile(schema);
  // ajv ships CommonJS: under Node's ESM loader the default import is `module.exports`.
  const standaloneCode = ((standaloneModule as unknown as { default?: typeof standaloneModule }).default ?? standaloneModule) as unknown as (a: Ajv2020, v: unknown) => string;
  let code = standaloneCode(ajv, validate);
  // Standalone output still `require`s ajv's runtime helpers. The only one this schema needs is
  // ucs2length (minLength counts code points, not UTF-16 units); define it here so the module has no
  // CommonJS interop to get wrong under any loader, and refuse any other.
  code = code.replace(/require\("([^"]+)"\)/g, (_m, mod: string) => {
    if (mod !== 'ajv/dist/runtime/ucs2length') throw new Error(`gen-schema: the validator needs ajv runtime module ${mod}; add it to validatorSource()`);
    return '{ default: (s) => { let n = 0; for (const _c of s) n++; return n; } }';
  });
  code = code.replace(/^"use strict";/, '');
  return [
    '/* eslint-disable */',
    '// Generated by scripts/gen-schema.ts from agent/preset/schema.ts (`npm run schema`). Do not edit.',
    '// @ts-nocheck',
    `/** The core preset JSON Schema the validator was compiled from (plugin options excluded). */`,
    `export const presetJsonSchema = ${JSON.stringify(schema)};`,
    code,
    '',
  ].join('\n');
}

/** The module of the built-in tools' input JSON Schemas, as TypeScript source. */
export function toolSchemasSource(): string {
  const names = Object.keys(TOOL_INPUT_SCHEMAS).sort();
  const lines = names.map((name) => {
    // The kernel's conversion itself, for a tool that brings no JSON Schema of its own.
    const schema = inputSchemaOf({ inputSchema: TOOL_INPUT_SCHEMAS[name]! } as Tool);
    return `  ${name}: ${JSON.stringify(schema)},`;
  });
  return [
    '// Generated by scripts/gen-schema.ts from the tools\' zod input schemas (`npm run schema`). Do not edit.',
    "import type { JsonSchema } from '../../../../kernel/index.js';",
    '',
    '/** The names the tool modules export their zod input schemas under. */',
    `export type ToolInputName = ${names.map((n) => `'${n}'`).join(' | ')};`,
    '',
    '/**',
    ' * The `input_schema` each built-in tool sends, by the name of its zod input schema: what the',
    ' * kernel generates from that schema (kernel/tool-registry.ts `inputSchemaOf`), computed ahead of',
    ' * time so a run does not convert the schemas before its first request. Input is still validated',
    ' * with the zod schema. agent/preset/test/schema-sync.test.ts fails when this file is stale.',
    ' */',
    'export const INPUT_JSON_SCHEMAS: Record<ToolInputName, JsonSchema> = {',
    ...lines,
    '};',
    '',
  ].join('\n');
}

/** generated/builtin-presets.ts: every built-in preset's text with its kept parse, by file name. */
async function parsedPresetsSource(): Promise<string> {
  const dir = join(ROOT, 'presets');
  const names = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  const entries: string[] = [];
  for (const name of names) {
    const text = await readFile(join(dir, name), 'utf8');
    const kept = parsedYamlForCache(`presets/${name}`, text);
    entries.push(`  // presets/${name}\n  { text: ${JSON.stringify(text)}, value: ${JSON.stringify(kept.value)}, index: ${JSON.stringify(kept.index)}, lineStarts: ${JSON.stringify(kept.lineStarts)} },`);
  }
  return [
    '// Generated by scripts/gen-schema.ts from presets/*.yaml (`npm run schema`). Do not edit.',
    "import type { ParsedYaml } from '../source.js';",
    '',
    '/**',
    ' * The built-in presets as agent/preset/source.ts parses them, each with its text: loading a preset',
    ' * whose text is one of these uses the kept parse (source.ts `builtinPresetSource`).',
    ' * agent/preset/test/schema-sync.test.ts fails when this file is stale.',
    ' */',
    'export const PARSED_PRESETS: readonly ({ text: string } & ParsedYaml)[] = [',
    ...entries,
    '];',
    '',
  ].join('\n');
}

/** The generated files' contents. */
export async function generate(): Promise<{ agentSchemaJson: string; validator: string; toolSchemas: string; parsedPresets: string; skipped: { name: string; error: string }[] }> {
  const { schema, skipped } = await agentSchema();
  return { agentSchemaJson: `${JSON.stringify(schema, null, 2)}\n`, validator: validatorSource(), toolSchemas: toolSchemasSource(), parsedPresets: await parsedPresetsSource(), skipped };
}

async function main(argv: string[]): Promise<number> {
  const check = argv.includes('--check');
  const out = await generate();
  for (const s of out.skipped) process.stderr.write(`gen-schema: built-in plugin ${s.name} skipped (cannot import: ${s.error})\n`);
  const files: [string, string][] = [[AGENT_SCHEMA_PATH, out.agentSchemaJson], [VALIDATOR_PATH, out.validator], [TOOL_SCHEMAS_PATH, out.toolSchemas], [PARSED_PRESETS_PATH, out.parsedPresets]];
  let stale = 0;
  for (const [path, content] of files) {
    const current = await readFile(path, 'utf8').catch(() => undefined);
    if (current === content) continue;
    if (check) {
      process.stderr.write(`gen-schema: ${path} is out of date; run npm run schema\n`);
      stale++;
    } else {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, content);
      process.stdout.write(`gen-schema: wrote ${path}\n`);
    }
  }
  return stale ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
