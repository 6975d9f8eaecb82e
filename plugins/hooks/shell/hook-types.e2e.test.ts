/**
 * The hook types beyond `command`, through `rein run` (the built command, the simulator playing a
 * script): an `http` hook against a real loopback server, a `prompt` hook answered by the
 * simulator, a PermissionRequest hook's `interrupt`, and a parent's hook that sees (and blocks) a
 * child agent's call, named in the event JSON.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runBuilt, tempDir } from '../../../testing/support.js';

let tmp: ReturnType<typeof tempDir>;
let project: string;
beforeEach(() => {
  tmp = tempDir('rein-hook-types-');
  project = join(tmp.dir, 'project');
  mkdirSync(project);
});
afterEach(() => tmp.cleanup());

interface RunOutput {
  result: { rein_terminal_reason: string; permission_denials: { tool_name: string; tool_input: { command?: string }; reason: string }[]; side_usage: Record<string, { input_tokens: number; output_tokens: number }>; num_requests: number };
  results: { text: string; isError: boolean }[];
  stderr: string;
}

/** Runs `rein run` with `preset` and `scenario` (YAML) in the project; returns the JSON result and the tool results of the transcript. */
async function run(preset: string, scenario: string, env: NodeJS.ProcessEnv = {}): Promise<RunOutput> {
  writeFileSync(join(tmp.dir, 'agent.yaml'), preset);
  writeFileSync(join(tmp.dir, 'scenario.yaml'), scenario);
  const home = join(tmp.dir, 'home');
  const r = await runBuilt(['run', '--preset', join(tmp.dir, 'agent.yaml'), '--sim', join(tmp.dir, 'scenario.yaml'), '--no-layers', '--output-format', 'json', 'go'], { cwd: project, env: { REIN_HOME: home, ...env }, timeoutMs: 90_000 });
  expect(r.stdout, r.stderr).toMatch(/^\{/);
  const root = join(home, 'sessions');
  const dir = join(root, readdirSync(root)[0]!);
  const file = readdirSync(dir).find((f) => f.endsWith('.jsonl'))!;
  const results: RunOutput['results'] = [];
  for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line);
    if (e.type !== 'message') continue;
    for (const b of e.message.content) {
      if (b.type === 'tool_result') results.push({ text: typeof b.content === 'string' ? b.content : b.content.map((c: { text?: string }) => c.text ?? '').join('\n'), isError: b.is_error === true });
    }
  }
  return { result: JSON.parse(r.stdout), results, stderr: r.stderr };
}

/** A loopback HTTP server that answers each POST with `answer(body)`; keeps what it got. */
async function hookServer(answer: (event: Record<string, any>, req: IncomingMessage) => { status?: number; body: string; delayMs?: number }): Promise<{ url: string; got: { event: Record<string, any>; headers: IncomingMessage['headers'] }[]; server: Server }> {
  const got: { event: Record<string, any>; headers: IncomingMessage['headers'] }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      const event = JSON.parse(body);
      got.push({ event, headers: req.headers });
      const a = answer(event, req);
      setTimeout(() => { res.writeHead(a.status ?? 200, { 'content-type': 'application/json' }); res.end(a.body); }, a.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, server };
}

const TWO_COMMANDS = `
turns:
  - reply:
      - { tool_use: { name: Bash, input: { command: "echo allowed > ok.txt" } } }
      - { tool_use: { name: Bash, input: { command: "echo forbidden > no.txt" } } }
  - reply: [{ text: "done" }]
`;

const BYPASS = 'name: hooks\ntools: [Bash]\npermissions: { mode: bypassPermissions, allowBypassPermissions: true }\n';

describe('http hooks', () => {
  it('POST the event JSON to a loopback server whose answer denies a call; headers carry only allowed variables', async () => {
    const s = await hookServer((e) => (String(e.tool_input?.command).includes('forbidden')
      ? { body: JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'the server says no' } }) }
      : { body: '{}' }));
    try {
      const out = await run(`${BYPASS}hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - { type: http, url: "${s.url}", headers: { Authorization: "Bearer $HOOK_TOKEN", X-Fixed: plain }, allowedEnvVars: [HOOK_TOKEN] }
`, TWO_COMMANDS, { HOOK_TOKEN: 'tok-123' });
      expect(out.result.permission_denials.map((d) => d.tool_input.command)).toEqual(['echo forbidden > no.txt']);
      expect(out.result.permission_denials[0]!.reason).toMatch(/PreToolUse hook `http:\/\/127\.0\.0\.1:\d+\/hook`: the server says no/);
      expect(existsSync(join(project, 'ok.txt'))).toBe(true);
      expect(existsSync(join(project, 'no.txt'))).toBe(false);
      expect(s.got).toHaveLength(2);
      expect(s.got[0]!.event).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'echo allowed > ok.txt' }, cwd: project });
      expect(s.got[0]!.event.session_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(s.got[0]!.headers.authorization).toBe('Bearer tok-123');
      expect(s.got[0]!.headers['x-fixed']).toBe('plain');
    } finally {
      s.server.close();
    }
  }, 120_000);

  it('a non-2xx answer or a timeout fails closed for PreToolUse, unless onFailure: continue', async () => {
    const s = await hookServer((e) => (String(e.tool_input?.command).includes('forbidden') ? { status: 200, body: '{}', delayMs: 3_000 } : { status: 500, body: 'boom' }));
    try {
      const closed = await run(`${BYPASS}hooks:
  PreToolUse:
    - matcher: Bash
      hooks: [{ type: http, url: "${s.url}", timeout: 0.5 }]
`, TWO_COMMANDS);
      const reasons = closed.result.permission_denials.map((d) => d.reason);
      expect(reasons).toHaveLength(2);
      expect(reasons[0]).toMatch(/failed: http:\/\/127\.0\.0\.1:\d+\/hook answered with status 500: boom/);
      expect(reasons[1]).toMatch(/failed: the hook timed out after 0\.5 s/);
      expect(existsSync(join(project, 'ok.txt'))).toBe(false);

      const open = await run(`${BYPASS}hooks:
  PreToolUse:
    - matcher: Bash
      hooks: [{ type: http, url: "${s.url}", timeout: 0.5, onFailure: continue }]
`, TWO_COMMANDS);
      expect(open.result.permission_denials).toEqual([]);
      expect(existsSync(join(project, 'ok.txt'))).toBe(true);
    } finally {
      s.server.close();
    }
  }, 120_000);

  it('a header that uses a variable allowedEnvVars does not list is an error when the preset loads', async () => {
    writeFileSync(join(tmp.dir, 'agent.yaml'), `${BYPASS}hooks:\n  PreToolUse:\n    - hooks: [{ type: http, url: "http://127.0.0.1:9/x", headers: { Authorization: "Bearer $SECRET" } }]\n`);
    const r = await runBuilt(['run', '--preset', join(tmp.dir, 'agent.yaml'), '--no-layers', 'go'], { cwd: project, env: { REIN_HOME: join(tmp.dir, 'home') } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/hooks\.PreToolUse\[0\]\.hooks\[0\]\.headers\.Authorization: uses \$SECRET, which allowedEnvVars does not list/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  }, 60_000);
});

describe('prompt hooks', () => {
  it('a small-model side request, answered by the simulator, denies one call; its usage is side usage (hook)', async () => {
    const out = await run(`${BYPASS}hooks:
  PreToolUse:
    - matcher: Bash
      hooks: [{ type: prompt, prompt: "Deny any command that writes a file named no.txt. The event: $ARGUMENTS" }]
`, `${TWO_COMMANDS}side:
  - match: { source: hook, lastUser: 'no\\.txt[\\s\\S]*forbidden' }
    reply: [{ text: '{"decision": "deny", "reason": "it writes no.txt"}' }]
  - match: { source: hook, lastUser: 'ok\\.txt' }
    reply: [{ text: '{"ok": true}' }]
`);
    expect(out.result.permission_denials.map((d) => d.tool_input.command)).toEqual(['echo forbidden > no.txt']);
    expect(out.result.permission_denials[0]!.reason).toMatch(/PreToolUse hook `prompt: Deny any command.*`: it writes no\.txt/);
    expect(existsSync(join(project, 'ok.txt'))).toBe(true);
    expect(out.result.side_usage.hook!.input_tokens).toBeGreaterThan(0);
    expect(out.result.side_usage.hook!.output_tokens).toBeGreaterThan(0);
    expect(out.result.num_requests).toBe(2);
  }, 120_000);

  it('an answer that is not a decision fails closed', async () => {
    const out = await run(`${BYPASS}hooks:
  PreToolUse:
    - matcher: Bash
      hooks: [{ type: prompt, prompt: "Is this fine? $ARGUMENTS" }]
`, `${TWO_COMMANDS}side:
  - match: { source: hook }
    reply: [{ text: 'Sure, looks fine to me.' }]
`);
    expect(out.result.permission_denials).toHaveLength(2);
    expect(out.result.permission_denials[0]!.reason).toMatch(/the prompt hook's answer is not a decision: "Sure, looks fine to me\."/);
  }, 120_000);
});

describe('PermissionRequest interrupt', () => {
  it('a deny with interrupt: true stops the run with terminal reason permission_interrupted', async () => {
    const answer = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'stop right there', interrupt: true } } });
    const out = await run(`name: hooks
tools: [Bash]
hooks:
  PermissionRequest:
    - matcher: Bash
      hooks:
        - type: command
          command: |
            cat > /dev/null; echo '${answer}'
`, TWO_COMMANDS);
    expect(out.result.rein_terminal_reason).toBe('permission_interrupted');
    expect(out.result.num_requests).toBe(1);
    expect(out.result.permission_denials[0]!.reason).toMatch(/stop right there \(and the run interrupted\)/);
    expect(out.results[0]!.text).toBe('stop right there');
  }, 120_000);
});

describe('hooks see subagents', () => {
  it('a parent PreToolUse hook gets agent_id and agent_type for a child\'s call, and blocks it', async () => {
    const log = join(tmp.dir, 'events.jsonl');
    const out = await run(`name: hooks
tools: [Bash, Task]
permissions: { mode: bypassPermissions, allowBypassPermissions: true }
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: 'input=$(cat); printf "%s\\n" "$input" >> ${log}; case "$input" in *"\\"agent_type\\":\\"general-purpose\\""*) echo "subagents may not run Bash" >&2; exit 2;; esac'
`, `
turns:
  - reply: [{ tool_use: { name: Task, input: { description: "Make a file", prompt: "Create child.txt with Bash." } } }]
  - reply: [{ tool_use: { name: Bash, input: { command: "echo child > child.txt" } } }]
  - reply: [{ text: "I could not run Bash." }]
  - reply: [{ tool_use: { name: Bash, input: { command: "echo parent > parent.txt" } } }]
  - reply: [{ text: "done" }]
`);
    expect(existsSync(join(project, 'child.txt'))).toBe(false);
    expect(existsSync(join(project, 'parent.txt'))).toBe(true);
    const events = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Bash', agent_type: 'general-purpose', tool_input: { command: 'echo child > child.txt' } });
    expect(events[0].agent_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(events[0].agent_id).not.toBe(events[0].session_id);
    expect(events[1].agent_id).toBeUndefined();
    // The parent gets the child's report, and the child's denial is in the parent run's denials too.
    expect(out.results[0]!.text).toBe('I could not run Bash.');
    expect(out.result.permission_denials).toEqual([expect.objectContaining({ tool_name: 'Bash', tool_input: { command: 'echo child > child.txt' }, reason: expect.stringContaining('subagents may not run Bash') })]);
  }, 120_000);
});
