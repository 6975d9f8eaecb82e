/**
 * Habits of `claude -p` users on the built `rein` command, each a case where rein once differed
 * in a way a script would trip on: the prompt before `-p`, the `system/init` line's `tools` and
 * `mcp_servers`, Claude Code's own commands typed as a prompt, Claude Code's environment variables,
 * the bypass mode's opt-in, and the simulator's echo when an agent points ANTHROPIC_BASE_URL at it.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, runBuilt, serveScenario, tempDir, type SimHarness } from '../testing/support.js';
import { createSimulator, startSimServer } from '../simulator/index.js';

let tmp: ReturnType<typeof tempDir>;
let sim: SimHarness | undefined;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  if (!existsSync(join(REPO, 'dist/bundle/rein.cjs'))) throw new Error('build rein first: npm run build');
});
beforeEach(() => {
  tmp = tempDir('rein-habits-');
  mkdirSync(join(tmp.dir, 'userhome'));
  env = { REIN_HOME: join(tmp.dir, 'home'), HOME: join(tmp.dir, 'userhome') };
  writeFileSync(join(tmp.dir, 'agent.yaml'), 'model: { name: claude-sonnet-4-6 }\ntools: [Read, Write, Bash]\n');
});
afterEach(async () => { await sim?.close(); sim = undefined; tmp.cleanup(); });

function rein(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}) {
  return runBuilt(args, { cwd: tmp.dir, env: { ...env, ...opts.env }, input: opts.input });
}

/** Serves `answers` as text replies and returns the env that points rein at them. */
async function serve(...answers: string[]): Promise<NodeJS.ProcessEnv> {
  sim = await serveScenario(`turns:\n${answers.map((a) => `  - reply: [{ text: ${JSON.stringify(a)} }]`).join('\n')}\n`, tmp.dir);
  return { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: sim.server.url };
}

const BASE = ['--preset', './agent.yaml', '--no-layers'];

/** The JSON lines of a stream-json run. */
const lines = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);

describe('the prompt before -p', () => {
  it('rein "hi" -p --output-format json runs "hi" (claude "query" -p), and so does --print', async () => {
    const e = await serve('one', 'two');
    const r = await rein(['hi there', '-p', '--output-format', 'json', ...BASE], { env: e });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'result', subtype: 'success', result: 'one' });
    const print = await rein(['again', '--print', ...BASE], { env: e });
    expect(print.code).toBe(0);
    expect(print.stdout).toBe('two\n');
    const texts = sim!.requests().map((q) => (q.body.messages[0].content as { text: string }[]).map((b) => b.text).join(''));
    expect(texts).toEqual(['hi there', 'again']);
  });

  it('without -p, the hint keeps the flags as flags: rein -p \'fix it\' --model opus', async () => {
    const r = await rein(['fix it', '--model', 'opus']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n').at(-1)).toBe("rein: to run it as a prompt: rein -p 'fix it' --model opus");
  });
});

describe('stream-json-only flags', () => {
  it('--include-partial-messages and --replay-user-messages without stream-json are refused, not dropped', async () => {
    const e = await serve('ok');
    const text = await rein(['-p', 'hi', '--include-partial-messages', ...BASE], { env: e });
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('includePartialMessages (--include-partial-messages) needs format stream-json (--output-format stream-json); with text it would print nothing');
    const json = await rein(['-p', 'hi', '--replay-user-messages', '--output-format', 'json', ...BASE], { env: e });
    expect(json.code).toBe(2);
    expect(json.stderr).toContain('replayUserMessages (--replay-user-messages) needs format stream-json');
    expect(sim!.requests()).toHaveLength(0);
    const stream = await rein(['-p', 'hi', '--include-partial-messages', '--output-format', 'stream-json', ...BASE], { env: e });
    expect(stream.code).toBe(0);
    expect(lines(stream.stdout).some((l) => l.type === 'stream_event')).toBe(true);
  });
});

describe('the system/init line', () => {
  it('--disallowedTools Bash: Bash is left out of init.tools, as it is out of the request', async () => {
    const e = await serve('ok');
    const r = await rein(['-p', 'hi', '--output-format', 'stream-json', '--verbose', '--disallowedTools', 'Bash', ...BASE], { env: e });
    expect(r.code).toBe(0);
    const init = lines(r.stdout).find((l) => l.type === 'system' && l.subtype === 'init')!;
    const sent = (sim!.requests()[0]!.body.tools as { name: string }[]).map((t) => t.name);
    expect(sent).not.toContain('Bash');
    expect(init.tools).not.toContain('Bash');
    expect([...init.tools].sort()).toEqual([...sent].sort());
  });

  it('an MCP server that fails to start is listed as failed in init.mcp_servers', async () => {
    const e = await serve('ok');
    writeFileSync(join(tmp.dir, 'mcp.json'), JSON.stringify({ mcpServers: { broken: { command: join(tmp.dir, 'no-such-server') } } }));
    const r = await rein(['-p', 'hi', '--output-format', 'stream-json', '--verbose', '--mcp-config', 'mcp.json', ...BASE], { env: e });
    expect(r.code).toBe(0);
    const init = lines(r.stdout).find((l) => l.type === 'system' && l.subtype === 'init')!;
    expect(lines(r.stdout).some((l) => l.subtype === 'notice' && String(l.message).includes('MCP server broken failed to start'))).toBe(true);
    expect(init.mcp_servers).toEqual([{ name: 'broken', status: 'failed' }]);
  });
});

describe("Claude Code's own commands", () => {
  it('rein -p "/compact" is refused with what to do instead, and nothing is sent to the model', async () => {
    const e = await serve('should not be asked');
    const r = await rein(['-p', '/compact', 'keep the file list', ...BASE], { env: e });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^rein: \/compact is a Claude Code command that rein does not run; .*compaction\/auto/m);
    const cost = await rein(['-p', '/cost', ...BASE], { env: e });
    expect(cost.code).toBe(2);
    expect(cost.stderr).toContain('/cost is a Claude Code command that rein does not run');
    expect(sim!.requests()).toHaveLength(0);
    // A /word that is no such command is a prompt like any other.
    const other = await rein(['-p', '/compactor please', ...BASE], { env: e });
    expect(other.code).toBe(0);
    expect(sim!.requests()).toHaveLength(1);
  });

  it('a command alone is refused; text that only starts with a command\'s name goes to the model', async () => {
    const e = await serve('one', 'two');
    for (const bare of [['/help'], ['/memory  '], ['/compact']]) {
      const r = await rein(['-p', ...bare, ...BASE], { env: e });
      expect(r.code, bare[0]).toBe(2);
      expect(r.stderr).toContain(`${bare[0]!.trim()} is a Claude Code command that rein does not run`);
    }
    expect(sim!.requests()).toHaveLength(0);
    for (const prompt of ['/memory leak in foo.ts is what I see', '/help me with X']) {
      const r = await rein(['-p', prompt, ...BASE], { env: e });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.stringify(sim!.requests().at(-1)!.body.messages)).toContain(prompt);
    }
    expect(sim!.requests()).toHaveLength(2);
  });

  it('a project skill with a command\'s name runs: /status is the skill, not a refusal', async () => {
    const e = await serve('reported');
    mkdirSync(join(tmp.dir, '.claude', 'skills', 'status'), { recursive: true });
    writeFileSync(join(tmp.dir, '.claude', 'skills', 'status', 'SKILL.md'), '---\nname: status\ndescription: Reports the state of the work.\n---\n\nSay where the work stands.\n');
    writeFileSync(join(tmp.dir, 'skills.yaml'), 'model: { name: claude-sonnet-4-6 }\ntools: [Read, Skill]\n');
    const r = await rein(['-p', '/status', '--preset', './skills.yaml', '--no-layers'], { env: e });
    expect(r.code, r.stderr).toBe(0);
    expect(sim!.requests()).toHaveLength(1);
    expect(JSON.stringify(sim!.requests()[0]!.body.messages)).toContain('<command-name>/status</command-name>');
  });
});

describe('hooks in .claude/settings.json', () => {
  it('a hook for a Claude Code event rein does not fire is left out with a warning; the others still run', async () => {
    const e = await serve('ok');
    mkdirSync(join(tmp.dir, '.claude'));
    const settings = (events: Record<string, unknown>) => writeFileSync(join(tmp.dir, '.claude', 'settings.json'), JSON.stringify({ hooks: events }, null, 2));
    const hook = (command: string) => [{ hooks: [{ type: 'command', command }] }];
    settings({ PermissionDenied: hook('true'), WorktreeCreate: hook('true'), SessionEnd: hook('echo ran > ended.txt') });
    const r = await rein(['-p', 'hi', '--preset', './agent.yaml'], { env: e });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^rein: warn: \.claude\/settings\.json:3:5: hooks\.PermissionDenied: rein does not fire PermissionDenied hooks \(a Claude Code event\); they are left out$/m);
    expect(r.stderr).toContain('hooks.WorktreeCreate: rein does not fire WorktreeCreate hooks');
    expect(existsSync(join(tmp.dir, 'ended.txt'))).toBe(true);
    // A name that is no Claude Code event (a typo) and a guard rein would leave unguarded stay errors.
    settings({ PreToolUser: hook('true') });
    const typo = await rein(['-p', 'hi', '--preset', './agent.yaml'], { env: e });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown key "PreToolUser" in hooks');
    settings({ PreSkillShellCommand: hook('exit 2') });
    const guard = await rein(['-p', 'hi', '--preset', './agent.yaml'], { env: e });
    expect(guard.code).toBe(2);
    expect(guard.stderr).toContain('unknown key "PreSkillShellCommand" in hooks');
    expect(sim!.requests()).toHaveLength(1);
  });
});

describe('env in .claude/settings.json', () => {
  it("ANTHROPIC_BASE_URL and ANTHROPIC_MODEL there get a warning that rein's own requests do not use them; other keys get none", async () => {
    const e = await serve('one');
    mkdirSync(join(tmp.dir, '.claude'));
    writeFileSync(join(tmp.dir, '.claude', 'settings.json'), JSON.stringify({ env: { GREETING: 'hello', ANTHROPIC_BASE_URL: 'https://gateway.invalid', ANTHROPIC_MODEL: 'haiku' } }, null, 2));
    const r = await rein(['-p', 'hi', '--preset', './agent.yaml'], { env: e });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('one\n');
    expect(r.stderr).toMatch(/^rein: warn: \.claude\/settings\.json:4:5: env\.ANTHROPIC_BASE_URL: rein applies a settings file's env to the commands it runs, not to itself .*: export it in the shell$/m);
    expect(r.stderr).toMatch(/^rein: warn: \.claude\/settings\.json:5:5: env\.ANTHROPIC_MODEL: .*or use --model/m);
    expect(r.stderr).not.toContain('GREETING');
    expect(sim!.requests()[0]!.body.model).toBe('claude-sonnet-4-6');
  });
});

describe("Claude Code's subcommands", () => {
  it('rein mcp list says rein has no such command and what to use, not to send "mcp list" to the model', async () => {
    const r = await rein(['mcp', 'list']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(/^rein: `claude mcp` is a Claude Code command that rein does not have: MCP servers come from --mcp-config/);
    expect(r.stderr).not.toContain('to run it as a prompt');
  });
});

describe("Claude Code's environment variables", () => {
  it('MAX_THINKING_TOKENS and CLAUDE_CODE_MAX_OUTPUT_TOKENS shape the request; a flag wins over them', async () => {
    const e = await serve('one', 'two');
    const r = await rein(['-p', 'hi', ...BASE], { env: { ...e, MAX_THINKING_TOKENS: '2048', CLAUDE_CODE_MAX_OUTPUT_TOKENS: '9000' } });
    expect(r.code).toBe(0);
    const body = sim!.requests()[0]!.body;
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(body.max_tokens).toBe(9000);
    const flag = await rein(['-p', 'hi', '--max-thinking-tokens', '0', ...BASE], { env: { ...e, MAX_THINKING_TOKENS: '2048' } });
    expect(flag.code).toBe(0);
    expect(sim!.requests()[1]!.body.thinking).toBeUndefined();
    const bad = await rein(['-p', 'hi', ...BASE], { env: { ...e, MAX_THINKING_TOKENS: 'lots' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('MAX_THINKING_TOKENS must be a whole number of tokens (got "lots")');
  });

  it('an empty MAX_THINKING_TOKENS, CLAUDE_CODE_MAX_OUTPUT_TOKENS or DISABLE_AUTO_COMPACT counts as unset', async () => {
    const e = await serve('plain', 'plain');
    const plain = await rein(['-p', 'hi', ...BASE], { env: e });
    expect(plain.code, plain.stderr).toBe(0);
    const empty = await rein(['-p', 'hi', ...BASE], { env: { ...e, MAX_THINKING_TOKENS: '', CLAUDE_CODE_MAX_OUTPUT_TOKENS: '', DISABLE_AUTO_COMPACT: '' } });
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toBe(plain.stdout);
    const [before, after] = sim!.requests().map((r) => r.body);
    expect(after!.thinking).toBeUndefined();
    expect(after!.max_tokens).toBe(before!.max_tokens);
    const badOutput = await rein(['-p', 'hi', ...BASE], { env: { ...e, CLAUDE_CODE_MAX_OUTPUT_TOKENS: '8k' } });
    expect(badOutput.code).toBe(2);
    expect(badOutput.stderr).toContain('CLAUDE_CODE_MAX_OUTPUT_TOKENS must be a whole number of tokens of at least 1 (got "8k")');
  });

  it('DISABLE_AUTO_COMPACT=1 switches automatic compaction off (rein preset print shows it)', async () => {
    const args = ['preset', 'print', '--preset', 'default', '--no-layers', '--plugins'];
    const on = await rein(args);
    expect(on.code).toBe(0);
    expect(on.stdout).toMatch(/^compaction\/auto:/m);
    const off = await rein(args, { env: { DISABLE_AUTO_COMPACT: '1' } });
    expect(off.code).toBe(0);
    expect(off.stdout).not.toMatch(/^compaction\/auto:/m);
    expect(off.stdout).toMatch(/^compaction\/microcompact:/m); // only the automatic summary goes
  });
});

describe('bypassPermissions', () => {
  it('--permission-mode bypassPermissions alone names the flags that opt in', async () => {
    const r = await rein(['-p', 'hi', '--permission-mode', 'bypassPermissions', ...BASE]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--dangerously-skip-permissions, or --allow-dangerously-skip-permissions as the opt-in');
    const e = await serve('ok');
    const ok = await rein(['-p', 'hi', '--permission-mode', 'bypassPermissions', '--allow-dangerously-skip-permissions', ...BASE], { env: e });
    expect(ok.code).toBe(0);
  });
});

describe('ANTHROPIC_BASE_URL on a port fetch blocks', () => {
  it('http://127.0.0.1:6000 ends the run at once with the reason, without retries that cannot help', async () => {
    const r = await rein(['-p', 'hi', ...BASE], { env: { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: 'http://127.0.0.1:6000' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('rein: model_error: cannot reach 127.0.0.1:6000: fetch does not connect to that port');
    expect(r.stderr).not.toContain('retry');
  });
});

describe('rein sim serve as ANTHROPIC_BASE_URL', () => {
  it('the echo simulator answers with the prompt, not with the context rein sends after it', async () => {
    const server = await startSimServer({ simulator: createSimulator(), port: 0 });
    try {
      // The default preset sends the session's context and the agent types as reminders.
      const r = await rein(['-p', 'echo me', '--preset', 'default', '--no-layers'], { env: { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url } });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('echo me\n');
    } finally {
      await server.close();
    }
  });
});
