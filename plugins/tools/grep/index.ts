/**
 * `tools/grep`: registers the `Grep` tool (see tool.ts and README.md). Option `backend`: `auto`
 * (ripgrep when on PATH, else the JS search), `ripgrep`, or `js`.
 */
import { z } from 'zod';
import { definePlugin } from '../../../kernel/index.js';
import { createGrepTool } from './tool.js';

export { createGrepTool, grepTool, type GrepBackendChoice } from './tool.js';
export { DEFAULT_HEAD_LIMIT } from './format.js';

export const grepOptions = z.strictObject({
  /** Search backend: ripgrep when on PATH (`auto`), always ripgrep, or always the JS implementation. */
  backend: z.enum(['auto', 'ripgrep', 'js']).default('auto'),
});

export default definePlugin({
  name: 'tools/grep',
  description: 'The Grep tool: regex search over files with ripgrep (or a JS fallback with the same output).',
  options: grepOptions,
  apply(kernel, options) {
    kernel.tools.register(createGrepTool(options.backend), 'tools/grep');
  },
});
