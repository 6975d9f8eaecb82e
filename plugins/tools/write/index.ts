/**
 * `tools/write`: registers the `Write` tool (see tool.ts and README.md).
 */
import { z } from 'zod';
import { definePlugin } from '../../../kernel/index.js';
import { condensedTool, descriptionStyle } from '../shared/schema.js';
import { CONDENSED_DESCRIPTION, writeTool } from './tool.js';

export { writeTool } from './tool.js';

export default definePlugin({
  name: 'tools/write',
  description: 'The Write tool: writes a whole file; an existing file only after it was read and while unchanged since.',
  options: z.strictObject({
    /** The tool description: `full` (default) or `condensed` (same contract, fewer words). */
    description: descriptionStyle,
  }),
  apply(kernel, options) {
    kernel.tools.register(options.description === 'condensed' ? condensedTool(writeTool, CONDENSED_DESCRIPTION) : writeTool, 'tools/write');
  },
});
