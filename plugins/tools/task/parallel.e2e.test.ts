/**
 * Parallel and background children through `rein run` (the built command, the embedded simulator,
 * real scripts): two Task calls of one message run at the same time, each child with its own
 * transcript named in the parent's; a background child's report arrives as a task notification
 * after the parent ended its turn (the shared budget: budget.e2e.test.ts).
 */
import { chmodSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir, writeFiles as write } from '../../../testing/support.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => { tmp = tempDir('rein-parallel-'); });
afterEach(() => tmp.cleanup());


// Each run of meet.sh waits (up to 10 s) until two runs have arrived: only concurrent children both say "together".
const MEET = '#!/bin/sh\nmkdir -p arrive; touch arrive/$$\nfor i in $(seq 200); do [ "$(ls arrive | wc -l)" -ge 2 ] && echo together && exit 0; sleep 0.05; done\necho alone\n';
// The background child's command outlasts the parent's own turn.
const SLOW = '#!/bin/sh\nsleep 2\necho slow-done\n';

const SCENARIO = `
turns:
  - reply:
      - { tool_use: { name: Task, input: { description: Meet A, prompt: "Run ./meet.sh and report." } } }
      - { tool_use: { name: Task, input: { description: Meet B, prompt: "Run ./meet.sh and report." } } }
  - reply: [{ tool_use: { name: Bash, input: { command: ./meet.sh } } }]
  - reply: [{ tool_use: { name: Bash, input: { command: ./meet.sh } } }]
  - reply: [{ text: "met" }]
  - reply: [{ text: "met" }]
  # the background child starts (turn 7 is its Bash call) while the parent runs its own short command
  - reply:
      - { tool_use: { name: Task, input: { description: Slow check, prompt: "Run ./slow.sh and report.", run_in_background: true } } }
      - { tool_use: { name: Bash, input: { command: "sleep 0.3" } } }
  - reply: [{ tool_use: { name: Bash, input: { command: ./slow.sh } } }]
  - reply: [{ text: "Waiting for the slow check." }]
  - reply: [{ text: "slow check says slow-done" }]
  - reply: [{ text: "Both agents met; the slow check says slow-done." }]
`;

function setUp(): string {
  const project = join(tmp.dir, 'project');
  write(project, {
    'meet.sh': MEET,
    'slow.sh': SLOW,
    'agent.yaml': `tools: [Bash, Task]\npermissions: { allow: ["Bash(./meet.sh)", "Bash(./slow.sh)", "Bash(sleep 0.3)"] }\n`,
    's.yaml': SCENARIO,
  });
  chmodSync(join(project, 'meet.sh'), 0o755);
  chmodSync(join(project, 'slow.sh'), 0o755);
  return project;
}

const run = (project: string, log: string) => runCli(['run', '--preset', './agent.yaml', '--sim', 's.yaml', '--no-layers', '--output-format', 'json', 'go'], { cwd: project, env: { HOME: join(tmp.dir, 'home'), REIN_HOME: join(tmp.dir, 'rein-home'), REIN_SIM_LOG: log }, timeoutMs: 60_000 });

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

describe('parallel and background children through rein run', () => {
  it('runs two Task calls at once, each child with its own linked transcript; a background child reports by notification', async () => {
    const project = setUp();
    const log = join(tmp.dir, 'requests.jsonl');
    const r = await run(project, log);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.result).toBe('Both agents met; the slow check says slow-done.');

    // The parent's transcript names each child's transcript; each is a file of its own under the session's folder.
    const sessions = join(tmp.dir, 'rein-home', 'sessions');
    const dir = join(sessions, readdirSync(sessions)[0]!);
    const parentFile = join(dir, readdirSync(dir).find((f) => f.endsWith('.jsonl'))!);
    const links = lines(parentFile).filter((e) => e.type === 'plugin' && e.plugin === 'tools/task').map((e) => e.data.subagent);
    expect(links).toHaveLength(3);
    expect(new Set(links.map((l: { transcript: string }) => l.transcript)).size).toBe(3);
    for (const l of links) {
      expect(existsSync(l.transcript)).toBe(true);
      expect(l.transcript.startsWith(join(parentFile.replace(/\.jsonl$/, ''), 'subagents') + '/')).toBe(true);
    }
    expect(links.map((l: { background: boolean }) => l.background)).toEqual([false, false, true]);
    // Both meet.sh runs saw each other: the two children ran at the same time.
    const results = (file: string) => lines(file).filter((e) => e.type === 'message').flatMap((e) => e.message.content).filter((b: { type: string }) => b.type === 'tool_result').map((b: { content: { text: string }[] }) => b.content.map((c) => c.text).join(''));
    expect(results(links[0].transcript)).toEqual(['together']);
    expect(results(links[1].transcript)).toEqual(['together']);

    // The background child: the Task call returned at once; its report came after the parent's turn ended.
    const parentResults = results(parentFile);
    expect(parentResults[2]).toMatch(/^Started the general-purpose agent in the background \(task id [0-9a-f-]+\)/);
    const bodies = lines(log).filter((e) => e.path === '/v1/messages');
    const main = bodies.filter((e) => e.source === 'main_loop');
    const last = JSON.stringify(main.at(-1).body.messages);
    expect(last).toContain('Waiting for the slow check.');
    expect(last).toContain(`<task-notification>\\n<task-id>${links[2].sessionId}</task-id>\\n<status>completed</status>\\n<summary>Agent \\"Slow check\\" completed</summary>\\n<result>slow check says slow-done</result>\\n</task-notification>`);
    expect(results(links[2].transcript)).toEqual(['slow-done']);
  }, 90_000);
});
