import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePlugin } from '../../kernel/plugin.js';
import { generateWorkload } from '../workloads/generator.js';
import type { Workload } from '../workloads/types.js';
import { loadBenchPreset, replayWorkload, type LoadedPreset } from './replay.js';
import { MISSING_RESULT_TEXT } from './tools.js';

const plugin = fileURLToPath(new URL('./fixtures/prefix-stable.ts', import.meta.url));
let dir: string;
let stable: LoadedPreset;
let bare: LoadedPreset;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-replay-test-'));
  await writeFile(join(dir, 'stable.yaml'), [
    'name: prefix-stable',
    'model: { provider: anthropic, name: claude-sonnet-4-5 }',
    // Long enough that the first request is above the 1,024-token minimum cacheable prefix.
    `system: { sections: [ { name: role, text: ${JSON.stringify('You are a careful coding agent. Keep answers short. '.repeat(120))} } ] }`,
    'plugins:',
    `  ${JSON.stringify(plugin)}: {}`,
    '',
  ].join('\n'));
  await writeFile(join(dir, 'bare.yaml'), 'name: bare\nmodel: { provider: anthropic, name: claude-sonnet-4-5 }\n');
  stable = await loadBenchPreset(join(dir, 'stable.yaml'), dir);
  bare = await loadBenchPreset(join(dir, 'bare.yaml'), dir);
});
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

/** A workload written out by hand: one prompt, a tool call whose result was recorded, a final answer. */
function handWorkload(): Workload {
  const t0 = Date.UTC(2025, 0, 1);
  return {
    name: 'hand', format: 'scenario', model: 'claude-sonnet-4-5', sidechain: false, timed: true, notes: [],
    stats: { lines: 0, entries: 0, malformed: 0, skipped: {}, examples: [] },
    steps: [
      {
        index: 0, prompt: [{ block: { type: 'text', text: 'Read notes.txt' }, typed: true }], at: t0, model: 'claude-sonnet-4-5', stopReason: 'tool_use',
        reply: [{ type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 'toolu_a', name: 'Read', input: { file_path: 'notes.txt' } }, { type: 'tool_use', id: 'toolu_b', name: 'Bash', input: { command: 'rm -rf /' } }],
        toolResults: [{ toolUseId: 'toolu_a', toolName: 'Read', content: [{ type: 'text', text: 'RECORDED-CONTENT-42' }], isError: false }],
      },
      { index: 1, at: t0 + 2000, model: 'claude-sonnet-4-5', stopReason: 'end_turn', reply: [{ type: 'text', text: 'Done.' }], toolResults: [] },
      { index: 2, prompt: [{ block: { type: 'text', text: 'Thanks' }, typed: true }], at: t0 + 4000, model: 'claude-sonnet-4-5', stopReason: 'end_turn', reply: [{ type: 'text', text: 'Bye.' }], toolResults: [] },
    ],
  };
}

describe('replay', () => {
  it('sends one request per recorded step, feeds recorded results back and runs no tool', async () => {
    const r = await replayWorkload(handWorkload(), stable);
    expect(r.requests.map((q) => q.step)).toEqual([0, 1, 2]);
    expect(r.summary.syntheticRequests).toBe(0);
    expect(r.skippedSteps).toBe(0);
    // Two turns: the recorded prompts start them; the tools Read and Bash are not in the preset.
    expect(r.terminals).toEqual({ end_turn: 2 });
    expect(r.addedTools.sort()).toEqual(['Bash', 'Read']);
    // The second request carries the recorded result and, for the call with none, the missing-result error.
    expect(r.requests[1]!.promptTokens).toBeGreaterThan(r.requests[0]!.promptTokens);
  });

  it('gives identical numbers when the same workload is replayed twice', async () => {
    const w = generateWorkload('gen:turns=60,prompts=6,parallel=2,gap=400,seed=11');
    const a = await replayWorkload(w, stable);
    const b = await replayWorkload(w, stable);
    const strip = (x: typeof a) => JSON.stringify({ requests: x.requests, compactions: x.compactions, summary: x.summary, terminals: x.terminals });
    expect(strip(a)).toBe(strip(b));
    expect(a.requests).toHaveLength(60);
    // gap=400 s exceeds the 5-minute TTL: the idle breaks are attributed to it.
    expect(a.summary.breaks['idle > 5 min (TTL)']).toBeGreaterThan(0);
  });

  it('a strategy that never changes its prefix has cache efficiency ~1 when no gap exceeds the TTL', async () => {
    const w = generateWorkload('gen:turns=80,prompts=8,parallel=2,results=1500,gap=60,step=3,seed=5');
    const r = await replayWorkload(w, stable);
    expect(r.requests).toHaveLength(80);
    // All it loses is the last request's new tail, written (1.25×) though nothing reads it again (1×).
    expect(r.summary.cacheEfficiency).toBeGreaterThan(0.999);
    expect(r.summary.cacheEfficiency).toBeLessThanOrEqual(1);
    expect(r.summary.breaks).toEqual({});
    expect(r.summary.cacheReadShare).toBeGreaterThan(0.8);
  });

  it('a preset without cache breakpoints pays full price: efficiency far below 1', async () => {
    const w = generateWorkload('gen:turns=30,seed=2');
    const r = await replayWorkload(w, bare);
    expect(r.summary.cacheRead).toBe(0);
    expect(r.summary.cacheEfficiency).toBeLessThan(0.3);
  });
});

describe('replay of wide turns (more blocks per turn than the 20-block lookback)', () => {
  // 12 parallel calls per reply: each turn adds 25 blocks (text, 12 tool_use, 12 tool_result).
  const w = generateWorkload('gen:turns=24,prompts=3,parallel=12,results=600,step=2,seed=3');

  it('the default preset still reads the previous prefix (a marker stays where the previous tail was)', async () => {
    const r = await replayWorkload(w, await loadBenchPreset('default', dir));
    expect(r.summary.breaks).toEqual({});
    expect(r.summary.cacheEfficiency).toBeGreaterThan(0.95);
  });

  it('one moving tail marker misses it every turn, and the miss is named the lookback', async () => {
    const tail = join(dir, 'one-tail.yaml');
    await writeFile(tail, 'name: one-tail\nextends: default\nplugins:\n  cache/breakpoints: { layout: tools+system+tail, ttl: 5m }\n');
    const r = await replayWorkload(w, await loadBenchPreset(tail, dir));
    expect(Object.keys(r.summary.breaks)).toEqual(['breakpoints (lookback missed a live entry)']);
    expect(r.summary.cacheEfficiency).toBeLessThan(0.6);
  });
});

describe('replay clock', () => {
  it('shows strategies the recorded time: Date.now() before each request is that step\'s timestamp', async () => {
    const seen: number[] = [];
    const clockProbe = definePlugin({
      name: 'bench-test/clock-probe',
      apply(kernel) { kernel.hooks.context.tap('bench-test/clock-probe', (state) => { seen.push(Date.now()); return state; }); },
    });
    const preset: LoadedPreset = { ...stable, plugins: [...stable.plugins, { plugin: clockProbe, options: {}, origin: 'test' }] };
    const w = generateWorkload('gen:turns=6,prompts=2,gap=3600,step=7');
    const before = Date.now();
    await replayWorkload(w, preset);
    expect(seen).toEqual(w.steps.map((s) => s.at));
    // The real clock is back afterwards.
    expect(Date.now()).toBeGreaterThanOrEqual(before);
  });
});

describe('replay of long replies', () => {
  it('raises max_tokens so a recorded reply longer than the preset allows is not cut (no extra request)', async () => {
    const w = handWorkload();
    // ~12,500 tokens of text, more than the default 8,000-token output cap.
    w.steps[1]!.reply = [{ type: 'text', text: 'All done. '.repeat(5000) }];
    const r = await replayWorkload(w, stable);
    expect(r.requests.map((q) => q.step)).toEqual([0, 1, 2]);
    expect(r.summary.syntheticRequests).toBe(0);
    expect(r.requests[1]!.output).toBeGreaterThan(8000);
  });
});

describe('replay of a recording interrupted mid-turn', () => {
  it('answers a call with no recorded result with an error result and resumes at the next prompt', async () => {
    const w = handWorkload();
    w.steps.splice(1, 1); // the recording goes straight from the tool calls to a new prompt
    const r = await replayWorkload(w, stable);
    expect(r.requests.map((q) => q.step)).toEqual([0, 2]);
    expect(r.terminals).toEqual({ hook_stopped: 1, end_turn: 1 });
    expect(MISSING_RESULT_TEXT).toMatch(/No result was recorded/);
  });
});
