/**
 * `tools/todo-write`: registers the `TodoWrite` tool (see tool.ts and README.md), and puts the
 * current task list back after every compaction (`postCompact` attachments).
 */
import { definePlugin } from '../../../kernel/index.js';
import { getTodos, todoListText, todoWriteTool } from './tool.js';

export { getTodos, todoListText, todoWriteTool, type TodoItem } from './tool.js';

export default definePlugin({
  name: 'tools/todo-write',
  description: 'The TodoWrite tool: the model\'s task list, kept in session state, restored on resume and put back after every compaction.',
  apply(kernel) {
    kernel.tools.register(todoWriteTool, 'tools/todo-write');
    // A summary may drop or garble the list; the current one goes back in after every compaction.
    kernel.hooks.postCompact.tap('tools/todo-write', (post) => {
      const todos = getTodos(kernel);
      if (todos.length) post.attachments.push({ type: 'text', text: todoListText(todos) });
    });
  },
});
