/**
 * Whether each strategy of a preset acted in a replay. A preset whose compaction threshold no
 * workload reaches costs what the preset without it costs, and a report that ranks the two equal
 * should say why: each run lists its strategy plugins with how often each acted, and the report
 * names, per preset, those that never did on the ranked workloads (report/model.ts `idleStrategies`).
 *
 * What counts as acting, from the run's own metrics:
 * - `compaction/auto`: an automatic summary compaction (recorded manual ones are the recording's);
 *   with its threshold, tokens (`thresholdsFor`, the options as the replay's kernel saw them).
 * - `compaction/microcompact`, `compaction/dedup`, `compaction/snip`: a history rewrite by a context
 *   strategy (the replay sees the rewrite, not which plugin made it, so they are counted together);
 *   microcompact's `idle` trigger with its idle minutes.
 * - `compaction/context-edits`: a request on which the API cleared context (`context_management`).
 * - `cache/keepalive`: a keep-alive request (source `side`).
 * - `cache/ttl`: a request that wrote to the cache with the 1-hour TTL.
 */
import type { KernelPreset } from '../../kernel/kernel.js';
import type { Plugin } from '../../kernel/plugin.js';
import { autoCompactOptions, thresholdsFor } from '../../plugins/compaction/auto/index.js';
import { microcompactOptions } from '../../plugins/compaction/microcompact/index.js';
import type { CompactionMetrics, RequestMetrics } from '../metrics/types.js';

/** One strategy plugin of a preset in one run. */
export interface StrategyActivity {
  /** The plugin's name (`compaction/auto`, `cache/keepalive`, ...). */
  plugin: string;
  /** How many times it acted in the run (see the module comment for what counts). */
  acted: number;
  /** `compaction/auto`: the context at which it compacts, tokens. */
  threshold?: number;
  /** `compaction/microcompact` with an idle trigger: the idle time after which it clears, minutes (undefined: the cache TTL). */
  idleMinutes?: number | null;
  /** `compaction/microcompact`: its trigger (`idle`, `count`, `both`, `prune`, `cost`). */
  trigger?: string;
}

const REWRITERS = new Set(['compaction/microcompact', 'compaction/dedup', 'compaction/snip']);

/** The strategies among `plugins` with how often each acted in the run of `requests` and `compactions`. */
export function strategyActivity(plugins: readonly { plugin: Plugin; options?: unknown }[], preset: KernelPreset, requests: readonly RequestMetrics[], compactions: readonly CompactionMetrics[]): StrategyActivity[] {
  const out: StrategyActivity[] = [];
  const rewrites = compactions.filter((c) => c.kind === 'context-edit').length;
  for (const { plugin, options } of plugins) {
    const name = plugin.name;
    if (name === 'compaction/auto') {
      const o = autoCompactOptions.safeParse(options ?? {});
      out.push({
        plugin: name,
        acted: compactions.filter((c) => c.kind === 'compaction' && c.strategy.startsWith('auto')).length,
        ...(o.success ? { threshold: thresholdsFor(preset, o.data).threshold } : {}),
      });
    } else if (REWRITERS.has(name)) {
      const o = name === 'compaction/microcompact' ? microcompactOptions.safeParse(options ?? {}) : undefined;
      out.push({ plugin: name, acted: rewrites, ...(o?.success ? { trigger: o.data.trigger, idleMinutes: o.data.idleMinutes ?? null } : {}) });
    } else if (name === 'compaction/context-edits') {
      out.push({ plugin: name, acted: requests.filter((r) => r.apiClearing).length });
    } else if (name === 'cache/keepalive') {
      out.push({ plugin: name, acted: requests.filter((r) => r.source === 'side').length });
    } else if (name === 'cache/ttl') {
      out.push({ plugin: name, acted: requests.filter((r) => r.cacheWrite1h > 0).length });
    }
  }
  return out;
}

/** The longest gap between consecutive main-loop requests of a run, ms (0 with fewer than two). */
export function longestGapMs(requests: readonly RequestMetrics[]): number {
  let prev: number | undefined;
  let most = 0;
  for (const r of requests) {
    if (r.source !== 'main_loop') continue;
    if (prev !== undefined) most = Math.max(most, r.at - prev);
    prev = r.at;
  }
  return most;
}

/** Tokens as `61k` (the nearest thousand; below 1,000 as they are). */
function kTokens(n: number): string {
  return n >= 1_000 ? `${Math.round(n / 1_000)}k` : String(n);
}

/** Minutes with one decimal. */
function minutes(ms: number): string {
  return `${(ms / 60_000).toFixed(1)} min`;
}

/**
 * The strategies that acted in none of `runs` (one preset's runs on the ranked workloads), each as
 * one line saying why: the largest context against the compaction threshold, the longest gap
 * between requests against an idle trigger. Empty when every strategy acted somewhere (or none ran).
 */
export function idleStrategies(runs: readonly { summary: { peakContext: number }; requests: readonly RequestMetrics[]; strategies?: readonly StrategyActivity[] }[]): string[] {
  if (!runs.length) return [];
  const byPlugin = new Map<string, StrategyActivity[]>();
  for (const r of runs) for (const s of r.strategies ?? []) byPlugin.set(s.plugin, [...(byPlugin.get(s.plugin) ?? []), s]);
  const peak = Math.max(...runs.map((r) => r.summary.peakContext));
  const gap = Math.max(...runs.map((r) => longestGapMs(r.requests)));
  const out: string[] = [];
  for (const [plugin, list] of byPlugin) {
    if (list.some((s) => s.acted > 0)) continue;
    const first = list[0]!;
    if (plugin === 'compaction/auto') {
      const thresholds = list.map((s) => s.threshold).filter((t): t is number => t !== undefined);
      out.push(`compaction never triggered: largest context ${kTokens(peak)} tokens${thresholds.length ? ` < threshold ${kTokens(Math.min(...thresholds))}` : ''}`);
    } else if (plugin === 'compaction/microcompact') {
      const idle = first.trigger === 'idle' || first.trigger === 'both' || first.trigger === 'cost';
      const limit = first.idleMinutes ? `${first.idleMinutes} min` : 'the cache TTL';
      out.push(`tool results never cleared (microcompact, trigger ${first.trigger ?? '?'})${idle ? `: longest gap between requests ${minutes(gap)}, idle after ${limit}` : ''}`);
    } else if (plugin === 'compaction/dedup') {
      out.push('no duplicate tool result removed (dedup)');
    } else if (plugin === 'compaction/snip') {
      out.push('nothing snipped (snip)');
    } else if (plugin === 'compaction/context-edits') {
      out.push(`the API never cleared context (context-edits): largest context ${kTokens(peak)} tokens`);
    } else if (plugin === 'cache/keepalive') {
      out.push(`no keep-alive request sent (keepalive): longest gap between requests ${minutes(gap)}`);
    } else if (plugin === 'cache/ttl') {
      out.push('the 1-hour TTL was never chosen (ttl)');
    }
  }
  return out;
}
