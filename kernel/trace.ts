/**
 * Start-up timing marks for diagnosing cold start: with REIN_TRACE_STARTUP=1, `mark(label)` writes
 * `rein: +<ms since process start> <label>` to stderr. Otherwise it does nothing.
 */
const enabled = process.env.REIN_TRACE_STARTUP === '1';

/** Writes a timing mark (ms since the process started) when REIN_TRACE_STARTUP=1. */
export function mark(label: string): void {
  if (enabled) process.stderr.write(`rein: +${performance.now().toFixed(1)} ms ${label}\n`);
}
