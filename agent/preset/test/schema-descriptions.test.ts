/**
 * Every key of agent.schema.json has a description: the preset's keys, the hook and MCP server
 * fields, and every built-in plugin's options, nested ones included. Editors show these on hover,
 * and docs/preset-reference.md (scripts/gen-docs.ts) prints them; a key without one shows "—".
 * Describe a key where its schema is written: `.describe()` on the zod schema (agent/preset/schema.ts),
 * or `.register(z.globalRegistry, { description })` in a plugin's options (docs/plugins.md says why),
 * then `npm run schema && npm run docs`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../../../testing/support.js';

type Schema = { [k: string]: unknown };

const isSchema = (v: unknown): v is Schema => !!v && typeof v === 'object' && !Array.isArray(v);

/** The `$defs` entry a local `$ref` (`#/$defs/<name>`) points to; throws for any other ref or a dangling one. */
function target(root: Schema, ref: string): Schema {
  const m = /^#\/\$defs\/(.+)$/.exec(ref);
  const def = m ? (root.$defs as Record<string, unknown> | undefined)?.[decodeURIComponent(m[1]!)] : undefined;
  if (!isSchema(def)) throw new Error(`unresolvable $ref ${ref}`);
  return def;
}

/** A schema's description, looking through `$ref`s (a property may only point at a described definition). */
function descriptionOf(root: Schema, s: Schema): string | undefined {
  let cur: Schema | undefined = s;
  for (let i = 0; cur && i < 10; i++) {
    if (typeof cur.description === 'string' && cur.description.trim()) return cur.description;
    cur = typeof cur.$ref === 'string' ? target(root, cur.$ref) : undefined;
  }
  return undefined;
}

/**
 * Every property path in `root` (and its `$defs`), e.g. `plugins.compaction/auto.restore.maxFiles`,
 * with whether it has a description. Looks into nested objects, array items, map values
 * (`<name>`), union variants and `$ref` targets (each definition once).
 */
function keysOf(root: Schema): { path: string; described: boolean }[] {
  const keys: { path: string; described: boolean }[] = [];
  const walked = new Set<Schema>();
  const walk = (s: unknown, path: string): void => {
    if (!isSchema(s) || walked.has(s)) return;
    walked.add(s);
    if (typeof s.$ref === 'string') walk(target(root, s.$ref), path);
    for (const [key, p] of Object.entries(isSchema(s.properties) ? s.properties : {})) {
      const at = path ? `${path}.${key}` : key;
      keys.push({ path: at, described: isSchema(p) && descriptionOf(root, p) !== undefined });
      walk(p, at);
    }
    for (const [pattern, p] of Object.entries(isSchema(s.patternProperties) ? s.patternProperties : {})) walk(p, `${path}.<${pattern}>`);
    for (const k of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
      if (Array.isArray(s[k])) for (const v of s[k] as unknown[]) walk(v, path);
    }
    walk(s.items, `${path}[]`);
    walk(s.additionalProperties, `${path}.<name>`);
  };
  walk(root, '');
  for (const [name, def] of Object.entries(isSchema(root.$defs) ? root.$defs : {})) walk(def, `$defs.${name}`);
  return keys;
}

/** The paths of keysOf(root) that have no description. */
const undescribedKeys = (root: Schema): string[] => keysOf(root).filter((k) => !k.described).map((k) => k.path);

describe('agent.schema.json descriptions', () => {
  const schema = JSON.parse(readFileSync(join(REPO, 'agent.schema.json'), 'utf8')) as Schema;

  it('every key has a description: preset keys and every built-in plugin option, nested included', () => {
    expect(undescribedKeys(schema), 'keys without a description: describe their zod schema (docs/plugins.md), then npm run schema && npm run docs').toEqual([]);
  });

  it('the walk reaches preset keys, hook fields, MCP server fields and nested plugin options', () => {
    const keys = new Set(keysOf(schema).map((k) => k.path));
    for (const key of [
      'model', 'model.thinking.type', 'permissions', 'limits', 'hooks.PreToolUse', 'mcpServers.<name>.url',
      'plugins.compaction/auto.triggerRatio', 'plugins.compaction/auto.restore.maxFiles',
      'plugins.compaction/context-edits.clearToolUses.keep', 'plugins.classifier.stage1MaxTokens',
      'plugins.hooks/shell.PreToolUse[].hooks[].timeout', 'plugins.tools/task.agents.<name>.maxTurns',
      'plugins.tools/mcp.servers.<name>.cwd', 'plugins.system-prompt.sections[].kind',
    ]) expect(keys.has(key), key).toBe(true);
  });

  it('finds an undescribed key behind a $ref, in array items, map values and union variants', () => {
    const root: Schema = {
      type: 'object',
      properties: {
        a: { description: 'A.', $ref: '#/$defs/D' },
        b: { description: 'B.', type: 'array', items: { type: 'object', properties: { c: { type: 'string' } } } },
        m: { description: 'M.', type: 'object', additionalProperties: { anyOf: [{ type: 'object', properties: { u: { type: 'number' } } }, { type: 'null' }] } },
        r: { $ref: '#/$defs/Described' },
      },
      $defs: {
        D: { type: 'object', properties: { inner: { type: 'boolean' }, ok: { type: 'boolean', description: 'Ok.' } } },
        Described: { type: 'string', description: 'Described where it is defined.' },
      },
    };
    expect(undescribedKeys(root).sort()).toEqual(['a.inner', 'b[].c', 'm.<name>.u']);
  });
});

describe('docs/preset-reference.md', () => {
  it('has no key or plugin row whose description is empty ("—")', () => {
    const page = readFileSync(join(REPO, 'docs', 'preset-reference.md'), 'utf8');
    const rows = page.split('\n').filter((l) => /^\| (`|\[`)/.test(l));
    expect(rows.length).toBeGreaterThan(100);
    expect(rows.filter((l) => /\| — \|$/.test(l))).toEqual([]);
  });
});
