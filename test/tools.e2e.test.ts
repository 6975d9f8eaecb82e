/**
 * The tools end to end: `rein run` (a real process, the real SDK, the simulator playing a script)
 * reads, fixes and tests a small project; and a scripted model that makes every kind of mistake
 * gets an is_error result for each, with a useful message, while the run goes on.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../agent/agent.js';
import { type ContentBlock, type Message } from '../kernel/index.js';
import { createAnthropicClient } from '../lib/index.js';
import { collect, runCli, serveScenario, tempDir } from '../testing/support.js';

let tmp: ReturnType<typeof tempDir>;
let home: string;
beforeEach(() => {
  tmp = tempDir('rein-tools-e2e-');
  home = join(tmp.dir, 'home');
});
afterEach(() => tmp.cleanup());

/** Messages of the only transcript under `home` for project folder `cwd`. */
function transcriptMessages(): { messages: Message[]; file: string } {
  const root = join(home, 'sessions');
  const project = readdirSync(root)[0]!;
  const file = readdirSync(join(root, project)).find((f) => f.endsWith('.jsonl'))!;
  const messages: Message[] = [];
  for (const line of readFileSync(join(root, project, file), 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line);
    if (e.type === 'message') messages.push(e.message);
    if (e.type === 'history') messages.splice(0, messages.length, ...e.messages);
  }
  return { messages, file };
}

type Result = Extract<ContentBlock, { type: 'tool_result' }>;

/** Every tool_use is answered, in order, by a tool_result in the very next message; returns the pairs. */
function pairs(messages: Message[]): { name: string; input: any; result: Result }[] {
  const out: { name: string; input: any; result: Result }[] = [];
  messages.forEach((m, i) => {
    const uses = m.content.filter((b) => b.type === 'tool_use') as Extract<ContentBlock, { type: 'tool_use' }>[];
    if (m.role !== 'assistant' || uses.length === 0) return;
    const next = messages[i + 1]!;
    const results = next.content.filter((b) => b.type === 'tool_result') as Result[];
    expect(results.map((r) => r.tool_use_id)).toEqual(uses.map((u) => u.id));
    uses.forEach((u, j) => out.push({ name: u.name, input: u.input, result: results[j]! }));
  });
  const allResults = messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_result'));
  expect(allResults).toHaveLength(out.length);
  return out;
}

const text = (r: Result) => (typeof r.content === 'string' ? r.content : (r.content ?? []).map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n'));

const CALC = `function add(a, b) {\n  return a - b;\n}\n\nfunction mul(a, b) {\n  return a * b;\n}\n\nmodule.exports = { add, mul };\n`;
const TEST = `const assert = require('node:assert');\nconst { add, mul } = require('./calc');\nassert.strictEqual(add(2, 3), 5, 'add');\nassert.strictEqual(mul(2, 3), 6, 'mul');\nconsole.log('all tests passed');\n`;

const FIX_SCENARIO = `
model: claude-sonnet-4-6
turns:
  - reply:
      - { text: "Let me look at the project." }
      - { tool_use: { name: Glob, input: { pattern: "**/*.js" } } }
      - { tool_use: { name: Read, input: { file_path: calc.js } } }
      - { tool_use: { name: Read, input: { file_path: test.js } } }
  - reply: [{ tool_use: { name: Bash, input: { command: "node test.js", description: "Run the tests" } } }]
  - reply: [{ tool_use: { name: Edit, input: { file_path: calc.js, old_string: "  return a - b;", new_string: "  return a + b;" } } }]
  - reply:
      - { tool_use: { name: Bash, input: { command: "node test.js", description: "Run the tests again" } } }
      - { tool_use: { name: Grep, input: { pattern: "a \\\\+ b", output_mode: content } } }
  - reply: [{ text: "Fixed add() in calc.js; the tests pass." }]
`;

describe('tools end to end', () => {
  it('rein run reads, edits and tests a real project; the transcript pairs every tool_use with its tool_result', async () => {
    const project = join(tmp.dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'calc.js'), CALC);
    writeFileSync(join(project, 'test.js'), TEST);
    writeFileSync(join(tmp.dir, 'fix.yaml'), FIX_SCENARIO);
    writeFileSync(join(tmp.dir, 'agent.yaml'), [
      'name: fixer',
      'model: { name: claude-sonnet-4-6 }',
      'tools: [Read, Write, Edit, Glob, Grep, Bash]',
      'permissions:',
      '  mode: acceptEdits',
      '  allow: ["Bash(node test.js)"]',
    ].join('\n'));
    const r = await runCli(['run', '--preset', join(tmp.dir, 'agent.yaml'), '--sim', join(tmp.dir, 'fix.yaml'), '--no-layers', '--output-format', 'json', 'Fix the failing test'], { cwd: project, env: { REIN_HOME: home }, timeoutMs: 90_000 });
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result ?? JSON.parse(r.stdout).text).toContain('the tests pass');

    expect(readFileSync(join(project, 'calc.js'), 'utf8')).toBe(CALC.replace('a - b', 'a + b'));
    const { messages } = transcriptMessages();
    const p = pairs(messages);
    expect(p.map((x) => x.name)).toEqual(['Glob', 'Read', 'Read', 'Bash', 'Edit', 'Bash', 'Grep']);
    expect(text(p[0]!.result).split('\n').sort()).toEqual(['calc.js', 'test.js']);
    expect(text(p[1]!.result)).toContain('2\t  return a - b;');
    expect(p[3]!.result.is_error).toBe(true);
    expect(text(p[3]!.result)).toMatch(/^Exit code 1\n[\s\S]*AssertionError/);
    expect(p[4]!.result.is_error).toBeUndefined();
    expect(text(p[5]!.result)).toBe('all tests passed');
    expect(text(p[6]!.result)).toBe('calc.js:2:  return a + b;');
  }, 120_000);

  it('every kind of tool error reaches the model as an is_error result with a useful message, and the run goes on', async () => {
    const dir = join(tmp.dir, 'errs');
    mkdirSync(dir);
    writeFileSync(join(dir, 'dup.txt'), 'same\nsame\n');
    writeFileSync(join(dir, 'stale.txt'), 'before\n');
    writeFileSync(join(dir, 'blob.bin'), Buffer.from([0, 1, 2, 3]));
    const harness = await serveScenario(`
model: claude-sonnet-4-6
turns:
  - reply:
      - { tool_use: { name: Read, input: { file_path: missing.txt } } }
      - { tool_use: { name: Read, input: { file_path: blob.bin } } }
      - { tool_use: { name: Read, input: { path: dup.txt } } }
      - { tool_use: { name: Read, input: { file_path: dup.txt } } }
      - { tool_use: { name: Read, input: { file_path: stale.txt } } }
  - reply: [{ tool_use: { name: Edit, input: { file_path: dup.txt, old_string: same, new_string: other } } }]
  - reply: [{ tool_use: { name: Bash, input: { command: "echo changed >> stale.txt" } } }]
  - reply: [{ tool_use: { name: Edit, input: { file_path: stale.txt, old_string: before, new_string: after } } }]
  - reply: [{ tool_use: { name: Bash, input: { command: "sleep 30", timeout: 200 } } }]
  - reply: [{ tool_use: { name: Bash, input: { command: "seq 1 100000" } } }]
  - reply: [{ tool_use: { name: Nope, input: {} } }]
  - reply: [{ text: "Done despite the errors." }]
`, tmp.dir);
    const client = createAnthropicClient({ baseURL: harness.server.url, apiKey: 'test', kind: 'simulator' });
    process.env.REIN_HOME = home;
    const agent = await createAgent({
      preset: { name: 'errs', model: { name: 'claude-sonnet-4-6' }, tools: ['Read', 'Edit', 'Bash'], permissions: { mode: 'bypassPermissions', allowBypassPermissions: true } },
      cwd: dir, layers: false, client,
    });
    try {
      const { result } = await collect(agent.kernel, 'Exercise the tools');
      expect(result.terminalReason).toBe('end_turn');
      expect(result.text).toBe('Done despite the errors.');
      const p = pairs(agent.kernel.messages);
      const byStep = p.map((x) => ({ err: x.result.is_error === true, text: text(x.result) }));
      expect(byStep[0]).toMatchObject({ err: true, text: expect.stringContaining('File does not exist') });
      expect(byStep[1]).toMatchObject({ err: true, text: expect.stringContaining('binary file') });
      expect(byStep[2]).toMatchObject({ err: true, text: expect.stringMatching(/InputValidationError: Read .*file_path/) });
      expect(byStep[3]).toMatchObject({ err: false });
      expect(byStep[5]).toMatchObject({ err: true, text: expect.stringContaining('occurs 2 times') });
      expect(byStep[6]).toMatchObject({ err: false });
      expect(byStep[7]).toMatchObject({ err: true, text: expect.stringContaining('changed on disk after you read it') });
      expect(byStep[8]).toMatchObject({ err: true, text: expect.stringContaining('timed out after 0.2 s') });
      expect(byStep[9]).toMatchObject({ err: false, text: expect.stringContaining('Full output saved to:') });
      expect(byStep[10]).toMatchObject({ err: true, text: expect.stringContaining('No such tool: Nope') });
      // The tools param was byte-identical in every request.
      const tools = harness.requests().map((q) => JSON.stringify(q.body.tools));
      expect(tools.length).toBe(8);
      expect(new Set(tools).size).toBe(1);
      expect(JSON.parse(tools[0]!).map((t: { name: string }) => t.name)).toEqual(['Bash', 'BashOutput', 'Edit', 'KillShell', 'Read']);
    } finally {
      await agent.close();
      await harness.close();
    }
  }, 120_000);
});
