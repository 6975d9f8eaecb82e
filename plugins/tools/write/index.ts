/**
 * `tools/write`: registers the `Write` tool (see tool.ts and README.md).
 */
import { definePlugin } from '../../../kernel/index.js';
import { writeTool } from './tool.js';

export { writeTool } from './tool.js';

export default definePlugin({
  name: 'tools/write',
  description: 'The Write tool: writes a whole file; an existing file only after it was read and while unchanged since.',
  apply(kernel) {
    kernel.tools.register(writeTool, 'tools/write');
  },
});
