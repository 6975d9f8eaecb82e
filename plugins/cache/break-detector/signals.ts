/**
 * Signals other plugins send the cache-break detector: "the next drop in cache reads is expected".
 * Kept in a module of its own so senders (compaction strategies, microcompact) need not load the
 * detector; with no detector loaded a signal goes nowhere.
 */
import { SyncHook } from 'tapable';
import { createHooksGetter } from '../../../kernel/hooks.js';
import type { Kernel } from '../../../kernel/kernel.js';

/**
 * Why the next request's prefix changes on purpose:
 * - `compaction`: the history was rebuilt (summary, snipped turns): the next response is a first
 *   observation, compared with nothing (Claude Code's `notifyCompaction`, book ch11 §11.5);
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
export const getCacheSignals = createHooksGetter<Kernel, { expectedDrop: SyncHook<[ExpectedDrop]> }>(() => ({
  expectedDrop: new SyncHook<[ExpectedDrop]>(['drop']),
}));

/** Tells the detector (if loaded) that the next request's cache reads may drop, and why. */
export function expectCacheDrop(kernel: Kernel, drop: ExpectedDrop): void {
  getCacheSignals(kernel).expectedDrop.call(drop);
}
