/**
 * `sanitize`: injection hygiene for everything tools bring back. Taps `postToolUse`:
 *
 * - every tool's result text (`neutralize`, default all tools) is neutralised: terminal escape
 *   sequences and control characters, invisible characters (format, private-use, unassigned:
 *   zero-width, bidi controls, Unicode Tag characters) and forged openings or closings of rein's
 *   own context tags (`<system-reminder>` in any spelling) are taken out or escaped. Text only:
 *   images are left alone, and nothing a tool writes to disk is touched (Edit maps what the model
 *   saw back to the file's bytes);
 * - results from outside (`tools`, default MCP tools and WebFetch) are, besides, NFKC-normalised
 *   (folding look-alike forms) and wrapped in a provenance tag naming the tool (and the URL for
 *   WebFetch), so the model can tell where the text came from.
 *
 * MCP tool descriptions are sanitised in `toolDefinitions` too, since they come from the server.
 * When invisible characters or forged tags were removed, a `notice` event says how many.
 */
import picomatch from 'picomatch';
import { z } from 'zod';
import { definePlugin, type ContentBlock, type ToolOutput } from '../../kernel/index.js';
import { MAX_SANITIZE_PASSES, neutralizeText, sanitizeText, wrapExternal } from '../../lib/index.js';

export const sanitizeOptions = z.object({
  /** Tool-name globs whose results come from outside: normalised (NFKC) and wrapped in provenance tags besides. */
  tools: z.array(z.string().min(1)).default(['mcp__*', 'WebFetch']).register(z.globalRegistry, { description: 'Tool-name globs whose results come from outside: besides being neutralised, they are NFKC-normalised and wrapped in a provenance tag.' }),
  /** Tool-name globs whose result text is neutralised (default: every tool). */
  neutralize: z.array(z.string().min(1)).default(['*']).register(z.globalRegistry, { description: 'Tool-name globs whose result text is neutralised (terminal escapes, invisible characters and forged context tags removed or escaped).' }),
  /** Most sanitisation passes (Claude Code: 10). */
  maxPasses: z.number().int().min(1).max(100).default(MAX_SANITIZE_PASSES).register(z.globalRegistry, { description: 'Most normalisation passes over an outside result until it is stable (Claude Code: 10).' }),
  /** Wrap results of `tools` in `<external-content>` provenance tags. */
  provenance: z.boolean().default(true).register(z.globalRegistry, { description: 'Wrap results of `tools` in `<external-content>` tags naming the tool (and the URL for WebFetch).' }),
}).strict();

export type SanitizeOptions = z.output<typeof sanitizeOptions>;

/** What sanitising one output changed. */
export interface SanitizeStats {
  /** Invisible or non-standard characters removed or folded. */
  removed: number;
  /** Forged openings or closings of reserved tags escaped. */
  tags: number;
  /** Terminal escape sequences and control characters removed. */
  controls: number;
}

/**
 * Neutralises a tool output's text blocks and, when `external` (attrs given), normalises and tags
 * them. Returns the new output and what changed.
 */
export function sanitizeOutput(output: ToolOutput, attrs: Record<string, string> | undefined, o: SanitizeOptions): { output: ToolOutput; stats: SanitizeStats } {
  const stats: SanitizeStats = { removed: 0, tags: 0, controls: 0 };
  const clean = (t: string) => {
    const n = neutralizeText(t);
    stats.controls += n.counts.controls;
    stats.tags += n.counts.tags;
    stats.removed += n.counts.invisible;
    if (!attrs) return n.text;
    const r = sanitizeText(n.text, o.maxPasses);
    stats.removed += r.removed;
    return o.provenance ? wrapExternal(r.text, attrs) : r.text;
  };
  const blocks = (c: string | ContentBlock[]): string | ContentBlock[] => (typeof c === 'string'
    ? clean(c)
    : c.map((b) => (b.type === 'text' ? { ...b, text: clean(b.text) } : b)));
  if (typeof output === 'string' || Array.isArray(output)) return { output: blocks(output), stats };
  return { output: { ...output, content: blocks(output.content) }, stats };
}

export default definePlugin({
  name: 'sanitize',
  description: 'Neutralises every tool result (control sequences, invisible characters, forged context tags); normalises and tags MCP results and fetched pages.',
  options: sanitizeOptions,
  apply(kernel, options) {
    const external = picomatch(options.tools);
    const neutral = picomatch(options.neutralize, { dot: true });
    kernel.hooks.postToolUse.tapPromise('sanitize', async (r) => {
      const outside = external(r.toolName);
      if (!outside && !neutral(r.toolName)) return r;
      let attrs: Record<string, string> | undefined;
      if (outside) {
        attrs = { source: r.toolName };
        if (r.toolName === 'WebFetch' && typeof r.input.url === 'string') attrs.url = r.input.url;
      }
      const { output, stats } = sanitizeOutput(r.output, attrs, options);
      if (stats.removed > 0 || stats.tags > 0) {
        const what = [
          ...(stats.removed ? [`${stats.removed} invisible or non-standard characters`] : []),
          ...(stats.tags ? [`${stats.tags} forged context tag${stats.tags === 1 ? '' : 's'}`] : []),
        ].join(' and ');
        kernel.emit({ type: 'notice', level: 'warn', source: 'sanitize', message: `removed ${what} from the result of ${r.toolName}` });
      }
      return { ...r, output };
    });
    kernel.hooks.toolDefinitions.tap('sanitize', (tools) => tools.map((t) => {
      if (!t.name.startsWith('mcp__') || !t.description) return t;
      const d = sanitizeText(neutralizeText(t.description).text, options.maxPasses).text;
      return d === t.description ? t : { ...t, description: d };
    }));
  },
});

export { sanitizeText, sanitizeDeep, MAX_SANITIZE_PASSES, escapeXml, escapeXmlAttr, wrapExternal, neutraliseReservedTags } from '../../lib/index.js';
