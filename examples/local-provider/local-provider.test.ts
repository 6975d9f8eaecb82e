/**
 * The local-provider example, run for real: `rein sim serve` (the built command) in its own
 * process, and an agent whose preset selects the plugin's `local-sim` provider with
 * `model.provider`; the reply comes from that server, and a mistyped provider name is a preset error.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../index.js';
import { cleanEnv, REPO, runCli, serveScenario, useTestEnv } from '../../testing/index.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const env = useTestEnv({ scope: 'all', prefix: 'rein-example-provider-' });

let server: { child: ChildProcess; url: string };
beforeAll(async () => {
  const child = spawn(process.execPath, [join(REPO, 'bin/rein.js'), 'sim', 'serve', '--port', '0', '--scenario', join(HERE, 'scenario.yaml'), '--log', join(env.dir, 'requests.jsonl')], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((done, fail) => {
    child.once('exit', (code) => fail(new Error(`rein sim serve exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => done(line.replace(/^listening on /, '')));
  });
  server = { child, url };
});
afterAll(() => { server.child.kill('SIGTERM'); });

const requests = () => readFileSync(join(env.dir, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { path: string });

describe('examples/local-provider', () => {
  it('model.provider: local-sim sends the run to the rein sim serve the plugin names', async () => {
    const agent = await createAgent({ preset: join(HERE, 'agent.yaml'), cwd: env.dir, layers: false, env: { ...cleanEnv(), LOCAL_SIM_URL: server.url } });
    try {
      expect(agent.client.kind).toBe('api');
      expect(agent.kernel.client).toMatchObject({ kind: 'local-sim', baseURL: server.url });
      const result = await agent.run('hi').result;
      expect(result).toMatchObject({ terminalReason: 'end_turn', text: 'Hello from the local-sim provider.' });
      expect(requests().filter((r) => r.path === '/v1/messages')).toHaveLength(1);
    } finally {
      await agent.close();
    }
  });

  it('rein run prints the provider\'s notice, saying where the requests go', async () => {
    // A server of its own: the shared one's scenario is played by the first test.
    const own = await serveScenario(readFileSync(join(HERE, 'scenario.yaml'), 'utf8'), env.dir);
    try {
      const r = await runCli(['run', 'hi', '--preset', join(HERE, 'agent.yaml'), '--no-layers'], { cwd: env.dir, env: { ...env.childEnv(), LOCAL_SIM_URL: own.server.url } });
      expect(r.code).toBe(0);
      expect(r.stderr.split('\n')[0]).toBe(`rein: sending requests to the local-sim server at ${own.server.url}`);
      expect(r.stdout).toContain('Hello from the local-sim provider.');
    } finally {
      await own.close();
    }
  });

  it('the url option wins over LOCAL_SIM_URL, and without either the provider says what to set', async () => {
    // cwd: this folder, where the override's ./provider.ts is (transcripts go to the test's REIN_HOME).
    const agent = await createAgent({ preset: join(HERE, 'agent.yaml'), cwd: HERE, layers: false, env: { ...cleanEnv(), LOCAL_SIM_URL: 'http://127.0.0.1:9' }, overrides: { plugins: { './provider.ts': { url: server.url } } } });
    expect(agent.kernel.client.baseURL).toBe(server.url);
    await agent.close();
    await expect(createAgent({ preset: join(HERE, 'agent.yaml'), cwd: env.dir, layers: false, env: cleanEnv() })).rejects.toThrow(expect.objectContaining({
      name: 'PluginError', plugin: 'local-provider', message: expect.stringMatching(/model provider local-sim: no server to talk to; set the plugin's url option or LOCAL_SIM_URL/),
    }));
  });

  it('--sim plays its scenario on the embedded simulator in place of the preset\'s provider, and says so', async () => {
    const agent = await createAgent({ preset: join(HERE, 'agent.yaml'), sim: join(HERE, 'scenario.yaml'), cwd: env.dir, layers: false, env: cleanEnv() });
    try {
      expect(agent.client).toMatchObject({ kind: 'simulator', notice: `running against the embedded simulator with scenario ${join(HERE, 'scenario.yaml')} (--sim plays on it in place of model.provider local-sim)` });
      expect(await agent.run('hi').result).toMatchObject({ terminalReason: 'end_turn', text: 'Hello from the local-sim provider.' });
    } finally {
      await agent.close();
    }
  });

  it('a provider name no plugin declares is a preset error at model.provider, with the known names', async () => {
    await expect(createAgent({ preset: join(HERE, 'agent.yaml'), cwd: env.dir, layers: false, env: cleanEnv(), overrides: { model: { provider: 'local-sym' } } }))
      .rejects.toThrow(/model\.provider: no provider is named "local-sym".*did you mean "local-sim"\?.*known: anthropic, simulator, local-sim/s);
  });
});
