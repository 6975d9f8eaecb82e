/**
 * `rein preset validate | print | init`, through the command functions and once as a real process.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO, runCli, tempDir } from '../../testing/support.js';
import { validatePresetFile } from '../../agent/preset/index.js';
import { displayPath } from '../../agent/preset/errors.js';
import { presetInit, presetPrint, presetValidate, type PresetIO } from './preset.js';

let tmp: ReturnType<typeof tempDir>;
let io: PresetIO & { stdout: string; stderr: string };

beforeEach(() => {
  tmp = tempDir('rein-preset-cli-');
  mkdirSync(join(tmp.dir, '.git'));
  io = {
    stdout: '',
    stderr: '',
    out(t) { this.stdout += t; },
    err(t) { this.stderr += t; },
    cwd: tmp.dir,
    env: { HOME: join(tmp.dir, 'home') },
  };
});
afterEach(() => tmp.cleanup());

const write = (name: string, text: string) => {
  const p = join(tmp.dir, name);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, text);
  return p;
};

describe('rein preset validate', () => {
  it('prints every problem of every file as file:line:column: message and returns 2', async () => {
    write('a.yaml', 'modle: {}\ntools: Read\n');
    write('b.yaml', 'permissions:\n  mode: yolo\n');
    write('ok.yaml', 'extends: minimal\nname: ok\n');
    const code = await presetValidate(['a.yaml', 'ok.yaml', 'b.yaml'], {}, io);
    expect(code).toBe(2);
    expect(io.stdout.split('\n').filter(Boolean)).toEqual([
      'a.yaml:1:1: unknown key "modle" at the top level; did you mean "model"?',
      'a.yaml:2:8: tools: expected a list, got a string ("Read"); write [Read] for a list of one',
      'b.yaml:2:9: permissions.mode: "yolo" is not one of default, acceptEdits, plan, dontAsk, bypassPermissions, auto',
    ]);
    expect(io.stderr).toBe('3 problems in 2 files\n');
  });

  it('returns 0 for valid presets, and 2 for a file that does not exist', async () => {
    write('ok.yaml', 'extends: minimal\n');
    expect(await presetValidate(['ok.yaml'], {}, io)).toBe(0);
    expect(io.stderr).toBe('1 preset valid\n');
    expect(await presetValidate(['missing.yaml'], { json: true }, io)).toBe(2);
    expect(JSON.parse(io.stdout)).toEqual([{ file: join(tmp.dir, 'missing.yaml'), line: 0, column: 0, key: '', message: 'no such file' }]);
  });

  it('takes a built-in preset name, as --preset does', async () => {
    expect(await presetValidate(['default', 'minimal'], {}, io)).toBe(0);
    expect(io.stdout).toBe('');
    expect(io.stderr).toBe('2 presets valid\n');
  });
});

describe('rein preset print', () => {
  it('prints the merged preset with the layer and file:line of each value: `default` beneath the config files', async () => {
    write('rein.config.yaml', 'tools: [Read, Grep]\npermissions:\n  deny: ["Read(./.env)"]\n');
    write('rein.local.yaml', 'permissions:\n  deny: ["Bash(rm:*)"]\n');
    expect(await presetPrint(undefined, { origins: true }, io)).toBe(0);
    const defaults = join(REPO, 'presets/default.yaml');
    // The line (1-based) of default.yaml that holds `text`.
    const defaultLines = readFileSync(defaults, 'utf8').split('\n');
    const at = (text: string) => defaultLines.findIndex((l) => l.includes(text)) + 1;
    const lines = io.stdout.split('\n');
    expect(lines[0]).toBe(`name: default # default ${defaults}:${at('name: default')}`);
    expect(lines.slice(lines.indexOf('tools:'), lines.indexOf('tools:') + 3)).toEqual([
      'tools:',
      '  - Read # project rein.config.yaml:1',
      '  - Grep # project rein.config.yaml:1',
    ]);
    const deny = lines.indexOf('  deny:');
    expect(lines.slice(deny, deny + 4)).toEqual([
      '  deny:',
      `    - Read(./.env) # default ${defaults}:${at('- Read(./.env)')}`,
      `    - Read(./.env.*) # default ${defaults}:${at('- Read(./.env.*)')}`,
      '    - Bash(rm:*) # local rein.local.yaml:2',
    ]);
    expect(lines).toContain(`  cache/break-detector: {} # default ${defaults}:${at('cache/break-detector:')}`);
  });

  it('a config file that extends a preset of its own builds on that one, not on `default`', async () => {
    write('rein.config.yaml', 'extends: minimal\nlimits: { maxTurns: 3 }\n');
    expect(await presetPrint(undefined, { json: true }, io)).toBe(0);
    const out = JSON.parse(io.stdout);
    expect(out.preset.name).toBe('minimal');
    // minimal's own plugins, none of default's.
    expect(Object.keys(out.preset.plugins ?? {})).toEqual(Object.keys(parse(readFileSync(resolve(REPO, 'presets/minimal.yaml'), 'utf8')).plugins ?? {}));
    expect(out.preset.plugins?.['compaction/auto']).toBeUndefined();
    expect(out.files).toEqual([join(tmp.dir, 'rein.config.yaml'), resolve(REPO, 'presets/minimal.yaml')]);
  });

  it('--json gives the preset, the origins and the files; errors return 2', async () => {
    write('agent.yaml', 'extends: minimal\nlimits: { maxTurns: 7 }\n');
    expect(await presetPrint('agent.yaml', { json: true, layers: false }, io)).toBe(0);
    const out = JSON.parse(io.stdout);
    expect(out.preset.limits).toEqual({ maxTurns: 7 });
    expect(out.origins['limits.maxTurns']).toMatchObject({ layer: 'preset', file: join(tmp.dir, 'agent.yaml'), line: 2 });
    expect(out.files).toEqual([join(tmp.dir, 'agent.yaml'), resolve(REPO, 'presets/minimal.yaml')]);
    write('bad.yaml', 'limits: { maxTurns: many }\n');
    expect(await presetPrint('bad.yaml', {}, io)).toBe(2);
    // PresetError shows paths relative to the process's working directory when inside it.
    expect(io.stderr).toBe(`${displayPath(join(tmp.dir, 'bad.yaml'))}:1:21: limits.maxTurns: expected an integer, got a string ("many")\n`);
  });

  it('--plugins shows the options each plugin runs with, implied and listed together, and where they came from', async () => {
    const guard = 'grep -q guarded && { echo "guarded.txt is off limits" >&2; exit 2; } || exit 0';
    write('rein.config.yaml', `name: project\ntools: [Bash]\nhooks:\n  PreToolUse:\n    - { matcher: Bash, hooks: [{ type: command, command: '${guard}' }] }\n`);
    write('rein.local.yaml', 'plugins:\n  hooks/shell:\n    Stop:\n      - hooks: [{ type: command, command: "true" }]\n');
    expect(await presetPrint(undefined, { plugins: true }, io)).toBe(0);
    const shell = io.stdout.slice(io.stdout.indexOf('hooks/shell:'));
    expect(shell).toMatch(/^hooks\/shell:\s+# hooks \(project rein\.config\.yaml:3\) \+ plugins\.hooks\/shell \(local rein\.local\.yaml:2\)\n/);
    expect(shell).toContain('PreToolUse:');
    expect(shell).toContain(guard);
    expect(shell).toContain('Stop:');
  });
});

describe('rein preset init', () => {
  it('writes a commented starter preset that validates and points the editor at agent.schema.json', async () => {
    expect(await presetInit(undefined, {}, io)).toBe(0);
    const file = join(tmp.dir, 'rein.config.yaml');
    const text = readFileSync(file, 'utf8');
    const schemaRef = /^# yaml-language-server: \$schema=(.+)$/m.exec(text)?.[1];
    expect(schemaRef).toBeDefined();
    expect(existsSync(resolve(tmp.dir, schemaRef!))).toBe(true);
    expect(text.match(/^#/gm)!.length).toBeGreaterThan(5);
    expect(await validatePresetFile(file, { env: io.env })).toEqual([]);
    expect(parse(text).name).toBe('my-agent');
  });

  it('does not overwrite an existing file without --force', async () => {
    const file = write('rein.config.yaml', 'name: mine\n');
    expect(await presetInit(undefined, {}, io)).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe('name: mine\n');
    expect(io.stderr).toBe('rein: rein.config.yaml already exists; use --force to overwrite it\n');
    expect(await presetInit('rein.config.yaml', { force: true }, io)).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('name: my-agent');
  });
});

describe('rein preset (process)', () => {
  it('validate exits 2 with the diagnostics, 0 when valid', async () => {
    write('bad.yaml', 'permissions:\n  allow: ["Bahs(ls)"]\n');
    write('good.yaml', 'extends: minimal\n');
    const bad = await runCli(['preset', 'validate', 'bad.yaml'], { cwd: tmp.dir });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('bad.yaml:2:11: permissions.allow: permission rule "Bahs(ls)": unknown tool "Bahs"; did you mean "Bash"?\n');
    const good = await runCli(['preset', 'validate', 'good.yaml'], { cwd: tmp.dir });
    expect(good.code).toBe(0);
  });

  it('rein run without --preset gets the preset rein preset print shows: the project config over `default`', async () => {
    write('rein.config.yaml', 'model: { name: claude-sonnet-4-5 }\ntools: [Read, Glob]\nlimits: { maxTurns: 5 }\n');
    write('README.md', '# A project\n');
    const printed = await runCli(['preset', 'print', '--json'], { cwd: tmp.dir });
    expect(printed.code).toBe(0);
    const { preset } = JSON.parse(printed.stdout);
    expect(preset).toMatchObject({ name: 'default', model: { name: 'claude-sonnet-4-5' }, tools: ['Read', 'Glob'], limits: { maxTurns: 5 } });
    const run = await runCli(['run', '--output-format', 'stream-json', 'What is in this directory?'], { cwd: tmp.dir });
    expect(run.code).toBe(0);
    const events = run.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const init = events.find((e) => e.type === 'system' && e.subtype === 'init');
    expect(init.model).toBe('claude-sonnet-4-5');
    // The preset's tools, and default's ToolSearch (Glob is deferred behind it).
    expect([...init.tools].sort()).toEqual([...preset.tools, 'ToolSearch'].sort());
    // The rest of `default` is there too: its cache breakpoints make the later requests read the cache.
    expect(events.at(-1).usage.cache_read_input_tokens).toBeGreaterThan(0);
  });
});
