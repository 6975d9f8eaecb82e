/**
 * `tools/glob`: registers the `Glob` tool (see tool.ts and README.md).
 */
import { z } from 'zod';
import { definePlugin } from '../../../kernel/index.js';
import { condensedTool, descriptionStyle } from '../shared/schema.js';
import { CONDENSED_DESCRIPTION, globTool } from './tool.js';

export { globTool, GLOB_MAX_RESULTS } from './tool.js';

export default definePlugin({
  name: 'tools/glob',
  description: 'The Glob tool: files matching a glob pattern, .gitignore-aware, newest first, capped at 100.',
  options: z.strictObject({
    /** The tool description: `full` (default) or `condensed` (same contract, fewer words). */
    description: descriptionStyle,
  }),
  apply(kernel, options) {
    kernel.tools.register(options.description === 'condensed' ? condensedTool(globTool, CONDENSED_DESCRIPTION) : globTool, 'tools/glob');
  },
});
