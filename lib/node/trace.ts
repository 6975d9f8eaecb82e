/**
 * Start-up timing marks for diagnosing cold start: with REIN_TRACE_STARTUP=1, `mark(label)` writes
 * `rein: +<ms since process start> <label> (cpu <ms>)` to stderr, where cpu is the process's user +
 * system CPU time so far (process.cpuUsage(), all threads), which varies less with the machine's
 * load than the wall time. Otherwise it does nothing.
 */
/** True when REIN_TRACE_STARTUP=1 (marks are written). */
export const tracing = process.env.REIN_TRACE_STARTUP === '1';

/** Writes a timing mark (ms since the process started, and CPU ms so far) when REIN_TRACE_STARTUP=1. */
export function mark(label: string): void {
  if (!tracing) return;
  const cpu = process.cpuUsage();
  process.stderr.write(`rein: +${performance.now().toFixed(1)} ms ${label} (cpu ${((cpu.user + cpu.system) / 1000).toFixed(1)})\n`);
}
