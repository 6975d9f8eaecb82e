import { describe, expect, it } from 'vitest';
import { createReplayResponder } from './responders/replay.js';
import { parseScenario } from './scenario.js';
import { createSimulator } from './simulator.js';
import { EPHEMERAL, text, user } from './test-support.js';

const model = 'claude-sonnet-4-5';
const ask = (content: string, extra: Record<string, unknown> = {}) => ({ model, max_tokens: 1000, messages: [{ role: 'user', content }], ...extra });
const main = { 'x-rein-source': 'main_loop' };

const scenario = parseScenario(`
turns:
  - reply: [{ text: "Reading it." }, { tool_use: { name: Read, input: { file_path: notes.txt } } }]
  - fault: { status: 529, retryAfter: 3 }
  - reply: [{ text: "Done." }]
side:
  - match: { source: title }
    reply: [{ text: "Scripted title" }]
  - match: { lastUser: "^ping$" }
    reply: [{ text: "pong" }]
`);

describe('engine', () => {
  it('plays turns in order with deterministic ids, default stop reasons and estimated output tokens', () => {
    const sim = createSimulator({ scenario });
    const r1 = sim.handle(ask('read notes.txt'), { headers: main, now: 0 });
    expect(r1.status).toBe(200);
    expect(r1.requestId).toBe('req_sim_0001');
    expect(r1.message).toMatchObject({
      id: 'msg_sim_0001', type: 'message', role: 'assistant', model, stop_reason: 'tool_use', stop_sequence: null,
      content: [{ type: 'text', text: 'Reading it.' }, { type: 'tool_use', id: 'toolu_sim_0001_1', name: 'Read', input: { file_path: 'notes.txt' } }],
    });
    // "Reading it." = 11 bytes → 3; tool_use: "Read" → 1 + {"file_path":"notes.txt"} 25 bytes → 13.
    expect(r1.message!.usage.output_tokens).toBe(17);
    // "read notes.txt" = 14 bytes → 4 tokens, no breakpoint → all input.
    expect(r1.message!.usage).toMatchObject({ input_tokens: 4, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });

    const r2 = sim.handle(ask('again'), { headers: main });
    expect(r2.status).toBe(529);
    expect(r2.error).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_sim_0002' });
    expect(r2.headers['retry-after']).toBe('3');
    expect(r2.events).toEqual([]);

    const r3 = sim.handle(ask('again'), { headers: main });
    expect(r3.message).toMatchObject({ id: 'msg_sim_0002', stop_reason: 'end_turn', content: [{ type: 'text', text: 'Done.' }] });
    expect(r3.mainTurn).toBe(3);

    const r4 = sim.handle(ask('more'), { headers: main });
    expect(r4.status).toBe(500);
    expect(r4.error?.error).toEqual({ type: 'api_error', message: 'scenario has no turn 4 (it has 3)' });
    expect(sim.stats).toEqual({ requests: 4, messages: 2, errors: 2, mainTurns: 4 });
  });

  it('answers side requests without consuming main turns', () => {
    const sim = createSimulator({ scenario });
    const compact = sim.handle({
      model, max_tokens: 1000,
      messages: [
        { role: 'user', content: 'fix src/app.ts please' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/repo/README.md' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'see docs/guide.md' }, { type: 'text', text: 'Summarize the conversation so far.' }] },
      ],
    }, { headers: { 'x-rein-source': 'compact' } });
    const summary = compact.message!.content[0]!.text as string;
    expect(summary).toMatch(/^<summary>/);
    expect(summary).toContain('Files mentioned: src/app.ts, /repo/README.md, docs/guide.md');
    expect(compact.source).toBe('compact');
    expect(compact.mainTurn).toBeUndefined();

    const title = sim.handle(ask('name this'), { headers: { 'x-rein-source': 'title' } });
    expect(title.message!.content).toEqual([{ type: 'text', text: 'Scripted title' }]);

    const classifier = sim.handle(ask('may I run ls?', { stop_sequences: ['</block>'] }), { headers: { 'x-rein-source': 'classifier' } });
    expect(classifier.message).toMatchObject({ content: [{ type: 'text', text: '<block>no' }], stop_reason: 'stop_sequence', stop_sequence: '</block>' });

    const side = sim.handle(ask('ping'), { headers: { 'x-rein-source': 'side' } });
    expect(side.message!.content).toEqual([{ type: 'text', text: 'pong' }]);

    // The first main request still gets turn 1.
    const first = sim.handle(ask('go'), { headers: main });
    expect(first.mainTurn).toBe(1);
    expect(first.message!.content[0]).toEqual({ type: 'text', text: 'Reading it.' });
  });

  it('recognises side requests of agents that send no source header', () => {
    const sim = createSimulator({ scenario });
    expect(sim.handle(ask('Your task is to create a detailed summary of the conversation so far.')).source).toBe('compact');
    expect(sim.handle(ask('x', { system: 'Summarize this session.' })).source).toBe('compact');
    expect(sim.handle(ask('ls', { stop_sequences: ['</block>'] })).source).toBe('classifier');
    expect(sim.handle(ask('hi', { system: 'Generate a short title for this conversation.' })).source).toBe('title');
    const structured = sim.handle(ask('hi', { output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: { title: { type: 'string' } } } } } }));
    expect(structured.source).toBe('title');
    expect(structured.message!.content[0]!.text).toBe('Scripted title');
    const plain = sim.handle(ask('read notes.txt', { tools: [{ name: 'Read', input_schema: { type: 'object' } }] }));
    expect(plain.source).toBe('main_loop');
    expect(plain.mainTurn).toBe(1);
  });

  it('a forced tool_choice gets a call of that tool (classifier with classify_result)', () => {
    const sim = createSimulator();
    const r = sim.handle(ask('check', {
      tool_choice: { type: 'tool', name: 'classify_result' },
      tools: [{ name: 'classify_result', input_schema: { type: 'object' } }],
    }));
    expect(r.source).toBe('classifier');
    expect(r.message).toMatchObject({ stop_reason: 'tool_use', content: [{ type: 'tool_use', name: 'classify_result', input: { shouldBlock: false } }] });
  });

  it('stops at max_tokens, cutting text to what fits', () => {
    const sim = createSimulator({ scenario: parseScenario('turns: [{ reply: [{ text: "0123456789abcdefghij" }, { tool_use: { name: Bash } }] }]') });
    const r = sim.handle(ask('go', { max_tokens: 3 }));
    expect(r.message).toMatchObject({ stop_reason: 'max_tokens', content: [{ type: 'text', text: '0123456789ab' }] });
    expect(r.message!.usage.output_tokens).toBe(3);
  });

  it('echo repeats the last user text; replay returns recordings in order and keeps their tool ids', () => {
    const echo = createSimulator();
    expect(echo.handle(ask('hello there')).message!.content).toEqual([{ type: 'text', text: 'hello there' }]);
    const replay = createSimulator({
      responder: createReplayResponder([
        { content: [{ type: 'tool_use', id: 'toolu_rec_1', name: 'Bash', input: { command: 'ls' } }], stop_reason: 'tool_use', usage: { output_tokens: 42 } },
        { content: [{ type: 'text', text: 'bye' }] },
      ]),
    });
    const a = replay.handle(ask('1'));
    expect(a.message).toMatchObject({ content: [{ type: 'tool_use', id: 'toolu_rec_1' }], usage: { output_tokens: 42 } });
    expect(replay.handle(ask('2')).message!.content).toEqual([{ type: 'text', text: 'bye' }]);
    expect(replay.handle(ask('3')).error?.error.message).toBe('replay has no message 3 (it has 2)');
  });

  it('usage overrides replace the computed fields', () => {
    const sim = createSimulator({ scenario: parseScenario('turns: [{ reply: [{ text: hi }], usage: { output_tokens: 77, cache_read_input_tokens: 5 } }]') });
    expect(sim.handle(ask('go')).message!.usage).toMatchObject({ output_tokens: 77, cache_read_input_tokens: 5, input_tokens: 1 });
  });

  it('rejects bad requests as the API does, without consuming a turn', () => {
    const sim = createSimulator({ scenario });
    expect(sim.handle({ model, messages: [] }).error?.error.message).toBe('max_tokens: Field required');
    expect(sim.handle({ model, max_tokens: 5, messages: [] }).error?.error.message).toBe('messages: at least one message is required');
    const orphan = sim.handle({ model, max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'nope', content: 'x' }] }] });
    expect(orphan.status).toBe(400);
    expect(orphan.error?.error.message).toMatch(/^messages\.0\.content\.0: unexpected `tool_use_id` found in `tool_result` blocks: nope/);
    const unanswered = sim.handle({
      model, max_tokens: 5,
      messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'u1', name: 'Read', input: {} }] }, { role: 'user', content: 'b' }],
    });
    expect(unanswered.error?.error.message).toMatch(/^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: u1/);
    expect(sim.handle(ask('ok'), { headers: main }).mainTurn).toBe(1);
  });

  it('prompt too long: over 200,000 tokens is a 400, unless the 1M-context beta is on', () => {
    const sim = createSimulator({ minCacheableTokens: 1024 });
    const body = { model, max_tokens: 10, messages: [user(text(200_001))] };
    const r = sim.handle(body);
    expect(r.status).toBe(400);
    expect(r.error?.error.message).toBe('prompt is too long: 200001 tokens > 200000 maximum');
    expect(sim.handle(body, { headers: { 'anthropic-beta': 'context-1m-2025-08-07' } }).status).toBe(200);
  });

  it('count_tokens counts tools + system + messages and changes nothing', () => {
    const sim = createSimulator();
    const body = { model, system: [text(2000, 's', EPHEMERAL)], messages: [user(text(10))] };
    expect(sim.countTokens(body)).toMatchObject({ status: 200, body: { input_tokens: 2010 } });
    expect(sim.cache.size).toBe(0);
    expect(sim.handle({ ...body, max_tokens: 10 }).message!.usage.cache_creation_input_tokens).toBe(2000);
  });

  it('keeps cache state across requests and uses the injected clock', () => {
    let now = 0;
    const sim = createSimulator({ clock: () => now });
    const body = { model, max_tokens: 10, system: [text(2000, 's', EPHEMERAL)], messages: [user(text(10))] };
    expect(sim.handle(body).message!.usage.cache_creation_input_tokens).toBe(2000);
    now = 4 * 60_000;
    expect(sim.handle(body).message!.usage.cache_read_input_tokens).toBe(2000);
    now += 5 * 60_000;
    expect(sim.handle(body).message!.usage.cache_creation_input_tokens).toBe(2000);
  });

  it('streams the real event sequence', () => {
    const sim = createSimulator({ scenario: parseScenario(`
turns:
  - reply:
      - thinking: { thinking: "Let me look.", signature: "sig123" }
      - text: "I will read the file now, then report back."
      - tool_use: { name: Read, input: { file_path: "/a/very/long/path/to/some/notes.txt" } }
      - redacted_thinking: "opaque"
`) });
    const r = sim.handle(ask('go'));
    const kinds = r.events.map((e) => (e.data.type === 'content_block_delta' ? `delta:${(e.data.delta as any).type}` : e.event));
    expect(kinds).toEqual([
      'message_start', 'ping',
      'content_block_start', 'delta:thinking_delta', 'delta:signature_delta', 'content_block_stop',
      'content_block_start', 'delta:text_delta', 'delta:text_delta', 'content_block_stop',
      'content_block_start', 'delta:input_json_delta', 'delta:input_json_delta', 'delta:input_json_delta', 'content_block_stop',
      'content_block_start', 'content_block_stop',
      'message_delta', 'message_stop',
    ]);
    const start = r.events[0]!.data.message as any;
    expect(start.usage).toMatchObject({ input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 });
    const delta = r.events.at(-2)!.data as any;
    expect(delta.delta).toEqual({ stop_reason: 'tool_use', stop_sequence: null });
    expect(delta.usage.output_tokens).toBe(r.message!.usage.output_tokens);
    const json = r.events.filter((e) => (e.data.delta as any)?.type === 'input_json_delta').map((e) => (e.data.delta as any).partial_json).join('');
    expect(JSON.parse(json)).toEqual({ file_path: '/a/very/long/path/to/some/notes.txt' });
  });
});
