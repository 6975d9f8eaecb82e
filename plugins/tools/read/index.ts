/**
 * `tools/read`: registers the `Read` tool (see tool.ts and README.md).
 */
import { definePlugin } from '../../../kernel/index.js';
import { readTool } from './tool.js';

export { readTool, DEFAULT_READ_LINES, MAX_READ_CHARS, MAX_IMAGE_BYTES } from './tool.js';

export default definePlugin({
  name: 'tools/read',
  description: 'The Read tool: numbered lines of a file (offset/limit), images as image blocks, binary files refused.',
  apply(kernel) {
    kernel.tools.register(readTool, 'tools/read');
  },
});
