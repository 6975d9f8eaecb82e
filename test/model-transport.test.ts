/**
 * The model client's transport, each against real loopback servers: a forward proxy (proxy-chain,
 * its own process) chosen by HTTP_PROXY / HTTPS_PROXY and skipped by NO_PROXY, and a gateway that
 * takes `Authorization: Bearer` (ANTHROPIC_AUTH_TOKEN). HTTPS through the proxy runs the built
 * command, since NODE_EXTRA_CA_CERTS is read when a process starts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../agent/agent.js';
import { cleanEnv, REPO, serveScenario, type SimHarness } from '../testing/support.js';
import { useTestEnv } from '../testing/env.js';

const env = useTestEnv({ prefix: 'rein-transport-' });
const SCENARIO = 'turns:\n  - reply: [{ text: "through" }]\n';

interface ProxyLine { method: string; url: string; hostname: string; port: number; isHttp: boolean; authorization: string | null; apiKey: string | null }
let proxy: { child: ChildProcess; url: string; seen: ProxyLine[] };

// The retry plugin reads its override from the process (a refused connection is retried otherwise).
const savedRetries = process.env.REIN_MAX_RETRIES;
beforeAll(() => { process.env.REIN_MAX_RETRIES = '0'; });
afterAll(() => { if (savedRetries === undefined) delete process.env.REIN_MAX_RETRIES; else process.env.REIN_MAX_RETRIES = savedRetries; });

beforeAll(async () => {
  const child = spawn(process.execPath, [join(REPO, 'test/fixtures/http-proxy.mjs')], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
  const seen: ProxyLine[] = [];
  const port = await new Promise<number>((done, fail) => {
    child.once('exit', (code) => fail(new Error(`the proxy exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const msg = JSON.parse(line) as ProxyLine | { port: number; method?: undefined };
      if (msg.method === undefined) done(msg.port);
      else seen.push(msg);
    });
  });
  proxy = { child, url: `http://127.0.0.1:${port}`, seen };
});
afterAll(() => { proxy.child.kill('SIGTERM'); });

let sim: SimHarness | undefined;
afterEach(async () => { await sim?.close(); sim = undefined; proxy.seen.length = 0; });

/** One `hi` through the `minimal` preset with this environment; the result and the requests the simulator got. */
async function runWith(extra: (simUrl: string) => NodeJS.ProcessEnv) {
  sim = await serveScenario(SCENARIO, env.dir);
  const agent = await createAgent({ preset: 'minimal', cwd: env.dir, layers: false, env: { ...cleanEnv(), REIN_MAX_RETRIES: '0', ...extra(sim.server.url) } });
  try {
    const result = await agent.run('hi').result;
    return { result, kind: agent.client.kind, requests: sim.requests() };
  } finally {
    await agent.close();
  }
}

describe('HTTP_PROXY, HTTPS_PROXY and NO_PROXY', () => {
  it('sends every request through HTTP_PROXY for an http:// base URL', async () => {
    const { result, kind, requests } = await runWith((url) => ({ ANTHROPIC_API_KEY: 'sk-proxy', ANTHROPIC_BASE_URL: url, HTTP_PROXY: proxy.url }));
    expect(kind).toBe('api');
    expect(result).toMatchObject({ terminalReason: 'end_turn', text: 'through' });
    expect(requests).toHaveLength(1);
    const port = Number(new URL(sim!.server.url).port);
    // undici's proxy agent tunnels plain http too (CONNECT), so the proxy never sees the key.
    expect(proxy.seen).toEqual([expect.objectContaining({ method: 'CONNECT', isHttp: false, hostname: '127.0.0.1', port, apiKey: null, authorization: null })]);
  });

  it('reads the lowercase http_proxy too', async () => {
    const { result } = await runWith((url) => ({ ANTHROPIC_API_KEY: 'sk-proxy', ANTHROPIC_BASE_URL: url, http_proxy: proxy.url }));
    expect(result.terminalReason).toBe('end_turn');
    expect(proxy.seen).toHaveLength(1);
  });

  it('goes direct to a host NO_PROXY names, and only to it', async () => {
    const direct = await runWith((url) => ({ ANTHROPIC_API_KEY: 'sk-proxy', ANTHROPIC_BASE_URL: url, HTTP_PROXY: proxy.url, NO_PROXY: 'example.com,127.0.0.1' }));
    expect(direct.result.terminalReason).toBe('end_turn');
    expect(direct.requests).toHaveLength(1);
    expect(proxy.seen).toEqual([]);
    await sim!.close();
    const proxied = await runWith((url) => ({ ANTHROPIC_API_KEY: 'sk-proxy', ANTHROPIC_BASE_URL: url, HTTP_PROXY: proxy.url, NO_PROXY: 'example.com' }));
    expect(proxied.result.terminalReason).toBe('end_turn');
    expect(proxy.seen).toHaveLength(1);
  });

  it('says it could not reach the proxy, naming it and the server', async () => {
    const closed = await new Promise<number>((done) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const p = (s.address() as AddressInfo).port; s.close(() => done(p)); }); });
    const { result, requests } = await runWith((url) => ({ ANTHROPIC_API_KEY: 'sk-proxy', ANTHROPIC_BASE_URL: url, HTTP_PROXY: `http://127.0.0.1:${closed}` }));
    expect(result.terminalReason).toBe('model_error');
    expect(result.terminalDetail).toMatch(new RegExp(`cannot reach the proxy 127\\.0\\.0\\.1:${closed} \\(for 127\\.0\\.0\\.1:\\d+\\): connection refused \\(ECONNREFUSED\\)`));
    expect(requests).toHaveLength(0);
  });

  it('tunnels an https:// base URL through HTTPS_PROXY with CONNECT (the built command)', async () => {
    sim = await serveScenario(SCENARIO, env.dir);
    const certDir = join(REPO, 'test/fixtures/tls');
    const upstream = sim.server.url;
    const front = createHttpsServer({ key: readFileSync(join(certDir, 'localhost-test.key')), cert: readFileSync(join(certDir, 'localhost-test.crt')) }, (req, res) => {
      const up = httpRequest(`${upstream}${req.url}`, { method: req.method, headers: req.headers }, (u) => { res.writeHead(u.statusCode!, u.headers); u.pipe(res); });
      req.pipe(up);
    });
    await new Promise<void>((done) => front.listen(0, '127.0.0.1', done));
    const port = (front.address() as AddressInfo).port;
    try {
      const childEnv = { ...env.childEnv(), REIN_MAX_RETRIES: '0', ANTHROPIC_API_KEY: 'sk-tls', ANTHROPIC_BASE_URL: `https://127.0.0.1:${port}`, HTTPS_PROXY: proxy.url, HTTP_PROXY: 'http://127.0.0.1:9', NODE_EXTRA_CA_CERTS: join(certDir, 'localhost-test.crt') };
      const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
        const child = spawn(process.execPath, [join(REPO, 'bin/rein.js'), 'run', 'hi', '--preset', 'minimal', '--no-layers', '--output-format', 'json'], { cwd: env.dir, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => { stdout += d; });
        child.stderr.on('data', (d) => { stderr += d; });
        child.on('exit', (code) => done({ code, stdout, stderr }));
      });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ subtype: 'success', result: 'through' });
      // The proxy saw only the tunnel, not the request inside it (nor the key).
      expect(proxy.seen).toEqual([expect.objectContaining({ method: 'CONNECT', isHttp: false, hostname: '127.0.0.1', port, apiKey: null })]);
      expect(sim.requests()).toHaveLength(1);
    } finally {
      front.close();
    }
  });
});

describe('ANTHROPIC_AUTH_TOKEN', () => {
  let gateway: Server;
  let seen: IncomingHttpHeaders[];
  let gatewayUrl: string;
  beforeAll(async () => {
    // A gateway that takes a bearer token and nothing else, in front of the simulator.
    gateway = createServer((req, res) => {
      seen.push(req.headers);
      if (req.headers.authorization !== 'Bearer gw-token') {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'bearer token required' } }));
        return;
      }
      const up = httpRequest(`${sim!.server.url}${req.url}`, { method: req.method, headers: req.headers }, (u) => { res.writeHead(u.statusCode!, u.headers); u.pipe(res); });
      req.pipe(up);
    });
    await new Promise<void>((done) => gateway.listen(0, '127.0.0.1', done));
    gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  });
  afterAll(() => { gateway.close(); });

  it('is sent as Authorization: Bearer, with no x-api-key; without it the gateway refuses', async () => {
    seen = [];
    const { result, kind } = await runWith(() => ({ ANTHROPIC_AUTH_TOKEN: 'gw-token', ANTHROPIC_BASE_URL: gatewayUrl }));
    expect(kind).toBe('api');
    expect(result).toMatchObject({ terminalReason: 'end_turn', text: 'through' });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.authorization).toBe('Bearer gw-token');
    expect(seen[0]!['x-api-key']).toBeUndefined();
    // Without the token the gateway refuses, and the run says so.
    const refused = await runWith(() => ({ ANTHROPIC_BASE_URL: gatewayUrl }));
    expect(refused.result.terminalDetail).toMatch(/401 authentication_error: bearer token required/);
  });

  it('chooses the API without a base URL (no fallback to the demo), and ANTHROPIC_API_KEY wins when both are set', async () => {
    const agent = await createAgent({ preset: 'minimal', cwd: env.dir, layers: false, env: { ...cleanEnv(), ANTHROPIC_AUTH_TOKEN: 'gw-token' } });
    expect(agent.client).toMatchObject({ kind: 'api', client: { kind: 'anthropic', baseURL: 'https://api.anthropic.com' } });
    await agent.close();
    seen = [];
    const { result } = await runWith(() => ({ ANTHROPIC_API_KEY: 'sk-both', ANTHROPIC_AUTH_TOKEN: 'gw-token', ANTHROPIC_BASE_URL: gatewayUrl }));
    expect(seen.map((h) => h.authorization)).toEqual(['Bearer sk-both']);
    expect(result.terminalReason).toBe('model_error');
    expect(result.terminalDetail).toMatch(/401 authentication_error: bearer token required/);
  });

  it('goes through the proxy like a key, inside the tunnel', async () => {
    seen = [];
    const { result } = await runWith(() => ({ ANTHROPIC_AUTH_TOKEN: 'gw-token', ANTHROPIC_BASE_URL: gatewayUrl, HTTP_PROXY: proxy.url }));
    expect(result.terminalReason).toBe('end_turn');
    expect(seen.map((h) => h.authorization)).toEqual(['Bearer gw-token']);
    expect(proxy.seen).toEqual([expect.objectContaining({ method: 'CONNECT', port: Number(new URL(gatewayUrl).port), authorization: null })]);
  });
});
