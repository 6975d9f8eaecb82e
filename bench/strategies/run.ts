/**
 * The strategy benchmark: one generated long session, replayed through the real kernel against the
 * in-process simulator once per strategy configuration (bench/strategies/strategies.ts), with a
 * virtual clock so idle gaps (and cache TTLs) are real to the simulator. Reports per strategy:
 * tokens by class, cost, cache-read share, compactions, peak context, cache breaks by cause, and how
 * the session ended.
 *
 *   node --import jiti/register bench/strategies/run.ts [--turns 300] [--seed 7] [--files 60]
 *        [--episode 40] [--only default,snip] [--json bench/results/strategies.json]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ModelClient } from '../../kernel/model/client.js';
import { costUsd } from '../../lib/pricing.js';
import { createSimulator } from '../../simulator/simulator.js';
import type { AgentEvent, QuerySource, Usage } from '../../kernel/types.js';
import { detectorRecords } from '../../plugins/cache/break-detector/index.js';
import { snipStats } from '../../plugins/compaction/snip/index.js';
import { microcompactStats } from '../../plugins/compaction/microcompact/index.js';
import { contextEditsStats } from '../../plugins/compaction/context-edits/index.js';
import { inProcessClient, strategyKernel } from '../../testing/strategy.js';
import { loadPlugins, STRATEGIES, type PluginList } from './strategies.js';
import { episodeResponder, generateWorkload, type GeneratedWorkload } from './workload.js';

/** Virtual time each main-loop response takes, ms (a typical model turn). */
const TURN_MS = 4_000;
const MODEL = 'claude-sonnet-4-6';

export interface StrategyResult {
  strategy: string;
  mainRequests: number;
  sideRequests: number;
  tokens: { input: number; write5m: number; write1h: number; read: number; output: number };
  costUsd: number;
  /** Cache reads over all input tokens of main-loop requests after the first. */
  readShare: number;
  compactions: number;
  /** Largest prompt of a main-loop request, tokens. */
  peakContext: number;
  breaks: Record<string, number>;
  /** Terminal reasons of the episodes, counted. */
  ends: Record<string, number>;
  wallMs: number;
}

/** A virtual clock: replaces Date.now for the duration of a run. */
function virtualClock(start: number) {
  const real = Date.now;
  let now = start;
  Date.now = () => now;
  return { advance: (ms: number) => { now += ms; }, restore: () => { Date.now = real; } };
}

/** Runs one strategy over the workload. */
export async function runStrategy(name: string, list: PluginList, w: GeneratedWorkload, cwd: string, home: string): Promise<StrategyResult> {
  const clock = virtualClock(Date.UTC(2026, 0, 5, 9, 0, 0));
  const t0 = performance.now();
  try {
    const responder = episodeResponder();
    const simulator = createSimulator({ responder });
    const inner = inProcessClient(simulator);
    const ledger: { source: QuerySource; usage: Usage; model: string }[] = [];
    const client: ModelClient = {
      ...inner,
      async send(params, opts) {
        const r = await inner.send(params, opts);
        ledger.push({ source: opts.source, usage: r.message.usage as unknown as Usage, model: r.message.model });
        if (opts.source === 'main_loop') clock.advance(TURN_MS);
        return r;
      },
    };
    const plugins = await loadPlugins(list, { 'memory-files': { userDirs: [home] }, 'system-prompt': { date: '2026-01-05', userContext: { platform: false } } });
    const kernel = await strategyKernel({ cwd, client, plugins, preset: { model: { name: MODEL, maxTokens: 8_000, contextWindow: 200_000 }, session: { dir: join(home, 'sessions') } } });
    const ends: Record<string, number> = {};
    let compactions = 0;
    kernel.hooks.event.tap('bench', (e: AgentEvent) => { if (e.type === 'compact') compactions++; });
    try {
      for (const ep of w.episodes) {
        clock.advance(ep.gapMs);
        responder.start(ep);
        const run = kernel.run({ prompt: ep.prompt });
        for await (const _ of run) { /* drain */ }
        const r = await run.result;
        ends[r.terminalReason] = (ends[r.terminalReason] ?? 0) + 1;
      }
      const main = ledger.filter((l) => l.source === 'main_loop');
      const tokens = { input: 0, write5m: 0, write1h: 0, read: 0, output: 0 };
      let cost = 0;
      for (const l of ledger) {
        const u = l.usage;
        tokens.input += u.input_tokens;
        tokens.write5m += u.cache_creation?.ephemeral_5m_input_tokens ?? u.cache_creation_input_tokens;
        tokens.write1h += u.cache_creation?.ephemeral_1h_input_tokens ?? 0;
        tokens.read += u.cache_read_input_tokens;
        tokens.output += u.output_tokens;
        cost += costUsd(l.model, u).usd;
      }
      const later = main.slice(1);
      const inputOf = (u: Usage) => u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
      const allIn = later.reduce((n, l) => n + inputOf(l.usage), 0);
      const breaks: Record<string, number> = {};
      for (const rec of detectorRecords(kernel)) if (rec.verdict.kind === 'break') breaks[rec.verdict.cause] = (breaks[rec.verdict.cause] ?? 0) + 1;
      const snips = snipStats(kernel)?.snips ?? 0;
      const micro = microcompactStats(kernel)?.passes ?? 0;
      const edits = contextEditsStats(kernel)?.appliedEdits ?? 0;
      return {
        strategy: name,
        mainRequests: main.length,
        sideRequests: ledger.length - main.length,
        tokens,
        costUsd: cost,
        readShare: allIn ? later.reduce((n, l) => n + l.usage.cache_read_input_tokens, 0) / allIn : 0,
        compactions: compactions + snips + micro + edits,
        peakContext: main.reduce((n, l) => Math.max(n, inputOf(l.usage)), 0),
        breaks,
        ends,
        wallMs: performance.now() - t0,
      };
    } finally {
      await kernel.close();
    }
  } finally {
    clock.restore();
  }
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** The results as a text table. */
export function renderResults(results: readonly StrategyResult[], w: GeneratedWorkload): string {
  const head = ['strategy', 'requests', 'input', 'write 5m', 'write 1h', 'read', 'output', 'cost $', 'read %', 'compactions', 'peak ctx', 'breaks', 'ends'];
  const rows = results.map((r) => [
    r.strategy, `${r.mainRequests}+${r.sideRequests}`, fmt(r.tokens.input), fmt(r.tokens.write5m), fmt(r.tokens.write1h), fmt(r.tokens.read), fmt(r.tokens.output),
    r.costUsd.toFixed(3), (r.readShare * 100).toFixed(1), String(r.compactions), fmt(r.peakContext),
    Object.entries(r.breaks).map(([k, v]) => `${k}:${v}`).join(' ') || '-',
    Object.entries(r.ends).map(([k, v]) => `${k}:${v}`).join(' '),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i >= 11 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const toolTurns = w.episodes.reduce((n, e) => n + e.turns.length - 1, 0);
  return [
    `workload: seed ${w.spec.seed}, ${w.episodes.length} episodes, ${toolTurns} tool turns, ${w.files.length} files; model ${MODEL}, 200k window`,
    line(head),
    ...rows.map(line),
  ].join('\n') + '\n';
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      turns: { type: 'string', default: '300' },
      seed: { type: 'string', default: '7' },
      files: { type: 'string', default: '60' },
      episode: { type: 'string', default: '40' },
      only: { type: 'string' },
      json: { type: 'string' },
    },
  });
  const spec = { seed: Number(values.seed), turns: Number(values.turns), files: Number(values.files), turnsPerEpisode: Number(values.episode) };
  for (const [k, v] of Object.entries(spec)) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`--${k === 'turnsPerEpisode' ? 'episode' : k} must be a positive integer`);
  }
  const names = values.only ? values.only.split(',').map((s) => s.trim()) : Object.keys(STRATEGIES);
  for (const n of names) if (!STRATEGIES[n]) throw new Error(`unknown strategy "${n}"; known: ${Object.keys(STRATEGIES).join(', ')}`);
  const cwd = mkdtempSync(join(tmpdir(), 'rein-bench-ws-'));
  const home = mkdtempSync(join(tmpdir(), 'rein-bench-home-'));
  const prevHome = process.env.REIN_HOME;
  process.env.REIN_HOME = home;
  try {
    const w = generateWorkload(cwd, spec);
    const results: StrategyResult[] = [];
    for (const name of names) {
      process.stderr.write(`running ${name}…\n`);
      results.push(await runStrategy(name, STRATEGIES[name]!, w, cwd, home));
    }
    process.stdout.write(renderResults(results, w));
    if (values.json) {
      const out = resolve(values.json);
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, JSON.stringify({ spec, results }, null, 2) + '\n');
      process.stderr.write(`wrote ${out}\n`);
    }
  } finally {
    if (prevHome === undefined) delete process.env.REIN_HOME;
    else process.env.REIN_HOME = prevHome;
    rmSync(cwd, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exitCode = 1;
  });
}
