/**
 * `WebFetch`: fetches a URL and answers a question about it. By default a side request to a model
 * reads the page (as Markdown) and answers `prompt`, so the main context gets the answer instead of
 * the page; in `raw` mode (or when that request fails) the page text itself is returned, cut to a cap.
 */
import { z } from 'zod';
import { defineTool, type Tool, type ContentBlock } from '../../../kernel/index.js';
import { fetchPage } from './fetch.js';
import { INPUT_JSON_SCHEMAS } from '../shared/generated/input-schemas.js';

/** Largest body read, bytes (Claude Code's MAX_HTTP_CONTENT_LENGTH: 10 MB). */
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
/** Time for the whole fetch, ms. */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** Page characters given to the reading model (Claude Code cuts the Markdown at 100,000 characters). */
export const DEFAULT_MAX_CONTENT_CHARS = 100_000;
/** Page characters returned in raw mode (kept under the 50,000-character result cap). */
export const DEFAULT_MAX_RAW_CHARS = 40_000;

export const webFetchInput = z.lazy(() => z.strictObject({
  url: z.string().url().describe('The full URL to fetch (http is upgraded to https)'),
  prompt: z.string().min(1).describe('What to find out from the page'),
}));

export type WebFetchInput = z.output<typeof webFetchInput>;

export interface WebFetchOptions {
  mode: 'extract' | 'raw';
  /** Model for the reading side request (default: the session's model). */
  model?: string;
  maxBytes: number;
  timeoutMs: number;
  maxContentChars: number;
  maxRawChars: number;
}

const DESCRIPTION = `Fetches a web page and answers a question about it.

Usage:
- Give the full URL and, in prompt, what you want to know from the page. The page is converted to Markdown and read for you; you get the answer, not the whole page.
- http URLs are upgraded to https. Only text content (HTML, plain text, JSON, XML) can be read; pages over 10 MB, or that take over a minute, are refused.
- If the site redirects to another host, you get the new URL instead of its content: call WebFetch again with it if you want it.
- It reads public pages only: anything behind a login will fail. If an MCP tool for the site exists (its name starts with mcp__), prefer it.
- It only reads; it never submits forms or changes anything.`;

function clip(text: string, max: number): { text: string; clipped: boolean } {
  return text.length > max ? { text: text.slice(0, max), clipped: true } : { text, clipped: false };
}

/** The question the reading model gets: the page, then the prompt. Our wording. */
function readingPrompt(page: string, prompt: string): string {
  return `Below is the content of a web page, between the markers.\n\n<page>\n${page}\n</page>\n\n${prompt}\n\nAnswer from the page alone, concisely. Quote exact text only where the wording matters, and briefly. If the page does not say, answer that it does not.`;
}

/** Builds the WebFetch tool. */
export function createWebFetchTool(o: WebFetchOptions): Tool<WebFetchInput> {
  return defineTool<WebFetchInput>({
    name: 'WebFetch',
    description: DESCRIPTION,
    inputSchema: webFetchInput,
    inputJsonSchema: INPUT_JSON_SCHEMAS.webFetchInput,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    maxResultSizeChars: 50_000,
    async call(input, ctx) {
      const page = await fetchPage(input.url, { maxBytes: o.maxBytes, timeoutMs: o.timeoutMs, signal: ctx.signal });
      if (page.kind === 'redirect') {
        return `${page.from} redirects (HTTP ${page.status}) to a different host: ${page.to}\nTo fetch it, call WebFetch again with url "${page.to}".`;
      }
      const header = `${page.url} (HTTP ${page.status}, ${page.contentType.split(';')[0]}, ${page.bytes} bytes)`;
      if (o.mode === 'extract') {
        const { text, clipped } = clip(page.text, o.maxContentChars);
        try {
          const reply = await ctx.kernel.sideRequest({
            max_tokens: 2_048,
            messages: [{ role: 'user', content: readingPrompt(clipped ? `${text}\n[... the rest of the page was cut]` : text, input.prompt) }],
            ...(o.model ? { model: o.model } : {}),
          }, 'side');
          const answer = (reply.content as ContentBlock[]).filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n').trim();
          if (answer) return `${header}\n\n${answer}`;
        } catch (err) {
          ctx.notify(`WebFetch: reading ${page.url} with a model failed (${(err as Error).message}); returning the page text instead`, 'warn');
        }
      }
      const { text, clipped } = clip(page.text, o.maxRawChars);
      return `${header}\n\n${text}${clipped ? `\n\n[Cut at ${o.maxRawChars} of ${page.text.length} characters.]` : ''}`;
    },
  });
}
