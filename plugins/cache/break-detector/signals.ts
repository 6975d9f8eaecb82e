/**
 * Signals other plugins send the cache-break detector: "the next drop in cache reads is expected".
 * They travel through kernel state under this plugin's name (`createKernelState('cache/break-detector')`),
 * so senders (compaction strategies, microcompact, a plugin of your own) never import the detector;
 * with no detector loaded a signal goes nowhere. A sender builds the same shape: a `SyncHook`
 * named `expectedDrop` carrying an `ExpectedDrop`.
 */
import { SyncHook } from 'tapable';
import { createKernelState } from '../../../kernel/index.js';

/**
 * Why the next request's prefix changes on purpose:
 * - `compaction`: the history was rebuilt (summary, snipped turns): the next response is a first
 *   observation, compared with nothing (Claude Code's `notifyCompaction`);
 * - `deletion`: some old content was cleared (microcompact): the next drop is expected and not
 *   reported, the baseline is kept (Claude Code's `notifyCacheDeletion`).
 */
export interface ExpectedDrop {
  kind: 'compaction' | 'deletion';
  /** The plugin that changed the prefix. */
  source: string;
  /** What it did, for the report. */
  detail?: string;
}

/** The detector's signal hooks, one set per kernel. */
export const getCacheSignals = createKernelState('cache/break-detector', () => ({
  expectedDrop: new SyncHook<[ExpectedDrop]>(['drop']),
}));
