/**
 * `cache/breakpoints`: puts `cache_control` markers on each request so the API caches its prefix,
 * and keeps everything that is part of the cache key stable for the whole session:
 * - the TTL (`5m` or `1h`) is chosen once and recorded, so a resumed session keeps it even if the
 *   preset changed (Claude Code latches it for the same reason);
 * - beta flags, once sent, are sent on every later request (Claude Code: a beta toggled
 *   mid-session changes the cache key);
 * - tool definitions go out in a stable order: built-in tools by name, then MCP tools by name.
 * Markers never exceed the API's limit of 4 per request, counting markers others placed.
 */
import { z } from 'zod';
import { REQUEST_STAGE, type Kernel, type ModelRequest, createKernelState, definePlugin, type ToolDefinition } from '../../../kernel/index.js';
import { cacheControlFor, LAYOUTS, messageMarkerCounter, placeMarkers, type TailMark } from './layout.js';

export const PLUGIN_NAME = 'cache/breakpoints';

export const breakpointsOptions = z.object({
  /** Where markers go (see layout.ts). */
  layout: z.enum(LAYOUTS).default('tools+system+tail').register(z.globalRegistry, { description: 'Where the `cache_control` markers go: `none`, `system`, `tools+system`, `tools+system+tail` (one marker moving with the last message), `two-tail`, `tail`, `system+last-two` or `auto` (the request\'s top-level marker); see the plugin README.' }),
  /** Cache TTL: `5m` (writes cost 1.25× input) or `1h` (2×); chosen once per session. */
  ttl: z.enum(['5m', '1h']).default('5m').register(z.globalRegistry, { description: 'Cache TTL of the markers: `5m` (writes cost 1.25× the input price) or `1h` (2×); chosen once per session and kept on resume.' }),
  /** Send tools in a stable order (built-ins by name, then `mcp__` tools by name). */
  sortTools: z.boolean().default(true).register(z.globalRegistry, { description: 'Send tool definitions in a stable order (built-in tools by name, then `mcp__` tools by name) so the cached prefix does not change.' }),
  /** Keep sending every beta flag once it has been sent. */
  latchBetas: z.boolean().default(true).register(z.globalRegistry, { description: 'Once a beta flag has been sent, send it on every later request of the session (a beta toggled mid-session changes the cache key).' }),
}).strict();

export type BreakpointsOptions = z.output<typeof breakpointsOptions>;

/** What the plugin records in the transcript. */
export interface BreakpointsRecord {
  ttl?: '5m' | '1h';
  /** Beta flags latched so far (the whole set, in first-sent order). */
  betas?: string[];
}

/** The session's cache settings as the plugin decided them. */
export interface SessionCache {
  ttl: '5m' | '1h';
  layout: BreakpointsOptions['layout'];
  betas: readonly string[];
}

/**
 * What the plugin shares with other plugins, under the kernel state key `cache/breakpoints`: the
 * session's cache settings once it has started (microcompact times its idle trigger by the TTL).
 */
export interface BreakpointsState { current?: SessionCache }

const cacheState = createKernelState<BreakpointsState>(PLUGIN_NAME, () => ({}));

/** The cache settings of a kernel's session, once `cache/breakpoints` has started it. */
export function sessionCache(kernel: Kernel): SessionCache | undefined {
  return cacheState(kernel).current;
}

/** Built-ins by name, then MCP tools (`mcp__server__tool`) by name. */
export function sortToolDefinitions(tools: readonly ToolDefinition[]): ToolDefinition[] {
  const mcp = (t: ToolDefinition) => (t.name.startsWith('mcp__') ? 1 : 0);
  return [...tools].sort((a, b) => mcp(a) - mcp(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * `sortToolDefinitions` for the successive requests of one session: the same definitions (the same
 * objects, in the same order) as the last time give last time's order again, a fresh array, without
 * sorting. A session mostly sends the same tools every request; sorting them anew made the
 * comparator hot, and definitions of several shapes reaching it made V8 recompile it again and again.
 */
function toolSorter(): (tools: readonly ToolDefinition[]) => ToolDefinition[] {
  let lastIn: readonly ToolDefinition[] = [];
  let lastOut: readonly ToolDefinition[] = [];
  return (tools) => {
    if (tools.length !== lastIn.length || tools.some((t, i) => t !== lastIn[i])) {
      lastIn = tools.slice();
      lastOut = sortToolDefinitions(tools);
    }
    return lastOut.slice();
  };
}

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'cache_control markers (layouts none … two-tail, auto), a TTL chosen once per session, latched betas, stable tool order',
  options: breakpointsOptions,
  apply(kernel, options) {
    const state: SessionCache & { betas: string[] } = { ttl: options.ttl, layout: options.layout, betas: [] };
    let started = false;
    let staticSystemBlocks = 0;
    let previousTail: TailMark | undefined;
    let warnedLimit = false;
    const messageMarkers = messageMarkerCounter();

    const start = () => {
      if (started) return;
      started = true;
      const records = kernel.transcript.pluginData<BreakpointsRecord>(PLUGIN_NAME);
      const recordedTtl = records.find((r) => r.ttl)?.ttl;
      for (const r of records) for (const b of r.betas ?? []) if (!state.betas.includes(b)) state.betas.push(b);
      if (recordedTtl) {
        if (recordedTtl !== options.ttl) {
          kernel.emit({ type: 'notice', level: 'info', source: PLUGIN_NAME, message: `keeping this session's cache TTL ${recordedTtl} (the preset now says ${options.ttl}); changing it mid-session would rewrite the whole cached prefix` });
        }
        state.ttl = recordedTtl;
      } else {
        kernel.transcript.append({ type: 'plugin', plugin: PLUGIN_NAME, data: { ttl: state.ttl } satisfies BreakpointsRecord });
      }
      cacheState(kernel).current = state;
    };

    kernel.hooks.sessionStart.tap(PLUGIN_NAME, () => start());

    if (options.sortTools) kernel.hooks.toolDefinitions.tap(PLUGIN_NAME, toolSorter());

    kernel.hooks.systemPrompt.tap({ name: PLUGIN_NAME, stage: 100_000 }, (sections) => {
      staticSystemBlocks = sections.some((s) => s.kind === 'static' && s.text) ? 1 : 0;
      return sections;
    });

    kernel.hooks.request.tap({ name: PLUGIN_NAME, stage: REQUEST_STAGE.CACHE_BREAKPOINTS }, (params) => {
      start();
      let out = params as ModelRequest;
      if (options.latchBetas) {
        const added = (out.betas ?? []).filter((b) => !state.betas.includes(b));
        if (added.length) {
          state.betas.push(...added);
          kernel.transcript.append({ type: 'plugin', plugin: PLUGIN_NAME, data: { betas: [...state.betas] } satisfies BreakpointsRecord });
        }
        if (state.betas.length) out = { ...out, betas: [...state.betas] };
      }
      const r = placeMarkers({ layout: state.layout, cacheControl: cacheControlFor(state.ttl), staticSystemBlocks, previousTail, messageMarkers }, out);
      if (r.tail) previousTail = r.tail;
      if (r.skipped.length && !warnedLimit) {
        warnedLimit = true;
        kernel.emit({ type: 'notice', level: 'warn', source: PLUGIN_NAME, message: `the limit of 4 cache markers per request left no room for ${r.skipped.join(', ')} (other plugins placed markers too)` });
      }
      return r.params;
    });
  },
});
