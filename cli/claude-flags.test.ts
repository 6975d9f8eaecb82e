/**
 * Claude Code's headless habits on the built `rein` command: `-p` as a boolean with the prompt
 * positional (also at the top level), flag errors in one line, every flag as the command-line
 * preset layer (`rein preset print` shows it), Claude Code settings files as layers, sessions by id.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, runBuilt, serveScenario, tempDir, type SimHarness } from '../testing/support.js';
import { splitRules } from './commands/claude-flags.js';

let tmp: ReturnType<typeof tempDir>;
let sim: SimHarness | undefined;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  if (!existsSync(join(REPO, 'dist/bundle/rein.cjs'))) throw new Error('build rein first: npm run build');
});
beforeEach(() => {
  tmp = tempDir('rein-flags-');
  mkdirSync(join(tmp.dir, 'userhome'));
  env = { REIN_HOME: join(tmp.dir, 'home'), HOME: join(tmp.dir, 'userhome') };
  writeFileSync(join(tmp.dir, 'agent.yaml'), 'model: { name: claude-sonnet-4-6 }\ntools: [Read, Write]\n');
});
afterEach(async () => { await sim?.close(); sim = undefined; tmp.cleanup(); });

function rein(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}) {
  return runBuilt(args, { cwd: tmp.dir, env: { ...env, ...opts.env }, input: opts.input });
}

/** Serves `turns` text replies and returns the env that points rein at them. */
async function serve(...answers: string[]): Promise<NodeJS.ProcessEnv> {
  sim = await serveScenario(`turns:\n${answers.map((a) => `  - reply: [{ text: ${JSON.stringify(a)} }]`).join('\n')}\n`, tmp.dir);
  return { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: sim.server.url };
}

/** The text of the first user message of request `i`. */
const prompt = (i = 0) => (sim!.requests()[i]!.body.messages[0].content as { text: string }[]).map((b) => b.text).join('');

const BASE = ['--preset', './agent.yaml', '--no-layers'];

describe('-p is print, the prompt is positional', () => {
  it('rein -p --output-format json "hi": the prompt is "hi", at the top level as with claude -p', async () => {
    const e = await serve('one', 'two', 'three');
    const r = await rein(['-p', '--output-format', 'json', ...BASE, 'hi'], { env: e });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'result', subtype: 'success', result: 'one' });
    expect(prompt(0)).toBe('hi');
    const v = await rein(['run', '-p', '--verbose', ...BASE, 'hi', 'there'], { env: e });
    expect(v.code).toBe(0);
    expect(prompt(1)).toBe('hi there'); // every word, none taken for a flag
    const piped = await rein(['-p', ...BASE], { env: e, input: 'from stdin\n' });
    expect(piped.code).toBe(0);
    expect(prompt(2)).toBe('from stdin'); // the trailing newline of `echo` is not part of it
  });

  it('a flag error is one line and where to look; `rein` alone prints help on stderr and exits 0', async () => {
    const r = await rein(['run', '--max-turns', 'x', 'hi']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      "rein: option '--max-turns <n>' argument 'x' is invalid. --max-turns must be a positive integer.",
      'rein: see rein run --help',
    ]);
    const u = await rein(['-p', '--betas', 'x', 'hi']);
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/^rein: --betas is not supported: .+\nrein: see rein run --help\n$/);
    const same = await rein(['-p', '--model', 'sonnet', '--fallback-model', 'sonnet', 'hi']);
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/^rein: --fallback-model sonnet is the same model as --model \(claude-sonnet-[\w.-]+\): give another model to switch to\nrein: see rein run --help\n$/);
    const none = await rein([]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('Usage: rein');
    const bench = await rein(['bench', '-p', 'default']);
    expect(bench.code).toBe(2);
    expect(bench.stderr).toContain("unknown option '-p'"); // -p is never --preset
  });
});

describe('exit code 1', () => {
  it('a model error says why on stderr in every output format (rein: model_error: <cause>), not only in text', async () => {
    for (const format of ['text', 'json', 'stream-json']) {
      sim = await serveScenario('turns:\n  - fault: { status: 400, body: "the request was refused" }\n', tmp.dir);
      const e = { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: sim.server.url };
      const r = await rein(['-p', ...BASE, '--output-format', format, 'hi'], { env: e });
      expect(r.code).toBe(1);
      expect(r.stderr.split('\n')).toContain('rein: model_error: 400 invalid_request_error: the request was refused');
      if (format !== 'text') expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toMatchObject({ type: 'result', is_error: true, errors: ['400 invalid_request_error: the request was refused'] });
      await sim.close();
      sim = undefined;
    }
  });
});

describe('a list flag that took the prompt', () => {
  it('--allowedTools "Bash(git diff:*)" Read "hi": says the list took "hi" and how to write it; with -- the prompt runs', async () => {
    const r = await rein(['-p', ...BASE, '--allowedTools', 'Bash(git diff:*)', 'Read', 'hi']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('rein: no prompt: --allowedTools takes every word after it, so "hi" went to it: put the prompt before --allowedTools, or end its list with -- (rein -p --allowedTools \'Bash(git diff:*)\' Read -- "the prompt")\n');
    const mcp = await rein(['-p', ...BASE, '--mcp-config', '{"mcpServers":{}}', 'what is here']);
    expect(mcp.code).toBe(2);
    expect(mcp.stderr.split('\n')[0]).toBe(`rein: --mcp-config: no such file what is here (looked for ${join(tmp.dir, 'what is here')}); --mcp-config takes every word after it, so "what is here" went to it: put the prompt before --mcp-config, or end its list with -- (rein -p --mcp-config '{"mcpServers":{}}' -- "the prompt")`);
    const e = await serve('fine');
    const ok = await rein(['-p', ...BASE, '--output-format', 'json', '--allowedTools', 'Bash(git diff:*)', 'Read', '--', 'hi'], { env: e });
    expect(ok.code).toBe(0);
    expect(prompt()).toBe('hi');
    expect(JSON.parse(ok.stdout)).toMatchObject({ result: 'fine' });
  });
});

describe('flags are the command-line preset layer', () => {
  it('rein preset print shows what each flag changed, with the flags layer as origin', async () => {
    const r = await rein(['preset', 'print', './agent.yaml', '--no-layers', '--json',
      '--model', 'opus', '--allowedTools', 'Bash(git log:*),Read', '--disallowedTools', 'WebFetch', '--max-turns', '3',
      '--append-system-prompt', 'Be brief.', '--json-schema', '{"type":"object"}', '--output-format', 'stream-json', '--effort', 'high', '--tools', 'Read']);
    expect(r.stderr).toBe('');
    const { preset, origins } = JSON.parse(r.stdout);
    expect(preset.model).toMatchObject({ name: 'claude-opus-4-8', effort: 'high' });
    expect(preset.permissions.allow).toEqual(['Bash(git log:*)', 'Read']);
    expect(preset.permissions.deny).toEqual(['WebFetch']);
    expect(preset.limits.maxTurns).toBe(3);
    expect(preset.system.append).toBe('Be brief.');
    expect(preset.tools).toEqual(['Read']);
    expect(preset.plugins['structured-output']).toEqual({ schema: { type: 'object' } });
    expect(preset.plugins.printer).toEqual({ format: 'stream-json' });
    for (const key of ['model.name', 'permissions.allow', 'limits.maxTurns', 'system.append', 'tools']) expect(origins[key].layer).toBe('flags');
  });

  it('ANTHROPIC_MODEL chooses the model, as for Claude Code: over the preset, under --model', async () => {
    const fromEnv = await rein(['preset', 'print', './agent.yaml', '--no-layers', '--json'], { env: { ANTHROPIC_MODEL: 'opus' } });
    expect(JSON.parse(fromEnv.stdout).preset.model.name).toBe('claude-opus-4-8');
    const flag = await rein(['preset', 'print', './agent.yaml', '--no-layers', '--json', '--model', 'haiku'], { env: { ANTHROPIC_MODEL: 'opus' } });
    expect(JSON.parse(flag.stdout).preset.model.name).toBe('claude-haiku-4-5');
    const none = await rein(['preset', 'print', './agent.yaml', '--no-layers', '--json']);
    expect(JSON.parse(none.stdout).preset.model.name).toBe('claude-sonnet-4-6');
  });

  it('Claude Code model names the API does not know: [1m], default, best, opusplan (flag, env, settings file)', async () => {
    const model = async (args: string[], e: NodeJS.ProcessEnv = {}) => {
      const r = await rein(['preset', 'print', './agent.yaml', '--json', ...args], { env: e });
      expect(r.stderr).toBe('');
      return JSON.parse(r.stdout).preset.model as { name: string; contextWindow?: number };
    };
    expect(await model(['--no-layers'], { ANTHROPIC_MODEL: 'sonnet[1m]' })).toMatchObject({ name: 'claude-sonnet-4-6', contextWindow: 1_000_000 });
    expect(await model(['--no-layers', '--model', 'claude-opus-4-6[1M]'])).toMatchObject({ name: 'claude-opus-4-6', contextWindow: 1_000_000 });
    expect(await model(['--no-layers', '--model', 'best'])).toMatchObject({ name: 'claude-opus-4-8' });
    expect(await model(['--no-layers', '--model', 'opusplan'])).toMatchObject({ name: 'claude-sonnet-4-6' });
    // `default` clears the override: the preset's model stands, whatever ANTHROPIC_MODEL says.
    expect(await model(['--no-layers', '--model', 'default'], { ANTHROPIC_MODEL: 'opus' })).toEqual({ provider: 'anthropic', name: 'claude-sonnet-4-6' });
    expect(await model(['--no-layers'], { ANTHROPIC_MODEL: 'default' })).toEqual({ provider: 'anthropic', name: 'claude-sonnet-4-6' });
    mkdirSync(join(tmp.dir, '.claude'));
    writeFileSync(join(tmp.dir, '.claude', 'settings.json'), '{"model": "opus[1m]"}\n');
    expect(await model([])).toMatchObject({ name: 'claude-opus-4-8', contextWindow: 1_000_000 });
    writeFileSync(join(tmp.dir, '.claude', 'settings.json'), '{"model": "default"}\n');
    expect(await model([])).toEqual({ provider: 'anthropic', name: 'claude-sonnet-4-6' });

    // On the wire: the model id without the suffix, and the 1M-context beta.
    const e = await serve('one');
    const r = await rein(['-p', ...BASE, 'hi'], { env: { ...e, ANTHROPIC_MODEL: 'sonnet[1m]' } });
    expect(r.code).toBe(0);
    const sent = sim!.requests()[0]!;
    expect(sent.body.model).toBe('claude-sonnet-4-6');
    expect(sent.headers['anthropic-beta']).toContain('context-1m-2025-08-07');
  });

  it('rein preset print --preset X --origins: the preset named as rein run names it, same output as FILE', async () => {
    const flags = ['--no-layers', '--origins', '--model', 'opus'];
    const byFlag = await rein(['preset', 'print', '--preset', './agent.yaml', ...flags]);
    expect(byFlag.stderr).toBe('');
    expect(byFlag.code).toBe(0);
    expect(byFlag.stdout).toContain('  - Read # preset agent.yaml:2\n');
    expect(byFlag.stdout).toContain('name: claude-opus-4-8 # flags\n');
    const byFile = await rein(['preset', 'print', './agent.yaml', ...flags]);
    expect(byFlag.stdout).toBe(byFile.stdout);
    // Two different presets at once are one error line, not a silent pick.
    const both = await rein(['preset', 'print', './agent.yaml', '--preset', 'minimal']);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('rein: preset print got two presets, ./agent.yaml and --preset minimal: pass one\n');
  });

  it('--dangerously-skip-permissions: one flag for bypassPermissions, and a write runs without asking', async () => {
    const printed = await rein(['preset', 'print', './agent.yaml', '--no-layers', '--json', '--dangerously-skip-permissions']);
    expect(JSON.parse(printed.stdout).preset.permissions).toMatchObject({ mode: 'bypassPermissions', allowBypassPermissions: true });
    sim = await serveScenario([
      'turns:',
      '  - reply: [{ tool_use: { name: Write, input: { file_path: out.txt, content: "written" } } }]',
      '  - reply: [{ text: "Done." }]',
    ].join('\n'), tmp.dir);
    const e = { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: sim.server.url };
    const r = await rein(['-p', '--dangerously-skip-permissions', '--output-format', 'json', ...BASE, 'write it'], { env: e });
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: 'success', permission_denials: [] });
    expect(readFileSync(join(tmp.dir, 'out.txt'), 'utf8')).toBe('written');
    // Without the flag the same write is denied in a headless run (nobody to ask).
    const bypassAlone = await rein(['-p', '--permission-mode', 'bypassPermissions', ...BASE, 'write it'], { env: e });
    expect(bypassAlone.code).toBe(2);
    expect(bypassAlone.stderr).toContain('allowBypassPermissions');
  });

  it('splits rule lists as Claude Code does: commas and spaces, not inside parentheses', () => {
    expect(splitRules(['Bash(npm run test:*) Read,Edit(./src/**)', 'WebFetch(domain:example.com)'])).toEqual(['Bash(npm run test:*)', 'Read', 'Edit(./src/**)', 'WebFetch(domain:example.com)']);
    expect(splitRules([''])).toEqual([]);
  });
});

describe('Claude Code settings files as layers', () => {
  beforeEach(() => {
    mkdirSync(join(tmp.dir, '.git'));
    mkdirSync(join(tmp.dir, '.claude'));
    mkdirSync(join(tmp.dir, 'userhome', '.claude'));
    writeFileSync(join(tmp.dir, 'userhome', '.claude', 'settings.json'), JSON.stringify({ model: 'haiku', permissions: { allow: ['Read'] }, env: { FROM: 'user' } }, null, 2));
    writeFileSync(join(tmp.dir, '.claude', 'settings.json'), JSON.stringify({ model: 'opus', permissions: { allow: ['Bash(npm test)'], deny: ['Read(./.env)'] }, statusLine: { type: 'command' } }, null, 2));
    writeFileSync(join(tmp.dir, '.claude', 'settings.local.json'), JSON.stringify({ permissions: { defaultMode: 'acceptEdits' } }, null, 2));
  });

  it('--setting-sources reads user < project < local with Claude Code\'s precedence; print --origins shows each file', async () => {
    const r = await rein(['preset', 'print', './agent.yaml', '--no-layers', '--json', '--setting-sources', 'user,project,local']);
    expect(r.stderr).toBe('');
    const { preset, origins } = JSON.parse(r.stdout);
    expect(preset.model.name).toBe('claude-opus-4-8'); // project over user
    expect(preset.permissions.mode).toBe('acceptEdits'); // local
    expect(preset.permissions.allow).toEqual(['Read', 'Bash(npm test)']); // rules are unioned
    expect(preset.env).toEqual({ FROM: 'user' });
    expect(origins['model.name']).toMatchObject({ layer: 'settings:project', file: join(tmp.dir, '.claude', 'settings.json'), line: 2 });
    expect(origins['permissions.mode']).toMatchObject({ layer: 'settings:local', line: 3 });
    const text = await rein(['preset', 'print', './agent.yaml', '--no-layers', '--origins', '--setting-sources', 'project']);
    expect(text.stdout).toMatch(/name: claude-opus-4-8 # settings:project \.claude\/settings\.json:2/);
    expect(text.stdout).not.toContain('haiku');
  });

  it('--settings is the highest settings layer and reads the other sources too', async () => {
    const r = await rein(['preset', 'print', './agent.yaml', '--no-layers', '--json', '--settings', '{"model": "sonnet"}']);
    const { preset, origins } = JSON.parse(r.stdout);
    expect(preset.model.name).toBe('claude-sonnet-4-6');
    expect(origins['model.name'].layer).toBe('settings:flag');
    expect(preset.permissions.mode).toBe('acceptEdits'); // from settings.local.json
    const bad = await rein(['preset', 'print', './agent.yaml', '--no-layers', '--setting-sources', 'project,team']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown source "team"');
  });

  it('without a settings flag every source is read, as claude -p does; --setting-sources "" and --no-layers read none', async () => {
    const all = JSON.parse((await rein(['preset', 'print', './agent.yaml', '--json'])).stdout);
    expect(all.preset.model.name).toBe('claude-opus-4-8'); // project over user
    expect(all.preset.permissions).toMatchObject({ mode: 'acceptEdits', allow: ['Read', 'Bash(npm test)'], deny: ['Read(./.env)'] });
    expect(all.preset.env).toEqual({ FROM: 'user' });
    expect(all.origins['permissions.mode']).toMatchObject({ layer: 'settings:local', file: join(tmp.dir, '.claude', 'settings.local.json') });
    for (const args of [['--setting-sources', ''], ['--no-layers']]) {
      const none = JSON.parse((await rein(['preset', 'print', './agent.yaml', '--json', ...args])).stdout);
      expect(none.preset.model.name).toBe('claude-sonnet-4-6');
      expect(none.preset.env).toBeUndefined();
      expect(none.preset.permissions?.deny ?? []).not.toContain('Read(./.env)');
    }
  });

  it('a project\'s .mcp.json: the servers the settings approve run, as with claude -p; the others, and all without approval, do not', async () => {
    const server = { command: process.execPath, args: [join(REPO, 'plugins/tools/mcp/fixtures/server.mjs')] };
    writeFileSync(join(tmp.dir, '.mcp.json'), JSON.stringify({ mcpServers: { calc: server, other: server } }, null, 2));
    const servers = async (...args: string[]) => {
      const r = await rein(['preset', 'print', './agent.yaml', '--json', ...args]);
      expect(r.stderr).toBe('');
      return JSON.parse(r.stdout) as { preset: { mcpServers?: Record<string, unknown> }; origins: Record<string, { layer: string; file: string }> };
    };
    // Checked into the repository: nothing starts without the user's word.
    expect((await servers()).preset.mcpServers).toBeUndefined();
    writeFileSync(join(tmp.dir, 'userhome', '.claude', 'settings.json'), JSON.stringify({ enabledMcpjsonServers: ['calc'] }));
    const one = await servers();
    expect(Object.keys(one.preset.mcpServers!)).toEqual(['calc']);
    expect(one.origins['mcpServers.calc.command']).toMatchObject({ layer: 'settings:project', file: join(tmp.dir, '.mcp.json') });
    writeFileSync(join(tmp.dir, '.claude', 'settings.local.json'), JSON.stringify({ enableAllProjectMcpServers: true, disabledMcpjsonServers: ['other'] }));
    expect(Object.keys((await servers()).preset.mcpServers!)).toEqual(['calc']);
    // --strict-mcp-config and --setting-sources "" leave it out.
    expect((await servers('--strict-mcp-config', '--mcp-config', '{"mcpServers":{}}')).preset.mcpServers).toEqual({});
    expect((await servers('--setting-sources', '')).preset.mcpServers).toBeUndefined();

    // A run calls the approved server's tool.
    sim = await serveScenario('turns:\n  - reply: [{ tool_use: { name: mcp__calc__add, input: { a: 2, b: 3 } } }]\n  - reply: [{ text: "five" }]\n', tmp.dir);
    const r = await rein(['-p', '--output-format', 'json', '--preset', './agent.yaml', '--allowedTools', 'mcp__calc__add', '--', 'add'], { env: { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: sim.server.url } });
    expect(r.code).toBe(0);
    const result = (sim.requests()[1]!.body.messages.at(-1).content as { type: string; is_error?: boolean; content: unknown }[]).find((b) => b.type === 'tool_result')!;
    expect(result.is_error).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain('5');
    expect(sim.requests()[0]!.body.tools.map((t: { name: string }) => t.name)).not.toContain('mcp__other__add');
  });

  it('project instructions in .claude/CLAUDE.md are sent, as Claude Code reads ./.claude/CLAUDE.md, after ./CLAUDE.md', async () => {
    writeFileSync(join(tmp.dir, 'CLAUDE.md'), 'Top-level instructions.\n');
    writeFileSync(join(tmp.dir, '.claude', 'CLAUDE.md'), 'Instructions kept in the .claude folder.\n');
    const e = await serve('one');
    const r = await rein(['-p', '--preset', 'default', 'hi'], { env: e });
    expect(r.code).toBe(0);
    const sent = JSON.stringify(sim!.requests()[0]!.body.messages);
    expect(sent).toContain('Instructions kept in the .claude folder.');
    expect(sent.indexOf('Top-level instructions.')).toBeLessThan(sent.indexOf('Instructions kept in the .claude folder.'));
  });

  it('rein -p applies a project\'s .claude/settings.json deny rule with no flag asking for it', async () => {
    writeFileSync(join(tmp.dir, '.env'), 'SECRET=hunter2\n');
    sim = await serveScenario('turns:\n  - reply: [{ tool_use: { name: Read, input: { file_path: .env } } }]\n  - reply: [{ text: "done" }]\n', tmp.dir);
    const r = await rein(['-p', '--output-format', 'json', '--preset', './agent.yaml', 'read the env file'], { env: { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: sim.server.url } });
    expect(r.code).toBe(0);
    const result = (sim.requests()[1]!.body.messages[2].content as { type: string; is_error?: boolean; content: unknown }[])[0]!;
    expect(result).toMatchObject({ type: 'tool_result', is_error: true });
    expect(JSON.stringify(result.content)).not.toContain('hunter2');
    expect(JSON.parse(r.stdout).permission_denials).toEqual([expect.objectContaining({ tool_name: 'Read' })]);
  });
});

describe('sessions by id', () => {
  it('--session-id names the session; --resume --fork-session goes on in a new one with the history', async () => {
    const e = await serve('first', 'forked');
    const id = '3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b';
    const r = await rein(['-p', '--output-format', 'json', '--session-id', id, ...BASE, 'one'], { env: e });
    expect(JSON.parse(r.stdout).session_id).toBe(id);
    const f = await rein(['-p', '--output-format', 'json', '--resume', id, '--fork-session', ...BASE, 'two'], { env: e });
    const forked = JSON.parse(f.stdout);
    expect(forked.result).toBe('forked');
    expect(forked.session_id).not.toBe(id);
    expect(sim!.requests()[1]!.body.messages).toHaveLength(3); // one, first, two
    const bad = await rein(['-p', '--session-id', 'not-a-uuid', ...BASE, 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--session-id must be a UUID');
    const clash = await rein(['-p', '--session-id', id, '--resume', id, ...BASE, 'x']);
    expect(clash.stderr).toContain('needs --fork-session');
  });
});
