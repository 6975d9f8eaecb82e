/**
 * Layering with real files in temp directories: defaults < user < project < local < --preset < flags,
 * found by cosmiconfig; union of permission rules with deny winning; plugins switched off and on;
 * arrays replaced; origins; paths relative to the file that wrote them.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadPreset, PresetError, type ResolvedPreset } from '../index.js';

const GREETER = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'plugins', 'greeter.ts');

let root: string;
let home: string;
let proj: string;

function write(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

function load(opts: Partial<Parameters<typeof loadPreset>[0]> = {}): Promise<ResolvedPreset> {
  return loadPreset({ cwd: proj, homeDir: home, env: { HOME: home }, ...opts });
}

async function presetError(p: Promise<unknown>): Promise<PresetError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(PresetError);
  return err as PresetError;
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rein-layers-'));
  home = join(root, 'home');
  proj = join(root, 'proj');
  mkdirSync(join(home, '.config', 'rein'), { recursive: true });
  mkdirSync(join(proj, '.git'), { recursive: true });
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('layer precedence', () => {
  it('defaults < user < project < local < --preset < flags, with origins naming layer, file and line', async () => {
    const user = write(join(home, '.config/rein/config.yaml'), 'model:\n  name: user-model\n  maxTokens: 1000\n');
    const project = write(join(proj, 'rein.config.yaml'), 'model:\n  name: project-model\nlimits:\n  maxTurns: 5\n');
    const local = write(join(proj, 'rein.local.yaml'), 'model:\n  name: local-model\n');
    const preset = write(join(proj, 'agents/p.yaml'), 'name: p\nmodel:\n  name: preset-model\n');

    let r = await load();
    expect(r.preset.model).toEqual({ provider: 'anthropic', name: 'local-model', maxTokens: 1000 });
    expect(r.origins.get('model.name')).toEqual({ layer: 'local', file: local, line: 2, col: 9, keyLine: 2, keyCol: 3 });
    expect(r.origins.get('model.maxTokens')).toMatchObject({ layer: 'user', file: user, line: 3 });
    expect(r.origins.get('model.provider')).toEqual({ layer: 'default' });
    expect(r.origins.get('limits.maxTurns')).toMatchObject({ layer: 'project', file: project, line: 4 });
    expect(r.files).toEqual([user, project, local]);

    r = await load({ preset: 'agents/p.yaml' });
    expect(r.preset.model?.name).toBe('preset-model');
    expect(r.origins.get('model.name')).toMatchObject({ layer: 'preset', file: preset, line: 3 });
    expect(r.baseDir).toBe(join(proj, 'agents'));

    r = await load({ preset: 'agents/p.yaml', flags: { model: { name: 'flag-model' } } });
    expect(r.preset.model?.name).toBe('flag-model');
    expect(r.origins.get('model.name')).toEqual({ layer: 'flags' });
    expect(r.preset.model?.maxTokens).toBe(1000);
  });

  it('layers: false reads only defaults, --preset and flags', async () => {
    write(join(home, '.config/rein/config.yaml'), 'model:\n  name: user-model\n');
    write(join(proj, 'rein.config.yaml'), 'tools: [Bash]\n');
    const r = await load({ layers: false, preset: 'minimal' });
    expect(r.preset.model?.name).toBe('claude-sonnet-4-6');
    expect(r.preset.tools).toEqual(['Read', 'Glob', 'Grep', 'Write', 'Edit']);
    expect(r.files).toHaveLength(1);
  });

  it('with no layer files the result is the built-in defaults', async () => {
    const r = await load();
    expect(r.preset).toEqual({ model: { provider: 'anthropic', name: 'claude-sonnet-4-6' }, permissions: { mode: 'default' } });
    expect(r.files).toEqual([]);
    expect(r.baseDir).toBe(proj);
  });
});

describe('merge rules across layers', () => {
  it('a deny in a lower layer survives an allow of the same rule in a higher layer', async () => {
    write(join(home, '.config/rein/config.yaml'), 'permissions:\n  deny: ["Bash(rm -rf:*)", "Read(./.env)"]\n');
    write(join(proj, 'rein.config.yaml'), 'permissions:\n  allow: ["Bash(npm test:*)"]\n');
    write(join(proj, 'p.yaml'), 'permissions:\n  mode: acceptEdits\n  allow: ["Bash(rm -rf:*)", "Read"]\n  ask: ["Read(./.env)"]\n');
    const r = await load({ preset: './p.yaml', flags: { permissions: { allow: ['Read(./.env)'] } } });
    expect(r.preset.permissions).toEqual({
      mode: 'acceptEdits',
      deny: ['Bash(rm -rf:*)', 'Read(./.env)'],
      allow: ['Bash(npm test:*)', 'Read'],
      ask: [],
    });
    expect(r.origins.get('permissions.deny.0')).toMatchObject({ layer: 'user', line: 2 });
    expect(r.origins.get('permissions.allow.1')).toMatchObject({ layer: 'preset', line: 3 });
  });

  it('rule lists and autoMode lists are unioned, first occurrence first, without duplicates', async () => {
    write(join(home, '.config/rein/config.yaml'), 'permissions:\n  allow: [A, B]\nautoMode:\n  environment: [github.com/acme]\n');
    write(join(proj, 'rein.config.yaml'), 'permissions:\n  allow: [B, C]\nautoMode:\n  environment: [s3://acme-data]\n');
    const r = await load();
    expect(r.preset.permissions?.allow).toEqual(['A', 'B', 'C']);
    expect(r.preset.autoMode?.environment).toEqual(['github.com/acme', 's3://acme-data']);
    expect(r.origins.get('permissions.allow.2')).toMatchObject({ layer: 'project' });
  });

  it('other arrays are replaced, objects merge deeply', async () => {
    write(join(proj, 'rein.config.yaml'), 'tools: [Read, Write]\nmodel:\n  maxTokens: 4000\n  thinking: { type: adaptive }\n');
    write(join(proj, 'rein.local.yaml'), 'tools: [Grep]\nmodel:\n  effort: high\n');
    const r = await load();
    expect(r.preset.tools).toEqual(['Grep']);
    expect(r.preset.model).toEqual({ provider: 'anthropic', name: 'claude-sonnet-4-6', maxTokens: 4000, thinking: { type: 'adaptive' }, effort: 'high' });
    expect(r.origins.has('tools.1')).toBe(false);
  });

  it('plugins: false switches off an inherited plugin and drops its options; a higher layer may switch it on again', async () => {
    write(join(home, '.config/rein/config.yaml'), 'plugins:\n  retry: { maxRetries: 3 }\n');
    write(join(proj, 'rein.config.yaml'), 'plugins:\n  retry: false\n');
    let r = await load({ plugins: false });
    expect(r.preset.plugins).toEqual({ retry: false });
    expect(r.origins.get('plugins.retry')).toMatchObject({ layer: 'project', line: 2 });
    expect(r.origins.has('plugins.retry.maxRetries')).toBe(false);

    write(join(proj, 'rein.local.yaml'), 'plugins:\n  retry:\n');
    r = await load({ plugins: false });
    expect(r.preset.plugins).toEqual({ retry: {} });
  });

  it('extends: bases first, later entries win, the file itself wins over all; a diamond is not a cycle', async () => {
    write(join(proj, 'base.yaml'), 'description: base\nmodel:\n  maxTokens: 1000\n');
    write(join(proj, 'left.yaml'), 'extends: ./base.yaml\ndescription: left\nmodel:\n  effort: low\n');
    write(join(proj, 'right.yaml'), 'extends: ./base.yaml\ndescription: right\nmodel:\n  effort: high\n');
    write(join(proj, 'top.yaml'), 'extends: [./left.yaml, ./right.yaml]\nname: top\n');
    const r = await load({ preset: './top.yaml' });
    expect(r.preset.name).toBe('top');
    expect(r.preset.description).toBe('right');
    expect(r.preset.model).toMatchObject({ maxTokens: 1000, effort: 'high' });
    expect(r.origins.get('description')).toMatchObject({ layer: 'preset', file: join(proj, 'right.yaml') });
    expect('extends' in r.preset).toBe(false);
  });
});

describe('finding layer files', () => {
  it('searches the project and local layers from the working directory up to the project root', async () => {
    write(join(root, 'rein.config.yaml'), 'name: outside-the-project\n');
    const project = write(join(proj, '.reinrc'), 'name: rc\n');
    const cwd = join(proj, 'src', 'deep');
    mkdirSync(cwd, { recursive: true });
    const r = await load({ cwd });
    expect(r.preset.name).toBe('rc');
    expect(r.files).toEqual([project]);
  });

  it('refuses a rein key in package.json, at the key: an agent may edit package.json, and the config would give the next run hooks and allow rules', async () => {
    const pkg = write(join(proj, 'package.json'), '{\n  "name": "app",\n  "dependencies": { "rein": "^0.1.0" },\n  "rein": {\n    "permissions": { "mode": "bypassPermissions" }\n  }\n}\n');
    const err = await presetError(load());
    expect(err.diagnostics).toEqual([{ file: pkg, line: 4, column: 3, key: 'rein', message: expect.stringMatching(/^rein does not read its config from package\.json: an agent allowed to edit files may change package\.json, .*; move this to rein\.config\.yaml/) }]);
    // From a folder below, too (the search goes up to the project root).
    const deep = join(proj, 'src');
    mkdirSync(deep, { recursive: true });
    expect((await presetError(load({ cwd: deep }))).diagnostics.map((d) => [d.file, d.line])).toEqual([[pkg, 4]]);
    // A package.json that only depends on rein is no config.
    write(pkg, '{ "name": "app", "dependencies": { "rein": "^0.1.0" } }\n');
    expect((await load()).files).toEqual([]);
  });

  it('ignores a package.json without a rein key', async () => {
    write(join(proj, 'package.json'), '{ "name": "app" }\n');
    expect((await load()).files).toEqual([]);
  });

  it('loads a TypeScript config (rein.config.ts) through jiti', async () => {
    const file = write(join(proj, 'rein.config.ts'), 'const tools: string[] = ["Read", "Grep"];\nexport default { tools, limits: { maxTurns: 3 } };\n');
    const r = await load();
    expect(r.preset.tools).toEqual(['Read', 'Grep']);
    expect(r.origins.get('limits.maxTurns')).toMatchObject({ layer: 'project', file });
  });

  it('two project configs in one directory are an error, not a silent choice', async () => {
    write(join(proj, 'rein.config.yaml'), 'name: a\n');
    write(join(proj, '.reinrc.json'), '{ "name": "b" }\n');
    const err = await presetError(load());
    expect(err.message).toBe(`${join(proj, '.reinrc.json')}: more than one project config in ${proj}: .reinrc.json and rein.config.yaml; rein reads only .reinrc.json, so keep one`);
  });

  it('the user layer honours XDG_CONFIG_HOME', async () => {
    write(join(root, 'xdg', 'rein', 'config.yml'), 'name: from-xdg\n');
    const r = await load({ env: { HOME: home, XDG_CONFIG_HOME: join(root, 'xdg') } });
    expect(r.preset.name).toBe('from-xdg');
    expect(r.origins.get('name')).toMatchObject({ layer: 'user' });
  });
});

describe('paths, interpolation and errors in layers', () => {
  it('resolves paths relative to the file that wrote them, ~ to the home directory', async () => {
    write(join(home, '.config/rein/greeter.ts'), `export { default } from ${JSON.stringify(GREETER)};\n`);
    write(join(home, '.config/rein/config.yaml'), 'plugins:\n  ./greeter.ts: { greeting: hi }\nsession:\n  dir: ~/sessions\n');
    write(join(proj, 'agents/role.md'), 'Be brief.');
    write(join(proj, 'agents/p.yaml'), 'system:\n  sections:\n    - { name: role, file: ./role.md }\npermissions:\n  additionalDirectories: [../shared]\n');
    const r = await load({ preset: 'agents/p.yaml' });
    const greeter = join(home, '.config/rein/greeter.ts');
    expect(r.preset.plugins).toEqual({ [greeter]: { greeting: 'hi' } });
    expect(r.preset.session?.dir).toBe(join(home, 'sessions'));
    expect(r.preset.system?.sections).toEqual([{ name: 'role', text: 'Be brief.' }]);
    expect(r.preset.permissions?.additionalDirectories).toEqual([join(proj, 'shared')]);
    const loaded = r.plugins.find((p) => p.key === greeter);
    expect(loaded?.plugin.name).toBe('test/greeter');
    expect(loaded?.options).toEqual({ greeting: 'hi', times: 1, style: { loud: false } });
    expect(loaded?.origin).toBe(`${join(home, '.config/rein/config.yaml')}:2:3`);
  });

  it('interpolates ${VAR} and ${VAR:-default} from the given environment', async () => {
    write(join(proj, 'rein.config.yaml'), 'model:\n  name: ${MODEL:-claude-haiku-4-5}\nenv:\n  TOKEN: "${TOKEN}"\n  LITERAL: "$${TOKEN}"\n');
    const r = await load({ env: { HOME: home, TOKEN: 's3cret' } });
    expect(r.preset.model?.name).toBe('claude-haiku-4-5');
    expect(r.preset.env).toEqual({ TOKEN: 's3cret', LITERAL: '${TOKEN}' });
    const r2 = await load({ env: { HOME: home, TOKEN: 'x', MODEL: 'claude-opus-4-1' } });
    expect(r2.preset.model?.name).toBe('claude-opus-4-1');
  });

  it('an unset variable is an error at its position, and shell hook commands are left to the shell', async () => {
    const file = write(join(proj, 'rein.config.yaml'), [
      'mcpServers:',
      '  gh:',
      '    command: gh-mcp',
      '    env: { GITHUB_TOKEN: "Bearer ${GH_TOKEN}" }',
      'hooks:',
      '  PreToolUse:',
      '    - hooks: [{ type: command, command: "${CLAUDE_PROJECT_DIR}/check.sh" }]',
      '',
    ].join('\n'));
    // plugins: false: the hooks/shell plugin itself is not what this test is about.
    const err = await presetError(load({ plugins: false }));
    expect(err.diagnostics).toEqual([{
      file, line: 4, column: 34, key: 'mcpServers.gh.env.GITHUB_TOKEN',
      message: 'mcpServers.gh.env.GITHUB_TOKEN: environment variable GH_TOKEN is not set and has no default (set it, or write ${GH_TOKEN:-default})',
    }]);
    const ok = await load({ env: { HOME: home, GH_TOKEN: 't' }, plugins: false });
    expect((ok.preset.hooks?.PreToolUse?.[0]?.hooks[0] as { command?: string } | undefined)?.command).toBe('${CLAUDE_PROJECT_DIR}/check.sh');
  });

  it('collects errors from every layer and flags into one PresetError', async () => {
    const user = write(join(home, '.config/rein/config.yaml'), 'modle: {}\n');
    const local = write(join(proj, 'rein.local.yaml'), 'permissions:\n  mode: yolo\n');
    const err = await presetError(load({ flags: { limits: { maxTurns: -2 } } }));
    expect(err.message.split('\n')).toEqual([
      `${user}:1:1: unknown key "modle" at the top level; did you mean "model"?`,
      `${local}:2:9: permissions.mode: "yolo" is not one of default, acceptEdits, plan, dontAsk, bypassPermissions, auto`,
      '<flags>: limits.maxTurns: must be greater than 0, got an integer (-2)',
    ]);
  });

  it('an unknown --preset name suggests the nearest built-in', async () => {
    const err = await presetError(load({ preset: 'minimall' }));
    expect(err.message).toMatch(/^--preset: unknown built-in preset "minimall"; did you mean "minimal"\?/);
  });

  it('bypassPermissions set in one layer needs the opt-in from some layer', async () => {
    const local = write(join(proj, 'rein.local.yaml'), 'permissions:\n  mode: bypassPermissions\n');
    const err = await presetError(load());
    expect(err.diagnostics[0]).toMatchObject({ file: local, line: 2, column: 9, key: 'permissions.mode' });
    const r = await load({ flags: { permissions: { allowBypassPermissions: true } } });
    expect(r.preset.permissions?.mode).toBe('bypassPermissions');
  });
});
