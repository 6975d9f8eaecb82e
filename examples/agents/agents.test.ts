/**
 * The agents example, run for real through the built `rein run`: the reviewer defined in
 * .claude/agents/reviewer.md runs with its own model, tools and system prompt.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../testing/index.js';

const HERE = dirname(fileURLToPath(import.meta.url));
let tmp: ReturnType<typeof tempDir>;
beforeEach(() => { tmp = tempDir('rein-example-agents-'); });
afterEach(() => tmp.cleanup());

describe('examples/agents', () => {
  it('the reviewer from .claude/agents/reviewer.md reviews calc.js with its own model and tools', async () => {
    const log = join(tmp.dir, 'requests.jsonl');
    const r = await runCli(['run', 'Review calc.js', '--preset', './agent.yaml', '--sim', 'scenario.yaml', '--no-layers', '--output-format', 'json'], { cwd: HERE, env: { HOME: join(tmp.dir, 'home'), REIN_HOME: join(tmp.dir, 'rein-home'), REIN_SIM_LOG: log } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toBe('The reviewer found one bug: add() in calc.js subtracts (line 2).');
    const bodies = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.path === '/v1/messages').map((e) => e.body);
    expect(JSON.stringify(bodies[0].messages)).toContain('- reviewer: Reviews code for bugs and risky changes.');
    const child = bodies[1];
    expect(child.model).toBe('claude-haiku-4-5');
    expect(child.tools.map((t: { name: string }) => t.name).sort()).toEqual(['Glob', 'Grep', 'Read']);
    expect(JSON.stringify(child.system)).toContain('You are a careful code reviewer.');
    expect(JSON.stringify(bodies[2].messages)).toContain('return a - b;');
  }, 60_000);
});
