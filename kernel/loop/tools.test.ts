import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RESULT_CHARS } from './tool-results.js';
import { definePlugin, type AgentEvent } from '../index.js';
import {
  cleanupTempDirs, runCalls, tempDir, testTool, textOf, toolKernel, toolsPlugin, use, useTempReinHome,
} from '../../testing/tools.js';

let dir: string;
beforeAll(() => {
  useTempReinHome();
  dir = tempDir();
});
afterAll(cleanupTempDirs);

describe('runToolCalls', () => {
  it('runs calls one at a time when no toolBatch tap answers', async () => {
    const log: string[] = [];
    const t = testTool('Ser', { call: async (i) => { log.push(`start ${i.id}`); await new Promise((r) => setTimeout(r, 5)); log.push(`end ${i.id}`); return i.id; } });
    const k = await toolKernel({ cwd: dir, plugins: [{ plugin: toolsPlugin(t) }] });
    await runCalls(k, [use('Ser', { id: '1' }), use('Ser', { id: '2' })]);
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('caps one result at min(tool cap, 50,000) characters, saving the whole and keeping a preview cut at a newline', async () => {
    const line = 'x'.repeat(99) + '\n';
    const big = (name: string, cap: number) => testTool(name, { maxResultSizeChars: cap, call: async (i) => line.repeat(Math.ceil(i.size! / 100)).slice(0, i.size!) });
    const k = await toolKernel({ cwd: dir, plugins: [{ plugin: toolsPlugin(big('Small', 30_000), big('Huge', 100_000), big('Free', Infinity)) }] });
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
    const k = await toolKernel({ cwd: dir, plugins: [{ plugin: toolsPlugin(testTool('Empty', { call: async () => '' }), testTool('Boom', { call: async () => { throw new Error('disk on fire'); } })) }] });
    const out = await runCalls(k, [use('Empty', { id: '1' }), use('Boom', { id: '2' })]);
    expect(textOf(out.results[0]!)).toBe('(Empty completed with no output)');
    expect(out.results[1]!.is_error).toBe(true);
    expect(textOf(out.results[1]!)).toBe('Error: disk on fire');
  });

  // The model's message does not say which plugin failed; the run goes on, so a notice tells the user.
  it.each([
    ['permission', 'the call was denied', 'Permission check failed: it broke'],
    ['preToolUse', 'the call was blocked', 'Blocked: a PreToolUse hook failed: it broke'],
    ['postToolUse', 'the result became an error', 'Error: a PostToolUse hook failed: it broke'],
  ] as const)('a %s tap that throws: a warning notice names the plugin and the hook (%s)', async (hook, outcome, text) => {
    const fragile = definePlugin({ name: 'fragile', apply(kernel) { kernel.hooks[hook].tapPromise('fragile', async () => { throw new Error('it broke'); }); } });
    const k = await toolKernel({ cwd: dir, plugins: [{ plugin: toolsPlugin(testTool('Echo', { isReadOnly: () => true, call: async (i) => i.id })) }, { plugin: fragile }] });
    const events: AgentEvent[] = [];
    k.hooks.event.tap('test', (e) => { events.push(e); });
    const out = await runCalls(k, [use('Echo', { id: '1' })]);
    expect(out.results[0]).toMatchObject({ is_error: true });
    expect(textOf(out.results[0]!)).toBe(text);
    expect(events.filter((e) => e.type === 'notice')).toEqual([
      expect.objectContaining({ level: 'warn', source: hook, message: `plugin "fragile" failed in its ${hook} tap: it broke (${outcome})` }),
    ]);
  });

});
