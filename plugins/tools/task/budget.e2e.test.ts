/**
 * One budget for a parent and all its children, through `rein run` (the built command, the embedded
 * simulator, real Bash): two parallel children and a background one each call Bash over and over;
 * their requests count toward the parent's `maxBudgetUsd` as they are paid, none starts once the
 * total reached it, and the run ends as a single agent's does (`error_max_budget_usd`), its total
 * within one request's cost of the budget. The transcripts of the parent and of a child resume.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costUsd } from '../../../lib/index.js';
import { runCli, tempDir, writeFiles as write } from '../../../testing/support.js';

const BUDGET = 0.1;

// The parent's one turn starts three children; every child request (a side answer, which never
// consumes the parent's turns) calls Bash again, so only the budget stops them.
const SCENARIO = `
turns:
  - reply:
      - { tool_use: { name: Task, input: { description: Loop A, prompt: "Run true until you are stopped." } } }
      - { tool_use: { name: Task, input: { description: Loop B, prompt: "Run true until you are stopped." } } }
      - { tool_use: { name: Task, input: { description: Loop C, prompt: "Run true in the background until you are stopped.", run_in_background: true } } }
side:
  - match: { source: subagent }
    reply: [{ text: "Again." }, { tool_use: { name: Bash, input: { command: "true" } } }]
`;

let tmp: ReturnType<typeof tempDir>;
let project: string;
let out: { subtype: string; total_cost_usd: number; session_id: string; result?: string };
let parentFile: string;
const env = () => ({ HOME: join(tmp.dir, 'home'), REIN_HOME: join(tmp.dir, 'rein-home'), REIN_SIM_LOG: join(tmp.dir, 'requests.jsonl') });
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const responses = (file: string) => lines(file).filter((e) => e.type === 'response');
const cost = (file: string) => responses(file).map((e) => costUsd(e.model, e.usage).usd);
const links = () => lines(parentFile).filter((e) => e.type === 'plugin' && e.plugin === 'tools/task').map((e) => e.data.subagent as { transcript: string; background: boolean });
const terminal = (file: string) => lines(file).filter((e) => e.type === 'transition' && e.transition.kind === 'terminal').at(-1)?.transition.reason;

beforeAll(async () => {
  tmp = tempDir('rein-budget-');
  project = join(tmp.dir, 'project');
  write(project, {
    'agent.yaml': `tools: [Bash, Task]\npermissions: { allow: ["Bash(true)"] }\nlimits: { maxBudgetUsd: ${BUDGET} }\n`,
    's.yaml': SCENARIO,
    'resume.yaml': 'turns:\n  - reply: [{ text: "resumed" }]\n',
  });
  const r = await runCli(['run', '--preset', './agent.yaml', '--sim', 's.yaml', '--no-layers', '--output-format', 'json', 'go'], { cwd: project, env: env(), timeoutMs: 60_000 });
  out = JSON.parse(r.stdout);
  const sessions = join(tmp.dir, 'rein-home', 'sessions');
  const dir = join(sessions, readdirSync(sessions)[0]!);
  parentFile = join(dir, readdirSync(dir).find((f) => f.endsWith('.jsonl'))!);
}, 90_000);
afterAll(() => tmp.cleanup());

describe('children within the parent\'s budget through rein run', () => {
  it('ends with error_max_budget_usd, every child\'s request counted, the total within one request of the budget', () => {
    expect(out.subtype).toBe('error_max_budget_usd');
    const children = links();
    expect(children.map((l) => l.background)).toEqual([false, false, true]);
    // Every child stopped on the shared budget, after several requests each.
    for (const l of children) {
      expect(terminal(l.transcript)).toBe('budget_exhausted');
      expect(responses(l.transcript).length).toBeGreaterThanOrEqual(2);
    }
    // The parent asked once: its own requests alone were far under the budget.
    expect(cost(parentFile)).toHaveLength(1);
    expect(cost(parentFile)[0]!).toBeLessThan(BUDGET / 3);
    // The run's total is every request's cost, the background child's included.
    const all = [parentFile, ...children.map((l) => l.transcript)].flatMap(cost);
    const sum = all.reduce((a, b) => a + b, 0);
    expect(out.total_cost_usd).toBeCloseTo(sum, 9);
    // No request started after the budget was reached: the total passes it by at most one request.
    expect(out.total_cost_usd).toBeGreaterThanOrEqual(BUDGET);
    expect(out.total_cost_usd - BUDGET).toBeLessThanOrEqual(Math.max(...all));
  });

  it('leaves transcripts that resume: the parent\'s and a child\'s', async () => {
    const parent = await runCli(['run', '--preset', './agent.yaml', '--sim', 'resume.yaml', '--no-layers', '--output-format', 'json', '--resume', out.session_id, 'go on'], { cwd: project, env: env(), timeoutMs: 60_000 });
    expect(parent.code).toBe(0);
    expect(JSON.parse(parent.stdout)).toMatchObject({ subtype: 'success', result: 'resumed', session_id: out.session_id });
    const child = links()[2]!.transcript;
    const c = await runCli(['run', '--preset', './agent.yaml', '--sim', 'resume.yaml', '--no-layers', '--output-format', 'json', '--resume', child, 'report'], { cwd: project, env: env(), timeoutMs: 60_000 });
    expect(c.code).toBe(0);
    expect(JSON.parse(c.stdout)).toMatchObject({ subtype: 'success', result: 'resumed' });
    // The resumed child went on from its own history: its task and its Bash calls are in the request.
    const last = JSON.stringify(lines(env().REIN_SIM_LOG).filter((e) => e.path === '/v1/messages').at(-1).body.messages);
    expect(last).toContain('Run true in the background until you are stopped.');
    expect(last).toContain('"command":"true"');
    expect(last).toContain('report');
  }, 90_000);
});
