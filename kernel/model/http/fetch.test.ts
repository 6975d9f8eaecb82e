/**
 * rein's HTTP transport against real node:http / node:https servers on 127.0.0.1: what the SDK
 * and rein's error mapping read from it (status, headers, whole and streamed bodies) and how it
 * fails (refused connection, abort before and during the body, a body cut short).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, globalAgent as httpAgent, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, globalAgent as httpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { httpFetch } from './fetch.js';

type Handler = (req: IncomingMessage & { text: string }, res: ServerResponse) => void;
let servers: Server[] = [];
afterEach(async () => {
  for (const s of servers) { s.closeAllConnections(); s.close(); }
  servers = [];
  httpsAgent.options.ca = undefined;
  httpsAgent.destroy();
  httpAgent.destroy();
});

function listen(server: Server, handler: Handler): Promise<string> {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => { text += c; });
    req.on('end', () => handler(Object.assign(req, { text }), res));
  });
  servers.push(server);
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(String((server.address() as AddressInfo).port))));
}
const serve = async (handler: Handler) => `http://127.0.0.1:${await listen(createServer(), handler)}`;

describe('httpFetch', () => {
  it('sends the method, lower-cased headers, a content-length and the UTF-8 body; returns status, headers and the body', async () => {
    let seen: { method?: string; headers?: Record<string, unknown>; text?: string } = {};
    const url = await serve((req, res) => {
      seen = { method: req.method, headers: req.headers, text: req.text };
      res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-multi': ['a', 'b'], 'request-id': 'req_1' });
      res.end(JSON.stringify({ ok: 'yes ✓' }));
    });
    const body = JSON.stringify({ text: 'héllo ✓' });
    const res = await httpFetch(`${url}/v1/messages`, { method: 'POST', headers: { 'X-Api-Key': 'k', 'Content-Type': 'application/json' }, body });
    expect(seen).toMatchObject({ method: 'POST', text: body, headers: { 'x-api-key': 'k', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } });
    expect(seen.headers).not.toHaveProperty('accept-encoding');
    expect(res).toMatchObject({ status: 201, statusText: 'Made', ok: true, url: `${url}/v1/messages` });
    expect(res.headers.get('Request-Id')).toBe('req_1');
    expect(res.headers.get('x-multi')).toBe('a, b');
    expect(res.bodyUsed).toBe(false);
    expect(await res.json()).toEqual({ ok: 'yes ✓' });
    expect(res.bodyUsed).toBe(true);
    await expect(res.text()).rejects.toThrow(/already been read/);
  });

  it('takes headers from a Headers object (Node\'s own) and from pairs', async () => {
    const got: Record<string, unknown>[] = [];
    const url = await serve((req, res) => { got.push(req.headers); res.end(); });
    await httpFetch(url, { headers: new Headers({ 'X-A': '1' }) as never });
    await httpFetch(url, { headers: [['X-B', '2'], ['x-b', '3']] });
    expect(got[0]).toMatchObject({ 'x-a': '1' });
    expect(got[1]).toMatchObject({ 'x-b': '2, 3' });
  });

  it('streams the body: each chunk is readable before the server sends the next', async () => {
    let sendNext!: () => void;
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: one\n\n');
      sendNext = () => res.end('event: two\n\n');
    });
    const res = await httpFetch(url, { method: 'POST', body: '{}' });
    const it = res.body[Symbol.asyncIterator]();
    const first = await it.next();
    expect(Buffer.from(first.value!).toString()).toBe('event: one\n\n');
    sendNext();
    let rest = '';
    for (let r = await it.next(); !r.done; r = await it.next()) rest += Buffer.from(r.value).toString();
    expect(rest).toBe('event: two\n\n');
  });

  it('a refused connection rejects with TypeError "fetch failed" whose cause is ECONNREFUSED', async () => {
    const url = await serve((_req, res) => res.end());
    servers[0]!.close();
    await once(servers[0]!, 'close');
    const err = await httpFetch(url).catch((e: unknown) => e) as TypeError & { cause?: { code?: string } };
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('fetch failed');
    expect(err.cause?.code).toBe('ECONNREFUSED');
  });

  it('an abort before the response rejects with an AbortError and closes the connection', async () => {
    let received!: () => void;
    const arrived = new Promise<void>((done) => { received = done; });
    let closed!: Promise<unknown>;
    // Never answers: the request is pending until the client aborts it.
    const url = await serve((req) => { closed = once(req.socket, 'close'); received(); });
    const controller = new AbortController();
    const pending = httpFetch(url, { method: 'POST', body: 'x', signal: controller.signal });
    await arrived;
    controller.abort();
    const err = await pending.catch((e: unknown) => e) as Error;
    expect(err.name).toBe('AbortError');
    await closed;
    // Already aborted: rejects at once with the signal's reason.
    const gone = new AbortController();
    gone.abort(new Error('stop now'));
    await expect(httpFetch(url, { signal: gone.signal })).rejects.toThrow('stop now');
  });

  it('an abort during the body fails the read with an AbortError', async () => {
    const url = await serve((_req, res) => { res.writeHead(200); res.write('first'); });
    const controller = new AbortController();
    const res = await httpFetch(url, { signal: controller.signal });
    const it = res.body[Symbol.asyncIterator]();
    expect(Buffer.from((await it.next()).value!).toString()).toBe('first');
    controller.abort();
    const err = await it.next().catch((e: unknown) => e) as Error;
    expect(err.name).toBe('AbortError');
  });

  it('a body the server cuts short fails the read with TypeError "terminated"', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: partial\n\n', () => setTimeout(() => res.socket?.destroy(), 20));
    });
    const res = await httpFetch(url);
    const err = await res.text().catch((e: unknown) => e) as Error;
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('terminated');
  });

  it('dropping an unread body (return() before the first read) closes the connection', async () => {
    let socketClosed!: Promise<unknown>;
    const url = await serve((req, res) => { socketClosed = once(req.socket, 'close'); res.writeHead(200); res.write('never read'); });
    const res = await httpFetch(url);
    await res.body[Symbol.asyncIterator]().return!();
    await socketClosed;
    expect(res.bodyUsed).toBe(true);
  });

  it('rejects a body that is neither a string nor bytes', async () => {
    await expect(httpFetch('http://127.0.0.1:9', { body: { a: 1 } as never })).rejects.toThrow(/must be a string or bytes/);
  });

  it('https: verifies the server certificate (fails closed) and works once its CA is trusted', async () => {
    const dir = join(import.meta.dirname, 'test');
    const cert = readFileSync(join(dir, 'localhost-test.crt'));
    const server = createHttpsServer({ key: readFileSync(join(dir, 'localhost-test.key')), cert });
    const url = `https://127.0.0.1:${await listen(server, (req, res) => res.end(`secure ${req.text}`))}`;
    const untrusted = await httpFetch(url, { method: 'POST', body: 'x' }).catch((e: unknown) => e) as TypeError & { cause?: { code?: string } };
    expect(untrusted.message).toBe('fetch failed');
    expect(untrusted.cause?.code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO/);
    httpsAgent.destroy();
    httpsAgent.options.ca = cert;
    const res = await httpFetch(url, { method: 'POST', body: 'x' });
    expect(await res.text()).toBe('secure x');
  });
});
