import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent, Tool } from '../../kernel/index.js';
import toolConcurrency, { MAX_TOOL_CONCURRENCY, partitionToolCalls } from './index.js';
import {
  cleanupTempDirs, runCalls, tempDir, testTool, textOf, toolKernel, toolsPlugin, use, useTempReinHome, type TestToolInput,
} from '../../testing/tools.js';

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

let dir: string;
beforeAll(() => {
  useTempReinHome();
  dir = tempDir();
});
afterAll(cleanupTempDirs);

/** A kernel with `tools` and this plugin (options `options`). */
const kernelWith = (tools: Tool<TestToolInput>[], options?: unknown) => toolKernel({ cwd: dir, plugins: [{ plugin: toolsPlugin(...tools) }, { plugin: toolConcurrency, options }] });

describe('partitionToolCalls', () => {
  it('groups consecutive concurrency-safe calls and keeps every unsafe call alone, in order', async () => {
    const safe = (name: string) => testTool(name, { isConcurrencySafe: () => true, call: async () => 'ok' });
    const k = await kernelWith([safe('A'), safe('B'), testTool('W', { call: async () => 'ok' }), testTool('T', { isConcurrencySafe: () => { throw new Error('cannot tell'); }, call: async () => 'ok' })]);
    const calls = [use('A', { id: '1' }), use('B', { id: '2' }), use('A', { id: '3' }), use('W', { id: '4' }), use('A', { id: '5' }), use('W', { id: '6' }), use('A', { wrong: 1 }), use('T', { id: '8' }), use('Nope', {})];
    const batches = partitionToolCalls(k, calls);
    expect(batches.map((b) => [b.concurrent, b.calls.map((c) => (c.input as { id?: string }).id ?? c.name)])).toEqual([
      [true, ['1', '2', '3']], [false, ['4']], [true, ['5']], [false, ['6']], [false, ['A']], [false, ['8']], [false, ['Nope']],
    ]);
  });
});

describe('tool-concurrency', () => {
  it('runs a concurrency-safe batch in parallel: every call starts before any ends (they wait for each other)', async () => {
    const b = barrier(3);
    const t = testTool('Par', { isConcurrencySafe: () => true, isReadOnly: () => true, call: async (i) => `${i.id}:${(await b.arrive()) ? 'together' : 'alone'}` });
    const k = await kernelWith([t]);
    const events: AgentEvent[] = [];
    k.hooks.event.tap('t', (e) => { events.push(e); });
    const out = await runCalls(k, [use('Par', { id: 'a' }), use('Par', { id: 'b' }), use('Par', { id: 'c' })]);
    expect(out.results.map(textOf)).toEqual(['a:together', 'b:together', 'c:together']);
    expect(events.filter((e) => e.type.startsWith('tool_')).map((e) => e.type)).toEqual(['tool_start', 'tool_start', 'tool_start', 'tool_end', 'tool_end', 'tool_end']);
  });

  it(`never runs more than ${MAX_TOOL_CONCURRENCY} at once, and returns results in call order`, async () => {
    let running = 0;
    let peak = 0;
    const t = testTool('Cap', {
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
    const k = await kernelWith([t]);
    const ids = Array.from({ length: 15 }, (_, i) => String(i));
    const out = await runCalls(k, ids.map((id) => use('Cap', { id })));
    expect(peak).toBe(MAX_TOOL_CONCURRENCY);
    expect(out.results.map(textOf)).toEqual(ids);
  });

  it('passes each call its own signal: a failing Bash sibling aborts the other Bash calls only', async () => {
    const seen: Record<string, string> = {};
    const bash = testTool('Bash', {
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      call: async (i, ctx) => {
        if (i.text === 'fail') return { content: 'Exit code 1', isError: true };
        await new Promise<void>((r) => { if (ctx.signal.aborted) r(); else ctx.signal.addEventListener('abort', () => r(), { once: true }); });
        seen[i.id] = String((ctx.signal.reason as Error).name);
        throw new Error('stopped');
      },
    });
    const other = testTool('Other', { isConcurrencySafe: () => true, isReadOnly: () => true, call: async (_i, ctx) => { await new Promise((r) => setTimeout(r, 20)); return ctx.signal.aborted ? 'aborted' : 'fine'; } });
    const k = await kernelWith([bash, other]);
    const run = new AbortController();
    const out = await runCalls(k, [use('Bash', { id: 'w' }), use('Other', { id: 'o' }), use('Bash', { id: 'f', text: 'fail', description: 'make the build dir' })], run.signal);
    expect(seen).toEqual({ w: 'SiblingAbortError' });
    expect(textOf(out.results[0]!)).toContain('Cancelled: a parallel Bash call failed (make the build dir)');
    expect(textOf(out.results[1]!)).toBe('fine');
    expect(out.results[2]!.is_error).toBe(true);
    expect(run.signal.aborted).toBe(false);
  });
  it('takes its limit from maxConcurrency', async () => {
    let running = 0;
    let peak = 0;
    const t = testTool('Slow', { isConcurrencySafe: () => true, call: async () => { running++; peak = Math.max(peak, running); await new Promise((r) => setTimeout(r, 20)); running--; return 'ok'; } });
    const k = await kernelWith([t], { maxConcurrency: 2 });
    const out = await runCalls(k, ['1', '2', '3', '4', '5'].map((id) => use('Slow', { id })));
    expect(peak).toBe(2);
    expect(out.results.map(textOf)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
  });

  it('cancels the siblings of the tools siblingCancel names, and only those', async () => {
    // Waits for its signal (up to 300 ms): a cancelled call throws, one left alone says so.
    const waiter = testTool('Fetch', {
      isConcurrencySafe: () => true,
      call: async (i, ctx) => {
        if (i.text === 'fail') return { content: 'failed', isError: true };
        const aborted = await new Promise<boolean>((r) => { const t = setTimeout(() => r(false), 300); ctx.signal.addEventListener('abort', () => { clearTimeout(t); r(true); }, { once: true }); });
        if (aborted) throw new Error('stopped');
        return 'left alone';
      },
    });
    const calls = () => [use('Fetch', { id: 'w', description: 'wait' }), use('Fetch', { id: 'f', text: 'fail', description: 'get the page' })];
    const on = await runCalls(await kernelWith([waiter], { siblingCancel: ['Fetch'] }), calls());
    expect(on.results.map(textOf)).toEqual([expect.stringContaining('Cancelled: a parallel Fetch call failed (get the page)'), 'failed']);
    const off = await runCalls(await kernelWith([waiter]), calls());
    expect(off.results.map(textOf)).toEqual(['left alone', 'failed']);
  });
});
