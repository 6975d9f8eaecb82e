/**
 * agent.schema.json, the precompiled validator and the built-in tools' input JSON Schemas are
 * generated from the zod schemas, the built-in presets' kept parse from presets/*.yaml
 * (scripts/gen-schema.ts); the committed files must match what the script writes now.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { AGENT_SCHEMA_PATH, PARSED_PRESETS_PATH, TOOL_SCHEMAS_PATH, VALIDATOR_PATH, generate } from '../../../scripts/gen-schema.js';
import { BUILTIN_PLUGINS } from '../../plugins.js';
import { builtinPresetNames, builtinPresetsDir } from '../paths.js';

// ajv-formats is CommonJS: under ESM the default import may be the module object.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;

describe('generated schema files', () => {
  it('are in sync with the zod schemas (run `npm run schema` when this fails)', async () => {
    const out = await generate();
    expect(readFileSync(AGENT_SCHEMA_PATH, 'utf8'), 'agent.schema.json is stale: run npm run schema').toBe(out.agentSchemaJson);
    expect(readFileSync(VALIDATOR_PATH, 'utf8'), 'the preset validator is stale: run npm run schema').toBe(out.validator);
    expect(readFileSync(TOOL_SCHEMAS_PATH, 'utf8'), 'the tools\' input JSON Schemas are stale: run npm run schema').toBe(out.toolSchemas);
    expect(readFileSync(PARSED_PRESETS_PATH, 'utf8'), 'the built-in presets\' kept parse is stale: run npm run schema').toBe(out.parsedPresets);
  });

  it('agent.schema.json is JSON Schema draft 2020-12 that ajv compiles in strict mode', () => {
    const schema = JSON.parse(readFileSync(AGENT_SCHEMA_PATH, 'utf8'));
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    // Plugin options may use formats (uri, ...), as editors understand them.
    addFormats(ajv);
    const validate = ajv.compile(schema);
    for (const name of builtinPresetNames()) {
      const preset = parse(readFileSync(`${builtinPresetsDir()}/${name}.yaml`, 'utf8'));
      expect(validate(preset), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect(validate({ modle: {} })).toBe(false);
  });

  it('describes the options of every built-in plugin that loads, from its zod schema', async () => {
    const schema = JSON.parse(readFileSync(AGENT_SCHEMA_PATH, 'utf8'));
    const props = schema.properties.plugins.properties as Record<string, { anyOf: { $ref?: string }[] }>;
    const { skipped } = await generate();
    const expected = Object.keys(BUILTIN_PLUGINS).filter((n) => !skipped.some((s) => s.name === n)).sort();
    expect(Object.keys(props).sort()).toEqual(expected);
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(schema);
    // The retry plugin's options are checked by the editor schema too: a wrong type is rejected.
    expect(validate({ plugins: { retry: {} } })).toBe(true);
    expect(validate({ plugins: { retry: false } })).toBe(true);
    expect(validate({ plugins: { retry: 'fast' } })).toBe(false);
  });
});
