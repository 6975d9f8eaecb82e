/**
 * The response side of rein's HTTP transport (./fetch.ts): the part of the Fetch standard's
 * `Response` the SDK reads, over a node:http `IncomingMessage`.
 */
import type { IncomingMessage } from 'node:http';
import { pipeline, type Transform } from 'node:stream';
import { constants as zlib, createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { HttpHeaders } from './headers.js';

/** A byte stream read once, as an async iterable of chunks. */
export type HttpBody = AsyncIterable<Uint8Array> & { [Symbol.asyncIterator](): AsyncIterator<Uint8Array> };

/** The subset of the Fetch standard's `Response` the SDK reads. */
export class HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  /** The URL that answered (after redirects). */
  readonly url: string;
  readonly redirected: boolean;
  readonly headers: HttpHeaders;
  /** The body (decoded when the server compressed it) as byte chunks; read it once. */
  readonly body: HttpBody;
  #used = false;

  constructor(url: string, res: IncomingMessage, signal: AbortSignal | null | undefined, redirected = false) {
    this.status = res.statusCode ?? 0;
    this.statusText = res.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status < 300;
    this.url = url;
    this.redirected = redirected;
    this.headers = headersOf(res);
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

/** The response's headers; a repeated header's values joined with ", " as the standard does. */
export function headersOf(res: IncomingMessage): HttpHeaders {
  const headers = new HttpHeaders();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/** The reason an aborted signal gives: its own, or the AbortError the standard specifies. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * A decoder for the response's `content-encoding`, as Node's fetch decodes them: rein asks for no
 * compression, but a proxy may compress anyway. Sync-flushed, so a compressed event stream is
 * still read event by event. Undefined for identity or an encoding it does not know (left as is).
 */
function decoderFor(encoding: string | undefined): Transform | undefined {
  const sync = { flush: zlib.Z_SYNC_FLUSH, finishFlush: zlib.Z_SYNC_FLUSH };
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip(sync);
    case 'deflate':
      return createInflate(sync);
    case 'br':
      return createBrotliDecompress({ flush: zlib.BROTLI_OPERATION_FLUSH, finishFlush: zlib.BROTLI_OPERATION_FLUSH });
    default:
      return undefined;
  }
}

/**
 * The body as an async iterable. An abort or an early end fails the iteration as Node's fetch does
 * (the signal's reason; `TypeError('terminated')`); stopping early (`return()`, as a reader that
 * breaks out or the SDK's cancel does, also before the first read) closes the connection, so an
 * unread body never holds the process open.
 */
function bodyOf(res: IncomingMessage, signal: AbortSignal | null | undefined, onRead: () => void): HttpBody {
  const decoder = decoderFor(res.headers['content-encoding']);
  // pipeline passes an error of either side to the other, so a cut response fails the decoder.
  const source = decoder ? pipeline(res, decoder, () => undefined) : res;
  const onAbort = () => res.destroy(abortReason(signal!) as Error);
  if (signal?.aborted) onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });
  res.once('close', () => signal?.removeEventListener('abort', onAbort));
  let inner: AsyncIterator<Buffer> | undefined;
  const iterator: AsyncIterator<Uint8Array> = {
    async next() {
      inner ??= source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      try {
        return await inner.next();
      } catch (err) {
        if (signal?.aborted) throw abortReason(signal);
        throw new TypeError('terminated', { cause: err });
      }
    },
    async return() {
      if (!res.complete) res.destroy();
      decoder?.destroy();
      await inner?.return?.();
      return { done: true, value: undefined };
    },
  };
  return { [Symbol.asyncIterator]() { onRead(); return iterator; } };
}
