/** Sends one model request, carrying out what the `apiError` hook decides: wait, retry unstreamed, switch model, give up. */
import type { ApiErrorDecision, RunContext } from '../hook-payloads.js';
import type { KernelHooks } from '../hooks.js';
import type { ApiMessage, QuerySource, StreamEvent } from '../types.js';
import { ModelRequestError, type ModelClient, type ModelRequest } from './client.js';
import type { KernelServices } from '../services.js';

export interface CallOptions {
  client: ModelClient;
  hooks: KernelHooks;
  /** Fits each attempt to its model (`KernelServices.fitRequest`). */
  fit: (params: ModelRequest) => ReturnType<KernelServices['fitRequest']>;
  ctx: RunContext;
  source: QuerySource;
  fallbackModel?: string;
  /** Stream idle timeout, ms. */
  idleTimeoutMs?: number;
  onEvent?: (event: StreamEvent) => void;
  /** Called on a fallback before the retry; may rewrite params. */
  onFallback?: (from: string, to: string, params: ModelRequest) => ModelRequest;
  emit: (event: import('../types.js').AgentEvent) => void;
  /** Waits `ms` or rejects on abort (injectable for tests). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface CallResult {
  message: ApiMessage;
  requestId?: string;
  /** The params that succeeded (the model may differ after a fallback). */
  params: ModelRequest;
  durationMs: number;
  /** ms since the epoch when the successful attempt was sent. */
  sentAt: number;
}

/** Sleeps `ms`, rejecting with the signal's reason when it aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ModelRequestError({ kind: 'aborted', message: 'the request was aborted' }));
    const t = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(t); reject(new ModelRequestError({ kind: 'aborted', message: 'the request was aborted' })); };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Changes already reported, per kernel: one notice each. */
const reported = new WeakMap<KernelHooks, Set<string>>();

/** `params` as its model accepts it (`opts.fit`), with a notice the first time a change is made. */
function fitted(params: ModelRequest, opts: CallOptions): ModelRequest {
  const fit = opts.fit(params);
  if (fit.changes.length) {
    let seen = reported.get(opts.hooks);
    if (!seen) reported.set(opts.hooks, (seen = new Set()));
    for (const change of fit.changes) {
      if (seen.has(change)) continue;
      seen.add(change);
      opts.emit({ type: 'notice', level: 'info', source: 'model', message: change });
    }
  }
  return fit.params;
}

/** Sends `params` (fitted to its model), retrying as `apiError` decides. Throws the last ModelRequestError. */
export async function callModel(params: ModelRequest, opts: CallOptions): Promise<CallResult> {
  const sleep = opts.sleep ?? abortableSleep;
  let attempt = 0;
  let consecutive529 = 0;
  let stream = true;
  let current = fitted(params, opts);
  for (;;) {
    const sentAt = Date.now();
    const t0 = performance.now();
    try {
      const { message, requestId } = await opts.client.send(current, {
        signal: opts.ctx.signal,
        stream,
        source: opts.source,
        onEvent: opts.onEvent,
        idleTimeoutMs: opts.idleTimeoutMs,
      });
      return { message, requestId, params: current, durationMs: performance.now() - t0, sentAt };
    } catch (err) {
      if (!(err instanceof ModelRequestError)) throw err;
      if (err.info.kind === 'aborted' || opts.ctx.signal.aborted) throw err;
      attempt++;
      consecutive529 = err.info.status === 529 || err.info.type === 'overloaded_error' ? consecutive529 + 1 : 0;
      let decision: ApiErrorDecision | undefined;
      try {
        decision = await opts.hooks.apiError.promise({
          error: err.info, attempt, consecutive529, source: opts.source, model: current.model,
          fallbackModel: opts.fallbackModel, streamed: stream,
        }, opts.ctx);
      } catch {
        decision = undefined;
      }
      if (!decision || decision.action === 'surface') {
        throw attempt > 1 ? new ModelRequestError({ ...err.info, message: `${err.info.message} (gave up after ${attempt} tries)` }, { cause: err }) : err;
      }
      if (decision.action === 'fallback') {
        const from = current.model;
        current = { ...current, model: decision.model };
        if (opts.onFallback) current = opts.onFallback(from, decision.model, current);
        current = fitted(current, opts);
        opts.emit({ type: 'model_fallback', from, to: decision.model, reason: `${consecutive529} consecutive 529 responses` });
        consecutive529 = 0;
        continue;
      }
      opts.emit({ type: 'api_retry', attempt, delayMs: Math.round(decision.delayMs), status: err.info.status, error: err.info.message, source: opts.source, ...(decision.maxRetries !== undefined ? { maxRetries: decision.maxRetries } : {}) });
      if (decision.stream !== undefined) stream = decision.stream;
      await sleep(decision.delayMs, opts.ctx.signal);
    }
  }
}
