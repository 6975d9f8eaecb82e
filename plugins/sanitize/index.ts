/**
 * `sanitize`: injection hygiene at trust boundaries. Taps `postToolUse` for tools whose results
 * come from outside (MCP tools `mcp__*` and WebFetch by default): every text block is Unicode-
 * sanitised and wrapped in a provenance tag naming the tool (and the URL for WebFetch). MCP tool
 * descriptions are sanitised in `toolDefinitions` too, since they come from the server. When
 * characters were removed, a `notice` event says how many.
 */
import picomatch from 'picomatch';
import { z } from 'zod';
import { definePlugin, type ToolOutput, type ContentBlock } from '../../kernel/index.js';
import { wrapExternal } from './provenance.js';
import { MAX_SANITIZE_PASSES, sanitizeText } from './unicode.js';

export const sanitizeOptions = z.object({
  /** Tool-name globs whose results cross a trust boundary. */
  tools: z.array(z.string().min(1)).default(['mcp__*', 'WebFetch']),
  /** Most sanitisation passes (Claude Code: 10). */
  maxPasses: z.number().int().min(1).max(100).default(MAX_SANITIZE_PASSES),
  /** Wrap results in `<external-content>` provenance tags. */
  provenance: z.boolean().default(true),
}).strict();

export type SanitizeOptions = z.output<typeof sanitizeOptions>;

/** Sanitises and tags a tool output; `removed` counts characters taken out. */
export function sanitizeOutput(output: ToolOutput, attrs: Record<string, string>, o: SanitizeOptions): { output: ToolOutput; removed: number } {
  let removed = 0;
  const clean = (t: string) => {
    const r = sanitizeText(t, o.maxPasses);
    removed += r.removed;
    return o.provenance ? wrapExternal(r.text, attrs) : r.text;
  };
  const blocks = (c: string | ContentBlock[]): string | ContentBlock[] => (typeof c === 'string'
    ? clean(c)
    : c.map((b) => (b.type === 'text' ? { ...b, text: clean(b.text) } : b)));
  if (typeof output === 'string' || Array.isArray(output)) return { output: blocks(output), removed };
  return { output: { ...output, content: blocks(output.content) }, removed };
}

export default definePlugin({
  name: 'sanitize',
  description: 'Unicode sanitisation and provenance tags for MCP tool results and fetched pages.',
  options: sanitizeOptions,
  apply(kernel, options) {
    const external = picomatch(options.tools);
    kernel.hooks.postToolUse.tapPromise('sanitize', async (r) => {
      if (!external(r.toolName)) return r;
      const attrs: Record<string, string> = { source: r.toolName };
      if (r.toolName === 'WebFetch' && typeof r.input.url === 'string') attrs.url = r.input.url;
      const { output, removed } = sanitizeOutput(r.output, attrs, options);
      if (removed > 0) kernel.emit({ type: 'notice', level: 'warn', source: 'sanitize', message: `removed ${removed} invisible or non-standard characters from the result of ${r.toolName}` });
      return { ...r, output };
    });
    kernel.hooks.toolDefinitions.tap('sanitize', (tools) => tools.map((t) => {
      if (!t.name.startsWith('mcp__') || !t.description) return t;
      const d = sanitizeText(t.description, options.maxPasses).text;
      return d === t.description ? t : { ...t, description: d };
    }));
  },
});

export { sanitizeText, sanitizeDeep, MAX_SANITIZE_PASSES } from './unicode.js';
export { escapeXml, escapeXmlAttr, wrapExternal, neutraliseReservedTags } from './provenance.js';
