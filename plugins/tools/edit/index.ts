/**
 * `tools/edit`: registers the `Edit` tool (see tool.ts and README.md).
 */
import { definePlugin } from '../../../kernel/index.js';
import { editTool } from './tool.js';

export { editTool } from './tool.js';

export default definePlugin({
  name: 'tools/edit',
  description: 'The Edit tool: exact, unique string replacement in a file read earlier and unchanged since.',
  apply(kernel) {
    kernel.tools.register(editTool, 'tools/edit');
  },
});
