/**
 * `TodoWrite`: the model's own task list for the session. Each call replaces the whole list; the
 * list lives in session state (per kernel, restored from the transcript on resume) where printers
 * and other plugins can read it with `getTodos(kernel)`.
 */
import { z } from 'zod';
import { type Kernel, defineTool } from '../../../kernel/index.js';
import { INPUT_JSON_SCHEMAS } from '../shared/generated/input-schemas.js';

const ENTRY = 'tools/todo-write';

export const todoItem = z.lazy(() => z.strictObject({
  content: z.string().min(1).describe('The task, in the imperative: "Run the tests"'),
  status: z.enum(['pending', 'in_progress', 'completed']),
  activeForm: z.string().min(1).describe('The task as ongoing work, shown while it runs: "Running the tests"'),
}));

export const todoWriteInput = z.lazy(() => z.strictObject({
  todos: z.array(todoItem).describe('The complete, updated task list'),
}));

export type TodoItem = z.output<typeof todoItem>;
export type TodoWriteInput = z.output<typeof todoWriteInput>;

const lists = new WeakMap<Kernel, TodoItem[]>();

/** The kernel's current task list (empty when the model never wrote one). */
export function getTodos(kernel: Kernel): readonly TodoItem[] {
  let list = lists.get(kernel);
  if (!list) {
    list = kernel.transcript.pluginData<{ todos: TodoItem[] }>(ENTRY).at(-1)?.todos ?? [];
    lists.set(kernel, list);
  }
  return list;
}

/** The task list as the model sees it after a compaction: one line per item, with its status. */
export function todoListText(todos: readonly TodoItem[]): string {
  const lines = todos.map((t, i) => `${i + 1}. [${t.status}] ${t.content}`);
  return `Your task list (TodoWrite), as it stands; keep it up to date:\n${lines.join('\n')}`;
}

const DESCRIPTION = `Creates and updates your task list for this session. Each call replaces the whole list, so always send every item with its current status.

When to use it:
- The work has three or more distinct steps, or needs planning (a feature across several files, a bug that needs investigating and testing).
- The user gives you several things to do, or asks you to keep a list.
- New requirements or follow-up steps turn up while you work: add them.
Skip it for a single, simple step or a purely conversational answer: a list there is noise.

How to use it:
- Statuses: pending (not started), in_progress (working on it now), completed (done).
- Keep exactly one item in_progress while you work, and mark it in_progress before you start it.
- Mark an item completed as soon as it is done; do not save up several to mark at once.
- Mark an item completed only when it is fully done: if tests fail, the change is partial, or you hit an error you could not resolve, keep it in_progress and add an item for what blocks it.
- Remove items that turned out to be irrelevant.
- content says what to do ("Fix the parser"); activeForm says it as ongoing work ("Fixing the parser").`;

export const todoWriteTool = defineTool<TodoWriteInput>({
  name: 'TodoWrite',
  description: DESCRIPTION,
  inputSchema: todoWriteInput,
  inputJsonSchema: INPUT_JSON_SCHEMAS.todoWriteInput,
  // It changes only the session's own state, nothing outside the process.
  isReadOnly: () => true,
  async call(input, ctx) {
    const todos = input.todos.map((t) => ({ ...t }));
    lists.set(ctx.kernel, todos);
    ctx.kernel.transcript.append({ type: 'plugin', plugin: ENTRY, data: { todos } });
    const n = (s: TodoItem['status']) => todos.filter((t) => t.status === s).length;
    const summary = `${todos.length} item${todos.length === 1 ? '' : 's'}: ${n('completed')} completed, ${n('in_progress')} in progress, ${n('pending')} pending`;
    ctx.notify(`todo list: ${summary}`);
    const warn = n('in_progress') > 1 ? ' More than one item is in progress; finish one before starting the next.' : '';
    return `Task list saved (${summary}).${warn} Keep it current: update statuses as you go.`;
  },
});
