/**
 * rein's HTTP transport for `@anthropic-ai/sdk` (its `fetch` option): one request over node:http
 * or node:https, through Node's global agents (keep-alive, so a run's requests share a connection).
 *
 * Why not the global `fetch`: on Node 20 it is Node's bundled undici, whose first use costs ~16 ms
 * of a cold `rein run` on a 2-core machine (bench/kernel/startup.bench.ts), the largest single
 * step between start and the first request. The SDK needs little of fetch for the Messages API:
 * a method, headers, a string body, an abort signal, and back a status, headers and a body read
 * either whole (`text()` / `json()`) or as a stream of bytes.
 *
 * Behaviour the SDK and rein's error mapping (kernel/model/anthropic.ts) rely on, as with Node's fetch:
 *   - a network failure rejects with a `TypeError('fetch failed')` whose `cause` is Node's error
 *     (ECONNREFUSED, ENOTFOUND, ...);
 *   - an abort (before or during the body) rejects, or fails the body, with the signal's reason,
 *     a DOMException named `AbortError` when none was given;
 *   - a body that ends before the server finished it (connection closed mid-stream) fails with a
 *     `TypeError('terminated')`.
 * Not supported, because no Messages API call sends them: request bodies other than a string or
 * bytes, redirects (returned as they are), compression (no `accept-encoding` is sent, so the
 * server answers uncompressed).
 */
import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { HttpHeaders, type HeadersInitLike } from './headers.js';

/** The subset of `RequestInit` this transport reads. */
export interface HttpRequestInit {
  method?: string;
  headers?: HeadersInitLike | null;
  /** A string (sent as UTF-8) or bytes. */
  body?: string | Uint8Array | null;
  signal?: AbortSignal | null;
}

/** The subset of the Fetch standard's `Response` the SDK reads. */
export class HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly url: string;
  readonly headers: HttpHeaders;
  /** The body as an async iterable of byte chunks (Buffers); read it once. */
  readonly body: AsyncIterable<Uint8Array> & { [Symbol.asyncIterator](): AsyncIterator<Uint8Array> };
  #used = false;

  constructor(url: string, res: IncomingMessage, signal: AbortSignal | null | undefined) {
    this.status = res.statusCode ?? 0;
    this.statusText = res.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status < 300;
    this.url = url;
    const headers = new HttpHeaders();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    this.headers = headers;
    this.body = bodyOf(res, signal, () => { this.#used = true; });
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  /** The whole body, decoded as UTF-8. */
  async text(): Promise<string> {
    return Buffer.concat(await this.#chunks()).toString('utf8');
  }

  /** The whole body, parsed as JSON. Throws SyntaxError for a body that is not JSON. */
  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const buf = Buffer.concat(await this.#chunks());
    return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
  }

  async #chunks(): Promise<Uint8Array[]> {
    if (this.#used) throw new TypeError('Body is unusable: Body has already been read');
    const chunks: Uint8Array[] = [];
    for await (const chunk of this.body) chunks.push(chunk);
    return chunks;
  }
}

/**
 * Sends one HTTP request. Same call shape as the global `fetch` for what the SDK passes
 * (`input` a URL string or URL). Rejects as described in the module comment.
 */
export function httpFetch(input: string | URL, init: HttpRequestInit = {}): Promise<HttpResponse> {
  const url = typeof input === 'string' ? input : input.href;
  const signal = init.signal;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const headers: Record<string, string> = {};
  new HttpHeaders(init.headers).forEach((value, name) => { headers[name] = value; });
  const body = init.body ?? undefined;
  if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) {
    return Promise.reject(new TypeError('rein HTTP transport: the request body must be a string or bytes'));
  }
  if (body !== undefined && !('content-length' in headers)) headers['content-length'] = String(Buffer.byteLength(body));
  const secure = url.startsWith('https:');
  return (secure ? import('node:https').then((m) => m.request) : Promise.resolve(httpRequest)).then((request) => new Promise<HttpResponse>((resolve, reject) => {
    let settled = false;
    const req = request(url, { method: init.method ?? 'GET', headers });
    const onAbort = () => {
      const reason = abortReason(signal!);
      req.destroy(reason as Error);
      if (!settled) { settled = true; reject(reason); }
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => {
      settled = true;
      // From here an abort fails the body (bodyOf), not this promise.
      signal?.removeEventListener('abort', onAbort);
      resolve(new HttpResponse(url, res, signal));
    });
    req.on('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      if (settled) return;
      settled = true;
      reject(signal?.aborted ? abortReason(signal) : new TypeError('fetch failed', { cause: err }));
    });
    req.end(body);
  }));
}

/**
 * The body as an async iterable. An abort or an early end fails the iteration as Node's fetch does;
 * stopping early (`return()`, as a reader that breaks out or the SDK's cancel does, also before the
 * first read) closes the connection, so an unread body never holds the process open.
 */
function bodyOf(res: IncomingMessage, signal: AbortSignal | null | undefined, onRead: () => void): HttpResponse['body'] {
  const onAbort = () => res.destroy(abortReason(signal!) as Error);
  if (signal?.aborted) onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });
  res.once('close', () => signal?.removeEventListener('abort', onAbort));
  let inner: AsyncIterator<Buffer> | undefined;
  const iterator: AsyncIterator<Uint8Array> = {
    async next() {
      inner ??= res[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      try {
        return await inner.next();
      } catch (err) {
        if (signal?.aborted) throw abortReason(signal);
        throw new TypeError('terminated', { cause: err });
      }
    },
    async return() {
      if (!res.complete) res.destroy();
      await inner?.return?.();
      return { done: true, value: undefined };
    },
  };
  return { [Symbol.asyncIterator]() { onRead(); return iterator; } };
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}
