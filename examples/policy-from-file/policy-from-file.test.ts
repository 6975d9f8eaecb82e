/**
 * The policy-from-file example: asks answered from decisions.yaml in a real run (one write allowed
 * and done, one denied and reported in permission_denials), file errors, and deny rules still winning.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgent, type AgentEvent } from '../../index.js';
import { runCli, useTestEnv } from '../../testing/index.js';
import { matchPolicy, readPolicy } from './policy-from-file.js';

const HERE = dirname(fileURLToPath(import.meta.url));
// A fresh working folder and REIN_HOME for every test (transcripts never go to ~/.rein).
const env = useTestEnv({ prefix: 'rein-example-policy-cwd-' });

describe('the decisions file', () => {
  it('first match wins; globs apply per input field, to relative and absolute paths', () => {
    const entries = readPolicy(join(HERE, 'decisions.yaml'));
    expect(matchPolicy(entries, 'Write', { file_path: 'notes/a/b.md' }, '/p')?.decision).toBe('allow');
    expect(matchPolicy(entries, 'Write', { file_path: '/p/notes/todo.md' }, '/p')?.decision).toBe('allow');
    expect(matchPolicy(entries, 'Write', { file_path: 'src/x.ts' }, '/p')).toMatchObject({ decision: 'deny', message: 'Only files under notes/ may be written in this project.' });
    expect(matchPolicy(entries, 'Bash', { command: 'ls' }, '/p')).toBeUndefined();
  });

  it('a bad entry or bad YAML is an error naming the file and the entry', () => {
    writeFileSync(join(env.dir, 'bad.yaml'), '- tool: Write\n  decision: allow\n- tool: Bash\n  decision: maybe\n');
    expect(() => readPolicy(join(env.dir, 'bad.yaml'))).toThrow(/bad\.yaml: entry 2 \(decision\)/);
    writeFileSync(join(env.dir, 'broken.yaml'), '- tool: [Write\n');
    expect(() => readPolicy(join(env.dir, 'broken.yaml'))).toThrow(/broken\.yaml: /);
    expect(() => readPolicy(join(env.dir, 'none.yaml'))).toThrow(/cannot read the decisions file .*none\.yaml/);
  });

  it('an agent whose decisions file is bad does not start: the error names the plugin and the file', async () => {
    writeFileSync(join(env.dir, 'bad.yaml'), '- tool: Write\n  decision: maybe\n');
    const err = await createAgent({
      preset: { plugins: { [join(HERE, 'policy-from-file.ts')]: { file: join(env.dir, 'bad.yaml') } } },
      sim: join(HERE, 'scenario.yaml'), cwd: env.dir, layers: false,
    }).catch((e: unknown) => e as Error);
    expect((err as Error).name).toBe('PluginError');
    expect((err as Error).message).toMatch(/policy-from-file.*bad\.yaml: entry 1 \(decision\)/);
  });
});

describe('in a run', () => {
  it('the allowed write happens, the denied one does not and is reported with the file as its reason', async () => {
    const agent = await createAgent({ preset: join(HERE, 'agent.yaml'), sim: join(HERE, 'scenario.yaml'), cwd: env.dir, layers: false });
    const events: AgentEvent[] = [];
    const run = agent.run('Save my notes');
    for await (const e of run) events.push(e);
    await agent.close();
    const result = await run.result;
    expect(result.terminalReason).toBe('end_turn');
    expect(readFileSync(join(env.dir, 'notes/todo.md'), 'utf8')).toBe('- buy milk\n');
    expect(existsSync(join(env.dir, 'secrets'))).toBe(false);
    expect(result.permissionDenials).toEqual([{ tool_name: 'Write', tool_use_id: expect.any(String), tool_input: { file_path: 'secrets/token.txt', content: 'abc123\n' }, reason: 'denied by policy-from-file (decisions.yaml)' }]);
    const results = events.flatMap((e) => (e.type === 'tool_results' ? e.message.content : []));
    expect(results[1]).toMatchObject({ type: 'tool_result', is_error: true, content: [{ type: 'text', text: expect.stringContaining('Only files under notes/ may be written') }] });
  });

  it('a deny rule in the preset wins over an allow in the file (the ask never comes)', async () => {
    const agent = await createAgent({
      preset: {
        model: { name: 'claude-sonnet-4-6' },
        tools: ['Read', 'Write'],
        permissions: { mode: 'default', deny: ['Write(notes/todo.md)'] },
        plugins: { [join(HERE, 'policy-from-file.ts')]: { file: join(HERE, 'decisions.yaml') } },
      },
      sim: join(HERE, 'scenario.yaml'),
      cwd: env.dir,
      layers: false,
    });
    const result = await agent.run('Save my notes').result;
    await agent.close();
    expect(existsSync(join(env.dir, 'notes/todo.md'))).toBe(false);
    expect(result.permissionDenials.map((d) => [d.tool_input.file_path, d.reason.includes('policy-from-file')])).toEqual([['notes/todo.md', false], ['secrets/token.txt', true]]);
  });

  it('the README command prints permission_denials in the json result', async () => {
    const r = await runCli(['run', 'Save my notes', '--preset', join(HERE, 'agent.yaml'), '--sim', join(HERE, 'scenario.yaml'), '--cwd', env.dir, '--output-format', 'json', '--no-layers'], { cwd: HERE, env: { REIN_HOME: env.home } });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.permission_denials).toHaveLength(1);
    expect(out.permission_denials[0]).toMatchObject({ tool_name: 'Write', tool_input: { file_path: 'secrets/token.txt' } });
    expect(existsSync(join(env.dir, 'notes/todo.md'))).toBe(true);
  });
});
