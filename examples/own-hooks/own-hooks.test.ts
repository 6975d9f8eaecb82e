/**
 * The own-hooks example: `deploy` exposes beforeDeploy / afterDeploy with createHooksGetter and
 * `deploy-freeze` taps them. In-process runs pass the plugin objects to createAgent; the README
 * command loads both from the preset by path.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgent, type AgentEvent, type PresetObject } from '../../index.js';
import { runCli, useTestEnv } from '../../testing/index.js';
import deploy, { getDeployHooks, type DeployRecord } from './deploy.js';
import freeze from './freeze.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const PRESET: PresetObject = { model: { name: 'claude-sonnet-4-6' }, tools: [], permissions: { mode: 'default', allow: ['Deploy'] } };
// A fresh working folder and REIN_HOME for every test (transcripts never go to ~/.rein).
const env = useTestEnv({ prefix: 'rein-example-hooks-cwd-' });

describe('examples/own-hooks', () => {
  it('freeze refuses the production deploy through beforeDeploy; staging goes out and afterDeploy sees it', async () => {
    const agent = await createAgent({
      preset: PRESET, sim: join(HERE, 'scenario.yaml'), cwd: env.dir, layers: false,
      plugins: [{ plugin: deploy }, { plugin: freeze, options: { targets: ['production'], reason: 'the release freeze lasts until Monday' } }],
    });
    const seen: DeployRecord[] = [];
    getDeployHooks(agent.kernel).afterDeploy.tap('test', (r) => { seen.push(r); });
    const events: AgentEvent[] = [];
    const run = agent.run('Ship 1.4.0');
    for await (const e of run) events.push(e);
    await agent.close();

    expect((await run.result).terminalReason).toBe('end_turn');
    expect(readFileSync(join(env.dir, 'deployments.log'), 'utf8')).toBe('staging 1.4.0\n');
    expect(seen.map((r) => `${r.target} ${r.version}`)).toEqual(['staging 1.4.0']);
    const results = events.flatMap((e) => (e.type === 'tool_results' ? e.message.content : []));
    expect(results).toMatchObject([
      { type: 'tool_result', content: [{ type: 'text', text: 'Deployed 1.4.0 to staging.' }] },
      { type: 'tool_result', is_error: true, content: [{ type: 'text', text: 'Deploy of 1.4.0 to production refused: production is frozen: the release freeze lasts until Monday' }] },
    ]);
    expect(events).toContainEqual({ type: 'notice', level: 'info', source: 'deploy-freeze', message: 'deployed 1.4.0 to staging (not frozen)' });
  });

  it('each kernel gets its own frozen hook object', async () => {
    const a = await createAgent({ preset: PRESET, sim: join(HERE, 'scenario.yaml'), cwd: env.dir, layers: false, plugins: [{ plugin: deploy }] });
    const b = await createAgent({ preset: PRESET, sim: join(HERE, 'scenario.yaml'), cwd: env.dir, layers: false, plugins: [{ plugin: deploy }] });
    try {
      expect(getDeployHooks(a.kernel)).toBe(getDeployHooks(a.kernel));
      expect(getDeployHooks(a.kernel)).not.toBe(getDeployHooks(b.kernel));
      expect(Object.isFrozen(getDeployHooks(a.kernel))).toBe(true);
      expect(getDeployHooks(b.kernel).beforeDeploy.taps).toHaveLength(0);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('deploy-freeze without deploy does not load: it names the missing plugin', async () => {
    const err = await createAgent({ preset: PRESET, sim: join(HERE, 'scenario.yaml'), cwd: env.dir, layers: false, plugins: [{ plugin: freeze }] }).catch((e: unknown) => e as Error);
    expect((err as Error).message).toBe('plugin deploy-freeze requires plugin deploy, which is not loaded');
  });

  it('the README command: both plugins load from the preset by path and share the hooks', async () => {
    const r = await runCli(['run', 'Ship 1.4.0', '--preset', join(HERE, 'agent.yaml'), '--sim', join(HERE, 'scenario.yaml'), '--cwd', env.dir, '--output-format', 'stream-json', '--no-layers'], { cwd: HERE, env: { REIN_HOME: env.home } });
    expect(r.code).toBe(0);
    expect(readFileSync(join(env.dir, 'deployments.log'), 'utf8')).toBe('staging 1.4.0\n');
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toContainEqual(expect.objectContaining({ subtype: 'notice', source: 'deploy-freeze', message: 'deployed 1.4.0 to staging (not frozen)' }));
    expect(JSON.stringify(lines)).toContain('production is frozen');
  });
});
