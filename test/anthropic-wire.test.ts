/**
 * What the `anthropic` client puts on the wire, read byte for byte by a recording proxy in front of
 * rein's simulator (real SDK, real loopback HTTP): the same body and headers as the SDK's own
 * `messages.create` and `messages.stream` send for the same params, and over a real session with
 * moving cache markers, bodies that are exactly `JSON.stringify` of each request.
 */
import Anthropic from '@anthropic-ai/sdk';
import { writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelClient, ModelRequest, SendOptions } from '../kernel/index.js';
import { createSimulator, type Simulator } from '../simulator/index.js';
import { startSimServer, type SimServer } from '../simulator/server.js';
import breakpoints from '../plugins/cache/breakpoints/index.js';
import { plannedResponder, runPrompt, strategyKernel } from '../testing/strategy.js';
import { useTestEnv } from '../testing/index.js';
import { createAnthropicClient } from '../lib/model/anthropic.js';

const env = useTestEnv({ prefix: 'rein-wire-' });

interface Seen { method: string; url: string; headers: IncomingHttpHeaders; body: string; status: number; requestId: string | undefined }

/** A loopback HTTP proxy to `target` that records each request's raw body and headers. */
async function recordingProxy(target: string): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const to = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const entry: Seen = { method: req.method!, url: req.url!, headers: req.headers, body: body.toString('utf8'), status: 0, requestId: undefined };
      seen.push(entry);
      const out = httpRequest({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (up) => {
        entry.status = up.statusCode!;
        entry.requestId = up.headers['request-id'] as string | undefined;
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
      });
      out.on('error', (err) => { res.destroy(err); });
      out.end(body);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((done) => { server.closeAllConnections(); server.close(() => done()); }),
  };
}

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.reverse()) await c();
  cleanups = [];
});

async function serve(simulator: Simulator): Promise<{ sim: SimServer; proxy: Awaited<ReturnType<typeof recordingProxy>> }> {
  const sim = await startSimServer({ simulator, port: 0 });
  cleanups.push(() => sim.close());
  const proxy = await recordingProxy(sim.url);
  cleanups.push(() => proxy.close());
  return { sim, proxy };
}

/** A request with a history of `turns` tool turns, the last user message marked as `cache/breakpoints` marks it. */
function longRequest(turns: number): ModelRequest {
  const messages: ModelRequest['messages'] = [{ role: 'user', content: [{ type: 'text', text: 'Read the notes, again and again. "Quotes", \\ and \u2028 too.' }] }];
  for (let i = 1; i <= turns; i++) {
    const id = `toolu_${String(i).padStart(4, '0')}`;
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `Reading (step ${i}) 😀` }, { type: 'tool_use', id, name: 'Read', input: { file_path: 'notes.txt', limit: i } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: [{ type: 'text', text: `     1\tline ${i}\n     2\tü\n` }] }] });
  }
  const last = messages.at(-1)!;
  const content = (last.content as object[]).slice();
  content[content.length - 1] = { ...content.at(-1), cache_control: { type: 'ephemeral' } };
  messages[messages.length - 1] = { ...last, content } as typeof last;
  return {
    model: 'claude-sonnet-4-6',
    max_tokens: 4096,
    system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
    tools: [{ name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] } }],
    messages,
    betas: ['interleaved-thinking-2025-05-14'],
  };
}

/** Headers as the server saw them, without the connection's own. */
function headersOf(h: IncomingHttpHeaders): Record<string, unknown> {
  const { host: _host, connection: _connection, 'content-length': _length, ...rest } = h;
  return rest;
}

const answer = plannedResponder([]);

describe('the anthropic client on the wire', () => {
  for (const stream of [false, true]) {
    it(`sends the body and headers the SDK's messages.${stream ? 'stream' : 'create'} sends, and returns its message and request-id (${stream ? 'streaming' : 'non-streaming'})`, async () => {
      const { proxy } = await serve(createSimulator({ responder: answer }));
      const params = longRequest(30);
      const client = createAnthropicClient({ baseURL: proxy.url, apiKey: 'test-key', env: {} });
      const opts: SendOptions = { signal: new AbortController().signal, stream, source: 'main_loop' };
      const ours = await client.send(params, opts);

      // The SDK's own methods, with the options rein gives its client, on the same params.
      const sdk = new Anthropic({ apiKey: 'test-key', baseURL: proxy.url, maxRetries: 0, timeout: 600_000 });
      const { betas, ...body } = params;
      const headers = { 'x-rein-source': 'main_loop', 'anthropic-beta': betas!.join(',') };
      const theirs = stream
        ? await sdk.messages.stream(body as Anthropic.MessageCreateParamsNonStreaming, { headers }).finalMessage()
        : await sdk.messages.create({ ...body, stream: false } as Anthropic.MessageCreateParamsNonStreaming, { headers });

      expect(proxy.seen).toHaveLength(2);
      const [a, b] = proxy.seen as [Seen, Seen];
      expect(a.body).toBe(b.body);
      expect(a.body).toBe(JSON.stringify({ ...body, stream }));
      expect(headersOf(a.headers)).toEqual(headersOf(b.headers));
      expect(a.headers['content-length']).toBe(String(Buffer.byteLength(a.body)));
      expect(a.headers['content-type']).toBe('application/json');
      if (stream) expect(a.headers['x-stainless-helper-method']).toBe('stream');
      expect(ours.requestId).toBe(a.requestId);
      expect(ours.requestId).toMatch(/\S/);
      // The same answer, but for the ids the simulator gives each response.
      const { id: _i1, ...ourMessage } = ours.message;
      const { id: _i2, ...theirMessage } = theirs as unknown as Record<string, unknown>;
      expect(JSON.parse(JSON.stringify(ourMessage))).toEqual(JSON.parse(JSON.stringify(theirMessage)));
    });
  }

  it('fails as the SDK does for an error status: the API error with its status, type and request-id', async () => {
    const simulator = createSimulator({ responder: answer });
    const { proxy } = await serve(simulator);
    const client = createAnthropicClient({ baseURL: proxy.url, apiKey: 'test-key', env: {} });
    const bad = { ...longRequest(1), max_tokens: -1 } as ModelRequest;
    for (const stream of [false, true]) {
      const err = await client.send(bad, { signal: new AbortController().signal, stream, source: 'main_loop' }).then(() => undefined, (e: unknown) => e);
      expect(err).toMatchObject({ name: 'ModelRequestError', info: { kind: 'http', status: 400, type: 'invalid_request_error' } });
    }
    expect(proxy.seen.map((s) => s.status)).toEqual([400, 400]);
  });

  it('over a session with moving cache markers and tool turns, each body is JSON.stringify of the request rein built', async () => {
    writeFileSync(join(env.dir, 'notes.txt'), 'one\ntwo\nthree\n');
    const turns = Array.from({ length: 12 }, (_, i) => [
      { type: 'text' as const, text: `Reading the notes again (step ${i + 1}).` },
      { type: 'tool_use' as const, name: 'Read', input: { file_path: 'notes.txt' } },
    ]);
    const { proxy } = await serve(createSimulator({ responder: plannedResponder(turns) }));
    const real = createAnthropicClient({ baseURL: proxy.url, apiKey: 'test-key', kind: 'simulator', env: {} });
    const sent: { params: ModelRequest; stream: boolean }[] = [];
    const client: ModelClient = { ...real, send: (params, opts) => { sent.push({ params, stream: opts.stream }); return real.send(params, opts); } };
    const kernel = await strategyKernel({ cwd: env.dir, client, plugins: [{ plugin: breakpoints, options: { layout: 'two-tail' } }] });
    try {
      const { result } = await runPrompt(kernel, 'Read the notes until told to stop.');
      expect(result).toMatchObject({ isError: false, text: 'Done.', numRequests: 13 });
    } finally {
      await kernel.close();
    }
    const bodies = proxy.seen.filter((s) => s.url === '/v1/messages').map((s) => s.body);
    expect(sent).toHaveLength(13);
    expect(bodies).toHaveLength(13);
    sent.forEach(({ params, stream }, i) => {
      const { betas: _betas, ...body } = params;
      expect(bodies[i]).toBe(JSON.stringify({ ...body, stream }));
    });
    // The markers moved: the last two user messages carry them, earlier ones are sent without.
    const last = JSON.parse(bodies.at(-1)!);
    const marked = last.messages.flatMap((m: any, i: number) => (Array.isArray(m.content) && m.content.some((b: any) => b.cache_control) ? [i] : []));
    expect(marked).toEqual([last.messages.length - 3, last.messages.length - 1]);
  });
});
