/**
 * The signal a compaction strategy sends `cache/break-detector` before it changes the prompt's
 * prefix on purpose: "the next drop in cache reads is expected", so the detector does not report it
 * as a cache break. Sent through the kernel state the detector owns (key `cache/break-detector`),
 * so no compaction plugin loads the detector's code; with no detector loaded a signal goes nowhere.
 */
import { SyncHook } from 'tapable';
import { createKernelState, type Kernel } from '../../../kernel/index.js';

/**
 * Why the next request's prefix changes on purpose:
 * - `compaction`: the history was rebuilt (a summary, snipped turns): the next response is a first
 *   observation, compared with nothing;
 * - `deletion`: some old content was cleared (microcompact): the next drop is expected and not
 *   reported, and the baseline is kept.
 */
export interface ExpectedCacheDrop {
  kind: 'compaction' | 'deletion';
  /** The plugin that changed the prefix. */
  source: string;
  /** What it did, for the report. */
  detail?: string;
}

/** The detector's signal hooks, one set per kernel (the same shape `cache/break-detector` creates). */
export const cacheSignals = createKernelState('cache/break-detector', () => ({ expectedDrop: new SyncHook<[ExpectedCacheDrop]>(['drop']) }));

/** Tells the detector (if loaded) that the next request's cache reads may drop, and why. */
export function expectCacheDrop(kernel: Kernel, drop: ExpectedCacheDrop): void {
  cacheSignals(kernel).expectedDrop.call(drop);
}
