/**
 * The `anthropic` model client: `@anthropic-ai/sdk` with its own retries switched off, so the
 * kernel's `apiError` hook (the `retry` plugin) is the only retry policy, and its own transport.
 */
import Anthropic, { BaseAnthropic } from '@anthropic-ai/sdk';
import { Messages } from '@anthropic-ai/sdk/resources/messages';
import { MessageStream } from '@anthropic-ai/sdk/lib/MessageStream';
import type { Stream } from '@anthropic-ai/sdk/core/streaming';
import { createRequire } from 'node:module';
import {
  ModelRequestError, type ApiError, type ModelClient, type ModelRequest, type SendOptions,
  type SendResult, type StreamEvent,
} from '../../kernel/index.js';
import { isPromptTooLong, parseRetryAfter } from './errors.js';
import { RequestBodyWriters, type RequestBodyWriter } from './request-body.js';
import { checkMessage } from './validate-message.js';

export interface AnthropicClientOptions {
  /** The API key, sent as the SDK sends it (`Authorization: Bearer`). Wins over `authToken`, as in the SDK. */
  apiKey?: string;
  /** A bearer token, sent as `Authorization: Bearer ...` (`ANTHROPIC_AUTH_TOKEN`: what API gateways take). */
  authToken?: string;
  baseURL?: string;
  /** The provider's name (`ModelClient.kind`); default `anthropic`. */
  kind?: string;
  /** Per-request timeout for a non-streaming request, ms (default 600,000: the SDK's own default). */
  timeoutMs?: number;
  /**
   * Where `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` (or their lowercase forms) are read; default
   * process.env. With a proxy set, requests go through undici's `EnvHttpProxyAgent`.
   */
  env?: NodeJS.ProcessEnv;
  /** Called by `close()`: the embedded simulator stops its server here. */
  onClose?: () => Promise<void>;
}

type SdkOptions = NonNullable<ConstructorParameters<typeof Anthropic>[0]>;

// The base client, not `Anthropic`: that class makes every resource of the API when it is
// constructed (models, files, skills, organization, beta and their sub-resources) and adds no
// request behaviour; rein posts messages itself (`postMessages`) and uses the Messages resource
// for token counts only, so the rest need not be made before the first request.

/**
 * Creates the SDK-backed client over the SDK's own transport (the runtime's `fetch`).
 * `maxRetries: 0`: rein retries, not the SDK. Without `apiKey` and `authToken` it reads
 * `ANTHROPIC_API_KEY`, then `ANTHROPIC_AUTH_TOKEN`, from `env`.
 */
export function createAnthropicClient(options: AnthropicClientOptions = {}): ModelClient {
  const env = options.env ?? process.env;
  const apiKey = options.apiKey ?? (options.authToken ? undefined : env.ANTHROPIC_API_KEY);
  const authToken = apiKey ? undefined : (options.authToken ?? env.ANTHROPIC_AUTH_TOKEN);
  // Exactly one credential, so the SDK reads none of its own from process.env.
  const credential: Pick<SdkOptions, 'apiKey' | 'authToken'> = apiKey || !authToken ? { apiKey: apiKey || 'no-key' } : { authToken };
  const timeoutMs = options.timeoutMs ?? 600_000;
  const sdk = new BaseAnthropic({
    ...credential,
    baseURL: options.baseURL ?? env.ANTHROPIC_BASE_URL ?? undefined,
    maxRetries: 0,
    timeout: timeoutMs,
    ...proxyTransport(env),
  });
  const host = hostOf(sdk.baseURL);
  const { httpProxy, httpsProxy } = proxyEnv(env);
  const proxies = [httpProxy, httpsProxy].filter((v): v is string => Boolean(v)).map(hostOf);
  const toError = (err: unknown, aborted: boolean) => toModelError(err, aborted, host, proxies);
  const writers = new RequestBodyWriters();
  return {
    kind: options.kind ?? 'anthropic',
    baseURL: sdk.baseURL,
    send: (params, opts) => send({ sdk, timeoutMs, writer: writers.for(opts.source, params.messages) }, params, opts, toError),
    async countTokens(params) {
      const { model, messages, system, tools, thinking } = params;
      try {
        const res = await new Messages(sdk).countTokens({ model, messages, system, tools, thinking } as Anthropic.MessageCountTokensParams);
        return res.input_tokens;
      } catch (err) {
        throw toError(err, false);
      }
    },
    close: async () => { await options.onClose?.(); },
  };
}

// Through require, not import(): the built command runs from a V8 code cache, where import() is
// not available on Node 20.
const requirePackage = createRequire(import.meta.url);

/**
 * Runs `make` with the process warning `code` dropped. undici 6 warns once that EnvHttpProxyAgent
 * is experimental; undici 7 (Node ≥ 20.18.1, above rein's engines) dropped the warning, and a
 * warning on stderr of every proxied `rein run` would tell users nothing they can act on.
 */
function withoutWarning<T>(code: string, make: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const o = rest[0] as { code?: string } | undefined;
    if ((typeof o === 'object' && o?.code === code) || rest[1] === code) return;
    (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return make();
  } finally {
    process.emitWarning = emit;
  }
}

/** The proxy variables, as curl reads them: the lowercase form first. */
function proxyEnv(env: NodeJS.ProcessEnv): { httpProxy?: string; httpsProxy?: string; noProxy?: string } {
  const read = (name: string) => env[name.toLowerCase()] || env[name] || undefined;
  return { httpProxy: read('HTTP_PROXY'), httpsProxy: read('HTTPS_PROXY'), noProxy: read('NO_PROXY') };
}

/**
 * With `HTTPS_PROXY` or `HTTP_PROXY` set: undici's `EnvHttpProxyAgent` (which applies `NO_PROXY`)
 * as the dispatcher (an https URL goes through HTTPS_PROXY, or HTTP_PROXY when only that is set:
 * undici's rule), with undici's `fetch` from the same package, so the agent and the fetch are
 * one version whatever undici the running Node bundles (Node 20: undici 6; rein depends on undici
 * 6 for Node 20.11's support). Without a proxy: nothing, and the SDK uses the global fetch.
 * https://undici.nodejs.org/#/docs/api/EnvHttpProxyAgent
 */
function proxyTransport(env: NodeJS.ProcessEnv): Pick<SdkOptions, 'fetch' | 'fetchOptions'> {
  const proxies = proxyEnv(env);
  if (!proxies.httpProxy && !proxies.httpsProxy) return {};
  const undici = requirePackage('undici') as typeof import('undici');
  // '' for an unset variable: undici reads process.env for an undefined one, and `env` may not be it.
  const dispatcher = withoutWarning('UNDICI-EHPA', () => new undici.EnvHttpProxyAgent({ httpProxy: proxies.httpProxy ?? '', httpsProxy: proxies.httpsProxy ?? '', noProxy: proxies.noProxy ?? '' }));
  return { fetch: undici.fetch as unknown as SdkOptions['fetch'], fetchOptions: { dispatcher } as SdkOptions['fetchOptions'] };
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

/** `host` or `host:port` of a base URL, for messages. */
function hostOf(baseURL: string): string {
  try {
    return new URL(baseURL).host;
  } catch {
    return baseURL;
  }
}

/** The message of a 200 response, or an `invalid_response` failure naming what is wrong with it. */
function acceptMessage(body: unknown, requestId: string | undefined): SendResult {
  const checked = checkMessage(body);
  if ('problem' in checked) {
    throw new ModelRequestError({ kind: 'invalid_response', status: 200, message: `the API answered 200 with a body that is not a Message: ${checked.problem}` });
  }
  return { message: checked.message, requestId };
}

type ToError = (err: unknown, aborted: boolean) => ModelRequestError;

type CreateParams = Anthropic.MessageCreateParams;
type RequestOptions = NonNullable<Parameters<Anthropic['post']>[1]> & Anthropic.RequestOptions;

/** What posts a request: the SDK client, its timeout (ms) and the body writer of the request's source and conversation. */
interface Poster {
  sdk: BaseAnthropic;
  timeoutMs: number;
  writer: RequestBodyWriter;
}

/**
 * `POST /v1/messages` as the SDK's `messages.create` sends it, through the SDK's own request
 * machinery (`sdk.post`: auth, headers, timeout, proxy transport, errors, `request-id`, the
 * `Stream` of server-sent events for `stream: true`), but with the body's bytes made by a
 * `RequestBodyWriter` (the bytes of messages already sent are kept) instead of `JSON.stringify`
 * of the whole body on every request. The SDK sends a byte body as it is (its client's
 * `buildBody`), with the `content-type` given here, the one it sets for JSON.
 * Of what `messages.create` does besides posting (SDK 1.14):
 * - `user_profile_id` and `workspace_id` go in headers, not the body: done here the same way;
 * - the `x-stainless-helper` header, from a scan of every message and block for the SDK's helper
 *   symbols: left out, since no message rein sends is made by an SDK helper (the scan grows
 *   with the session: ~5 ms a request at 4,000 messages);
 * - the timeout: the client's (`timeoutMs`, always set here), as `create` takes it;
 * - the console warning on every request naming a deprecated model: left out;
 * - the SDK's OpenTelemetry call span: left out. rein registers no tracer provider, and without
 *   one the SDK starts no span and adds no trace header either; an application that embeds rein
 *   and registers one gets no SDK span for these requests.
 */
function postMessages({ sdk, timeoutMs, writer }: Poster, params: CreateParams, options: RequestOptions) {
  const { user_profile_id: profile, workspace_id: workspace, ...body } = params as CreateParams & { user_profile_id?: string | null; workspace_id?: string | null };
  return sdk.post<Anthropic.Message | Stream<Anthropic.RawMessageStreamEvent>>('/v1/messages', {
    body: writer.write(body),
    timeout: timeoutMs,
    ...options,
    headers: {
      'content-type': 'application/json',
      ...(profile != null ? { 'anthropic-user-profile-id': profile } : undefined),
      ...(workspace != null ? { 'anthropic-workspace-id': workspace } : undefined),
      ...(options.headers as Record<string, string> | undefined),
    },
    stream: params.stream ?? false,
  });
}

async function send(poster: Poster, params: ModelRequest, opts: SendOptions, toError: ToError): Promise<SendResult> {
  const headers = requestHeaders(params, opts);
  const body = bodyOf(params) as unknown as Anthropic.MessageCreateParamsNonStreaming;
  if (!opts.stream) {
    let data: unknown;
    let requestId: string | undefined;
    try {
      const r = await postMessages(poster, { ...body, stream: false }, { signal: opts.signal, headers }).withResponse();
      data = r.data;
      requestId = r.request_id ?? undefined;
    } catch (err) {
      // A 200 whose body does not parse as the JSON its content-type promises.
      if (err instanceof SyntaxError && !opts.signal.aborted) {
        throw new ModelRequestError({ kind: 'invalid_response', status: 200, message: `the API answered 200 with a body that is not a Message: the body is not valid JSON (${err.message})` }, { cause: err });
      }
      throw toError(err, opts.signal.aborted);
    }
    return acceptMessage(data, requestId);
  }
  return sendStreaming(poster, body, headers, opts, toError);
}

/**
 * The SDK's `MessageStream` (what `messages.stream` returns: the events, the accumulated final
 * message, `request_id`, aborts), with its request made by `postMessages` instead of
 * `messages.create`: `MessageStream.createMessage` takes the object whose `create` it calls.
 * It is given no client, so it starts no OpenTelemetry span (see `postMessages`).
 */
function messageStream(poster: Poster, body: Anthropic.MessageCreateParamsNonStreaming, options: RequestOptions): MessageStream {
  const messages = { create: (params: CreateParams, o: RequestOptions) => postMessages(poster, params, o) };
  return MessageStream.createMessage(messages as unknown as Anthropic.Messages, body, options, { logger: poster.sdk.logger ?? console });
}

async function sendStreaming(
  poster: Poster,
  body: Anthropic.MessageCreateParamsNonStreaming,
  headers: Record<string, string>,
  opts: SendOptions,
  toError: ToError,
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
    const stream = messageStream(poster, body, { signal: controller.signal, headers });
    for await (const event of stream) {
      arm();
      if (event.type === 'message_stop') sawStop = true;
      opts.onEvent?.(event as StreamEvent);
    }
    if (!sawStop) throw new ModelRequestError({ kind: 'stream_cut', message: 'the stream ended before message_stop' });
    return acceptMessage(await stream.finalMessage(), stream.request_id ?? undefined);
  } catch (err) {
    // A `streamEvent` tap that threw: the plugin's failure, not the connection's.
    if (err instanceof Error && err.name === 'HookTapError') throw err;
    if (idleFired) {
      throw new ModelRequestError({ kind: 'stream_idle', message: `no stream event for ${idleMs} ms` }, { cause: err });
    }
    throw toError(err, opts.signal.aborted);
  } finally {
    if (timer) clearTimeout(timer);
    opts.signal.removeEventListener('abort', onAbort);
  }
}

/** The system error code in an error's cause chain (`ENOTFOUND`, `ECONNREFUSED`, ...). */
function systemCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e instanceof Error; i++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code) && !code.startsWith('ERR_INVALID')) return code;
    e = (e as Error & { cause?: unknown }).cause;
  }
  return undefined;
}

/** Plain words for the connection failures users meet (no network, a wrong base URL, a proxy). */
const CONNECTION_WORDS: Record<string, string> = {
  ENOTFOUND: 'DNS lookup failed',
  EAI_AGAIN: 'DNS lookup failed',
  EAI_FAIL: 'DNS lookup failed',
  EAI_NONAME: 'DNS lookup failed',
  EAI_NODATA: 'DNS lookup failed',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  ENETUNREACH: 'network unreachable',
  EHOSTUNREACH: 'host unreachable',
  EPIPE: 'connection closed',
};

/**
 * The `host:port` a failed connection was to (Node's errno error carries them), when it is one of
 * `proxies` (`host:port` of HTTP_PROXY/HTTPS_PROXY), so the message names the proxy.
 */
function failedProxy(err: unknown, proxies: readonly string[]): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e instanceof Error; i++) {
    const { address, port } = e as { address?: string; port?: number };
    if (address && port) return proxies.find((p) => p === `${address}:${port}`);
    e = (e as Error & { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Maps anything the SDK throws to a ModelRequestError. `host` names the server in messages;
 * `proxies` (`host:port`) are the proxies in use, named instead when the failure was reaching one.
 */
export function toModelError(err: unknown, aborted: boolean, host?: string, proxies: readonly string[] = []): ModelRequestError {
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
    if (cut) return new ModelRequestError({ kind: 'stream_cut', message: `stream cut: ${causeText(err)}` }, { cause: err });
    const code = systemCode(err);
    const tls = code !== undefined && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO/.test(code);
    const words = code ? (CONNECTION_WORDS[code] ?? (tls ? `the TLS certificate was not accepted: ${innermost(err)}` : undefined)) : undefined;
    // fetch refuses the ports the Fetch standard blocks (9, 25, 6000, ...) before connecting, every
    // time: retrying cannot help (shouldRetry false), so the run ends at once with the reason.
    if (innermost(err) === 'bad port' && host) {
      return new ModelRequestError({ kind: 'connection', message: `cannot reach ${host}: fetch does not connect to that port (a port the Fetch standard blocks, https://fetch.spec.whatwg.org/#port-blocking)`, host, shouldRetry: false }, { cause: err });
    }
    const proxy = proxies.length ? failedProxy(err, proxies) : undefined;
    const where = proxy ? `the proxy ${proxy} (for ${host})` : host;
    const text = words && host ? `cannot reach ${where}: ${words} (${code})` : `connection error: ${causeText(err)}`;
    return new ModelRequestError({ kind: 'connection', message: text, ...(code ? { code } : {}), ...(host ? { host } : {}) }, { cause: err });
  }
  if (/stream ended|without producing|without sending any chunks|unexpected end/i.test(message)) {
    return new ModelRequestError({ kind: 'stream_cut', message: `stream cut: ${message}` }, { cause: err });
  }
  const code = systemCode(err);
  return new ModelRequestError({ kind: 'connection', message, ...(code ? { code } : {}), ...(host ? { host } : {}) }, { cause: err });
}

/** The message of the deepest cause (Node's own error, under the SDK's and fetch's wrappers). */
function innermost(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && (e as Error & { cause?: unknown }).cause instanceof Error) e = (e as Error & { cause?: unknown }).cause;
  return e instanceof Error ? e.message : String(e);
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
