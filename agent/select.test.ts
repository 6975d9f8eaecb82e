/**
 * The provider registry: `model.provider` picks the client; the built-in `simulator` needs no key,
 * and a plugin's provider cannot take a name already given.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent } from './agent.js';
import { definePlugin } from '../kernel/index.js';
import { createAnthropicClient } from '../lib/index.js';
import { cleanEnv, serveScenario } from '../testing/support.js';
import { useTestEnv } from '../testing/env.js';

const env = useTestEnv({ prefix: 'rein-select-' });

describe('model.provider', () => {
  it('simulator: the embedded simulator even with an API key set', async () => {
    const agent = await createAgent({ preset: 'minimal', cwd: env.dir, layers: false, env: { ...cleanEnv(), ANTHROPIC_API_KEY: 'sk-real' }, overrides: { model: { provider: 'simulator' } } });
    try {
      expect(agent.client).toMatchObject({ kind: 'demo', client: { kind: 'simulator' }, notice: expect.stringMatching(/built-in demo against the embedded simulator/) });
      expect(agent.client.client.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await agent.run('hi').result).terminalReason).toBe('end_turn');
    } finally {
      await agent.close();
    }
  });

  it('anthropic (the default) with a key is the API', async () => {
    const agent = await createAgent({ preset: 'minimal', cwd: env.dir, layers: false, env: { ...cleanEnv(), ANTHROPIC_API_KEY: 'sk-real' } });
    expect(agent.client).toMatchObject({ kind: 'api', client: { kind: 'anthropic', baseURL: 'https://api.anthropic.com' } });
    await agent.close();
  });

  it('a plugin may not declare a built-in provider\'s name, nor one another plugin declared', async () => {
    const make = (name: string, provider: string) => definePlugin({
      name,
      providers: { [provider]: { create: () => ({ client: createAnthropicClient({ baseURL: 'http://127.0.0.1:9', apiKey: 'x', env: {} }), kind: 'api' as const }) } },
      apply() {},
    });
    await expect(createAgent({ preset: 'minimal', cwd: env.dir, layers: false, env: cleanEnv(), plugins: [{ plugin: make('takes-anthropic', 'anthropic') }] }))
      .rejects.toThrow(/plugin takes-anthropic declares the model provider "anthropic", which is already a built-in provider/);
    await expect(createAgent({ preset: 'minimal', cwd: env.dir, layers: false, env: cleanEnv(), plugins: [{ plugin: make('one', 'gw') }, { plugin: make('two', 'gw') }] }))
      .rejects.toThrow(/plugin two declares the model provider "gw", which is already plugin one's provider/);
  });

  it('a plugin\'s provider gets its options, and in a resumed session the checkpoint its client kept', async () => {
    const sim = await serveScenario('turns:\n  - reply: [{ text: "one" }]\n  - reply: [{ text: "two" }]\n', env.dir);
    const seen: { options: unknown; resumeFrom: unknown }[] = [];
    const plugin = definePlugin({
      name: 'test/counting-provider',
      options: z.object({ label: z.string() }).strict(),
      providers: {
        counting: {
          create(context, options) {
            seen.push({ options, resumeFrom: context.resumeFrom });
            let sent = Number((context.resumeFrom?.counting as { sent?: number } | undefined)?.sent ?? 0);
            const client = createAnthropicClient({ baseURL: sim.server.url, apiKey: 'x', kind: 'counting', env: {} });
            return { kind: 'api' as const, client: { ...client, send: (p, o) => { sent++; return client.send(p, o); }, checkpoint: () => ({ counting: { sent } }) } };
          },
        },
      },
      apply() {},
    });
    try {
      const first = await createAgent({ preset: 'minimal', cwd: env.dir, layers: false, env: cleanEnv(), overrides: { model: { provider: 'counting' } }, plugins: [{ plugin, options: { label: 'a' } }] });
      expect((await first.run('hi').result).text).toBe('one');
      await first.close();
      const again = await createAgent({ preset: 'minimal', cwd: env.dir, layers: false, env: cleanEnv(), overrides: { model: { provider: 'counting' } }, resume: first.kernel.sessionId, plugins: [{ plugin, options: { label: 'b' } }] });
      expect((await again.run('more').result).text).toBe('two');
      await again.close();
      expect(seen).toEqual([{ options: { label: 'a' }, resumeFrom: undefined }, { options: { label: 'b' }, resumeFrom: { counting: { sent: 1 } } }]);
    } finally {
      await sim.close();
    }
  });
});
