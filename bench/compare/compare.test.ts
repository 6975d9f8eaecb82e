import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultScenario, runCompare } from './compare.js';
import { scoreCapture, type CapturedRequest } from './score.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-compare-test-'));
  await writeFile(join(dir, 'agent.yaml'), 'name: agent-under-test\nmodel: { provider: anthropic, name: claude-sonnet-4-5 }\ntools: [Read]\n');
});
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

describe('bench compare with rein as the agent', () => {
  it('captures every request the agent sent over HTTP and scores it with the replay accounting', async () => {
    const runs = await runCompare({ agent: 'rein', presets: ['agent.yaml'], model: 'claude-sonnet-4-5', cwd: dir });
    expect(runs.map((r) => r.label)).toEqual(['agent:rein', 'agent.yaml']);
    const [agent, preset] = runs;
    expect(agent!.error).toBeUndefined();
    // The script has three turns: Read, the shell call, the answer.
    expect(agent!.requests).toHaveLength(3);
    expect(agent!.requests.every((r) => r.source === 'main_loop')).toBe(true);
    // The prompt grows each turn, and the scored prompt size is what the simulator billed.
    const sizes = agent!.requests.map((r) => r.promptTokens);
    expect(sizes[1]).toBeGreaterThan(sizes[0]!);
    for (const r of agent!.requests) expect(r.input + r.cacheRead + r.cacheWrite5m + r.cacheWrite1h).toBe(r.promptTokens);
    expect(agent!.bytes).toBeGreaterThan(0);
    expect(agent!.summary.costUsd).toBeGreaterThan(0);
    // The same preset driven the same way gives the same numbers.
    expect(preset!.requests.map((r) => r.promptTokens)).toEqual(sizes);
  });

  it('reports an agent CLI that is not installed instead of failing silently', async () => {
    const runs = await runCompare({ agent: 'pi', bin: join(dir, 'no-such-pi'), presets: [], model: 'claude-sonnet-4-5', cwd: dir });
    expect(runs[0]!.label).toBe('agent:pi');
    expect(runs[0]!.error).toMatch(/not installed/);
    expect(runs[0]!.requests).toEqual([]);
  });
});

describe('scoreCapture', () => {
  it('counts seen prefixes across requests: an append-only second request has its first prompt as seen', () => {
    const base = { at: 0, headers: {}, source: 'main_loop', bytes: 10 };
    const sys = 'x'.repeat(8000);
    const first: CapturedRequest = { ...base, body: { model: 'claude-sonnet-4-5', system: sys, messages: [{ role: 'user', content: 'hi' }] }, usage: { input_tokens: 0, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 2001 } };
    const second: CapturedRequest = { ...base, at: 1000, body: { model: 'claude-sonnet-4-5', system: sys, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'yo' }, { role: 'user', content: 'more' }] }, usage: { input_tokens: 0, output_tokens: 5, cache_read_input_tokens: 2001, cache_creation_input_tokens: 3 } };
    const [a, b] = scoreCapture([first, second]);
    expect(a!.seenTokens).toBe(0);
    expect(b!.seenTokens).toBe(a!.promptTokens);
    expect(defaultScenario('pi', 'm').turns[0]!.reply![1]!.tool_use).toEqual({ name: 'read', input: { path: 'notes.txt' } });
  });
});
