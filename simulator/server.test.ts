import Anthropic from '@anthropic-ai/sdk';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CONTEXT_MANAGEMENT_BETA } from './context-edits.js';
import { parseScenario } from './scenario.js';
import { startSimServer, type SimServer } from './server.js';
import { createSimulator } from './simulator.js';

const model = 'claude-sonnet-4-6';
const servers: SimServer[] = [];
afterEach(async () => { await Promise.all(servers.splice(0).map((s) => s.close())); });

async function serve(yaml: string, log?: string) {
  const server = await startSimServer({ simulator: createSimulator({ scenario: parseScenario(yaml) }), ...(log ? { log } : {}) });
  servers.push(server);
  return { server, client: new Anthropic({ baseURL: server.url, apiKey: 'test', maxRetries: 0 }) };
}

const system = [{ type: 'text' as const, text: 's'.repeat(4 * 3000), cache_control: { type: 'ephemeral' as const } }];
const params = (content = 'read notes.txt') => ({ model, max_tokens: 1000, system, messages: [{ role: 'user' as const, content }] });

const TWO_TURNS = `
turns:
  - reply:
      - thinking: { thinking: "I should read the notes before answering anything.", signature: "sig-1" }
      - text: "Reading the notes now; this sentence is long enough to need several text deltas."
      - tool_use: { name: Read, input: { file_path: "/work/project/notes.txt", offset: 10, limit: 200 } }
  - reply: [{ text: "Done." }]
`;

describe('simulator server with the real SDK', () => {
  it('streaming and non-streaming return the same content and usage, cache fields included', async () => {
    const plain = await serve(TWO_TURNS);
    const streamed = await serve(TWO_TURNS);
    const a1 = await plain.client.messages.create(params());
    const b1 = await streamed.client.messages.stream(params()).finalMessage();
    const a2 = await plain.client.messages.create(params('next'));
    const b2 = await streamed.client.messages.stream(params('next')).finalMessage();
    for (const [a, b] of [[a1, b1], [a2, b2]] as const) {
      expect(b.id).toBe(a.id);
      expect(b.content).toEqual(a.content);
      expect(b.stop_reason).toBe(a.stop_reason);
      expect(b.usage).toEqual(a.usage);
    }
    expect(a1.content[2]).toEqual({ type: 'tool_use', id: 'toolu_sim_0001_1', name: 'Read', input: { file_path: '/work/project/notes.txt', offset: 10, limit: 200 } });
    expect(a1.content[0]).toEqual({ type: 'thinking', thinking: 'I should read the notes before answering anything.', signature: 'sig-1' });
    // 3,000-token system prompt with a marker (sonnet 4.6 minimum 2,048): written, then read.
    expect(a1.usage).toMatchObject({ input_tokens: 4, cache_creation_input_tokens: 3000, cache_read_input_tokens: 0, cache_creation: { ephemeral_5m_input_tokens: 3000, ephemeral_1h_input_tokens: 0 } });
    expect(a2.usage).toMatchObject({ input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 3000, output_tokens: 2 });
  });

  it('a 529 fault is the SDK overloaded error with the API error body and request id', async () => {
    const { client } = await serve('turns: [{ fault: { status: 529 } }, { reply: [{ text: ok }] }]');
    const err = await client.messages.create(params()).catch((e) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(err.status).toBe(529);
    expect(err.error).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_sim_0001' });
    expect(err.requestID).toBe('req_sim_0001');
    // The retry gets the next turn.
    expect((await client.messages.create(params())).content).toEqual([{ type: 'text', text: 'ok' }]);
  });

  it('a 429 fault carries retry-after and a custom body message', async () => {
    const { client } = await serve('turns: [{ fault: { status: 429, retryAfter: 7, body: "slow down", headers: { x-should-retry: "true" } } }]');
    const err = await client.messages.stream(params()).finalMessage().catch((e) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    expect(err.headers.get('retry-after')).toBe('7');
    expect(err.headers.get('x-should-retry')).toBe('true');
    expect(err.error.error).toEqual({ type: 'rate_limit_error', message: 'slow down' });
  });

  it('a cut stream fails in the SDK after the events before the cut', async () => {
    const { client } = await serve('turns: [{ fault: { cut: { afterEvents: 4 } }, reply: [{ text: "This answer is long enough to be cut in the middle of it." }] }]');
    const seen: string[] = [];
    const stream = client.messages.stream(params());
    stream.on('streamEvent', (e) => seen.push(e.type));
    const err = await stream.finalMessage().catch((e) => e);
    expect(err).toBeInstanceOf(Anthropic.AnthropicError);
    expect(err).not.toBeInstanceOf(Anthropic.APIError);
    // The SDK does not surface `ping`; the first text delta arrived before the cut.
    expect(seen).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
  });

  it('a cut plain request is a connection error', async () => {
    const { client } = await serve('turns: [{ fault: { cut: { afterEvents: 0 } }, reply: [{ text: x }] }]');
    await expect(client.messages.create(params())).rejects.toBeInstanceOf(Anthropic.APIConnectionError);
  });

  it('a slow first byte trips the client timeout; an idle stall then resumes', async () => {
    const { client } = await serve(`
turns:
  - fault: { slowFirstByteMs: 3000 }
    reply: [{ text: late }]
  - fault: { idle: { afterEvents: 3, ms: 50 } }
    reply: [{ text: "after a pause" }]
`);
    await expect(client.messages.create(params(), { timeout: 100 })).rejects.toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    const m = await client.messages.stream(params()).finalMessage();
    expect(m.content).toEqual([{ type: 'text', text: 'after a pause' }]);
  });

  it('count_tokens answers input_tokens', async () => {
    const { client } = await serve('turns: []');
    const r = await client.messages.countTokens({ model, system, messages: [{ role: 'user', content: 'read notes.txt' }] });
    expect(r).toEqual({ input_tokens: 3004 });
  });

  it('a bad request is a 400 BadRequestError with the API message', async () => {
    const { client } = await serve('turns: []');
    const err = await client.messages.create({
      model, max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'orphan' }] }],
    }).catch((e) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(err.error.error.type).toBe('invalid_request_error');
    expect(err.error.error.message).toContain('unexpected `tool_use_id` found in `tool_result` blocks: toolu_x');
  });

  it('beta requests: context_management edits are applied and reported', async () => {
    const { client } = await serve('turns: [{ reply: [{ text: ok }] }]');
    const toolTurn = (id: string) => [
      { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id, name: 'Read', input: {} }] },
      { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: id, content: 'x'.repeat(4000) }] },
    ];
    const m = await client.beta.messages.stream({
      model, max_tokens: 100, betas: [CONTEXT_MANAGEMENT_BETA],
      messages: [{ role: 'user', content: 'go' }, ...toolTurn('a'), ...toolTurn('b')],
      context_management: { edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 100 }, keep: { type: 'tool_uses', value: 1 } }] },
    }).finalMessage();
    expect(m.context_management).toEqual({ applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 1, cleared_input_tokens: 1000 - 14 }] });
  });

  it('logs each request as a JSON line; unknown routes are 404 and HEAD / is 200', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rein-simlog-'));
    try {
      const log = join(dir, 'requests.jsonl');
      const { server, client } = await serve('turns: [{ reply: [{ text: ok }] }]', log);
      await client.messages.create(params(), { headers: { 'x-rein-source': 'main_loop', 'anthropic-beta': 'b1' } });
      const lines = (await readFile(log, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ path: '/v1/messages', status: 200, source: 'main_loop', headers: { 'anthropic-beta': 'b1', 'x-rein-source': 'main_loop' }, body: { model }, usage: { cache_creation_input_tokens: 3000 } });
      const missing = await fetch(`${server.url}/v1/models`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
      expect((await fetch(server.url, { method: 'HEAD' })).status).toBe(200);
      const bad = await fetch(`${server.url}/v1/messages`, { method: 'POST', body: '{oops' });
      expect(bad.status).toBe(400);
      expect(bad.headers.get('request-id')).toMatch(/^req_sim_/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('what the simulator accepts depends on the betas the request names', () => {
  // Claude Code (2.1) sends its agent and skill lists as a system message after the first user
  // message, under this beta.
  const claudeCodeTurn = [
    { role: 'user', content: [{ type: 'text', text: 'read notes.txt then list files' }] },
    { role: 'system', content: [{ type: 'text', text: 'Available agent types: general-purpose. Skills: none.' }] },
  ];

  it('a role "system" message is a 400 without the mid-conversation-system beta, and answered with it', async () => {
    const { client } = await serve('turns:\n  - reply: [{ text: "listed" }]\n');
    const without = await client.messages.create({ model, max_tokens: 100, messages: claudeCodeTurn as never }).then(() => undefined, (e: unknown) => e);
    expect(without).toBeInstanceOf(Anthropic.BadRequestError);
    expect((without as Error).message).toMatch(/messages\.1\.role: Input should be 'user' or 'assistant'/);
    const withBeta = await client.beta.messages.create({ model, max_tokens: 100, betas: ['mid-conversation-system-2026-04-07'], messages: claudeCodeTurn as never });
    expect(withBeta.content).toEqual([{ type: 'text', text: 'listed' }]);
    // The system message's text is part of the prompt the usage accounts for.
    const bare = await client.beta.messages.countTokens({ model, betas: ['mid-conversation-system-2026-04-07'], messages: claudeCodeTurn.slice(0, 1) as never });
    const full = await client.beta.messages.countTokens({ model, betas: ['mid-conversation-system-2026-04-07'], messages: claudeCodeTurn as never });
    expect(full.input_tokens).toBeGreaterThan(bare.input_tokens);
  });

  it('even under the beta, a system message holds text only', async () => {
    const { client } = await serve('turns:\n  - reply: [{ text: "x" }]\n');
    const bad = [claudeCodeTurn[0], { role: 'system', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA==' } }] }];
    const err = await client.beta.messages.create({ model, max_tokens: 100, betas: ['mid-conversation-system-2026-04-07'], messages: bad as never }).then(() => undefined, (e: unknown) => e);
    expect((err as Error).message).toMatch(/messages\.1\.content: a system message holds text only/);
  });
});
