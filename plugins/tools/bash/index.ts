/**
 * `tools/bash`: registers the `Bash` tool (see tool.ts and README.md).
 */
import { z } from 'zod';
import { definePlugin } from '../../../kernel/index.js';
import { createBashTool, DEFAULT_BASH_TIMEOUT_MS, MAX_BASH_TIMEOUT_MS } from './tool.js';

export { bashCwd, bashTool, createBashTool, BASH_MAX_OUTPUT_CHARS, DEFAULT_BASH_TIMEOUT_MS, MAX_BASH_TIMEOUT_MS } from './tool.js';
export { isReadOnlyCommand } from './read-only.js';

export const bashOptions = z.strictObject({
  /** Timeout of a call that gives none, ms (default 120,000; at most 600,000). */
  defaultTimeoutMs: z.number().int().positive().max(MAX_BASH_TIMEOUT_MS).default(DEFAULT_BASH_TIMEOUT_MS),
  /** Environment variables set for every command. */
  env: z.record(z.string(), z.string()).default({}),
});

export default definePlugin({
  name: 'tools/bash',
  description: 'The Bash tool: a real bash, persistent working directory, process-group timeouts, large output saved to the session.',
  options: bashOptions,
  apply(kernel, options) {
    kernel.tools.register(createBashTool(options), 'tools/bash');
  },
});
