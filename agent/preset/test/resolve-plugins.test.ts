/**
 * Plugin resolution: built-in names, .ts and .js files (jiti), npm packages, default or named
 * `plugin` exports; and every failure naming the plugin and the preset line that asked for it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KernelPreset } from '../../../kernel/kernel.js';
import { createKernel } from '../../kernel.js';
import type { ModelClient } from '../../../kernel/model/client.js';
import { loadPreset, PresetError, resolvePlugin } from '../index.js';
import { PluginResolveError, originPath } from '../resolve-plugins.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

let dir: string;

function write(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** A duck-typed plugin module in plain JS (no imports), for .js and npm package loading. */
const jsPlugin = (name: string, exportLine = 'export default') => `${exportLine} {\n  name: ${JSON.stringify(name)},\n  options: { safeParse: (v) => ({ success: true, data: v ?? {} }) },\n  apply() {},\n};\n`;

/** A model client that is never called: these tests only load plugins. */
const noClient: ModelClient = {
  kind: 'simulator',
  baseURL: 'none',
  send: async () => { throw new Error('not used'); },
  countTokens: async () => 0,
  close: async () => undefined,
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rein-plugins-'));
  mkdirSync(join(dir, '.git'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function rejection(p: Promise<unknown>): Promise<Error> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(Error);
  return err as Error;
}

describe('resolvePlugin', () => {
  it('resolves a built-in name through the registry', async () => {
    const p = await resolvePlugin('retry', dir);
    expect(p.name).toBe('retry');
  });

  it('loads a .ts file with jiti, default export or named `plugin` export', async () => {
    expect((await resolvePlugin('./plugins/greeter.ts', FIXTURES)).name).toBe('test/greeter');
    expect((await resolvePlugin('./plugins/needs-greeter.ts', FIXTURES)).requires).toEqual(['test/greeter']);
  });

  it('loads a .js file and an .mjs file', async () => {
    write(join(dir, 'p.js'), jsPlugin('js-plugin'));
    write(join(dir, 'q.mjs'), jsPlugin('mjs-plugin', 'export const plugin ='));
    expect((await resolvePlugin('./p.js', dir)).name).toBe('js-plugin');
    expect((await resolvePlugin(join(dir, 'q.mjs'), '/')).name).toBe('mjs-plugin');
  });

  it('resolves npm packages (plain and scoped) from the preset directory', async () => {
    write(join(dir, 'node_modules/rein-plugin-demo/package.json'), '{ "name": "rein-plugin-demo", "type": "module", "exports": "./main.js" }');
    write(join(dir, 'node_modules/rein-plugin-demo/main.js'), jsPlugin('demo'));
    write(join(dir, 'node_modules/@acme/rein-audit/package.json'), '{ "name": "@acme/rein-audit", "type": "module", "main": "index.js" }');
    write(join(dir, 'node_modules/@acme/rein-audit/index.js'), jsPlugin('audit'));
    const nested = join(dir, 'config', 'presets');
    mkdirSync(nested, { recursive: true });
    expect((await resolvePlugin('rein-plugin-demo', nested)).name).toBe('demo');
    expect((await resolvePlugin('@acme/rein-audit', dir)).name).toBe('audit');
  });

  it('names the plugin in every failure, and the preset line when given', async () => {
    const missing = await rejection(resolvePlugin('./nope.ts', dir, 'rein.config.yaml:3:4'));
    expect(missing).toBeInstanceOf(PluginResolveError);
    expect(missing.message).toBe(`plugin "./nope.ts" not found: no file at ${join(dir, 'nope.ts')} (asked for at rein.config.yaml:3:4)`);

    expect((await rejection(resolvePlugin('no-such-rein-plugin', dir))).message)
      .toBe('unknown plugin "no-such-rein-plugin": not a built-in plugin, and no npm package of that name is installed where the preset is');
    expect((await rejection(resolvePlugin('compaction/autoo', dir))).message)
      .toBe('unknown plugin "compaction/autoo": not a built-in plugin; did you mean "compaction/auto"?');

    write(join(dir, 'broken.ts'), 'export default definePlugin({ name: "x", apply() { return ; } ;\n');
    const broken = await rejection(resolvePlugin('./broken.ts', dir));
    expect(broken.message).toMatch(/^plugin "\.\/broken\.ts" failed to import: /);
    // Where the syntax error is: the file, its line and column.
    expect(broken.message).toContain(`failed to import: ${join(dir, 'broken.ts')}:1:`);
    write(join(dir, 'syntax.ts'), 'export default {{;\n');
    expect((await rejection(resolvePlugin('./syntax.ts', dir))).message)
      .toBe(`plugin "./syntax.ts" failed to import: ${join(dir, 'syntax.ts')}:1:16: Unexpected token`);

    write(join(dir, 'empty.js'), 'export const nothing = 1;\n');
    expect((await rejection(resolvePlugin('./empty.js', dir))).message).toMatch(/^plugin "\.\/empty\.js" does not export a plugin/);
  });
});

describe('plugins loaded from a preset', () => {
  it('validates options with the plugin schema and returns them ready for createKernel', async () => {
    const preset = write(join(dir, 'p.yaml'), `plugins:\n  ${join(FIXTURES, 'plugins/greeter.ts')}: { greeting: hey, style: { loud: true } }\n`);
    const r = await loadPreset({ preset: preset, cwd: dir, layers: false, env: {} });
    const greeter = r.plugins.find((p) => p.plugin.name === 'test/greeter');
    expect(greeter).toMatchObject({ options: { greeting: 'hey', times: 1, style: { loud: true } }, origin: `${preset}:2:3` });
    expect(r.plugins.map((p) => p.plugin.name)).toContain('retry');
  });

  it('a required option left out is named as missing, with what it expects, at the entry that lacks it', async () => {
    const plugin = join(FIXTURES, 'plugins/needs-project.ts');
    const preset = write(join(dir, 'p.yaml'), `plugins:\n  ${plugin}:\n    jira: { board: 7 }\n`);
    const err = await rejection(loadPreset({ preset, cwd: dir, layers: false, env: {} }));
    expect(err).toBeInstanceOf(PresetError);
    const shown = relative(dir, plugin); // as the preset names it: relative to the preset's folder
    expect((err as PresetError).diagnostics.map((d) => `${d.line}:${d.column}: ${d.message}`)).toEqual([
      `3:5: plugins["${shown}"].project: missing required option "project" for plugin ${shown} (expected string)`,
      `3:11: plugins["${shown}"].jira.url: missing required option "url" for plugin ${shown} (expected string)`,
    ]);
  });

  it('a plugin whose check throws is a preset error naming the plugin at its line, not an internal error', async () => {
    write(join(dir, 'fragile.js'), 'export default {\n  name: "fragile",\n  options: { safeParse: (v) => ({ success: true, data: v ?? {} }) },\n  check() { throw new Error("check exploded"); },\n  apply() {},\n};\n');
    const preset = write(join(dir, 'p.yaml'), 'plugins:\n  retry: {}\n  ./fragile.js: {}\n');
    const err = await rejection(loadPreset({ preset, cwd: dir, layers: false, env: {} }));
    expect(err).toBeInstanceOf(PresetError);
    expect((err as PresetError).diagnostics.map((d) => `${d.line}:${d.column}: ${d.message}`)).toEqual([
      '3:3: plugins["./fragile.js"]: plugin fragile failed in its check: check exploded',
    ]);
  });

  it('a plugin that throws in apply fails kernel creation with its name and the preset line', async () => {
    const preset = write(join(dir, 'p.yaml'), `name: p\nplugins:\n  ${join(FIXTURES, 'plugins/throws-in-apply.ts')}: {}\n`);
    const r = await loadPreset({ preset, cwd: dir, layers: false, env: {} });
    const err = await rejection(createKernel({ preset: r.preset as KernelPreset, cwd: dir, client: noClient, plugins: r.plugins }));
    expect(err.name).toBe('PluginError');
    expect(err.message).toBe(`plugin test/throws-in-apply (${preset}:3:3) failed to apply: apply failed on purpose`);
  });

  it('a plugin that fails to import is a PresetError at the line that named it', async () => {
    write(join(dir, 'bad.ts'), 'const x: number = ;\n');
    const preset = write(join(dir, 'p.yaml'), 'plugins:\n  retry: {}\n  ./bad.ts: {}\n');
    const err = await rejection(loadPreset({ preset, cwd: dir, layers: false, env: {} }));
    expect(err).toBeInstanceOf(PresetError);
    const d = (err as PresetError).diagnostics;
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ file: preset, line: 3, column: 3 });
    expect(d[0]!.message).toMatch(/^plugin "\.\/bad\.ts" failed to import: /);
  });

  it('checks requires and conflicts at load, with positions', async () => {
    const preset = write(join(dir, 'p.yaml'), [
      'plugins:',
      `  ${join(FIXTURES, 'plugins/needs-greeter.ts')}: {}`,
      `  ${join(FIXTURES, 'plugins/anti-greeter.ts')}: {}`,
      '',
    ].join('\n'));
    const err = (await rejection(loadPreset({ preset, cwd: dir, layers: false, env: {} }))) as PresetError;
    expect(err.diagnostics.map((d) => `${d.line}:${d.column}: ${d.message}`)).toEqual([
      '2:3: plugin "test/needs-greeter" requires plugin "test/greeter", which this preset does not load; add it under plugins',
    ]);
    write(preset, `plugins:\n  ${join(FIXTURES, 'plugins/greeter.ts')}: {}\n  ${join(FIXTURES, 'plugins/anti-greeter.ts')}: {}\n`);
    const err2 = (await rejection(loadPreset({ preset, cwd: dir, layers: false, env: {} }))) as PresetError;
    expect(err2.diagnostics.map((d) => `${d.line}:${d.column}: ${d.message}`)).toEqual([
      '3:3: plugin "test/anti-greeter" conflicts with plugin "test/greeter" (line 2); load only one of them',
    ]);
  });

  it('plugins: { retry: false } switches off a plugin the preset would otherwise imply', async () => {
    const preset = write(join(dir, 'p.yaml'), 'plugins:\n  retry: false\n');
    const r = await loadPreset({ preset, cwd: dir, layers: false, env: {} });
    expect(r.plugins.map((p) => p.plugin.name)).not.toContain('retry');
  });

  it('reads impliedPlugins origins as key paths', () => {
    expect(originPath('plugins.a.b/c', './x.ts')).toEqual(['plugins', './x.ts']);
    expect(originPath('tools[2]', 'tools/bash')).toEqual(['tools', 2]);
    expect(originPath('permissions.mode', 'permissions/plan')).toEqual(['permissions', 'mode']);
    expect(originPath('permissions (default mode)', 'permissions/default')).toEqual(['permissions']);
    expect(originPath('built-in', 'retry')).toEqual([]);
  });
});

describe('what a plugin imports', () => {
  it('`rein` and `zod` in a plugin file with no node_modules near it are the rein that loads it and its zod', async () => {
    write(join(dir, 'words.ts'), [
      "import { z } from 'zod';",
      "import { definePlugin, defineTool } from 'rein';",
      "export default definePlugin({",
      "  name: 'words',",
      "  options: z.object({ unit: z.enum(['words', 'lines']).default('words') }).strict(),",
      "  apply(kernel) {",
      "    kernel.tools.register(defineTool({ name: 'Words', description: 'counts', inputSchema: z.object({ file_path: z.string().describe('the file') }).strict(), call: async () => '0' }));",
      "  },",
      "});",
      '',
    ].join('\n'));
    const preset = write(join(dir, 'p.yaml'), 'tools: []\nplugins:\n  ./words.ts: { unit: lines }\n');
    const r = await loadPreset({ preset, cwd: dir, layers: false, env: {} });
    const words = r.plugins.find((p) => p.plugin.name === 'words')!;
    expect(words.options).toEqual({ unit: 'lines' });
    const kernel = await createKernel({ preset: r.preset as KernelPreset, cwd: dir, client: noClient, plugins: r.plugins });
    // The schema is turned into the request's input_schema, description included.
    expect(kernel.tools.definitions().find((t) => t.name === 'Words')!.input_schema).toMatchObject({ properties: { file_path: { type: 'string', description: 'the file' } } });
    await kernel.close();
  });

  it('a plugin file made with zod 3 is a PresetError at its line that says zod 4 is needed', async () => {
    write(join(dir, 'old.ts'), "import { z } from 'zod/v3';\nimport { definePlugin } from 'rein';\nexport default definePlugin({ name: 'old', options: z.object({}), apply() {} });\n");
    const preset = write(join(dir, 'p.yaml'), 'tools: []\nplugins:\n  ./old.ts: {}\n');
    const err = await rejection(loadPreset({ preset, cwd: dir, layers: false, env: {} }));
    expect(err).toBeInstanceOf(PresetError);
    const d = (err as PresetError).diagnostics;
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ file: preset, line: 3, column: 3 });
    expect(d[0]!.message).toMatch(/^plugin "\.\/old\.ts" failed to import: plugin old: options: the schema was made with zod 3, and rein's plugin API needs zod 4/);
  });

  it('a plugin object or a tool with a zod 3 schema, handed over by a program, fails when the kernel loads it, not at the first request', async () => {
    const { z: z3 } = await import('zod/v3');
    const { z } = await import('zod');
    const oldOptions = { name: 'old-options', options: z3.object({}), apply() {} };
    const err = await rejection(createKernel({ preset: { tools: [] }, cwd: dir, client: noClient, plugins: [{ plugin: oldOptions as never }] }));
    expect(err.name).toBe('PluginError');
    expect(err.message).toMatch(/^plugin old-options: options: the schema was made with zod 3/);
    const oldTool = { name: 'old-tool', options: z.object({}), apply(k: { tools: { register(t: unknown): void } }) { k.tools.register({ name: 'Old', description: 'x', inputSchema: z3.object({ a: z3.string() }), call: async () => '' }); } };
    const err2 = await rejection(createKernel({ preset: { tools: [] }, cwd: dir, client: noClient, plugins: [{ plugin: oldTool as never }] }));
    expect(err2.message).toMatch(/^plugin old-tool failed to apply: tool Old: inputSchema: the schema was made with zod 3/);
  });
});

describe('the code a plugin brings (what the permission plugins protect)', () => {
  it('a .ts plugin: its entry and the modules it imports, as the loader loaded them, named in the preset that asked', async () => {
    write(join(dir, 'plugins/graph/index.ts'), `import { a } from './a';\nimport { b } from '../shared-b';\n${jsPlugin('graph')}void a; void b;\n`);
    write(join(dir, 'plugins/graph/a.ts'), `export const a: number = 1;\n`);
    write(join(dir, 'plugins/shared-b.cjs'), `module.exports = { b: 2 };\n`);
    write(join(dir, 'plugins/graph/unused.ts'), `export const u = 3;\n`);
    write(join(dir, 'agent.yaml'), 'name: g\nplugins:\n  ./plugins/graph/index.ts: {}\n');
    const r = await loadPreset({ preset: join(dir, 'agent.yaml'), cwd: dir, layers: false });
    const code = r.code.map((c) => ({ path: relative(dir, c.path), dir: c.dir === true, why: c.why }));
    expect(code).toContainEqual({ path: 'plugins/graph/index.ts', dir: false, why: 'plugin ./plugins/graph/index.ts named in agent.yaml' });
    expect(code).toContainEqual({ path: 'plugins/graph/a.ts', dir: false, why: 'a module loaded by plugin ./plugins/graph/index.ts named in agent.yaml' });
    expect(code).toContainEqual({ path: 'plugins/shared-b.cjs', dir: false, why: 'a module loaded by plugin ./plugins/graph/index.ts named in agent.yaml' });
    expect(code.map((c) => c.path)).not.toContain('plugins/graph/unused.ts');
    expect(code.some((c) => c.dir)).toBe(false);
  });
  it('an .mjs plugin, which Node imports itself so its imports are not known: its folder', async () => {
    write(join(dir, 'plugins/native/index.mjs'), `import './dep.mjs';\n${jsPlugin('native')}`);
    write(join(dir, 'plugins/native/dep.mjs'), `export {};\n`);
    write(join(dir, 'agent.yaml'), 'name: n\nplugins:\n  ./plugins/native/index.mjs: {}\n');
    const r = await loadPreset({ preset: join(dir, 'agent.yaml'), cwd: dir, layers: false });
    expect(r.code.map((c) => ({ path: relative(dir, c.path), dir: c.dir === true, why: c.why }))).toContainEqual({ path: 'plugins/native', dir: true, why: 'the folder of plugin ./plugins/native/index.mjs named in agent.yaml' });
  });
  it('a plugin package: its whole folder under node_modules, and the files it loaded', async () => {
    write(join(dir, 'node_modules/@org/rein-x/package.json'), JSON.stringify({ name: '@org/rein-x', main: 'lib/index.js' }));
    write(join(dir, 'node_modules/@org/rein-x/lib/index.js'), `const h = require('./helper.js');\nmodule.exports = { name: 'x', options: { safeParse: (v) => ({ success: true, data: v ?? {} }) }, apply() { void h; } };\n`);
    write(join(dir, 'node_modules/@org/rein-x/lib/helper.js'), `module.exports = 1;\n`);
    write(join(dir, 'agent.yaml'), 'name: p\nplugins:\n  "@org/rein-x": {}\n');
    const r = await loadPreset({ preset: join(dir, 'agent.yaml'), cwd: dir, layers: false });
    const code = r.code.map((c) => ({ path: relative(dir, c.path), dir: c.dir === true }));
    expect(code).toContainEqual({ path: 'node_modules/@org/rein-x', dir: true });
    expect(code).toContainEqual({ path: 'node_modules/@org/rein-x/lib/helper.js', dir: false });
  });
  it('a built-in plugin brings none', async () => {
    const r = await loadPreset({ preset: { name: 'b', plugins: { retry: {} } }, cwd: dir, layers: false });
    expect(r.code).toEqual([]);
  });
});
