/**
 * `tools/edit`: registers the `Edit` tool (see tool.ts and README.md).
 */
import { z } from 'zod';
import { definePlugin } from '../../../kernel/index.js';
import { condensedTool, descriptionStyle } from '../shared/schema.js';
import { CONDENSED_DESCRIPTION, editTool } from './tool.js';

export { editTool } from './tool.js';

export default definePlugin({
  name: 'tools/edit',
  description: 'The Edit tool: exact, unique string replacement in a file read earlier and unchanged since.',
  options: z.strictObject({
    /** The tool description: `full` (default) or `condensed` (same contract, fewer words). */
    description: descriptionStyle,
  }),
  apply(kernel, options) {
    kernel.tools.register(options.description === 'condensed' ? condensedTool(editTool, CONDENSED_DESCRIPTION) : editTool, 'tools/edit');
  },
});
