/**
 * `tools/glob`: registers the `Glob` tool (see tool.ts and README.md).
 */
import { definePlugin } from '../../../kernel/index.js';
import { globTool } from './tool.js';

export { globTool, GLOB_MAX_RESULTS } from './tool.js';

export default definePlugin({
  name: 'tools/glob',
  description: 'The Glob tool: files matching a glob pattern, .gitignore-aware, newest first, capped at 100.',
  apply(kernel) {
    kernel.tools.register(globTool, 'tools/glob');
  },
});
