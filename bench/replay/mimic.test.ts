import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REQUEST_STAGE } from '../../kernel/hooks.js';
import type { ModelRequest } from '../../kernel/model/client.js';
import { definePlugin } from '../../kernel/plugin.js';
import { CALIBRATED_COUNTER } from '../../lib/tokens/counter.js';
import { newStats, promptTokens, type RecordedUsage, type Workload, type WorkloadStep } from '../workloads/types.js';
import { fillerTools } from './mimic.js';
import { loadBenchPreset, replayWorkload, type LoadedPreset } from './replay.js';

const T0 = Date.UTC(2025, 10, 1);
const presets = fileURLToPath(new URL('../presets/', import.meta.url));

function step(index: number, atSeconds: number, u: Partial<RecordedUsage>, extra: Partial<WorkloadStep> = {}): WorkloadStep {
  return {
    index, at: T0 + atSeconds * 1000, model: 'claude-sonnet-4-5', stopReason: 'end_turn', toolResults: [],
    reply: [{ type: 'text', text: `Answer ${index}: ${'done. '.repeat(40)}` }],
    usage: { input: 0, output: 50, cacheRead: u.cacheRead ?? 0, cacheWrite5m: u.cacheWrite5m ?? 0, cacheWrite1h: 0 },
    ...extra,
  };
}
const prompt = (text: string) => ({ prompt: [{ block: { type: 'text' as const, text }, typed: true }] });

function workload(format: Workload['format'], steps: WorkloadStep[]): Workload {
  return { name: 'w', format, model: 'claude-sonnet-4-5', sidechain: false, timed: true, notes: [], stats: newStats(), steps };
}

/** The preset with a last-stage tap that keeps every main request as sent. */
async function capturing(file: string): Promise<{ preset: LoadedPreset; sent: ModelRequest[] }> {
  const p = await loadBenchPreset(`${presets}${file}`, presets);
  const sent: ModelRequest[] = [];
  const capture = definePlugin({
    name: 'test/capture',
    apply(kernel) {
      kernel.hooks.request.tap({ name: 'test/capture', stage: REQUEST_STAGE.CACHE_BREAKPOINTS + 1 }, (params) => { sent.push(params as ModelRequest); return params; });
    },
  });
  return { preset: { ...p, plugins: [...p.plugins, { plugin: capture, options: {}, origin: 'test' }] }, sent };
}

/** A Claude Code session: the first request read 12,000 tokens other sessions cached; a restart at step 3. */
function claudeCodeSession(): Workload {
  return workload('claude-code', [
    step(0, 0, { cacheRead: 12_000, cacheWrite5m: 4_000 }, prompt('fix the parser')),
    step(1, 20, { cacheRead: 16_000, cacheWrite5m: 300 }, prompt('and the tests')),
    step(2, 40, { cacheRead: 16_300, cacheWrite5m: 300 }, prompt('now the docs')),
    // Within the TTL the cache fell to what other sessions keep: the client restarted.
    step(3, 60, { cacheRead: 12_000, cacheWrite5m: 4_900 }, prompt('again, after a restart')),
  ]);
}

describe('claude-code-like mimic', () => {
  it('sends Claude Code\'s prefix in its shape, at the size the recording shows, and reads the shared part other sessions cached', async () => {
    const { preset, sent } = await capturing('claude-code-like.yaml');
    const w = claudeCodeSession();
    const r = await replayWorkload(w, preset);
    expect(r.mimic!.client).toBe('claude-code');
    const first = sent[0]!;
    const system = first.system as Array<{ text: string; cache_control?: unknown }>;
    // Billing header (no marker), identity (marker), main prompt (marker); one more marker on the tail.
    expect(system.map((b) => b.cache_control !== undefined)).toEqual([false, true, true]);
    expect(system[0]!.text).toMatch(/^x-anthropic-billing-header/);
    expect(first.tools!.some((t) => (t as { cache_control?: unknown }).cache_control)).toBe(false);
    const marks = first.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => (b as { cache_control?: unknown }).cache_control);
    expect(marks).toHaveLength(1);
    // The first request's prompt is the recorded one, within 2%, and it reads the shared part.
    const recorded = promptTokens(w.steps[0]!.usage!);
    expect(Math.abs(r.requests[0]!.promptTokens - recorded) / recorded).toBeLessThan(0.02);
    expect(Math.abs(r.requests[0]!.cacheRead - 12_000) / 12_000).toBeLessThan(0.02);
  });

  it('changes only the session part of its system prompt at the recorded restart, so the cache falls to the shared part there', async () => {
    const { preset, sent } = await capturing('claude-code-like.yaml');
    const r = await replayWorkload(claudeCodeSession(), preset);
    const main = (i: number) => (sent[i]!.system as Array<{ text: string }>).map((b) => b.text);
    expect(main(1)).toEqual(main(0));
    expect(main(2)).toEqual(main(1));
    expect(main(3)[0]).toBe(main(2)[0]);
    expect(main(3)[1]).toBe(main(2)[1]);
    expect(main(3)[2]).not.toBe(main(2)[2]);
    expect(r.requests[2]!.cacheRead).toBeGreaterThan(15_000);
    expect(Math.abs(r.requests[3]!.cacheRead - 12_000) / 12_000).toBeLessThan(0.02);
    expect(r.requests[3]!.breakCause).toBe('system prompt changed');
    expect(r.events.map((e) => [e.step, e.kind])).toEqual([[3, 'restart']]);
  });
});

describe('pi-like mimic', () => {
  it('sends pi\'s four tools and one system block, with markers on the last tool, the system block and the tail', async () => {
    const { preset, sent } = await capturing('pi-like.yaml');
    const w = workload('pi', [step(0, 0, { cacheWrite5m: 1_600 }, prompt('read the theme')), step(1, 10, { cacheRead: 1_600, cacheWrite5m: 200 }, prompt('more'))]);
    const r = await replayWorkload(w, preset);
    const first = sent[0]!;
    expect(first.tools!.map((t) => (t as { name: string }).name)).toEqual(['read', 'bash', 'edit', 'write']);
    expect((first.tools![3] as { cache_control?: unknown }).cache_control).toEqual({ type: 'ephemeral' });
    expect(first.system).toHaveLength(1);
    expect((first.system as Array<{ text: string; cache_control?: unknown }>)[0]!.cache_control).toEqual({ type: 'ephemeral' });
    expect((first.system as Array<{ text: string }>)[0]!.text).toMatch(/Current date and time: 2025-11-01T00:00:00\.000Z$/);
    expect(Math.abs(r.requests[0]!.promptTokens - 1_600) / 1_600).toBeLessThan(0.02);
    expect(r.requests[1]!.cacheRead).toBeGreaterThan(1_500);
  });
});

describe('filler tools', () => {
  it('add up to the size asked for', () => {
    const tools = fillerTools(['a', 'b', 'c'], 3_000, CALIBRATED_COUNTER);
    const total = tools.reduce((n, t) => n + CALIBRATED_COUNTER.tool(t), 0);
    expect(total).toBeLessThanOrEqual(3_000);
    expect(total).toBeGreaterThan(2_950);
  });
});

describe('replay of recorded settings (every preset)', () => {
  it('sends each step\'s recorded model and thinking parameter, and clears the context where the recording did', async () => {
    const { preset, sent } = await capturing('../../presets/default.yaml');
    const think = { type: 'enabled' as const, budget_tokens: 8_192 };
    const w = workload('pi', [
      step(0, 0, { cacheWrite5m: 20_000 }, prompt(`one: ${'the log says a test failed. '.repeat(600)}`)),
      step(1, 10, { cacheRead: 20_000, cacheWrite5m: 500 }, prompt('two')),
      step(2, 20, { cacheRead: 0, cacheWrite5m: 21_000 }, { ...prompt('three'), thinking: think }),
      step(3, 30, { cacheRead: 0, cacheWrite5m: 21_500 }, { ...prompt('four'), thinking: think, model: 'claude-opus-4-5' }),
      // The prompt fell to a fraction of the last one: the user cleared the conversation.
      step(4, 40, { cacheRead: 0, cacheWrite5m: 5_000 }, { ...prompt('five'), thinking: { type: 'disabled' }, model: 'claude-opus-4-5' }),
    ]);
    const r = await replayWorkload(w, preset);
    expect(sent.map((s) => s.model)).toEqual(['claude-sonnet-4-5', 'claude-sonnet-4-5', 'claude-sonnet-4-5', 'claude-opus-4-5', 'claude-opus-4-5']);
    // Where the recording does not say, the preset's own thinking setting is sent (default: adaptive).
    expect(sent.map((s) => s.thinking ?? null)).toEqual([{ type: 'adaptive' }, { type: 'adaptive' }, think, think, null]);
    expect(sent[2]!.max_tokens).toBeGreaterThan(think.budget_tokens);
    expect(sent[4]!.messages).toHaveLength(1);
    expect(r.requests.map((q) => q.breakCause ?? null)).toEqual([null, null, 'thinking changed', 'model changed', null]);
    expect(r.events.map((e) => [e.step, e.kind])).toEqual([[2, 'thinking change'], [3, 'model switch'], [4, 'thinking change'], [4, 'context cleared']]);
  });

  it('sends each step\'s recorded effort, and the API default where the recording sent none; an effort change alone keeps the cache', async () => {
    const { preset, sent } = await capturing('../../presets/default.yaml');
    const adaptive = { type: 'adaptive' as const };
    const on = (model: string, effort?: WorkloadStep['effort']) => ({ model, thinking: adaptive, ...(effort ? { effort } : {}) });
    const w = workload('claude-code', [
      step(0, 0, { cacheWrite5m: 20_000 }, { ...prompt(`one: ${'the log says a test failed. '.repeat(600)}`), ...on('claude-opus-4-6') }),
      step(1, 10, { cacheRead: 20_000, cacheWrite5m: 500 }, { ...prompt('two'), ...on('claude-opus-4-6', 'low') }),
      step(2, 20, { cacheRead: 20_500, cacheWrite5m: 500 }, { ...prompt('three'), ...on('claude-opus-4-6', 'max') }),
      step(3, 30, { cacheRead: 21_000, cacheWrite5m: 500 }, { ...prompt('four'), ...on('claude-opus-4-6') }),
    ]);
    const r = await replayWorkload(w, preset);
    expect(sent.map((q) => (q.output_config as { effort?: string } | undefined)?.effort ?? null)).toEqual([null, 'low', 'max', null]);
    expect(sent.every((q) => (q.thinking as { type: string }).type === 'adaptive')).toBe(true);
    expect(r.requests.slice(1).map((q) => q.breakCause ?? null)).toEqual([null, null, null]);
    expect(r.requests.filter((q) => q.source === 'main_loop').slice(1).every((q) => q.cacheRead > 0)).toBe(true);
  });
});
