/**
 * Background shells through `rein run` (the built command, the simulator playing a script): a
 * `sleep 5; echo done` read twice with BashOutput (running, then completed), the end announced to
 * the model, and a second shell stopped with KillShell, after which its whole process group is gone.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runBuilt, tempDir } from '../../../testing/support.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => { tmp = tempDir('rein-bg-e2e-'); });
afterEach(() => tmp.cleanup());

const MARK = `sleep 30${process.pid % 1000}`;

const SCENARIO = `
turns:
  - reply: [{ tool_use: { name: Bash, input: { command: "echo start; sleep 5; echo done", run_in_background: true, description: "Wait, then say done" } } }]
  - reply: [{ tool_use: { name: BashOutput, input: { bash_id: bash_1 } } }]
  - reply: [{ tool_use: { name: Bash, input: { command: "sleep 6" } } }]
  - reply: [{ tool_use: { name: BashOutput, input: { bash_id: bash_1 } } }]
  - reply: [{ tool_use: { name: Bash, input: { command: "${MARK} & ${MARK}", run_in_background: true } } }]
  - reply: [{ tool_use: { name: KillShell, input: { shell_id: bash_2 } } }]
  - reply: [{ tool_use: { name: Bash, input: { command: "ps -eo args | grep -c '^${MARK}' || true" } } }]
  - reply: [{ text: "done" }]
`;

describe('background shells through rein run', () => {
  it('start, read twice (running, then completed), hear that it ended, and kill another with its process group', async () => {
    const project = join(tmp.dir, 'project');
    mkdirSync(project);
    writeFileSync(join(tmp.dir, 'agent.yaml'), 'name: bg\ntools: [Bash, BashOutput, KillShell]\npermissions: { mode: bypassPermissions, allowBypassPermissions: true }\n');
    writeFileSync(join(tmp.dir, 'scenario.yaml'), SCENARIO);
    const home = join(tmp.dir, 'home');
    const r = await runBuilt(['run', '--preset', join(tmp.dir, 'agent.yaml'), '--sim', join(tmp.dir, 'scenario.yaml'), '--no-layers', '--output-format', 'json', 'go'], { cwd: project, env: { REIN_HOME: home }, timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).rein_terminal_reason).toBe('end_turn');

    const root = join(home, 'sessions');
    const dir = join(root, readdirSync(root)[0]!);
    const file = readdirSync(dir).find((f) => f.endsWith('.jsonl'))!;
    const results: string[] = [];
    const extra: string[] = [];
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (!line) continue;
      const e = JSON.parse(line);
      if (e.type !== 'message' || e.message.role !== 'user') continue;
      for (const b of e.message.content) {
        if (b.type === 'tool_result') results.push(b.content.map((c: { text: string }) => c.text).join('\n'));
        else if (b.type === 'text' && results.length) extra.push(`${results.length}:${b.text}`);
      }
    }
    expect(results[0]).toMatch(/^Command running in background with ID: bash_1\./);
    expect(results[1]).toMatch(/^<status>running<\/status>/);
    expect(results[1]).not.toContain('done');
    expect(results[3]).toMatch(/^<status>completed<\/status>\n\n<exit_code>0<\/exit_code>\n\n<stdout>\n(start\n)?done\n<\/stdout>/);
    expect(`${results[1]}${results[3]}`.match(/start/g)).toHaveLength(1);
    // The end was announced with the result of the call that was running when it came.
    expect(extra.find((t) => t.startsWith('3:'))).toMatch(/<task-id>bash_1<\/task-id>\n<status>completed<\/status>/);
    expect(results[4]).toMatch(/with ID: bash_2\./);
    expect(results[5]).toBe(`Successfully killed shell: bash_2 (${MARK} & ${MARK})`);
    expect(results[6]).toBe('0');
    // The output stays in the session folder.
    expect(readFileSync(join(dir, file.replace(/\.jsonl$/, ''), 'shells', 'bash_1.stdout'), 'utf8')).toBe('start\ndone\n');
  }, 120_000);
});
