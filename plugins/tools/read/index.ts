/**
 * `tools/read`: registers the `Read` tool (see tool.ts and README.md).
 */
import { z } from 'zod';
import { definePlugin } from '../../../kernel/index.js';
import { condensedTool, descriptionStyle } from '../shared/schema.js';
import { CONDENSED_DESCRIPTION, readTool } from './tool.js';

export { readTool, DEFAULT_READ_LINES, MAX_READ_CHARS, MAX_IMAGE_BYTES } from './tool.js';

export default definePlugin({
  name: 'tools/read',
  description: 'The Read tool: numbered lines of a file (offset/limit), images as image blocks, binary files refused.',
  options: z.strictObject({
    /** The tool description: `full` (default) or `condensed` (same contract, fewer words). */
    description: descriptionStyle,
  }),
  apply(kernel, options) {
    kernel.tools.register(options.description === 'condensed' ? condensedTool(readTool, CONDENSED_DESCRIPTION) : readTool, 'tools/read');
  },
});
