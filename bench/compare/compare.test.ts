import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../simulator/scenario.js';
import { runCli } from '../../testing/support.js';
import { agentOutput, defaultScenario, runCompare } from './compare.js';
import { scoreCapture, type CapturedRequest } from './score.js';
import { CLAUDE_CODE, CLAUDE_CODE_WITHOUT_BETA, OPENCODE, writeStandIn } from './test/stand-in.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-compare-test-'));
  await writeFile(join(dir, 'agent.yaml'), 'name: agent-under-test\nmodel: { provider: anthropic, name: claude-sonnet-4-5 }\ntools: [Read]\n');
});
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

describe('bench compare with rein as the agent', () => {
  it('captures every request the agent sent over HTTP and scores it with the replay accounting', async () => {
    const runs = await runCompare({ agent: 'rein', presets: ['agent.yaml'], model: 'claude-sonnet-4-6', cwd: dir });
    expect(runs.map((r) => r.label)).toEqual(['agent:rein', 'agent.yaml']);
    const [agent, preset] = runs;
    expect(agent!.error).toBeUndefined();
    // The script has three turns: Read, the shell call, the answer.
    expect(agent!.requests).toHaveLength(3);
    expect(agent!.requests.every((r) => r.source === 'main_loop')).toBe(true);
    // The prompt grows each turn, and the scored prompt size is what the simulator billed.
    const sizes = agent!.requests.map((r) => r.promptTokens);
    expect(sizes[1]).toBeGreaterThan(sizes[0]!);
    for (const r of agent!.requests) expect(r.input + r.cacheRead + r.cacheWrite5m + r.cacheWrite1h).toBe(r.promptTokens);
    expect(agent!.bytes).toBeGreaterThan(0);
    expect(agent!.summary.costUsd).toBeGreaterThan(0);
    // The same preset driven the same way gives the same numbers.
    expect(preset!.requests.map((r) => r.promptTokens)).toEqual(sizes);
  });

  it('reports an agent CLI that is not installed instead of failing silently', async () => {
    const runs = await runCompare({ agent: 'pi', bin: join(dir, 'no-such-pi'), presets: ['minimal'], model: 'claude-sonnet-4-6', cwd: dir });
    expect(runs[0]!.label).toBe('agent:pi');
    expect(runs[0]!.error).toBe(`${join(dir, 'no-such-pi')} does not exist (--bin)`);
    expect(runs[0]!.requests).toEqual([]);
    // A bare name is looked up on PATH.
    const byName = await runCompare({ agent: 'pi', bin: 'rein-no-such-agent', presets: [], model: 'claude-sonnet-4-6', cwd: dir });
    expect(byName[0]!.error).toBe('rein-no-such-agent is not installed (not found on PATH); pass --bin');
  });
});

describe('scoreCapture', () => {
  it('counts seen prefixes across requests: an append-only second request has its first prompt as seen', () => {
    const base = { at: 0, headers: {}, source: 'main_loop', bytes: 10 };
    const sys = 'x'.repeat(8000);
    const first: CapturedRequest = { ...base, body: { model: 'claude-sonnet-4-5', system: sys, messages: [{ role: 'user', content: 'hi' }] }, usage: { input_tokens: 0, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 2001 } };
    const second: CapturedRequest = { ...base, at: 1000, body: { model: 'claude-sonnet-4-5', system: sys, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'yo' }, { role: 'user', content: 'more' }] }, usage: { input_tokens: 0, output_tokens: 5, cache_read_input_tokens: 2001, cache_creation_input_tokens: 3 } };
    const [a, b] = scoreCapture([first, second]);
    expect(a!.seenTokens).toBe(0);
    expect(b!.seenTokens).toBe(a!.promptTokens);
    expect(defaultScenario('pi', 'm').turns[0]!.reply![1]!.tool_use).toEqual({ name: 'read', input: { path: 'notes.txt' } });
  });
});

/** Every file under `dir`, relative, with its contents (to see that a run wrote nothing there). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${rel}${e.name}/`);
      else out[`${rel}${e.name}`] = readFileSync(join(d, e.name), 'utf8');
    }
  };
  walk(dir, '');
  return out;
}

describe('bench compare with agent CLIs', () => {
  it('the preset row is `default` unless one is named, and --model pins the presets too', async () => {
    const runs = await runCompare({ agent: 'rein', model: 'claude-opus-4-1', cwd: dir });
    expect(runs.map((r) => r.label)).toEqual(['agent:rein', 'default']);
    for (const r of runs) expect(new Set(r.requests.map((q) => q.model))).toEqual(new Set(['claude-opus-4-1']));
  });

  it('every agent works in its scratch folder: nothing is written where rein was started, nor in the user\'s home', async () => {
    const user = join(dir, 'user');
    const started = join(user, 'project');
    mkdirSync(started, { recursive: true });
    await writeFile(join(started, 'README.md'), '# the user\'s own project\n');
    const opencode = writeStandIn(dir, 'opencode', OPENCODE);
    // The shell rein is started from: its folder is $PWD, and the user's HOME and XDG folders.
    const saved = { ...process.env };
    Object.assign(process.env, { PWD: started, HOME: user, REIN_HOME: join(user, '.rein'), XDG_DATA_HOME: join(user, '.local/share'), XDG_CONFIG_HOME: join(user, '.config'), TMPDIR: join(dir, 'user-tmp') });
    mkdirSync(join(dir, 'user-tmp'));
    const before = snapshot(user);
    let runs;
    try {
      runs = await runCompare({ agent: 'opencode', bin: opencode, presets: ['minimal'], model: 'claude-sonnet-4-6', cwd: started });
    } finally {
      for (const k of ['PWD', 'HOME', 'REIN_HOME', 'XDG_DATA_HOME', 'XDG_CONFIG_HOME', 'TMPDIR']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
    expect(runs[0]!.error).toBeUndefined();
    // The stand-in's three turns: it read, listed and answered; and the preset's.
    expect(runs.map((r) => [r.label, r.requests.length, r.error])).toEqual([['agent:opencode', 3, undefined], ['minimal', 3, undefined]]);
    expect(snapshot(user)).toEqual(before);
    // The scratch folders (made in the temp directory) are gone too.
    expect(readdirSync(join(dir, 'user-tmp'))).toEqual([]);
  });

  it('Claude Code\'s system message under the mid-conversation-system beta is answered like the API answers it', async () => {
    const claude = writeStandIn(dir, 'claude', CLAUDE_CODE);
    const runs = await runCompare({ agent: 'claude-code', bin: claude, presets: ['minimal'], model: 'claude-sonnet-4-6', cwd: dir });
    expect(runs[0]!.error).toBeUndefined();
    expect(runs[0]!.failedRequests).toEqual([]);
    expect(runs[0]!.requests).toHaveLength(3);
  });

  it('an agent that fails shows its own output, and the requests the simulator refused are scored as failed', async () => {
    const claude = writeStandIn(dir, 'claude-no-beta', CLAUDE_CODE_WITHOUT_BETA);
    const runs = await runCompare({ agent: 'claude-code', bin: claude, presets: ['minimal'], model: 'claude-sonnet-4-6', cwd: dir });
    const agent = runs[0]!;
    expect(agent.error).toMatch(/claude-no-beta exited with code 1; its output:\n {4}claude: the API refused the request\n {4}API Error: 400 .*messages\.1\.role: Input should be 'user' or 'assistant'/);
    expect(agent.failedRequests).toEqual([expect.objectContaining({ status: 400, type: 'invalid_request_error', message: "messages.1.role: Input should be 'user' or 'assistant'" })]);
    expect(agent.requests).toEqual([]);
    expect(agentOutput('', '')).toBe('');
  });

  it('--rein-scenario: rein\'s presets play their own script when the agent\'s tool names differ', async () => {
    const opencode = writeStandIn(dir, 'opencode-2', OPENCODE);
    const agentScript = parseScenario('turns:\n  - reply: [{ tool_use: { name: read, input: { filePath: notes.txt } } }]\n  - reply: [{ text: done }]\n', 'agent.yaml');
    const reinScript = parseScenario('turns:\n  - reply: [{ tool_use: { name: Read, input: { file_path: notes.txt } } }]\n  - reply: [{ tool_use: { name: Glob, input: { pattern: "*" } } }]\n  - reply: [{ text: done }]\n', 'rein.yaml');
    const runs = await runCompare({ agent: 'opencode', bin: opencode, scenario: agentScript, reinScenario: reinScript, presets: ['minimal'], model: 'claude-sonnet-4-6', cwd: dir });
    expect(runs.map((r) => [r.label, r.requests.length])).toEqual([['agent:opencode', 2], ['minimal', 3]]);
  });
});

describe('rein bench compare (the command)', () => {
  it('takes --preset, --model, --json and --rein-scenario after `compare` as its own', async () => {
    await writeFile(join(dir, 'rein-script.yaml'), 'turns:\n  - reply: [{ tool_use: { name: Read, input: { file_path: notes.txt } } }]\n  - reply: [{ text: done }]\n');
    const r = await runCli(['bench', 'compare', '--agent', 'rein', '--preset', 'minimal', '--model', 'claude-opus-4-1', '--rein-scenario', 'rein-script.yaml', '--json', 'out/compare.json'], { cwd: dir });
    expect(r.stderr).toContain('rein: JSON comparison written to');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/│ agent:rein +│ 3 +│ 0 +│/);
    expect(r.stdout).toMatch(/│ minimal +│ 2 +│ 0 +│/);
    expect(r.stdout).toContain('nothing was billed');
    const json = JSON.parse(readFileSync(join(dir, 'out/compare.json'), 'utf8'));
    expect(json.simulated).toBe(true);
    expect(json.runs.map((x: { label: string }) => x.label)).toEqual(['agent:rein', 'minimal']);
    expect(json.runs.flatMap((x: { requests: { model: string }[] }) => x.requests.map((q) => q.model))).toEqual(Array(5).fill('claude-opus-4-1'));
  });

  it('--json - writes the JSON alone to stdout and the table to stderr, and no file named -', async () => {
    const r = await runCli(['bench', 'compare', '--agent', 'rein', '--preset', 'minimal', '--json', '-'], { cwd: dir });
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.runs.map((x: { label: string }) => x.label)).toEqual(['agent:rein', 'minimal']);
    expect(r.stderr).toMatch(/│ minimal +│ \d+ +│ 0 +│/);
    expect(existsSync(join(dir, '-'))).toBe(false);
  });

  it('an agent that could not start has no figures, not a $0 row, and the command exits 1', async () => {
    const r = await runCli(['bench', 'compare', '--agent', 'pi', '--bin', join(dir, 'no-such-pi'), '--preset', 'minimal'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/│ agent:pi +│ 0 +│ 0 +│ – +│ – +│ – +│ – +│ – +│ – +│ failed +│ – +│/);
    expect(r.stdout).toMatch(/│ minimal +│ 3 +│ 0 +│ \d+/);
    expect(r.stdout).toContain(`- agent:pi: ${join(dir, 'no-such-pi')} does not exist (--bin)`);
  });
});

