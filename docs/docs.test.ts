/**
 * The generated reference pages match the code: docs/hooks.md (kernel/hooks.ts, hook-payloads.ts)
 * and docs/preset-reference.md (agent.schema.json). When this fails, run `npm run docs` and commit.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { CONTEXT_STAGE, HOOK_NAMES, PERMISSION_REQUEST_STAGE, PERMISSION_STAGE, REQUEST_STAGE, createHooks } from '../kernel/hooks.js';
import { generateDocs, readHooks, readPayloads, SOURCES, typeText } from '../scripts/gen-docs.js';
import { REPO } from '../testing/support.js';

describe('generated docs', () => {
  it('docs/hooks.md and docs/preset-reference.md are up to date', async () => {
    for (const { path, content } of await generateDocs()) {
      let committed: string | undefined;
      try {
        committed = readFileSync(path, 'utf8');
      } catch {
        committed = undefined;
      }
      expect(committed === content, `${relative(REPO, path)} is out of date with the code: run \`npm run docs\` and commit the result`).toBe(true);
    }
  });
});

describe('what gen-docs reads', () => {
  const parsed = readHooks(readFileSync(SOURCES.hooks, 'utf8'));

  it('every hook of the running table, in loop order, with its tapable class and a description', () => {
    const live = createHooks() as Record<string, object>;
    expect(parsed.hooks.map((h) => h.name)).toEqual([...HOOK_NAMES]);
    for (const h of parsed.hooks) {
      expect(live[h.name]!.constructor.name).toBe(h.kind);
      expect(h.doc.length).toBeGreaterThan(0);
      expect(h.args.map((a) => a.name)).toEqual((live[h.name] as { _args: string[] })._args);
    }
  });

  it('the stage constants with the values the code has', () => {
    const live: Record<string, Record<string, number>> = { CONTEXT_STAGE, REQUEST_STAGE, PERMISSION_STAGE, PERMISSION_REQUEST_STAGE };
    expect(parsed.stages.map((s) => s.name)).toEqual(Object.keys(live));
    for (const s of parsed.stages) {
      expect(Object.fromEntries(s.values.map((v) => [v.name, Number(v.value.replace(/,/g, ''))]))).toEqual(live[s.name]);
    }
  });

  it('payload interfaces with optional fields marked, and type aliases', () => {
    const payloads = readPayloads([
      '/** A thing. */',
      'export interface A {',
      '  /** Its id. */',
      '  id: string;',
      '  note?: string;',
      '}',
      'export type B = A | undefined;',
      'interface Hidden { x: 1 }',
    ].join('\n'));
    expect(payloads).toEqual([
      { name: 'A', doc: 'A thing.', kind: 'interface', fields: [{ name: 'id', optional: false, type: 'string', doc: 'Its id.' }, { name: 'note', optional: true, type: 'string', doc: '' }] },
      { name: 'B', doc: '', kind: 'type', fields: [], definition: 'A | undefined' },
    ]);
  });

  it('schema types in words', () => {
    const root = { $defs: { M: { type: 'object', properties: { a: { type: 'string' } } } } };
    expect(typeText(root, { type: 'integer', exclusiveMinimum: 0, maximum: Number.MAX_SAFE_INTEGER })).toBe('integer, > 0');
    expect(typeText(root, { type: 'array', items: { type: 'string', minLength: 1 } })).toBe('(string, non-empty)[]');
    expect(typeText(root, { enum: ['a', 'b'] })).toBe('"a" \\| "b"');
    expect(typeText(root, { $ref: '#/$defs/M' })).toBe('[M](#m)');
    expect(typeText(root, { anyOf: [{ type: 'object', properties: { type: { const: 'x' }, url: {} } }, { type: 'null' }] })).toBe('{ type: "x", url } \\| null');
  });

  it('the preset reference has a row for every preset key and a section for every built-in plugin in the schema', async () => {
    const schema = JSON.parse(readFileSync(SOURCES.schema, 'utf8'));
    const page = (await generateDocs()).find((d) => d.path.endsWith('preset-reference.md'))!.content;
    for (const key of Object.keys(schema.properties).filter((k) => k !== 'plugins')) expect(page).toContain(`| \`${key}\` |`);
    for (const name of Object.keys(schema.properties.plugins.properties)) expect(page).toContain(`### ${name}\n`);
  });
});
