/**
 * The `anthropic` model client: `@anthropic-ai/sdk` with its own retries switched off, so the
 * kernel's `apiError` hook (the `retry` plugin) is the only retry policy.
 */
import Anthropic from '@anthropic-ai/sdk';
import {
  isPromptTooLong, ModelRequestError, parseRetryAfter, type ModelClient, type ModelRequest, type SendOptions,
  type SendResult,
} from './client.js';
import type { ApiError } from '../hook-payloads.js';
import { httpFetch } from './http/fetch.js';
import type { ApiMessage, StreamEvent } from '../types.js';

export interface AnthropicClientOptions {
  apiKey?: string;
  baseURL?: string;
  kind?: 'anthropic' | 'simulator';
  /** Per-request timeout for a non-streaming request, ms (default 600,000: the SDK's own default). */
  timeoutMs?: number;
  /** Called by `close()`: the embedded simulator stops its server here. */
  onClose?: () => Promise<void>;
}

/**
 * Creates the SDK-backed client. `maxRetries: 0`: rein retries, not the SDK. Requests go through
 * rein's node:http transport (./http/fetch.ts), not Node's global fetch, which costs ~16 ms to load.
 */
export function createAnthropicClient(options: AnthropicClientOptions = {}): ModelClient {
  const sdk = new Anthropic({
    apiKey: options.apiKey ?? process.env.ANTHROPIC_API_KEY ?? 'no-key',
    baseURL: options.baseURL ?? process.env.ANTHROPIC_BASE_URL ?? undefined,
    maxRetries: 0,
    timeout: options.timeoutMs ?? 600_000,
    fetch: httpFetch as unknown as NonNullable<ConstructorParameters<typeof Anthropic>[0]>['fetch'],
  });
  return {
    kind: options.kind ?? 'anthropic',
    baseURL: sdk.baseURL,
    send: (params, opts) => send(sdk, params, opts),
    async countTokens(params) {
      const { model, messages, system, tools, thinking } = params;
      try {
        const res = await sdk.messages.countTokens({ model, messages, system, tools, thinking } as Anthropic.MessageCountTokensParams);
        return res.input_tokens;
      } catch (err) {
        throw toModelError(err, false);
      }
    },
    close: async () => { await options.onClose?.(); },
  };
}

function requestHeaders(params: ModelRequest, opts: SendOptions): Record<string, string> {
  // The source header lets rein's simulator answer side requests apart from the main loop; the
  // real API ignores it.
  const headers: Record<string, string> = { 'x-rein-source': opts.source };
  if (params.betas?.length) headers['anthropic-beta'] = params.betas.join(',');
  return headers;
}

function bodyOf(params: ModelRequest): Record<string, unknown> {
  const { betas: _betas, ...body } = params;
  return body;
}

async function send(sdk: Anthropic, params: ModelRequest, opts: SendOptions): Promise<SendResult> {
  const headers = requestHeaders(params, opts);
  const body = bodyOf(params) as unknown as Anthropic.MessageCreateParamsNonStreaming;
  if (!opts.stream) {
    try {
      const { data, request_id } = await sdk.messages
        .create({ ...body, stream: false }, { signal: opts.signal, headers })
        .withResponse();
      return { message: data as ApiMessage, requestId: request_id ?? undefined };
    } catch (err) {
      throw toModelError(err, opts.signal.aborted);
    }
  }
  return sendStreaming(sdk, body, headers, opts);
}

async function sendStreaming(
  sdk: Anthropic,
  body: Anthropic.MessageCreateParamsNonStreaming,
  headers: Record<string, string>,
  opts: SendOptions,
): Promise<SendResult> {
  // One controller for the run's abort and the idle watchdog, so either ends the HTTP stream.
  const controller = new AbortController();
  const onAbort = () => controller.abort(opts.signal.reason);
  opts.signal.addEventListener('abort', onAbort, { once: true });
  let idleFired = false;
  let timer: NodeJS.Timeout | undefined;
  const idleMs = opts.idleTimeoutMs ?? 0;
  const arm = () => {
    if (!idleMs) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => { idleFired = true; controller.abort(); }, idleMs);
  };
  let sawStop = false;
  try {
    arm();
    const stream = sdk.messages.stream(body, { signal: controller.signal, headers });
    for await (const event of stream) {
      arm();
      if (event.type === 'message_stop') sawStop = true;
      opts.onEvent?.(event as StreamEvent);
    }
    if (!sawStop) throw new ModelRequestError({ kind: 'stream_cut', message: 'the stream ended before message_stop' });
    const message = (await stream.finalMessage()) as ApiMessage;
    return { message, requestId: stream.request_id ?? undefined };
  } catch (err) {
    if (idleFired) {
      throw new ModelRequestError({ kind: 'stream_idle', message: `no stream event for ${idleMs} ms` }, { cause: err });
    }
    throw toModelError(err, opts.signal.aborted);
  } finally {
    if (timer) clearTimeout(timer);
    opts.signal.removeEventListener('abort', onAbort);
  }
}

/** Maps anything the SDK throws to a ModelRequestError. */
export function toModelError(err: unknown, aborted: boolean): ModelRequestError {
  if (err instanceof ModelRequestError) return err;
  if (aborted) return new ModelRequestError({ kind: 'aborted', message: 'the request was aborted' }, { cause: err });
  if (err instanceof Anthropic.APIError && err.status !== undefined) {
    const headers = err.headers as Headers | undefined;
    const message = err.apiMessage ?? err.message;
    const should = headers?.get('x-should-retry');
    const info: ApiError = {
      kind: 'http',
      status: err.status,
      type: err.type ?? undefined,
      message: `${err.status} ${err.type ?? 'error'}: ${message}`,
      retryAfterMs: parseRetryAfter(headers?.get('retry-after')),
      shouldRetry: should === 'true' ? true : should === 'false' ? false : undefined,
      promptTooLong: isPromptTooLong(err.status, message),
    };
    return new ModelRequestError(info, { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof Anthropic.APIConnectionError || /ECONNREFUSED|ENOTFOUND|socket hang up|fetch failed|terminated/i.test(message)) {
    // A stream that the server closed mid-message surfaces as a connection error from the SDK.
    const cut = /terminated|premature|stream ended|ended without/i.test(message);
    return new ModelRequestError({ kind: cut ? 'stream_cut' : 'connection', message: `${cut ? 'stream cut' : 'connection error'}: ${causeText(err)}` }, { cause: err });
  }
  if (/stream ended|without producing|unexpected end/i.test(message)) {
    return new ModelRequestError({ kind: 'stream_cut', message: `stream cut: ${message}` }, { cause: err });
  }
  return new ModelRequestError({ kind: 'connection', message }, { cause: err });
}

function causeText(err: unknown): string {
  let e: unknown = err;
  const parts: string[] = [];
  for (let i = 0; i < 4 && e instanceof Error; i++) {
    parts.push(e.message);
    e = (e as Error & { cause?: unknown }).cause;
  }
  return [...new Set(parts)].join(': ');
}
