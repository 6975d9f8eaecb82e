import { describe, expect, it } from 'vitest';
import { backoffDelay, decideRetry, isLoopbackHost, retriesFor, retryOptions } from './index.js';
import type { ApiErrorInfo } from '../../kernel/index.js';

const o = retryOptions.parse({});
const failure = (over: Omit<Partial<ApiErrorInfo>, 'error'> & { error?: Partial<ApiErrorInfo['error']> } = {}): ApiErrorInfo => ({
  attempt: 1, consecutive529: 0, source: 'main_loop', model: 'claude-opus-4-5', streamed: true,
  ...over,
  error: { kind: 'http', status: 500, message: 'boom', ...(over.error ?? {}) },
});

describe('retry policy', () => {
  it('doubles from 500 ms and caps at 32 s: 0.5, 1, 2, 4, 8, 16, 32, 32 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((a) => backoffDelay(a, o))).toEqual([500, 1000, 2000, 4000, 8000, 16000, 32000, 32000]);
  });

  it('adds at most 25% jitter', () => {
    const lo = decideRetry(failure({ attempt: 3 }), o, () => 0);
    const hi = decideRetry(failure({ attempt: 3 }), o, () => 0.999999);
    expect(lo).toEqual({ action: 'retry', delayMs: 2000, maxRetries: 10 });
    expect(hi.action).toBe('retry');
    expect((hi as { delayMs: number }).delayMs).toBeGreaterThan(2499);
    expect((hi as { delayMs: number }).delayMs).toBeLessThanOrEqual(2500);
  });

  it('gives up after 10 retries', () => {
    expect(decideRetry(failure({ attempt: 10 }), o).action).toBe('retry');
    expect(decideRetry(failure({ attempt: 11 }), o)).toEqual({ action: 'surface' });
  });

  it('honours retry-after over the computed delay', () => {
    expect(decideRetry(failure({ error: { status: 429, retryAfterMs: 7000 } }), o)).toEqual({ action: 'retry', delayMs: 7000, maxRetries: 10 });
  });

  it('surfaces a retry-after longer than the ceiling instead of hanging', () => {
    expect(decideRetry(failure({ error: { status: 429, retryAfterMs: 60 * 60_000 } }), o)).toEqual({ action: 'surface' });
  });

  it('retries 529 for the main loop and subagents only', () => {
    expect(decideRetry(failure({ error: { status: 529 } }), o, () => 0)).toEqual({ action: 'retry', delayMs: 500, maxRetries: 10 });
    expect(decideRetry(failure({ source: 'subagent', error: { status: 529 } }), o).action).toBe('retry');
    for (const source of ['compact', 'classifier', 'title', 'side'] as const) {
      expect(decideRetry(failure({ source, error: { status: 529 } }), o)).toEqual({ action: 'surface' });
    }
  });

  it('switches to the fallback model after 3 consecutive 529s', () => {
    const f = (n: number) => failure({ consecutive529: n, attempt: n, fallbackModel: 'claude-sonnet-4-5', error: { status: 529 } });
    expect(decideRetry(f(2), o).action).toBe('retry');
    expect(decideRetry(f(3), o)).toEqual({ action: 'fallback', model: 'claude-sonnet-4-5' });
  });

  it('keeps retrying 529 without a fallback model', () => {
    expect(decideRetry(failure({ consecutive529: 3, attempt: 3, error: { status: 529 } }), o).action).toBe('retry');
  });

  it('retries an idle or cut stream once without streaming, at once', () => {
    expect(decideRetry(failure({ error: { kind: 'stream_idle', status: undefined } }), o)).toEqual({ action: 'retry', delayMs: 0, stream: false, maxRetries: 10 });
    expect(decideRetry(failure({ error: { kind: 'stream_cut', status: undefined } }), o)).toEqual({ action: 'retry', delayMs: 0, stream: false, maxRetries: 10 });
  });

  it('does not retry client errors, prompt-too-long, or x-should-retry: false', () => {
    for (const status of [400, 401, 403, 404, 413]) expect(decideRetry(failure({ error: { status } }), o)).toEqual({ action: 'surface' });
    expect(decideRetry(failure({ error: { status: 400, promptTooLong: true } }), o)).toEqual({ action: 'surface' });
    expect(decideRetry(failure({ error: { status: 503, shouldRetry: false } }), o)).toEqual({ action: 'surface' });
  });

  it('retries 408, 409, 429, 5xx and connection errors', () => {
    for (const status of [408, 409, 429, 500, 502, 503]) expect(decideRetry(failure({ error: { status } }), o).action).toBe('retry');
    expect(decideRetry(failure({ error: { kind: 'connection', status: undefined } }), o).action).toBe('retry');
  });

  it('gives up after 2 tries on failures more tries rarely fix: DNS, no route, refused by another host, a 200 that is no Message', () => {
    const conn = (code: string, host = 'api.anthropic.com') => ({ kind: 'connection' as const, status: undefined, code, host, message: `cannot reach ${host}` });
    for (const error of [conn('ENOTFOUND'), conn('EAI_AGAIN'), conn('ENETUNREACH'), conn('EHOSTUNREACH'), conn('ECONNREFUSED'), conn('ECONNREFUSED', '192.0.2.7:8080'), { kind: 'invalid_response' as const, status: 200 }]) {
      expect(decideRetry(failure({ attempt: 1, error }), o, () => 0)).toEqual({ action: 'retry', delayMs: 500, maxRetries: 1 });
      expect(decideRetry(failure({ attempt: 2, error }), o)).toEqual({ action: 'surface' });
    }
    expect(retriesFor(conn('ENOTFOUND'), retryOptions.parse({ fastFailRetries: 3 }))).toBe(3);
    expect(retriesFor(conn('ENOTFOUND'), retryOptions.parse({ fastFailRetries: 3, maxRetries: 2 }))).toBe(2);
  });

  it('keeps the full count for a refused loopback connection and for resets and timeouts; none for a certificate error', () => {
    const conn = (code: string, host: string) => ({ kind: 'connection' as const, status: undefined, code, host, message: `cannot reach ${host}` });
    for (const host of ['127.0.0.1:4000', 'localhost:8080', '[::1]:9000', 'proxy.localhost']) expect(retriesFor(conn('ECONNREFUSED', host), o)).toBe(10);
    expect(retriesFor(conn('ECONNRESET', 'api.anthropic.com'), o)).toBe(10);
    expect(retriesFor(conn('ETIMEDOUT', 'api.anthropic.com'), o)).toBe(10);
    expect(decideRetry(failure({ error: conn('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'api.anthropic.com') }), o)).toEqual({ action: 'surface' });
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('10.0.0.1:443')).toBe(false);
    expect(isLoopbackHost(undefined)).toBe(false);
  });

  it('rejects options outside their ranges', () => {
    expect(() => retryOptions.parse({ maxRetries: -1 })).toThrow();
    expect(() => retryOptions.parse({ jitter: 2 })).toThrow();
    expect(() => retryOptions.parse({ retries: 3 })).toThrow();
  });
});
