/**
 * `retry`: rein's one retry policy, answering the kernel's `apiError` hook.
 *
 * Constants are Claude Code's: 10 retries; delay 500 ms × 2^(attempt−1) plus up to
 * 25% jitter, capped at 32 s; a `retry-after` header wins over the computed delay; 529 (overloaded) is
 * retried only for foreground requests (the main loop and subagents), because retrying background
 * requests during an overload multiplies it; after 3 consecutive 529s the request switches to the
 * preset's `fallbackModel`; a stream that went idle or was cut is retried once without streaming.
 *
 * rein's own additions, for failures more tries rarely fix: a host that cannot be reached (a DNS
 * failure, a connection refused by a host that is not this machine, no route to it) and a 200
 * response that is no Message are retried `fastFailRetries` times (default 1: two tries), so a run
 * with no network ends in seconds with the cause instead of after minutes of backoff; a TLS
 * certificate the client does not accept is not retried. A refused connection to a loopback
 * address (a local proxy or `rein sim serve` restarting) keeps the full retry count.
 */
import { z } from 'zod';
import { definePlugin, type ApiErrorDecision, type ApiErrorInfo } from '../../kernel/index.js';

/** REIN_MAX_RETRIES as a retry count, when it is a non-negative integer. */
function envMaxRetries(): number | undefined {
  const v = process.env.REIN_MAX_RETRIES;
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

export const retryOptions = z.object({
  /**
   * Retries after the first failure (Claude Code's DEFAULT_MAX_RETRIES = 10). The environment
   * variable REIN_MAX_RETRIES overrides the default (not a value set in the preset).
   */
  maxRetries: z.number().int().min(0).max(100).default(() => envMaxRetries() ?? 10).register(z.globalRegistry, { description: 'Retries after the first failure (Claude Code: 10); the environment variable REIN_MAX_RETRIES changes the default, not a value set here.' }),
  /** First delay, ms (Claude Code's BASE_DELAY_MS = 500). */
  baseDelayMs: z.number().int().min(0).default(500).register(z.globalRegistry, { description: 'First retry delay, ms; later delays double (Claude Code: 500).' }),
  /** Cap on one computed delay, ms (Claude Code: the 32 s plateau of the retry sequence). */
  maxDelayMs: z.number().int().min(0).default(32_000).register(z.globalRegistry, { description: 'Cap on one computed retry delay, ms (Claude Code: the 32 s plateau of its retry sequence).' }),
  /** Random extra delay as a fraction of the computed delay (Claude Code: 0–25%). */
  jitter: z.number().min(0).max(1).default(0.25).register(z.globalRegistry, { description: 'Random extra delay, as a fraction of the computed delay (Claude Code: 0–25%).' }),
  /** Consecutive 529s before switching to `model.fallbackModel` (Claude Code's MAX_529_RETRIES = 3). */
  fallbackAfter529: z.number().int().min(1).default(3).register(z.globalRegistry, { description: 'Consecutive 529 (overloaded) answers before switching to `model.fallbackModel` (Claude Code: 3).' }),
  /** Request sources that retry on 529 (Claude Code: foreground sources only). */
  foregroundSources: z.array(z.enum(['main_loop', 'subagent', 'compact', 'classifier', 'title', 'hook', 'side'])).default(['main_loop', 'subagent']).register(z.globalRegistry, { description: 'Request sources that retry on 529 (overloaded); others fail at once (Claude Code: foreground sources only).' }),
  /** Longest `retry-after` honoured, ms; a longer one surfaces the error instead of hanging the run. */
  maxRetryAfterMs: z.number().int().min(0).default(5 * 60_000).register(z.globalRegistry, { description: 'Longest `retry-after` honoured, ms; a longer one surfaces the error instead of hanging the run.' }),
  /**
   * Retries for an unreachable host (DNS failure, connection refused by a non-loopback host, no
   * route) and for a 200 response that is not a Message (rein's choice: one more try tells a
   * one-off from a lasting fault). Capped by `maxRetries`.
   */
  fastFailRetries: z.number().int().min(0).max(100).default(1).register(z.globalRegistry, { description: 'Retries for an unreachable host (DNS failure, connection refused by a non-loopback host, no route) and for a 200 response that is not a Message; capped by maxRetries.' }),
}).strict();

export type RetryOptions = z.output<typeof retryOptions>;

/** Computed backoff for `attempt` (1-based), ms, before jitter. */
export function backoffDelay(attempt: number, o: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs'>): number {
  return Math.min(o.baseDelayMs * 2 ** (attempt - 1), o.maxDelayMs);
}

/** DNS failures: the name does not resolve (or no resolver answers). */
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);
/** No route to the host: the network is down or the address is wrong. */
const NO_ROUTE_CODES = new Set(['ENETUNREACH', 'EHOSTUNREACH', 'ENETDOWN']);

/** True for `localhost`, 127.0.0.0/8 and ::1 (with or without a port). */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** How many retries a failure gets: fewer for the ones more tries rarely fix. */
export function retriesFor(e: ApiErrorInfo['error'], o: RetryOptions): number {
  const fast = Math.min(o.fastFailRetries, o.maxRetries);
  if (e.kind === 'invalid_response') return fast;
  if (e.kind !== 'connection' || !e.code) return o.maxRetries;
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO/.test(e.code)) return 0;
  if (DNS_CODES.has(e.code) || NO_ROUTE_CODES.has(e.code)) return fast;
  if (e.code === 'ECONNREFUSED' && !isLoopbackHost(e.host)) return fast;
  return o.maxRetries;
}

/** The decision for one failure; `random` is injectable so tests can pin the jitter. */
export function decideRetry(f: ApiErrorInfo, o: RetryOptions, random: () => number = Math.random): ApiErrorDecision {
  const e = f.error;
  const allowed = retriesFor(e, o);
  if (f.attempt > allowed) return { action: 'surface' };
  const overloaded = e.status === 529 || e.type === 'overloaded_error';
  if (overloaded) {
    if (!o.foregroundSources.includes(f.source)) return { action: 'surface' };
    if (f.fallbackModel && f.fallbackModel !== f.model && f.consecutive529 >= o.fallbackAfter529) {
      return { action: 'fallback', model: f.fallbackModel };
    }
  }
  if (e.shouldRetry === false && !overloaded) return { action: 'surface' };
  const delay = () => {
    if (e.retryAfterMs !== undefined) return e.retryAfterMs;
    const base = backoffDelay(f.attempt, o);
    return base + base * o.jitter * random();
  };
  switch (e.kind) {
    case 'aborted':
      return { action: 'surface' };
    case 'stream_idle':
    case 'stream_cut':
      // Once without streaming; a second stream failure in a row is handled as a connection error.
      return { action: 'retry', delayMs: 0, stream: false, maxRetries: allowed };
    case 'connection':
    case 'invalid_response':
      return { action: 'retry', delayMs: delay(), maxRetries: allowed };
    case 'http': {
      if (e.promptTooLong) return { action: 'surface' };
      const s = e.status ?? 0;
      const retryable = overloaded || s === 408 || s === 409 || s === 429 || s >= 500 || e.shouldRetry === true;
      if (!retryable) return { action: 'surface' };
      const d = delay();
      if (e.retryAfterMs !== undefined && d > o.maxRetryAfterMs) return { action: 'surface' };
      return { action: 'retry', delayMs: d, maxRetries: allowed };
    }
  }
}

export default definePlugin({
  name: 'retry',
  description: 'Retries failed model requests with backoff, honours retry-after, falls back to fallbackModel after repeated 529s.',
  options: retryOptions,
  apply(kernel, options) {
    kernel.hooks.apiError.tap('retry', (failure) => decideRetry(failure, options));
  },
});
