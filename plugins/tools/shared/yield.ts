/**
 * Cooperative slicing for long synchronous loops (walking or reading thousands of files): the
 * synchronous fs calls are several times faster than their promise versions for many small files,
 * and yielding to the event loop every few milliseconds keeps parallel tool calls and aborts live.
 */

/** Longest stretch of synchronous work between two yields, ms. */
export const SLICE_MS = 8;

/**
 * Returns `tick()`: cheap to call per item; every SLICE_MS it waits one macrotask turn, and throws
 * the signal's reason once `signal` is aborted.
 */
export function slicer(signal?: AbortSignal): () => Promise<void> | undefined {
  let last = performance.now();
  let n = 0;
  return () => {
    if ((++n & 31) !== 0) return undefined;
    const now = performance.now();
    if (now - last < SLICE_MS) return undefined;
    return new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        last = performance.now();
        if (signal?.aborted) reject(signal.reason);
        else resolve();
      });
    });
  };
}
