/**
 * `tools/grep`: registers the `Grep` tool (see tool.ts and README.md). Option `backend`: `auto`
 * (ripgrep when on PATH, else the JS search), `ripgrep`, or `js`.
 */
import { z } from 'zod';
import { definePlugin } from '../../../kernel/index.js';
import { createGrepTool } from './tool.js';
import { descriptionStyle } from '../shared/schema.js';

export { createGrepTool, grepTool, type GrepBackendChoice } from './tool.js';
export { DEFAULT_HEAD_LIMIT } from './format.js';

export const grepOptions = z.strictObject({
  /** Search backend: ripgrep when on PATH (`auto`), always ripgrep, or always the JS implementation. */
  backend: z.enum(['auto', 'ripgrep', 'js']).default('auto').register(z.globalRegistry, { description: 'Search backend: `auto` (ripgrep when on PATH, else the JS implementation), always `ripgrep`, or always `js`.' }),
  /** The tool description: `full` (default) or `condensed` (same contract, fewer words). */
  description: descriptionStyle,
});

export default definePlugin({
  name: 'tools/grep',
  description: 'The Grep tool: regex search over files with ripgrep (or a JS fallback with the same output).',
  options: grepOptions,
  apply(kernel, options) {
    kernel.tools.register(createGrepTool(options.backend, options.description), 'tools/grep');
  },
});
