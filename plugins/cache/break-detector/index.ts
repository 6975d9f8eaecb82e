/**
 * `cache/break-detector`: watches every main-loop request and response for prompt-cache breaks.
 *
 * Phase 1 fingerprints the request as sent (system, tools, model, betas, thinking, tool_choice,
 * effort, context edits, markers, each message); phase 2, after the response, flags a break when
 * the request read more than 5% and at least 2,000 tokens less than the previous request left in
 * the cache (its read plus its write), and names the cause: the parts that
 * changed, a TTL expiry, or none found (server side). Drops other plugins announced (compaction,
 * cleared results, server context edits) are reported as expected, not as breaks.
 *
 * Every observation is recorded in the transcript, so `rein cache explain` can show afterwards what
 * each request cost and why, and a resumed session compares its first request with the last one
 * before the resume. Observability only: the detector changes no request.
 */
import { SyncHook } from 'tapable';
import { z } from 'zod';
import { createHooksGetter, type Kernel, type ModelRequest, definePlugin, type Usage } from '../../../kernel/index.js';
import { advance, judge, MIN_ABSOLUTE_DROP_TOKENS, MIN_RELATIVE_DROP, type DetectorState, type Verdict } from './detect.js';
import { fingerprint, type Fingerprint } from './fingerprint.js';
import { getCacheSignals } from './signals.js';

export const PLUGIN_NAME = 'cache/break-detector';

export const breakDetectorOptions = z.object({
  /** A break needs the read to fall short of the previous cached prefix by more than this share (Claude Code: 0.05). */
  minRelativeDrop: z.number().min(0).max(1).default(MIN_RELATIVE_DROP),
  /** … and by at least this many tokens (Claude Code: 2,000). */
  minAbsoluteDropTokens: z.number().int().min(0).default(MIN_ABSOLUTE_DROP_TOKENS),
  /** Record each observation in the transcript (needed by `rein cache explain` and resume). */
  record: z.boolean().default(true),
}).strict();

/** One observation, as recorded in the transcript. */
export interface DetectorRecord {
  /** 1-based number of the main-loop request in the session. */
  n: number;
  turn: number;
  model: string;
  /** ms since the epoch when the request was sent. */
  at: number;
  /** ms since the epoch when the response completed. */
  completedAt: number;
  /** ms since the previous response completed (undefined for the first). */
  gapMs?: number;
  fp: Fingerprint;
  usage: Usage;
  verdict: Verdict;
}

/** A break as the plugin's `cacheBreak` hook reports it. */
export type CacheBreak = Extract<Verdict, { kind: 'break' }> & { n: number; turn: number };

/** The detector's own hooks: `cacheBreak` fires for every break found. */
export const getBreakDetectorHooks = createHooksGetter<Kernel, { cacheBreak: SyncHook<[CacheBreak]> }>(() => ({
  cacheBreak: new SyncHook<[CacheBreak]>(['cacheBreak']),
}));

const reports = new WeakMap<Kernel, DetectorRecord[]>();

/** Observations made by this process on `kernel` (not those replayed from a resumed transcript). */
export function detectorRecords(kernel: Kernel): readonly DetectorRecord[] {
  return reports.get(kernel) ?? [];
}

type Applied = { cleared_input_tokens?: number }[];

function clearedTokens(applied: Applied): number {
  let n = 0;
  for (const e of applied) n += e.cleared_input_tokens ?? 0;
  return n;
}

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'flags prompt-cache breaks (a read >5% and ≥2,000 tokens short of what the previous request cached) and names the cause: a changed part, TTL expiry, or server side',
  options: breakDetectorOptions,
  apply(kernel, options) {
    const records: DetectorRecord[] = [];
    reports.set(kernel, records);
    let state: DetectorState = { prevCached: null };
    let n = 0;
    let loaded = false;
    const load = () => {
      if (loaded) return;
      loaded = true;
      const past = kernel.transcript.pluginData<DetectorRecord>(PLUGIN_NAME);
      const last = past[past.length - 1];
      if (last) {
        n = last.n;
        state = { prev: last.fp, prevCached: (last.usage.cache_read_input_tokens ?? 0) + (last.usage.cache_creation_input_tokens ?? 0), prevAt: last.completedAt };
        // The embedded simulator lives in this process: a resumed session finds its cache empty,
        // where the API would still hold the prefix for its TTL. That is no break of the prompt.
        if (kernel.client.kind === 'simulator') state.emptyCache = 'resumed on rein\'s simulator, which starts each process with an empty prompt cache (the API keeps the cache for its TTL)';
      }
    };
    kernel.hooks.sessionStart.tap(PLUGIN_NAME, () => load());

    const signals = getCacheSignals(kernel);
    signals.expectedDrop.tap(PLUGIN_NAME, (drop) => {
      // A rebuilt history outranks a partial clearing.
      if (state.pending?.kind !== 'compaction') state = { ...state, pending: drop };
    });
    kernel.hooks.postCompact.tap(PLUGIN_NAME, (c) => {
      state = { ...state, pending: { kind: 'compaction', source: c.result.strategy, detail: `${c.trigger} compaction` } };
    });

    // Server context edits arrive on the stream's message_delta (the SDK's accumulator drops them).
    let streamedEdits: Applied | undefined;
    kernel.hooks.streamEvent.tap(PLUGIN_NAME, (e) => {
      if (e.type === 'message_start') streamedEdits = undefined;
      const cm = (e as { context_management?: { applied_edits?: Applied } }).context_management;
      if (e.type === 'message_delta' && cm) streamedEdits = cm.applied_edits ?? [];
    });

    kernel.hooks.response.tap(PLUGIN_NAME, (info, ctx) => {
      if (info.source !== 'main_loop' && info.source !== 'subagent') return;
      load();
      const applied = streamedEdits ?? (info.message as { context_management?: { applied_edits?: Applied } }).context_management?.applied_edits ?? [];
      streamedEdits = undefined;
      const fp = fingerprint(info.request as ModelRequest);
      const completedAt = info.at + info.durationMs;
      const obs = { fp, read: info.usage.cache_read_input_tokens ?? 0, written: info.usage.cache_creation_input_tokens ?? 0, sentAt: info.at, serverCleared: clearedTokens(applied) };
      const verdict = judge(state, obs, options);
      const record: DetectorRecord = {
        n: ++n,
        turn: ctx.turn,
        model: info.request.model,
        at: info.at,
        completedAt,
        ...(state.prevAt !== undefined ? { gapMs: info.at - state.prevAt } : {}),
        fp,
        usage: info.usage,
        verdict,
      };
      state = advance(state, obs, completedAt);
      records.push(record);
      if (options.record) kernel.transcript.append({ type: 'plugin', plugin: PLUGIN_NAME, data: record });
      if (verdict.kind === 'break') {
        getBreakDetectorHooks(kernel).cacheBreak.call({ ...verdict, n: record.n, turn: record.turn });
        kernel.emit({
          type: 'notice',
          level: verdict.cause === 'client' ? 'warn' : 'info',
          source: PLUGIN_NAME,
          message: `cache break at request ${record.n}: read ${verdict.read} of the ${verdict.prevCached} tokens the previous request cached (−${verdict.drop}); cause: ${verdict.cause}: ${verdict.reason}`,
        });
      }
    });
  },
});
