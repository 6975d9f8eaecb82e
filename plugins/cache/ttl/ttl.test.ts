import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { type ModelRequest } from '../../../kernel/index.js';
import { CacheCostModel, cacheCostModel, GapModel } from '../../../lib/index.js';
import { createSimulator } from '../../../simulator/index.js';
import { httpClient, loggedRequests, plannedResponder, runPrompt, strategyKernel, writeAgentsMd } from '../../../testing/strategy.js';
import { useTestEnv } from '../../../testing/index.js';
import memoryFiles from '../../memory-files/index.js';
import systemPrompt from '../../system-prompt/index.js';
import breakpoints from '../breakpoints/index.js';
import ttl, { applyTtls, type TtlRecord } from './index.js';

const env = useTestEnv({ prefix: 'rein-ttl-' });
let dir: string;
let home: string;
beforeEach(() => {
  dir = env.dir;
  home = env.home;
});

const m5 = { type: 'ephemeral' };

function request(): ModelRequest {
  return {
    model: 'claude-sonnet-4-6',
    max_tokens: 100,
    tools: [{ name: 'A', input_schema: { type: 'object' } }, { name: 'B', input_schema: { type: 'object' }, cache_control: m5 }],
    system: [{ type: 'text', text: 'static', cache_control: m5 }, { type: 'text', text: 'dynamic' }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'old', cache_control: m5 }] },
      { role: 'assistant', content: [{ type: 'text', text: 'answer' }] },
      { role: 'user', content: [{ type: 'text', text: 'new', cache_control: m5 }] },
    ],
  } as unknown as ModelRequest;
}

const ttls = (p: ModelRequest) => [
  ...(p.tools ?? []).map((t) => (t as { cache_control?: { ttl?: string } }).cache_control),
  ...(p.system as { cache_control?: { ttl?: string } }[]).map((b) => b.cache_control),
  ...p.messages.flatMap((m) => (m.content as { cache_control?: { ttl?: string } }[]).map((b) => b.cache_control)),
].filter(Boolean).map((c) => c!.ttl ?? '5m');

describe('applyTtls', () => {
  it('gives the static prefix 1h and keeps message markers 5m, without touching the request it was given', () => {
    const p = request();
    const before = JSON.stringify(p);
    const out = applyTtls(p, '1h', '5m');
    expect(ttls(out)).toEqual(['1h', '1h', '5m', '5m']);
    expect(JSON.stringify(p)).toBe(before);
    expect(out.messages).toBe(p.messages);
  });

  it('never puts a 1h marker after a 5m one: a 1h tail with a 5m static prefix stays 5m', () => {
    expect(ttls(applyTtls(request(), '5m', '1h'))).toEqual(['5m', '5m', '5m', '5m']);
    // A 1h tail sets every message marker, old ones too, so none of them is 5m before it.
    expect(ttls(applyTtls(request(), '1h', '1h'))).toEqual(['1h', '1h', '1h', '1h']);
  });
});

describe('cache/ttl in a session', () => {
  it('switches the static prefix to 1h when the session\'s end-of-turn gaps run past 5 minutes', async () => {
    // A static system section of about 3,000 tokens, above the model's cacheable minimum.
    writeFileSync(join(dir, 'guide.md'), 'Prefer small, reviewed changes with tests. '.repeat(280));
    const simulator = createSimulator({ responder: plannedResponder([[{ type: 'text', text: 'One.' }], [{ type: 'text', text: 'Two.' }]]) });
    const log = join(home, 'requests.jsonl');
    const { client } = await httpClient(simulator, log);
    const kernel = await strategyKernel({
      cwd: dir,
      client,
      plugins: [
        { plugin: systemPrompt, options: { date: '2026-01-01', userContext: { platform: false, git: false }, sections: [{ name: 'guide', file: 'guide.md' }] } },
        { plugin: breakpoints, options: { layout: 'tools+system+tail' } },
        { plugin: ttl },
      ],
    });
    // A person who answers every 20 minutes: most waits are theirs, and outlive 5 minutes.
    cacheCostModel(kernel).model = new CacheCostModel(new GapModel({ fittedOn: 'test', kinds: { user: { mu: Math.log(1200), sigma: 0.5, n: 100 }, tool: { mu: Math.log(5), sigma: 0.5, n: 10 } } }));
    try {
      await runPrompt(kernel, 'First question.');
      await runPrompt(kernel, 'Second question.');
      const reqs = loggedRequests(log);
      expect(reqs.map((r) => r.status)).toEqual([200, 200]);
      const static1h = (r: (typeof reqs)[number]) => [...r.body.tools.filter((t: { cache_control?: unknown }) => t.cache_control), ...r.body.system.filter((b: { cache_control?: unknown }) => b.cache_control)].map((x: { cache_control: { ttl?: string } }) => x.cache_control.ttl ?? '5m');
      expect(static1h(reqs[0]!)).toEqual(['1h', '1h']);
      expect((reqs[0]!.usage as Record<string, any>).cache_creation?.ephemeral_1h_input_tokens).toBeGreaterThan(1_000);
      const records = kernel.transcript.pluginData<TtlRecord>('cache/ttl');
      expect(records[0]).toMatchObject({ part: 'static', ttl: '1h', request: 1 });
      expect(records[0]!.savingUsd).toBeGreaterThan(records[0]!.costUsd);
    } finally {
      await kernel.close();
    }
  });

  it('keeps 5m when tool calls and quick answers make up the session', async () => {
    writeAgentsMd(dir, 3_000);
    const simulator = createSimulator({ responder: plannedResponder([[{ type: 'text', text: 'One.' }]]) });
    const log = join(home, 'requests-quick.jsonl');
    const { client } = await httpClient(simulator, log);
    const kernel = await strategyKernel({ cwd: dir, client, plugins: [{ plugin: memoryFiles, options: { userDirs: [home] } }, { plugin: systemPrompt, options: { date: '2026-01-01', userContext: { platform: false, git: false } } }, { plugin: breakpoints }, { plugin: ttl }] });
    try {
      await runPrompt(kernel, 'First question.');
      const body = loggedRequests(log)[0]!.body;
      expect(JSON.stringify(body)).not.toContain('"ttl":"1h"');
      expect(kernel.transcript.pluginData('cache/ttl')).toEqual([]);
    } finally {
      await kernel.close();
    }
  });
});
