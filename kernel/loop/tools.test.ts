import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePlugin } from '../plugin.js';
import { defineTool, type Tool } from '../tool.js';
import type { AgentEvent } from '../types.js';
import { MAX_TOOL_CONCURRENCY, partitionToolCalls } from './tools.js';
import { MAX_RESULT_CHARS } from './tool-results.js';
import { cleanupTempDirs, runCalls, tempDir, textOf, toolKernel, use, useTempReinHome } from '../../testing/tools.js';

/** A latch: `arrive()` resolves once `n` callers arrived, or after `giveUpMs` with false (so a serial run fails instead of hanging). */
function barrier(n: number, giveUpMs = 5_000) {
  let count = 0;
  let open!: () => void;
  const opened = new Promise<void>((r) => { open = r; });
  return {
    arrive(): Promise<boolean> {
      if (++count >= n) open();
      return Promise.race([opened.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), giveUpMs))]);
    },
  };
}

const input = z.strictObject({ id: z.string(), size: z.number().optional(), text: z.string().optional(), description: z.string().optional() });
type In = z.output<typeof input>;

function tool(name: string, spec: Partial<Tool<In>> & Pick<Tool<In>, 'call'>): Tool<In> {
  return defineTool<In>({ name, description: name, inputSchema: input, ...spec });
}

function pluginOf(...tools: Tool<In>[]) {
  return definePlugin({ name: `test-tools-${tools.map((t) => t.name).join('-')}`, apply(k) { for (const t of tools) k.tools.register(t); } });
}

let dir: string;
beforeAll(() => {
  useTempReinHome();
  dir = tempDir();
});
afterAll(cleanupTempDirs);

describe('partitionToolCalls', () => {
  it('groups consecutive concurrency-safe calls and keeps every unsafe call alone, in order', async () => {
    const safe = (name: string) => tool(name, { isConcurrencySafe: () => true, call: async () => 'ok' });
    const k = await toolKernel({ cwd: dir, plugins: [{ plugin: pluginOf(safe('A'), safe('B'), tool('W', { call: async () => 'ok' }), tool('T', { isConcurrencySafe: () => { throw new Error('cannot tell'); }, call: async () => 'ok' })) }] });
    const calls = [use('A', { id: '1' }), use('B', { id: '2' }), use('A', { id: '3' }), use('W', { id: '4' }), use('A', { id: '5' }), use('W', { id: '6' }), use('A', { wrong: 1 }), use('T', { id: '8' }), use('Nope', {})];
    const batches = partitionToolCalls(k, calls);
    expect(batches.map((b) => [b.concurrent, b.calls.map((c) => (c.input as { id?: string }).id ?? c.name)])).toEqual([
      [true, ['1', '2', '3']], [false, ['4']], [true, ['5']], [false, ['6']], [false, ['A']], [false, ['8']], [false, ['Nope']],
    ]);
  });
});

describe('runToolCalls', () => {
  it('runs a concurrency-safe batch in parallel: every call starts before any ends (they wait for each other)', async () => {
    const b = barrier(3);
    const t = tool('Par', { isConcurrencySafe: () => true, isReadOnly: () => true, call: async (i) => `${i.id}:${(await b.arrive()) ? 'together' : 'alone'}` });
    const k = await toolKernel({ cwd: dir, plugins: [{ plugin: pluginOf(t) }] });
    const events: AgentEvent[] = [];
    k.hooks.event.tap('t', (e) => { events.push(e); });
    const out = await runCalls(k, [use('Par', { id: 'a' }), use('Par', { id: 'b' }), use('Par', { id: 'c' })]);
    expect(out.results.map(textOf)).toEqual(['a:together', 'b:together', 'c:together']);
    expect(events.filter((e) => e.type.startsWith('tool_')).map((e) => e.type)).toEqual(['tool_start', 'tool_start', 'tool_start', 'tool_end', 'tool_end', 'tool_end']);
  });

  it('runs unsafe calls one at a time', async () => {
    const log: string[] = [];
    const t = tool('Ser', { call: async (i) => { log.push(`start ${i.id}`); await new Promise((r) => setTimeout(r, 5)); log.push(`end ${i.id}`); return i.id; } });
    const k = await toolKernel({ cwd: dir, plugins: [{ plugin: pluginOf(t) }] });
    await runCalls(k, [use('Ser', { id: '1' }), use('Ser', { id: '2' })]);
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
  });

  it(`never runs more than ${MAX_TOOL_CONCURRENCY} at once, and returns results in call order`, async () => {
    let running = 0;
    let peak = 0;
    const t = tool('Cap', {
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      call: async (i) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 30 - Number(i.id))); // later calls finish first
        running--;
        return i.id;
      },
    });
    const k = await toolKernel({ cwd: dir, plugins: [{ plugin: pluginOf(t) }] });
    const ids = Array.from({ length: 15 }, (_, i) => String(i));
    const out = await runCalls(k, ids.map((id) => use('Cap', { id })));
    expect(peak).toBe(MAX_TOOL_CONCURRENCY);
    expect(out.results.map(textOf)).toEqual(ids);
  });

  it('caps one result at min(tool cap, 50,000) characters, saving the whole and keeping a preview cut at a newline', async () => {
    const line = 'x'.repeat(99) + '\n';
    const big = (name: string, cap: number) => tool(name, { maxResultSizeChars: cap, call: async (i) => line.repeat(Math.ceil(i.size! / 100)).slice(0, i.size!) });
    const k = await toolKernel({ cwd: dir, plugins: [{ plugin: pluginOf(big('Small', 30_000), big('Huge', 100_000), big('Free', Infinity)) }] });
    const out = await runCalls(k, [
      use('Small', { id: '1', size: 30_000 }), use('Small', { id: '2', size: 30_001 }),
      use('Huge', { id: '3', size: 60_000 }), use('Free', { id: '4', size: 200_000 }),
    ]);
    const [exact, over, huge, free] = out.results.map(textOf);
    expect(exact).toHaveLength(30_000);
    expect(over).toMatch(/^<persisted-output>\nOutput too large \(30001 characters\)/);
    expect(huge).toMatch(/^<persisted-output>\nOutput too large \(60000 characters\)/);
    expect(free).toHaveLength(200_000);
    const file = /saved to: (\S+)/.exec(huge!)![1]!;
    expect(readFileSync(file, 'utf8')).toHaveLength(60_000);
    const preview = huge!.split('\n\n')[1]!.split('\n').slice(1, -2).join('\n');
    // rein's preview is at most 2,000 bytes (lib/tools/persisted-output.ts), and its label says how many.
    const shown = Number(/Preview \(first (\d+) bytes\)/.exec(huge!)![1]);
    expect(Buffer.byteLength(preview)).toBe(shown);
    expect(shown).toBeLessThanOrEqual(2_000);
    expect(preview.endsWith('x'.repeat(99))).toBe(true);
    expect(MAX_RESULT_CHARS).toBe(50_000);
  });

  it('turns an empty result into a placeholder and a thrown error into an is_error result', async () => {
    const k = await toolKernel({ cwd: dir, plugins: [{ plugin: pluginOf(tool('Empty', { call: async () => '' }), tool('Boom', { call: async () => { throw new Error('disk on fire'); } })) }] });
    const out = await runCalls(k, [use('Empty', { id: '1' }), use('Boom', { id: '2' })]);
    expect(textOf(out.results[0]!)).toBe('(Empty completed with no output)');
    expect(out.results[1]!.is_error).toBe(true);
    expect(textOf(out.results[1]!)).toBe('Error: disk on fire');
  });

  it('passes each call its own signal: a failing Bash sibling aborts the other Bash calls only', async () => {
    const seen: Record<string, string> = {};
    const bash = tool('Bash', {
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      call: async (i, ctx) => {
        if (i.text === 'fail') return { content: 'Exit code 1', isError: true };
        await new Promise<void>((r) => { if (ctx.signal.aborted) r(); else ctx.signal.addEventListener('abort', () => r(), { once: true }); });
        seen[i.id] = String((ctx.signal.reason as Error).name);
        throw new Error('stopped');
      },
    });
    const other = tool('Other', { isConcurrencySafe: () => true, isReadOnly: () => true, call: async (_i, ctx) => { await new Promise((r) => setTimeout(r, 20)); return ctx.signal.aborted ? 'aborted' : 'fine'; } });
    const k = await toolKernel({ cwd: dir, plugins: [{ plugin: pluginOf(bash, other) }] });
    const run = new AbortController();
    const out = await runCalls(k, [use('Bash', { id: 'w' }), use('Other', { id: 'o' }), use('Bash', { id: 'f', text: 'fail', description: 'make the build dir' })], run.signal);
    expect(seen).toEqual({ w: 'SiblingAbortError' });
    expect(textOf(out.results[0]!)).toContain('Cancelled: a parallel Bash call failed (make the build dir)');
    expect(textOf(out.results[1]!)).toBe('fine');
    expect(out.results[2]!.is_error).toBe(true);
    expect(run.signal.aborted).toBe(false);
  });
});
