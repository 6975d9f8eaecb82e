/**
 * rein's HTTP transport for `@anthropic-ai/sdk` (its `fetch` option): requests over node:http or
 * node:https through Node's global agents (keep-alive, so a run's requests share a connection).
 *
 * Why not the global `fetch`: on Node 20 it is Node's bundled undici, whose first use costs ~16 ms
 * of a cold `rein run` on a 2-core machine (bench/kernel/startup.bench.ts), the largest single
 * step between start and the first request. The SDK needs little of fetch for the Messages API:
 * a method, headers, a string body, an abort signal, and back a status, headers and a body read
 * either whole or as a stream of bytes.
 *
 * What it does as Node's fetch does, because the SDK and rein's error mapping
 * (kernel/model/anthropic.ts) rely on it:
 *   - a network failure rejects with `TypeError('fetch failed')` whose `cause` is Node's error
 *     (ECONNREFUSED, ENOTFOUND, a certificate error, a connect timeout);
 *   - connecting (TCP, and TLS for https) gives up after CONNECT_TIMEOUT_MS;
 *   - an abort, before or during the body, rejects or fails the body with the signal's reason (a
 *     DOMException named `AbortError` when none was given);
 *   - a body that ends before the server finished it fails with `TypeError('terminated')`;
 *   - a gzip, deflate or br body (from a proxy: rein asks for none) is decoded;
 *   - redirects are followed as the Fetch standard says (at most MAX_REDIRECTS; 301/302 turn a
 *     POST into a GET, 303 any method but HEAD; 307/308 keep the method and body). Stricter than
 *     fetch: a redirect to another origin drops `x-api-key` too, not only `authorization`/`cookie`,
 *     so the API key is never sent to a host it was not meant for.
 * Request bodies other than a string or bytes are rejected (no Messages API call sends one).
 */
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { HttpHeaders, type HeadersInitLike } from './headers.js';
import { abortReason, HttpResponse } from './response.js';

export { HttpResponse } from './response.js';

/** Node's fetch (undici) gives up connecting after 10 s (its `connectTimeout` default); so does this, in ms. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** The Fetch standard's redirect limit ("if request's redirect count is 20, return a network error"). */
export const MAX_REDIRECTS = 20;

/** The subset of `RequestInit` this transport reads. */
export interface HttpRequestInit {
  method?: string;
  headers?: HeadersInitLike | null;
  /** A string (sent as UTF-8) or bytes. */
  body?: string | Uint8Array | null;
  signal?: AbortSignal | null;
}

export interface HttpFetchOptions {
  /** Connect (TCP + TLS) timeout, ms; default CONNECT_TIMEOUT_MS. */
  connectTimeoutMs?: number;
}

type Fetch = (input: string | URL, init?: HttpRequestInit) => Promise<HttpResponse>;

// node:https (and TLS with it) is loaded only for an https URL. Through require, not import():
// the built command runs from a V8 code cache, where import() is not available on Node 20.
const requireBuiltin = createRequire(import.meta.url);
const requestFor = (url: URL): typeof httpRequest =>
  url.protocol === 'https:' ? (requireBuiltin('node:https') as typeof import('node:https')).request : httpRequest;

/** A fetch over node:http / node:https; see the module comment for its behaviour. */
export function createHttpFetch(options: HttpFetchOptions = {}): Fetch {
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  return async (input, init = {}) => {
    const signal = init.signal;
    if (signal?.aborted) throw abortReason(signal);
    const body = init.body ?? undefined;
    if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      throw new TypeError('rein HTTP transport: the request body must be a string or bytes');
    }
    let url = new URL(typeof input === 'string' ? input : input.href);
    let method = (init.method ?? 'GET').toUpperCase();
    // Bytes, so Node writes the headers apart from the body, in latin1 as HTTP has them.
    let bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const headers: Record<string, string> = {};
    new HttpHeaders(init.headers).forEach((value, name) => { headers[name] = value; });
    for (let redirects = 0; ; redirects++) {
      if (bytes !== undefined) headers['content-length'] = String(bytes.byteLength);
      const res = await send(url, { method, headers }, bytes, signal, connectTimeoutMs);
      const location = res.headers.location;
      if (![301, 302, 303, 307, 308].includes(res.statusCode ?? 0) || !location) return new HttpResponse(url.href, res, signal, redirects > 0);
      res.destroy();
      if (redirects === MAX_REDIRECTS) throw new TypeError('fetch failed', { cause: new Error(`more than ${MAX_REDIRECTS} redirects`) });
      let next: URL;
      try {
        next = new URL(location, url);
      } catch (err) {
        throw new TypeError('fetch failed', { cause: err });
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new TypeError('fetch failed', { cause: new Error(`redirect to a ${next.protocol} URL`) });
      if (((res.statusCode === 301 || res.statusCode === 302) && method === 'POST') || (res.statusCode === 303 && method !== 'GET' && method !== 'HEAD')) {
        method = 'GET';
        bytes = undefined;
        for (const h of ['content-length', 'content-type', 'content-encoding', 'content-language', 'content-location']) delete headers[h];
      }
      if (next.origin !== url.origin) for (const h of ['authorization', 'x-api-key', 'cookie', 'proxy-authorization']) delete headers[h];
      url = next;
    }
  };
}

/** Sends one request; resolves with the response head (the body is read by HttpResponse). */
function send(url: URL, options: RequestOptions, body: Uint8Array | undefined, signal: AbortSignal | null | undefined, connectTimeoutMs: number): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const req: ClientRequest = requestFor(url)(url, options);
    const onAbort = () => {
      const reason = abortReason(signal!);
      req.destroy(reason as Error);
      if (!settled) { settled = true; reject(reason); }
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('socket', (socket: Socket & { encrypted?: boolean }) => {
      if (!socket.connecting) return; // a kept-alive connection, already open
      const timer = setTimeout(() => {
        req.destroy(Object.assign(new Error(`connect timed out after ${connectTimeoutMs} ms (${url.host})`), { code: 'ETIMEDOUT' }));
      }, connectTimeoutMs);
      socket.once(socket.encrypted ? 'secureConnect' : 'connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
    req.on('response', (res) => {
      settled = true;
      // From here an abort fails the body (HttpResponse), not this promise.
      signal?.removeEventListener('abort', onAbort);
      resolve(res);
    });
    req.on('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      if (settled) return;
      settled = true;
      reject(signal?.aborted ? abortReason(signal) : new TypeError('fetch failed', { cause: err }));
    });
    req.end(body);
  });
}

/** The transport rein's Anthropic client uses: createHttpFetch() with the defaults. */
export const httpFetch: Fetch = createHttpFetch();
