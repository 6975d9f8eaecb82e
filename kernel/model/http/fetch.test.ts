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
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { brotliCompressSync, createGzip, deflateSync } from 'node:zlib';
import { createHttpFetch, httpFetch, MAX_REDIRECTS } from './fetch.js';

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

  it('sends header values as latin1 bytes, as HTTP carries them, also beside a UTF-8 body', async () => {
    let raw = '';
    const url = await serve((req, res) => { raw = req.rawHeaders[req.rawHeaders.indexOf('x-user') + 1]!; res.end(); });
    await httpFetch(url, { method: 'POST', headers: { 'x-user': 'caf\u00e9' }, body: 'd\u00e9j\u00e0 ✓' });
    expect(Buffer.from(raw, 'latin1')).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  });

  it('decodes a gzip, deflate or br body (a proxy may compress though rein asks for none), a gzip stream event by event', async () => {
    let sendNext!: () => void;
    const url = await serve((req, res) => {
      const text = `answer for ${req.url}`;
      if (req.url === '/deflate') { res.writeHead(200, { 'content-encoding': 'deflate' }); res.end(deflateSync(text)); return; }
      if (req.url === '/br') { res.writeHead(200, { 'content-encoding': 'br' }); res.end(brotliCompressSync(text)); return; }
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/event-stream' });
      const gz = createGzip();
      gz.pipe(res);
      gz.write('event: one\n\n');
      gz.flush();
      sendNext = () => gz.end('event: two\n\n');
    });
    expect(await (await httpFetch(`${url}/deflate`)).text()).toBe('answer for /deflate');
    expect(await (await httpFetch(`${url}/br`)).text()).toBe('answer for /br');
    const res = await httpFetch(`${url}/gzip`);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const it = res.body[Symbol.asyncIterator]();
    expect(Buffer.from((await it.next()).value!).toString()).toBe('event: one\n\n');
    sendNext();
    let rest = '';
    for (let r = await it.next(); !r.done; r = await it.next()) rest += Buffer.from(r.value).toString();
    expect(rest).toBe('event: two\n\n');
  });

  it('follows redirects as fetch does: 307/308 keep method and body, 303 becomes GET; another origin gets no API key', async () => {
    const seen: { url?: string; method?: string; text: string; key?: unknown }[] = [];
    const other = await serve((req, res) => { seen.push({ url: `other${req.url}`, method: req.method, text: req.text, key: req.headers['x-api-key'] }); res.end('from other'); });
    const url = await serve((req, res) => {
      seen.push({ url: req.url, method: req.method, text: req.text, key: req.headers['x-api-key'] });
      if (req.url === '/307') { res.writeHead(307, { location: '/final' }); res.end(); return; }
      if (req.url === '/303') { res.writeHead(303, { location: `${url}/final` }); res.end(); return; }
      if (req.url === '/away') { res.writeHead(308, { location: `${other}/there` }); res.end(); return; }
      if (req.url === '/loop') { res.writeHead(302, { location: '/loop' }); res.end(); return; }
      res.end('final');
    });
    const post = { method: 'POST', headers: { 'x-api-key': 'secret' }, body: 'payload' };
    const r307 = await httpFetch(`${url}/307`, post);
    expect(await r307.text()).toBe('final');
    expect(r307).toMatchObject({ url: `${url}/final`, redirected: true, status: 200 });
    expect(seen.splice(0)).toEqual([
      { url: '/307', method: 'POST', text: 'payload', key: 'secret' },
      { url: '/final', method: 'POST', text: 'payload', key: 'secret' },
    ]);
    await (await httpFetch(`${url}/303`, post)).text();
    expect(seen.splice(0)[1]).toEqual({ url: '/final', method: 'GET', text: '', key: 'secret' });
    expect(await (await httpFetch(`${url}/away`, post)).text()).toBe('from other');
    expect(seen.splice(0)[1]).toEqual({ url: 'other/there', method: 'POST', text: 'payload', key: undefined });
    const err = await httpFetch(`${url}/loop`).catch((e: unknown) => e) as TypeError;
    expect(err.message).toBe('fetch failed');
    expect(String((err.cause as Error).message)).toBe(`more than ${MAX_REDIRECTS} redirects`);
    expect(seen).toHaveLength(MAX_REDIRECTS + 1);
  });

  it('gives up connecting after the connect timeout (here: a TLS handshake that never answers), as a "timed out" fetch failure', async () => {
    const sockets: Socket[] = [];
    const silent = createTcpServer((s) => { sockets.push(s); });
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    try {
      const slowFetch = createHttpFetch({ connectTimeoutMs: 200 });
      const err = await slowFetch(`https://127.0.0.1:${(silent.address() as AddressInfo).port}/`).catch((e: unknown) => e) as TypeError;
      expect(err.message).toBe('fetch failed');
      expect(String((err.cause as Error).message)).toMatch(/^connect timed out after 200 ms/);
      expect((err.cause as { code?: string }).code).toBe('ETIMEDOUT');
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
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
