/**
 * A signal that aborts when `parent` aborts or after `ms` milliseconds. Built from a plain
 * AbortController and timer rather than `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: on
 * Node 20 such composed signals were seen to never fire under load (a fetch hung past its limit), so
 * the timer here is held strongly until `clear()` is called.
 */
export function timeoutSignal(parent: AbortSignal, ms: number): { signal: AbortSignal; timedOut(): boolean; clear(): void } {
  const controller = new AbortController();
  let fired = false;
  const timer = setTimeout(() => { fired = true; controller.abort(new Error(`timed out after ${ms} ms`)); }, ms);
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => fired,
    clear: () => { clearTimeout(timer); parent.removeEventListener('abort', onAbort); },
  };
}
