import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import webFetchPlugin from './index.js';
import { embeddedSimulator } from '../../../testing/index.js';
import { parseScenario } from '../../../simulator/index.js';
import { createKernel } from '../../../testing/index.js';
import { callTool, cleanupTempDirs, tempDir, textOf, toolKernel, useTempReinHome } from '../../../testing/tools.js';

let dir: string;
let server: Server;
let base: string;
const pending = new Set<() => void>();
const PAGE = '<html><body><h1>Release notes</h1><p>Version <b>2.4</b> fixes the cache.</p><script>ignored()</script></body></html>';

beforeAll(async () => {
  useTempReinHome();
  dir = tempDir();
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/page') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    } else if (path === '/data.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"answer":42}');
    } else if (path === '/big') {
      res.writeHead(200, { 'content-type': 'text/plain' }); // no content-length: the cap must stop the stream
      res.write('x'.repeat(4096));
      res.end('y'.repeat(4096));
    } else if (path === '/declared-big') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(1_000_000) });
      res.end('z');
    } else if (path === '/slow') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('started');
      pending.add(() => res.end());
    } else if (path === '/hop') {
      res.writeHead(302, { location: '/page' });
      res.end();
    } else if (path === '/away') {
      res.writeHead(301, { location: 'http://127.0.0.2:9/elsewhere' });
      res.end();
    } else if (path === '/image') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    } else if (path === '/long') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('w'.repeat(500));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no such page');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const end of pending) end();
  await new Promise((r) => server.close(r));
  cleanupTempDirs();
});

const raw = (options: Record<string, unknown> = {}) => toolKernel({ cwd: dir, plugins: [{ plugin: webFetchPlugin, options: { mode: 'raw', ...options } }] });

describe('WebFetch', () => {
  it('fetches HTML and returns it as Markdown (raw mode)', async () => {
    const r = await callTool(await raw(), 'WebFetch', { url: `${base}/page`, prompt: 'What version?' });
    expect(r.is_error).toBeUndefined();
    const t = textOf(r);
    expect(t).toContain(`${base}/page (HTTP 200, text/html`);
    expect(t).toContain('# Release notes');
    expect(t).toContain('Version **2.4** fixes the cache.');
  });

  it('returns JSON as is and follows a redirect on the same host', async () => {
    expect(textOf(await callTool(await raw(), 'WebFetch', { url: `${base}/data.json`, prompt: 'x' }))).toContain('{"answer":42}');
    expect(textOf(await callTool(await raw(), 'WebFetch', { url: `${base}/hop`, prompt: 'x' }))).toContain('# Release notes');
  });

  it('reports a redirect to another host instead of following it', async () => {
    const t = textOf(await callTool(await raw(), 'WebFetch', { url: `${base}/away`, prompt: 'x' }));
    expect(t).toContain('redirects (HTTP 301) to a different host: http://127.0.0.2:9/elsewhere');
  });

  it('stops a body over the size limit, whether declared or streamed', async () => {
    const k = await raw({ maxBytes: 5000 });
    const a = await callTool(k, 'WebFetch', { url: `${base}/big`, prompt: 'x' });
    expect(a.is_error).toBe(true);
    expect(textOf(a)).toContain('more than the 5000 bytes');
    const b = await callTool(k, 'WebFetch', { url: `${base}/declared-big`, prompt: 'x' });
    expect(textOf(b)).toContain('1000000 bytes, more than the 5000');
  });

  it('stops a fetch over the time limit', async () => {
    const r = await callTool(await raw({ timeoutMs: 200 }), 'WebFetch', { url: `${base}/slow`, prompt: 'x' });
    expect(r.is_error).toBe(true);
    expect(textOf(r)).toContain('took longer than 0.2 s');
  });

  it('reports HTTP errors, binary content, bad URLs and unreachable hosts as is_error results', async () => {
    const k = await raw();
    const notFound = await callTool(k, 'WebFetch', { url: `${base}/missing`, prompt: 'x' });
    expect(textOf(notFound)).toContain('answered HTTP 404');
    const image = await callTool(k, 'WebFetch', { url: `${base}/image`, prompt: 'x' });
    expect(textOf(image)).toContain('image/png, not a text page');
    const bad = await callTool(k, 'WebFetch', { url: 'not a url', prompt: 'x' });
    expect(bad.is_error).toBe(true);
    expect(textOf(bad)).toContain('url');
    const refused = await callTool(k, 'WebFetch', { url: 'http://127.0.0.1:9/', prompt: 'x' });
    expect(refused.is_error).toBe(true);
    expect(textOf(refused)).toContain('failed');
    for (const b of [notFound, image]) expect(b.is_error).toBe(true);
  });

  it('cuts raw text at the cap and says so', async () => {
    const t = textOf(await callTool(await raw({ maxRawChars: 100 }), 'WebFetch', { url: `${base}/long`, prompt: 'x' }));
    expect(t).toContain('[Cut at 100 of 500 characters.]');
  });

  it('in extract mode, has a side request read the page and returns its answer', async () => {
    const scenario = parseScenario(`
turns: []
side:
  - match: { source: side, lastUser: "Version \\\\*\\\\*2\\\\.4\\\\*\\\\* fixes the cache[\\\\s\\\\S]*Which version fixed the cache" }
    reply: [{ text: "Version 2.4 fixed the cache." }]
`);
    const client = await embeddedSimulator({ scenario });
    try {
      const k = await createKernel({ preset: { name: 'wf', model: { name: 'claude-haiku-4-5' } }, cwd: dir, client, plugins: [{ plugin: webFetchPlugin }] });
      k.hooks.permission.tap('allow', () => ({ behavior: 'allow' }));
      const r = await callTool(k, 'WebFetch', { url: `${base}/page`, prompt: 'Which version fixed the cache?' });
      expect(textOf(r)).toBe(`${base}/page (HTTP 200, text/html, ${Buffer.byteLength(PAGE)} bytes)\n\nVersion 2.4 fixed the cache.`);
    } finally {
      await client.close();
    }
  });
});
