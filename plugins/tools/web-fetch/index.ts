/**
 * `tools/web-fetch`: registers the `WebFetch` tool (see tool.ts and README.md).
 */
import { z } from 'zod';
import { definePlugin } from '../../../kernel/index.js';
import { createWebFetchTool, DEFAULT_MAX_BYTES, DEFAULT_MAX_CONTENT_CHARS, DEFAULT_MAX_RAW_CHARS, DEFAULT_TIMEOUT_MS } from './tool.js';

export { createWebFetchTool } from './tool.js';
export { fetchPage } from './fetch.js';

export const webFetchOptions = z.strictObject({
  /** `extract`: a side request reads the page and answers the prompt; `raw`: return the page text. */
  mode: z.enum(['extract', 'raw']).default('extract').register(z.globalRegistry, { description: '`extract`: a side request reads the page and answers the call\'s prompt; `raw`: return the page text.' }),
  /** Model of the reading side request (default: the session's model). */
  model: z.string().optional().register(z.globalRegistry, { description: 'Model of the reading side request; default: the session\'s model.' }),
  /** Largest body read, bytes (default 10 MB). */
  maxBytes: z.number().int().positive().default(DEFAULT_MAX_BYTES).register(z.globalRegistry, { description: 'Largest response body read, bytes (Claude Code: 10 MB).' }),
  /** Time for the whole fetch, ms (default 60,000). */
  timeoutMs: z.number().int().positive().default(DEFAULT_TIMEOUT_MS).register(z.globalRegistry, { description: 'Time for the whole fetch, ms.' }),
  /** Page characters given to the reading model (default 100,000). */
  maxContentChars: z.number().int().positive().default(DEFAULT_MAX_CONTENT_CHARS).register(z.globalRegistry, { description: 'Page characters given to the reading model (Claude Code cuts the page at 100,000).' }),
  /** Page characters returned in raw mode (default 40,000). */
  maxRawChars: z.number().int().positive().default(DEFAULT_MAX_RAW_CHARS).register(z.globalRegistry, { description: 'Page characters returned in raw mode (kept under the 50,000-character result cap).' }),
});

export default definePlugin({
  name: 'tools/web-fetch',
  description: 'The WebFetch tool: fetches a page (size and time limits, same-host redirects), converts HTML to Markdown, answers the prompt with a side request.',
  options: webFetchOptions,
  apply(kernel, options) {
    kernel.tools.register(createWebFetchTool(options), 'tools/web-fetch');
  },
});
