/**
 * Agent definitions through `rein run` (the built command, the embedded simulator, real files): a
 * `.claude/agents/reviewer.md` child with its own tools, model and system prompt; an inline preset
 * agent in plan mode; the agent list in a reminder message, not in the Task tool's description;
 * SubagentStart / SubagentStop hooks carrying the agent's name.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir, writeFiles as write } from '../../../testing/support.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => { tmp = tempDir('rein-agents-'); });
afterEach(() => tmp.cleanup());


interface Body { model: string; system?: unknown; tools?: { name: string; description: string }[]; messages: unknown[] }
const requests = (log: string): Body[] => readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.path === '/v1/messages').map((e) => e.body as Body);

/** tool_results of every transcript under `dir` (recursively), in file order. */
function childResults(dir: string): string[] {
  const out: string[] = [];
  for (const f of readdirSync(dir, { recursive: true }) as string[]) {
    if (!f.endsWith('.jsonl') || !f.includes('subagents')) continue;
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (!line) continue;
      const e = JSON.parse(line);
      if (e.type === 'message') for (const b of e.message.content) if (b.type === 'tool_result') out.push(JSON.stringify(b));
    }
  }
  return out;
}

describe('agent definitions through rein run', () => {
  it('runs a .claude/agents/reviewer.md child with its own tools and model, and an inline plan-mode agent; the list is a reminder; hooks get the names', async () => {
    const project = join(tmp.dir, 'project');
    const home = join(tmp.dir, 'home');
    write(project, {
      '.git/HEAD': 'ref: refs/heads/main\n',
      'calc.js': 'function add(a, b) { return a - b; }\n',
      '.claude/agents/reviewer.md': '---\nname: reviewer\ndescription: Reviews code for bugs.\ntools: Read, Grep\nmodel: haiku\ncolor: blue\n---\n\nYou are a careful code reviewer.\n',
      'agent.yaml': [
        'tools: [Read, Grep, Write, Task]',
        'permissions: { mode: acceptEdits }',
        'agents:',
        '  planner: { description: Plans a change without making it., prompt: You plan changes., tools: [Read, Write], permissionMode: plan }',
        'hooks:',
        '  SubagentStart: [{ hooks: [{ type: command, command: "cat >> hooks.jsonl; echo >> hooks.jsonl" }] }]',
        '  SubagentStop: [{ hooks: [{ type: command, command: "cat >> hooks.jsonl; echo >> hooks.jsonl" }] }]',
        '',
      ].join('\n'),
      's.yaml': `
turns:
  - reply: [{ tool_use: { name: Task, input: { description: Review calc, prompt: "Review calc.js.", subagent_type: reviewer } } }]
  - reply: [{ tool_use: { name: Read, input: { file_path: calc.js } } }, { tool_use: { name: Write, input: { file_path: x.txt, content: x } } }]
  - reply: [{ text: "add() subtracts." }]
  - reply: [{ tool_use: { name: Task, input: { description: Plan fix, prompt: "Plan the fix.", subagent_type: planner } } }]
  - reply: [{ tool_use: { name: Write, input: { file_path: plan.txt, content: plan } } }]
  - reply: [{ text: "Change - to +." }]
  - reply: [{ text: "Reviewed and planned." }]
`,
    });
    const log = join(tmp.dir, 'requests.jsonl');
    const reinHome = join(tmp.dir, 'rein-home');
    const r = await runCli(['run', '--preset', './agent.yaml', '--sim', 's.yaml', '--no-layers', '--output-format', 'json', 'Review and plan'], { cwd: project, env: { HOME: home, REIN_HOME: reinHome, REIN_SIM_LOG: log } });
    expect(r.stderr).not.toMatch(/error|warn/i);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe('Reviewed and planned.');
    const bodies = requests(log);
    expect(bodies).toHaveLength(7);

    // The parent: the Task tool's description names no agent; the first request lists them in a reminder.
    const task = bodies[0]!.tools!.find((t) => t.name === 'Task')!;
    expect(task.description).not.toMatch(/reviewer|planner/);
    const first = JSON.stringify(bodies[0]!.messages);
    expect(first).toContain('Agent types available for the Task tool (subagent_type):');
    expect(first).toContain('- reviewer: Reviews code for bugs. (Tools: Read, Grep)');
    expect(first).toContain('- planner: Plans a change without making it. (Tools: Read, Write)');
    expect(first).toContain('- general-purpose: ');
    for (const i of [3, 6]) expect(JSON.stringify(bodies[i]!.tools)).toBe(JSON.stringify(bodies[0]!.tools));

    // The reviewer child: its own model, tools and system prompt (the file's body).
    const reviewer = bodies[1]!;
    expect(reviewer.model).toBe('claude-haiku-4-5');
    expect(reviewer.tools!.map((t) => t.name).sort()).toEqual(['Grep', 'Read']);
    expect(JSON.stringify(reviewer.system)).toContain('You are a careful code reviewer.');
    expect(JSON.stringify(reviewer.messages)).not.toContain('Review and plan');
    // Its Write is no tool of its own; the planner's Write is refused by plan mode.
    const results = childResults(reinHome);
    expect(results.some((t) => t.includes('"is_error":true') && t.includes('Write'))).toBe(true);
    expect(results.some((t) => t.includes('The planner agent runs in plan mode: Write would change something'))).toBe(true);
    expect(existsSync(join(project, 'x.txt'))).toBe(false);
    expect(existsSync(join(project, 'plan.txt'))).toBe(false);
    expect(bodies[4]!.model).toBe(bodies[0]!.model);

    // SubagentStart / SubagentStop hooks carry the agent's name.
    const hooks = readFileSync(join(project, 'hooks.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(hooks.map((h) => `${h.hook_event_name}:${h.agent_type}`)).toEqual(['SubagentStart:reviewer', 'SubagentStop:reviewer', 'SubagentStart:planner', 'SubagentStop:planner']);
    expect(hooks[1].last_assistant_message).toBe('add() subtracts.');
  }, 60_000);

  it('a malformed agent file fails the run at its file:line:column', async () => {
    const project = join(tmp.dir, 'project');
    write(project, {
      '.claude/agents/bad.md': '---\nname: bad\ndescription: Bad.\npermissionMode: yolo\n---\nbody\n',
      'agent.yaml': 'tools: [Task]\n',
      's.yaml': 'turns:\n  - reply: [{ text: "ok" }]\n',
    });
    const r = await runCli(['run', '--preset', './agent.yaml', '--sim', 's.yaml', '--no-layers', 'hi'], { cwd: project, env: { HOME: join(tmp.dir, 'home'), REIN_HOME: join(tmp.dir, 'rh') } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${join(project, '.claude/agents/bad.md')}:4:17: "permissionMode" must be one of default, acceptEdits, plan, dontAsk, bypassPermissions, got "yolo"`);
  }, 60_000);
});
