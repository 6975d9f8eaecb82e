/**
 * The simulator over HTTP on the loopback interface, speaking the Messages API wire protocol so
 * the real `@anthropic-ai/sdk` and other agents (ANTHROPIC_BASE_URL) can talk to it:
 * - `POST /v1/messages` (`?beta=true` accepted): JSON, or SSE when the body has `stream: true`;
 * - `POST /v1/messages/count_tokens`;
 * - `HEAD /` and `GET /` (connectivity checks) → 200; anything else → 404 `not_found_error`.
 * Auth headers are accepted and ignored. Scripted transport faults are played here: a slow first
 * byte delays the status line, `cut` destroys the socket after N events, `idle` pauses writing.
 */
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { BodyParser } from './body.js';
import { SOURCE_HEADER } from './side.js';
import { formatSse } from './sse.js';
import { normalizeHeaders, type SimResponse, type Simulator } from './simulator.js';

export interface SimServerOptions {
  simulator: Simulator;
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to bind. Default (and the only sensible value) `127.0.0.1`. */
  host?: string;
  /** Append one JSON line per request here: time, path, selected headers, body, status, usage. */
  log?: string;
  /** Largest accepted request body, bytes (default 32 MiB, the API's limit); larger → 413. */
  maxBodyBytes?: number;
}

export interface SimServer {
  /** Base URL for ANTHROPIC_BASE_URL / the SDK's `baseURL`, e.g. `http://127.0.0.1:43121`. */
  url: string;
  port: number;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** Request headers copied into the log. */
const LOGGED_HEADERS = ['anthropic-beta', 'anthropic-version', 'x-rein-source', 'user-agent', 'x-app'];
const DEFAULT_MAX_BODY = 32 * 1024 * 1024;
/** Pause between the last event before a cut and closing the socket, ms. */
const CUT_GRACE_MS = 100;

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) { reject(new BodyTooLarge()); req.resume(); return; }
      chunks.push(c);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  const data = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers });
  res.end(data);
}

function errorJson(res: ServerResponse, status: number, type: string, message: string, requestId: string): void {
  sendJson(res, status, { type: 'error', error: { type, message }, request_id: requestId }, { 'request-id': requestId });
}

/** Starts the server. Resolves once it listens. */
export async function startSimServer(options: SimServerOptions): Promise<SimServer> {
  const { simulator } = options;
  const host = options.host ?? '127.0.0.1';
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  let plainIds = 0;
  const parser = new BodyParser();
  // Aborted by close(): scripted delays (slow first byte, idle, cut grace) end with the server.
  const closing = new AbortController();
  const wait = (ms: number) => sleep(ms, undefined, { signal: closing.signal });

  const log = (entry: Record<string, unknown>) => {
    if (options.log) appendFileSync(options.log, JSON.stringify({ time: new Date().toISOString(), ...entry }) + '\n');
  };

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const headers = normalizeHeaders(req.headers);
    if ((req.method === 'HEAD' || req.method === 'GET') && path === '/') { res.writeHead(200); res.end(); return; }
    const isMessages = path === '/v1/messages';
    const isCount = path === '/v1/messages/count_tokens';
    if (!isMessages && !isCount) {
      req.resume();
      errorJson(res, 404, 'not_found_error', `Not found: ${req.method} ${path}`, `req_sim_http_${++plainIds}`);
      return;
    }
    if (req.method !== 'POST') {
      req.resume();
      errorJson(res, 405, 'invalid_request_error', `Method ${req.method} is not allowed on ${path}`, `req_sim_http_${++plainIds}`);
      return;
    }
    let bytes: Buffer;
    try {
      bytes = await readBody(req, maxBody);
    } catch (err) {
      if (err instanceof BodyTooLarge) errorJson(res, 413, 'request_too_large', `Request exceeds the maximum allowed number of bytes (${maxBody}).`, `req_sim_http_${++plainIds}`);
      else res.destroy();
      return;
    }
    let body: unknown;
    try {
      // Parsed against the previous body of the same conversation: only what changed is parsed.
      body = parser.parse(bytes, `${path} ${headers[SOURCE_HEADER] ?? ''}`);
    } catch (err) {
      errorJson(res, 400, 'invalid_request_error', `The request body is not valid JSON: ${(err as Error).message}`, `req_sim_http_${++plainIds}`);
      return;
    }
    const logged = Object.fromEntries(LOGGED_HEADERS.filter((h) => headers[h] !== undefined).map((h) => [h, headers[h]]));

    if (isCount) {
      const r = simulator.countTokens(body, { headers });
      log({ path, headers: logged, body, status: r.status, response: r.body });
      sendJson(res, r.status, r.body, { 'request-id': r.requestId });
      return;
    }

    const r = simulator.handle(body, { headers });
    log({
      path, headers: logged, body, status: r.status, requestId: r.requestId, source: r.source,
      ...(r.message ? { usage: r.message.usage } : { error: r.body }),
      ...(r.fault ? { fault: r.fault } : {}), ...(r.delivery ? { delivery: r.delivery } : {}),
    });
    await deliver(r, res, (body as Record<string, unknown>)?.stream === true);
  }

  async function deliver(r: SimResponse, res: ServerResponse, stream: boolean): Promise<void> {
    const d = r.delivery ?? {};
    if (d.slowFirstByteMs) await wait(d.slowFirstByteMs);
    if (res.destroyed) return;
    const headers = { 'request-id': r.requestId, ...r.headers };
    if (r.status !== 200 || !r.message) { sendJson(res, r.status, r.body, headers); return; }
    if (!stream) {
      if (d.cut) { res.destroy(); return; }
      if (d.idle) await wait(d.idle.ms);
      sendJson(res, 200, r.body, headers);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
    res.flushHeaders();
    let sent = 0;
    // A cut must land after the client has read the events already written: a fetch body stream
    // that errors drops the chunks still queued in it, so the close waits for the bytes to drain
    // and then a little longer.
    const cut = async () => {
      await new Promise<void>((resolve) => res.write('', () => resolve()));
      await wait(CUT_GRACE_MS);
      res.destroy();
    };
    for (const e of r.events) {
      if (d.cut && sent >= d.cut.afterEvents) return cut();
      if (d.idle && sent === d.idle.afterEvents) await wait(d.idle.ms);
      if (res.destroyed) return;
      res.write(formatSse(e));
      sent++;
    }
    if (d.cut) return cut();
    res.end();
  }

  const server = createServer((req, res) => {
    onRequest(req, res).catch((err) => {
      if (closing.signal.aborted || res.destroyed) return;
      if (!res.headersSent) errorJson(res, 500, 'api_error', `simulator failure: ${(err as Error).message}`, `req_sim_http_${++plainIds}`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => { server.off('error', reject); resolve(); });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () => new Promise<void>((resolve) => {
      closing.abort();
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
