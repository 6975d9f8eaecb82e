/**
 * `tools/todo-write`: registers the `TodoWrite` tool (see tool.ts and README.md).
 */
import { definePlugin } from '../../../kernel/index.js';
import { todoWriteTool } from './tool.js';

export { getTodos, todoWriteTool, type TodoItem } from './tool.js';

export default definePlugin({
  name: 'tools/todo-write',
  description: 'The TodoWrite tool: the model\'s task list, kept in session state and restored on resume.',
  apply(kernel) {
    kernel.tools.register(todoWriteTool, 'tools/todo-write');
  },
});
