/**
 * Writes the two files derived from the preset's zod schema (agent/preset/schema.ts):
 *
 * - agent.schema.json (repository root): JSON Schema draft 2020-12 of a preset for editors
 *   (`# yaml-language-server: $schema=...`), with each built-in plugin's options under
 *   `plugins.properties[<name>]`, generated from the plugin's own zod `options` schema.
 * - agent/preset/generated/preset-validator.ts: the ajv validator of the preset's core schema,
 *   compiled ahead of time (ajv standalone), so loading a preset does not import or compile ajv.
 *   Plugin options are not in it: the loader checks them with each plugin's zod schema.
 *
 * Usage: `npm run schema` (writes), `npm run schema -- --check` (exit 1 when a file is out of date).
 * A test (agent/preset/test/schema-sync.test.ts) fails when the committed files differ from what
 * this script generates.
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { presetSchema } from '../agent/preset/schema.js';
import { BUILTIN_PLUGINS } from '../agent/plugins.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the editor schema goes. */
export const AGENT_SCHEMA_PATH = join(ROOT, 'agent.schema.json');
/** Where the precompiled core validator goes. */
export const VALIDATOR_PATH = join(ROOT, 'agent', 'preset', 'generated', 'preset-validator.ts');

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

/** Both generated files' contents. */
export async function generate(): Promise<{ agentSchemaJson: string; validator: string; skipped: { name: string; error: string }[] }> {
  const { schema, skipped } = await agentSchema();
  return { agentSchemaJson: `${JSON.stringify(schema, null, 2)}\n`, validator: validatorSource(), skipped };
}

async function main(argv: string[]): Promise<number> {
  const check = argv.includes('--check');
  const out = await generate();
  for (const s of out.skipped) process.stderr.write(`gen-schema: built-in plugin ${s.name} skipped (cannot import: ${s.error})\n`);
  const files: [string, string][] = [[AGENT_SCHEMA_PATH, out.agentSchemaJson], [VALIDATOR_PATH, out.validator]];
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
