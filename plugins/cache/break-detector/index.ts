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
 * before the resume. Records stay small (see DetectorRecord), and the fingerprint of each request
 * reuses the previous one's for the messages it shares (createFingerprinter): a long session's
 * request costs what it adds. Observability only: the detector changes no request.
 */
import { SyncHook } from 'tapable';
import { z } from 'zod';
import { createHooksGetter, type Kernel, type ModelRequest, definePlugin, type Usage } from '../../../kernel/index.js';
import { advance, judge, MIN_ABSOLUTE_DROP_TOKENS, MIN_RELATIVE_DROP, type DetectorState, type Verdict } from './detect.js';
import { createFingerprinter, messagesDigest, type Fingerprint, type FingerprintParts, type RecordedFingerprint } from './fingerprint.js';
import { getCacheSignals } from './signals.js';

export const PLUGIN_NAME = 'cache/break-detector';

export const breakDetectorOptions = z.object({
  /** A break needs the read to fall short of the previous cached prefix by more than this share (Claude Code: 0.05). */
  minRelativeDrop: z.number().min(0).max(1).default(MIN_RELATIVE_DROP).register(z.globalRegistry, { description: 'A break needs the cached read to fall short of what the previous request left in the cache by more than this share (Claude Code\'s threshold: 0.05).' }),
  /** … and by at least this many tokens (Claude Code: 2,000). */
  minAbsoluteDropTokens: z.number().int().min(0).default(MIN_ABSOLUTE_DROP_TOKENS).register(z.globalRegistry, { description: 'A break also needs that shortfall to be at least this many tokens (Claude Code\'s threshold: 2,000).' }),
  /** Record each observation in the transcript (needed by `rein cache explain` and resume). */
  record: z.boolean().default(true).register(z.globalRegistry, { description: 'Record each observation in the transcript, for `rein cache explain` and for comparing a resumed session\'s first request.' }),
}).strict();

/**
 * One observation, as recorded in the transcript. Its size does not grow with the session: the
 * request's parts are written only when they differ from the previous record's (always in the
 * first one), and its messages as their number and digest.
 */
export interface DetectorRecord {
  /** 1-based number of the main-loop request in the session. */
  n: number;
  turn: number;
  /** ms since the epoch when the request was sent. */
  at: number;
  /** ms since the epoch when the response completed. */
  completedAt: number;
  /** ms since the previous response completed (undefined for the first). */
  gapMs?: number;
  /** `cache_read_input_tokens` of the response. */
  read: number;
  /** `cache_creation_input_tokens` of the response. */
  written: number;
  /** The request's parts (model, system, tools, betas, ...), when they changed since the previous record. */
  parts?: FingerprintParts;
  /** The request's messages: how many, `messagesDigest` of their hashes, and of all but the last (`prefix`). */
  messages: { count: number; digest: string; prefix?: string };
  verdict: Verdict;
}

/** A record as rein wrote it before records were compact: the whole fingerprint and the usage. */
interface LegacyRecord {
  n: number;
  completedAt: number;
  fp: Fingerprint;
  usage: Usage;
}

/**
 * The detector's memory as the last records of a transcript give it: the latest parts and the
 * last request's messages, its cache reads and when it completed. Reads records from the end back
 * to the latest that carries parts; older transcripts (whole fingerprints) are read too.
 */
export function stateFromRecords(records: readonly unknown[]): { n: number; prev?: RecordedFingerprint; prevCached: number | null; prevAt?: number } {
  const last = records[records.length - 1] as DetectorRecord | LegacyRecord | undefined;
  if (!last) return { n: 0, prevCached: null };
  if ('fp' in last && last.fp) {
    const { messages, ...parts } = last.fp;
    return { n: last.n, prev: { ...parts, messageCount: messages.length, messagesDigest: messagesDigest(messages) }, prevCached: (last.usage?.cache_read_input_tokens ?? 0) + (last.usage?.cache_creation_input_tokens ?? 0), prevAt: last.completedAt };
  }
  const rec = last as DetectorRecord;
  let parts: FingerprintParts | undefined;
  for (let i = records.length - 1; i >= 0 && !parts; i--) {
    const r = records[i] as DetectorRecord | LegacyRecord;
    if ('fp' in r && r.fp) {
      const { messages: _m, ...p } = r.fp;
      parts = p;
    } else parts = (r as DetectorRecord).parts;
  }
  const prevCached = rec.read + (rec.written ?? 0);
  if (!parts) return { n: rec.n, prevCached, prevAt: rec.completedAt };
  const prefix = rec.messages.prefix !== undefined ? { messagesPrefixDigest: rec.messages.prefix } : {};
  return { n: rec.n, prev: { ...parts, messageCount: rec.messages.count, messagesDigest: rec.messages.digest, ...prefix }, prevCached, prevAt: rec.completedAt };
}

/** A break as the plugin's `cacheBreak` hook reports it. */
export type CacheBreak = Extract<Verdict, { kind: 'break' }> & { n: number; turn: number };

/** The detector's own hooks: `cacheBreak` fires for every break found. */
export const getBreakDetectorHooks = createHooksGetter<Kernel, { cacheBreak: SyncHook<[CacheBreak]> }>(() => ({
  cacheBreak: new SyncHook<[CacheBreak]>(['cacheBreak']),
}));

const reports = new WeakMap<Kernel, () => readonly DetectorRecord[]>();

/**
 * Observations made by this process on `kernel` (not those replayed from a resumed transcript), in
 * order. With `record` on (the default) they are read back from the transcript, so a long session
 * does not keep one record per request in memory; with it off they are kept in memory.
 */
export function detectorRecords(kernel: Kernel): readonly DetectorRecord[] {
  return reports.get(kernel)?.() ?? [];
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
    // Records kept in memory: only when they are not written to the transcript.
    const kept: DetectorRecord[] = [];
    // Detector records in the transcript before this process's first (a resumed session's).
    let before = 0;
    let state: DetectorState = { prevCached: null };
    let n = 0;
    let loaded = false;
    reports.set(kernel, () => (!options.record ? kept : loaded ? kernel.transcript.pluginData<DetectorRecord>(PLUGIN_NAME).slice(before) : []));
    // The parts as last recorded, as JSON: a record carries them only when they changed.
    let recordedParts: string | undefined;
    const fingerprinter = createFingerprinter();
    const load = () => {
      if (loaded) return;
      loaded = true;
      const records = kernel.transcript.pluginData(PLUGIN_NAME);
      before = records.length;
      const past = stateFromRecords(records);
      n = past.n;
      if (past.prev) {
        state = { prev: past.prev, prevCached: past.prevCached, ...(past.prevAt !== undefined ? { prevAt: past.prevAt } : {}) };
        const { messageCount: _c, messagesDigest: _d, messagesPrefixDigest: _p, ...parts } = past.prev;
        recordedParts = JSON.stringify(parts);
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
      const fp = fingerprinter(info.request as ModelRequest);
      const completedAt = info.at + info.durationMs;
      const obs = { fp, read: info.usage.cache_read_input_tokens ?? 0, written: info.usage.cache_creation_input_tokens ?? 0, sentAt: info.at, serverCleared: clearedTokens(applied) };
      const verdict = judge(state, obs, options);
      const { messages, ...parts } = fp;
      const partsJson = JSON.stringify(parts);
      const record: DetectorRecord = {
        n: ++n,
        turn: ctx.turn,
        at: info.at,
        completedAt,
        ...(state.prevAt !== undefined ? { gapMs: info.at - state.prevAt } : {}),
        read: obs.read,
        written: obs.written,
        ...(partsJson !== recordedParts ? { parts } : {}),
        messages: { count: messages.length, digest: fingerprinter.digest, prefix: fingerprinter.prefixDigest },
        verdict,
      };
      recordedParts = partsJson;
      state = advance(state, obs, completedAt);
      if (options.record) kernel.transcript.append({ type: 'plugin', plugin: PLUGIN_NAME, data: record });
      else kept.push(record);
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
