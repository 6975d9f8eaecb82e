import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ContentBlock } from '../../kernel/types.js';
import type { Workload, WorkloadStep } from '../workloads/types.js';
import { loadBenchPreset, replayWorkload } from './replay.js';
import { readContent, VirtualWorkspace } from './workspace.js';

const t0 = Date.UTC(2025, 0, 1);
const MODEL = 'claude-sonnet-4-5';
const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_use', id, name, input }) as ContentBlock;
const result = (id: string, name: string, t: string, isError = false) => ({ toolUseId: id, toolName: name, content: [text(t)], isError });
function step(index: number, s: Partial<WorkloadStep>): WorkloadStep {
  return { index, at: t0 + index * 1000, model: MODEL, stopReason: 'tool_use', reply: [], toolResults: [], ...s };
}

/** Read a.ts (numbered), edit it, write b.ts, fail to read c.ts, read part of d.ts; a prompt that compacts; an answer. */
function session(): Workload {
  return {
    name: 'ws', format: 'scenario', model: MODEL, sidechain: false, timed: true, notes: [], cwd: '/proj',
    stats: { lines: 0, entries: 0, malformed: 0, skipped: {}, examples: [] },
    steps: [
      step(0, { prompt: [{ block: text('Rename total to sum in src/a.ts'), typed: true }], reply: [use('t1', 'Read', { file_path: '/proj/src/a.ts' })], toolResults: [result('t1', 'Read', '     1→const total = 1;\n     2→export { total };\n')] }),
      step(1, { reply: [use('t2', 'Edit', { file_path: '/proj/src/a.ts', old_string: 'total', new_string: 'sum', replace_all: true })], toolResults: [result('t2', 'Edit', 'The file has been updated.')] }),
      step(2, { reply: [use('t3', 'Write', { file_path: 'src/b.ts', content: 'export const b = 2;\n' }), use('t4', 'Read', { file_path: '/proj/src/c.ts' }), use('t5', 'read', { path: '/proj/d.md', offset: 10, limit: 2 })],
        toolResults: [result('t3', 'Write', 'ok'), result('t4', 'Read', 'ENOENT: no such file', true), result('t5', 'read', 'part of d')] }),
      // A long test log, so the compaction frees enough to be kept.
      step(3, { reply: [use('t6', 'Bash', { command: 'npm test' })], toolResults: [result('t6', 'Bash', 'ok test line\n'.repeat(3000))] }),
      step(4, { reply: [text('Done: sum in src/a.ts.')], stopReason: 'end_turn' }),
      step(5, { prompt: [{ block: text('What did you change?'), typed: true }], compactionBefore: { trigger: 'manual' }, reply: [text('src/a.ts now exports sum.')], stopReason: 'end_turn' }),
    ],
  };
}

describe('virtual workspace', () => {
  it('strips the Read tool’s line numbers and keeps plain text as it is', () => {
    expect(readContent('     1→a\n     2→\tb\n')).toBe('a\n\tb\n');
    expect(readContent('     1\ta\n<system-reminder>x</system-reminder>')).toBe('a');
    expect(readContent('# Title\nbody')).toBe('# Title\nbody');
  });

  it('has each file as the session had it at each step: reads, edits and writes in order', () => {
    const ws = new VirtualWorkspace(session(), '/tmp/rein-bench-x');
    ws.advanceTo(1);
    expect(ws.get('/proj/src/a.ts')).toEqual({ content: 'const total = 1;\nexport { total };\n', step: 0, partial: false });
    expect(ws.get('/proj/src/b.ts')).toBeUndefined();
    ws.advanceTo(3);
    expect(ws.get('/proj/src/a.ts')).toMatchObject({ content: 'const sum = 1;\nexport { sum };\n', step: 1 });
    // A relative path is the recording's cwd's; the replay's folder stands for it.
    expect(ws.get('/proj/src/b.ts')?.content).toBe('export const b = 2;\n');
    expect(ws.get('/tmp/rein-bench-x/src/b.ts')?.content).toBe('export const b = 2;\n');
    // A failed read is not a file; a partial read is, marked partial.
    expect(ws.get('/proj/src/c.ts')).toBeUndefined();
    expect(ws.get('/proj/d.md')).toMatchObject({ content: 'part of d', partial: true });
    expect(ws.paths().sort()).toEqual(['/proj/d.md', '/proj/src/a.ts', '/proj/src/b.ts']);
  });

  it('a replay restores after a compaction what the session had, within the restore limits', async () => {
    const preset = await loadBenchPreset(fileURLToPath(new URL('../presets/summary-only.yaml', import.meta.url)));
    const r = await replayWorkload(session(), preset);
    const c = r.compactions.find((x) => x.kind === "compaction")!;
    expect(c).toBeDefined();
    // Newest read first: d.md (pi's read tool, its part), then a.ts in its edited version (step 1);
    // c.ts failed to read and is not restored.
    expect(c.restoredFiles).toEqual([{ path: '/proj/d.md', step: 2, tokens: expect.any(Number) }, { path: '/proj/src/a.ts', step: 1, tokens: expect.any(Number) }]);
    expect(c.restoredFiles![0]!.tokens).toBeLessThanOrEqual(5_000);
  });

  it('reports a file the agent read by a relative path under the recording\'s path, the same on every run', async () => {
    const preset = await loadBenchPreset(fileURLToPath(new URL('../presets/summary-only.yaml', import.meta.url)));
    const relative = (): Workload => {
      const w = session();
      w.steps[2] = { ...w.steps[2]!, reply: w.steps[2]!.reply.map((b) => (b.type === 'tool_use' && b.id === 't5' ? { ...b, input: { path: 'd.md', offset: 10, limit: 2 } } : b)) };
      return w;
    };
    const paths = async () => (await replayWorkload(relative(), preset)).compactions.find((x) => x.kind === 'compaction')!.restoredFiles;
    const first = await paths();
    // The replay resolved d.md in its own randomly named folder; the report names the recording's.
    expect(first).toEqual([{ path: '/proj/d.md', step: 2, tokens: expect.any(Number) }, { path: '/proj/src/a.ts', step: 1, tokens: expect.any(Number) }]);
    expect(await paths()).toEqual(first);
  });
});

/** pi reads and edits a file under the user's home by its `~/` path, then the session compacts. */
function homeSession(): Workload {
  const w = session();
  w.format = 'pi';
  w.steps = [
    step(0, { prompt: [{ block: text('Make the theme darker'), typed: true }], reply: [use('h1', 'read', { path: '~/.pi/agent/themes/nord.json' })], toolResults: [result('h1', 'read', '{"bg": "#2e3440"}\n')] }),
    step(1, { reply: [use('h2', 'edit', { path: '~/.pi/agent/themes/nord.json', oldText: '#2e3440', newText: '#000000' })], toolResults: [result('h2', 'edit', 'Edited.')] }),
    step(2, { reply: [use('h3', 'bash', { command: 'npm test' })], toolResults: [result('h3', 'bash', 'ok test line\n'.repeat(3000))] }),
    step(3, { reply: [text('Darker now.')], stopReason: 'end_turn' }),
    step(4, { prompt: [{ block: text('Which file?'), typed: true }], compactionBefore: { trigger: 'manual' }, reply: [text('nord.json')], stopReason: 'end_turn' }),
  ];
  return w;
}

describe('files under the recorded home (`~/`)', () => {
  it('keeps them under a stand-in home, not under the working folder', () => {
    const ws = new VirtualWorkspace(homeSession(), '/tmp/rein-bench-x/work', '/tmp/rein-bench-x/home');
    ws.advanceTo(2);
    expect(ws.get('/tmp/rein-bench-x/home/.pi/agent/themes/nord.json')).toMatchObject({ content: '{"bg": "#000000"}\n', step: 1 });
    expect(ws.get('/tmp/rein-bench-x/work/~/.pi/agent/themes/nord.json')).toBeUndefined();
    expect(ws.get('/proj/~/.pi/agent/themes/nord.json')).toBeUndefined();
    expect(ws.recordedPath('/tmp/rein-bench-x/home/.pi/agent/themes/nord.json')).toBe('~/.pi/agent/themes/nord.json');
  });

  it('a replay restores a file read at `~/` after a compaction and names it by its `~/` path', async () => {
    const preset = await loadBenchPreset(fileURLToPath(new URL('../presets/summary-only.yaml', import.meta.url)));
    const c = (await replayWorkload(homeSession(), preset)).compactions.find((x) => x.kind === 'compaction')!;
    expect(c.restoredFiles).toEqual([{ path: '~/.pi/agent/themes/nord.json', step: 1, tokens: expect.any(Number) }]);
  });
});
