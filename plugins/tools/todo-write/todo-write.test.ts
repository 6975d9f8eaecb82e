import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import todoPlugin, { getTodos } from './index.js';
import { callTool, cleanupTempDirs, tempDir, textOf, toolKernel, useTempReinHome } from '../../../testing/tools.js';

let dir: string;
beforeAll(() => {
  useTempReinHome();
  dir = tempDir();
});
afterAll(cleanupTempDirs);

describe('TodoWrite', () => {
  const todos = [
    { content: 'Read the code', activeForm: 'Reading the code', status: 'completed' },
    { content: 'Fix the bug', activeForm: 'Fixing the bug', status: 'in_progress' },
    { content: 'Run the tests', activeForm: 'Running the tests', status: 'pending' },
  ];

  it('keeps the list in session state, restored on resume, and is allowed without a permission rule', async () => {
    const k = await toolKernel({ cwd: dir, plugins: [{ plugin: todoPlugin }], allowAll: false });
    const r = await callTool(k, 'TodoWrite', { todos });
    expect(r.is_error).toBeUndefined();
    expect(textOf(r)).toContain('3 items: 1 completed, 1 in progress, 1 pending');
    expect(getTodos(k)).toEqual(todos);
    const resumed = await toolKernel({ cwd: dir, plugins: [{ plugin: todoPlugin }], resume: k.sessionId });
    expect(getTodos(resumed)).toEqual(todos);
  });

  it('rejects a bad status naming the item and field', async () => {
    const k = await toolKernel({ cwd: dir, plugins: [{ plugin: todoPlugin }] });
    const r = await callTool(k, 'TodoWrite', { todos: [{ content: 'x', activeForm: 'x', status: 'done' }] });
    expect(r.is_error).toBe(true);
    expect(textOf(r)).toContain('todos.0.status');
    expect(getTodos(k)).toEqual([]);
  });
});
