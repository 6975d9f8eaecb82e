/**
 * The `rein` command as a real process: a scripted run with a plugin tool from a preset file, the
 * same run through `rein sim serve`, and bad input.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { estimateRequestTokens } from '../lib/tokens/estimate.js';
import { cleanEnv, REIN_BIN, REPO, runCli, tempDir } from '../testing/support.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  tmp = tempDir('rein-cli-');
  env = { REIN_HOME: join(tmp.dir, 'home') };
});
afterEach(() => tmp.cleanup());

const SCENARIO = `
model: claude-sonnet-4-6
turns:
  - reply: [{ text: "Reading it." }, { tool_use: { name: Note, input: { file_path: notes.txt } } }]
  - reply: [{ text: "It says: buy milk." }]
`;

/** A tool plugin in the user's project, loaded from a relative path in the preset. */
const NOTE_PLUGIN = `
import { z } from '${pathToFileURL(join(REPO, 'node_modules/zod/index.js')).href}';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { definePlugin, defineTool } from '${pathToFileURL(join(REPO, 'kernel/index.ts')).href}';

export default definePlugin({
  name: 'note-tool',
  apply(kernel) {
    kernel.tools.register(defineTool({
      name: 'Note',
      description: 'Reads a note.',
      inputSchema: z.object({ file_path: z.string() }).strict(),
      isReadOnly: () => true,
      isConcurrencySafe: () => true,
      call: async ({ file_path }, ctx) => readFileSync(join(ctx.cwd, file_path), 'utf8'),
    }));
    // Automatic caching: the API's top-level cache_control marker.
    kernel.hooks.request.tap('note-tool', (params) => ({ ...params, cache_control: { type: 'ephemeral' } }));
  },
});
`;

function project(): void {
  writeFileSync(join(tmp.dir, 'notes.txt'), 'buy milk');
  writeFileSync(join(tmp.dir, 's.yaml'), SCENARIO);
  writeFileSync(join(tmp.dir, 'note-tool.ts'), NOTE_PLUGIN);
  // A system prompt long enough to pass the model's minimum cacheable length (2,048 tokens for Sonnet 4.6).
  writeFileSync(join(tmp.dir, 'agent.yaml'), [
    'name: cli-test',
    'model: { name: claude-sonnet-4-6 }',
    'tools: []',
    `system: { append: "${'You are a careful assistant. '.repeat(400)}" }`,
    'plugins:',
    '  ./note-tool.ts: {}',
    '',
  ].join('\n'));
}

function serve(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [REIN_BIN, 'sim', 'serve', ...args], { cwd: tmp.dir, env: cleanEnv() });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.on('exit', (code) => reject(new Error(`sim serve exited ${code}`)));
  });
}

describe('rein run', () => {
  it('runs a scripted session to end_turn and reports the cache usage the prefix implies', async () => {
    project();
    const r = await runCli(['run', '-p', 'read notes.txt', '--sim', 's.yaml', '--preset', './agent.yaml', '--output-format', 'json', '--no-layers'], { cwd: tmp.dir, env });
    expect(r.stderr).toContain('running against the embedded simulator with scenario s.yaml');
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, num_turns: 2, result: 'It says: buy milk.', rein_terminal_reason: 'end_turn', permission_denials: [] });

    // Hand computation: with one automatic marker on the last block, request 1 writes its whole
    // prompt (T1 tokens) to the cache; request 2 reads those T1 back and writes the T2 − T1 new ones.
    const transcript = readFileSync(join(env.REIN_HOME!, 'sessions', tmp.dir.replace(/[^A-Za-z0-9]/g, '-'), `${result.session_id}.jsonl`), 'utf8')
      .trim().split('\n').map((l) => JSON.parse(l));
    const responses = transcript.filter((e) => e.type === 'response');
    expect(responses).toHaveLength(2);
    const [u1, u2] = responses.map((e) => e.usage);
    expect(u1.cache_read_input_tokens).toBe(0);
    expect(u1.input_tokens).toBe(0);
    expect(u2.cache_read_input_tokens).toBe(u1.cache_creation_input_tokens);
    expect(u2.input_tokens).toBe(0);
    expect(result.usage.cache_read_input_tokens).toBe(u1.cache_creation_input_tokens);
    expect(result.usage.cache_creation_input_tokens).toBe(u1.cache_creation_input_tokens + u2.cache_creation_input_tokens);
    expect(result.usage.cache_creation.ephemeral_5m_input_tokens).toBe(result.usage.cache_creation_input_tokens);
    expect(u1.cache_creation_input_tokens).toBeGreaterThan(2048);
  });

  it('gives the same result through `rein sim serve` and ANTHROPIC_BASE_URL, and the server logs every body', async () => {
    project();
    const embedded = await runCli(['run', '-p', 'read notes.txt', '--sim', 's.yaml', '--preset', './agent.yaml', '--output-format', 'json', '--no-layers'], { cwd: tmp.dir, env });
    const { child, url } = await serve(['--port', '0', '--scenario', 's.yaml', '--log', 'requests.jsonl']);
    try {
      const served = await runCli(['run', '-p', 'read notes.txt', '--preset', './agent.yaml', '--output-format', 'json', '--no-layers'], { cwd: tmp.dir, env: { ...env, ANTHROPIC_BASE_URL: url } });
      expect(served.code).toBe(0);
      expect(served.stderr).not.toContain('simulator');
      const a = JSON.parse(embedded.stdout);
      const b = JSON.parse(served.stdout);
      for (const k of ['result', 'usage', 'num_turns', 'terminal_reason', 'total_cost_usd', 'subtype']) expect(b[k]).toEqual(a[k]);
      const log = readFileSync(join(tmp.dir, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(log).toHaveLength(2);
      expect(log[1].body.messages[2].content[0]).toMatchObject({ type: 'tool_result', content: [{ type: 'text', text: 'buy milk' }] });
      // The log's bodies are what the accounting saw: T2 > T1 and both above the cache minimum.
      expect(estimateRequestTokens(log[1].body)).toBeGreaterThan(estimateRequestTokens(log[0].body));
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('prints one stream-json line per event: init, messages, and a Claude-Code-shaped result', async () => {
    project();
    const r = await runCli(['run', 'read notes.txt', '--sim', 's.yaml', '--preset', './agent.yaml', '--output-format', 'stream-json', '--no-layers'], { cwd: tmp.dir, env });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', tools: ['Note'], simulated: true });
    // The typed prompt is not echoed back (only with --replay-user-messages).
    expect(lines.map((l) => l.type)).toEqual(['system', 'assistant', 'user', 'system', 'assistant', 'system', 'result']);
    expect(Object.keys(lines.at(-1)).sort()).toEqual(expect.arrayContaining(['type', 'subtype', 'is_error', 'num_turns', 'session_id', 'result', 'duration_ms', 'usage', 'total_cost_usd', 'terminal_reason', 'permission_denials']));
  });
});

describe('bad input: one line naming the cause, exit 2, nothing run', () => {
  it('a scenario file that does not exist', async () => {
    const r = await runCli(['run', 'hi', '--sim', 'nope.yaml', '--no-layers'], { cwd: tmp.dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n').filter((l) => !l.includes('deprecated'))).toHaveLength(1);
    expect(r.stderr).toMatch(/nope\.yaml/);
  });

  it('an unknown preset', async () => {
    const r = await runCli(['run', 'hi', '--preset', 'no-such-preset', '--no-layers'], { cwd: tmp.dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no-such-preset/);
  });

  it('a scenario with a malformed turn names file, line and column', async () => {
    writeFileSync(join(tmp.dir, 'bad.yaml'), 'turns:\n  - reply: [{ txt: "hi" }]\n');
    const r = await runCli(['run', 'hi', '--sim', 'bad.yaml', '--no-layers'], { cwd: tmp.dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.yaml:2:\d+/);
  });

  it('an unreachable base URL ends the run with model_error (exit 1) and a message naming the connection', async () => {
    // A port nothing listens on (fetch refuses port 9 and the Fetch standard's other blocked ports).
    const closed = await new Promise<number>((done) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const p = (s.address() as AddressInfo).port; s.close(() => done(p)); }); });
    const r = await runCli(['run', 'hi', '--no-layers', '--output-format', 'json'], { cwd: tmp.dir, env: { ...env, ANTHROPIC_BASE_URL: `http://127.0.0.1:${closed}`, REIN_MAX_RETRIES: '0' } });
    expect(r.code).toBe(1);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ rein_terminal_reason: 'model_error', is_error: true, subtype: 'error_during_execution' });
    const text = await runCli(['run', 'hi', '--no-layers'], { cwd: tmp.dir, env: { ...env, ANTHROPIC_BASE_URL: `http://127.0.0.1:${closed}`, REIN_MAX_RETRIES: '0' } });
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(new RegExp(`^rein: model_error: cannot reach 127\\.0\\.0\\.1:${closed}: connection refused \\(ECONNREFUSED\\)$`, 'm'));
    const blocked = await runCli(['run', 'hi', '--no-layers'], { cwd: tmp.dir, env: { ...env, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', REIN_MAX_RETRIES: '0' } });
    expect(blocked.stderr).toMatch(/^rein: model_error: cannot reach 127\.0\.0\.1:9: fetch does not connect to that port/m);
  }, 120_000);

  it('a tools: entry that no loaded plugin registers, at its line', async () => {
    writeFileSync(join(tmp.dir, 'p.yaml'), 'name: t\ntools: [Read, Frobnicate]\n');
    writeFileSync(join(tmp.dir, 's.yaml'), 'turns:\n  - reply: [{ text: "never" }]\n');
    const r = await runCli(['run', 'hi', '--preset', './p.yaml', '--sim', 's.yaml', '--no-layers'], { cwd: tmp.dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('rein: p.yaml:2:15: tools: unknown tool "Frobnicate"; rein\'s tools are Read, Write, Edit, Glob, Grep, Bash, BashOutput, KillShell, TodoWrite, WebFetch, Task, Skill, ToolSearch (a plugin\'s own tools need no entry here)');
    const v = await runCli(['preset', 'validate', 'p.yaml'], { cwd: tmp.dir, env });
    expect(v.code).toBe(2);
  });

  it('a bad flag value', async () => {
    const r = await runCli(['run', 'hi', '--max-turns', 'zero'], { cwd: tmp.dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--max-turns must be a positive integer/);
  });

  it('an unknown command: the error lists every command', async () => {
    const r = await runCli(['frobnicate'], { cwd: tmp.dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'frobnicate'/);
    for (const c of ['run', 'hooks', 'sim', 'preset', 'cache', 'bench']) expect(r.stderr).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
  });

  it('commands other than run: a path that is no file is one line and exit 2, never a Node stack trace', async () => {
    mkdirSync(join(tmp.dir, 'dir'));
    for (const [args, line] of [
      [['cache', 'explain', 'dir'], 'rein: dir is a directory; rein cache explain takes a transcript file (.jsonl) or a session id'],
      [['sim', 'serve', '--port', '0', '--scenario', 'nope.yaml'], `rein: --scenario: scenario file nope.yaml does not exist (looked for ${join(tmp.dir, 'nope.yaml')})`],
      [['sim', 'serve', '--port', '0', '--scenario', 'dir'], `rein: --scenario: dir is a directory (${join(tmp.dir, 'dir')}); it takes a scenario YAML file`],
      [['preset', 'init', 'no/such/folder/agent.yaml'], `rein: cannot write ${join(tmp.dir, 'no/such/folder/agent.yaml')}: its folder ${join(tmp.dir, 'no/such/folder')} does not exist; name a file in an existing folder`],
    ] as const) {
      const r = await runCli([...args], { cwd: tmp.dir, env, timeoutMs: 20_000 });
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 2, stderr: `${line}\n` });
    }
  });

  it('a prompt without -p (`claude "..."` habit): the last line says how to run it as a prompt', async () => {
    const r = await runCli(["what's in here", 'now'], { cwd: tmp.dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'what's in here'/);
    expect(r.stderr.trim().split('\n').at(-1)).toBe(`rein: to run it as a prompt: rein -p 'what'\\''s in here now'`);
  });
});

describe('rein --version and rein hooks', () => {
  it('prints the version, for -v alone too (as `claude -v`); beside a prompt -v is --verbose', async () => {
    const version = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version;
    for (const flag of ['--version', '-v']) {
      const r = await runCli([flag], { cwd: tmp.dir, env });
      expect(r.stdout.trim(), flag).toBe(version);
    }
    const verbose = await runCli(['-p', '-v', '--no-layers', 'hi'], { cwd: tmp.dir, env });
    expect(verbose.code).toBe(0);
    expect(verbose.stderr).toMatch(/^rein: end_turn after /m);
    // --verbose prints each tool call as it is made; the demo's first one is a Glob.
    expect(verbose.stderr).toMatch(/^rein: Glob \{/m);
  });

  it('lists every hook in loop order with its taps', async () => {
    const r = await runCli(['hooks', '--preset', 'minimal', '--no-layers', '--json'], { cwd: tmp.dir, env });
    expect(r.code).toBe(0);
    const table = JSON.parse(r.stdout);
    expect(table[0].hook).toBe('sessionStart');
    expect(table.find((h: { hook: string }) => h.hook === 'apiError').taps).toEqual([{ name: 'retry', stage: 0, type: 'sync' }]);
  });
});

describe('rein bench', () => {
  it('replays a generated workload through a preset and prints the table', async () => {
    const r = await runCli(['bench', '-w', 'gen:turns=5,seed=1', '--preset', 'default', '--no-progress', '-j', '1'], { cwd: tmp.dir, env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Totals on 1 workload, cheapest preset first:$/m);
    expect(r.stdout).toMatch(/│ default +│ 5 +│/);
  });

  it('a replay that fails is named on stderr and makes the exit code 1', async () => {
    writeFileSync(join(tmp.dir, 'boom.ts'), `export default { name: 'boom', options: (await import('${pathToFileURL(join(REPO, 'node_modules/zod/index.js')).href}')).z.object({}), apply() { throw new Error('boom at apply'); } };\n`);
    writeFileSync(join(tmp.dir, 'p.yaml'), 'extends: default\nplugins:\n  ./boom.ts: {}\n');
    const r = await runCli(['bench', '-w', 'gen:turns=5,seed=1', '--preset', './p.yaml', '--no-progress', '-j', '1'], { cwd: tmp.dir, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^rein: gen:turns=5,seed=1 × default failed: plugin boom \(.*p\.yaml:3:3\) failed to apply: boom at apply$/m);
  });
});
