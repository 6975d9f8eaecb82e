import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyParser, commonPrefixLength, isSealedMessage } from './body.js';
import { parseScenario } from './scenario.js';
import { startSimServer, type SimServer } from './server.js';
import { createSimulator } from './simulator.js';

type Msg = { role: 'user' | 'assistant'; content: Array<Record<string, unknown>> };

/** Strings a JSON scanner can trip on: quotes, backslash runs, brackets, non-ASCII, the key itself. */
const NASTY = ['plain', 'say "hi"', 'ends with \\', '\\\\"', '[{]}', ',', '"messages":[', 'é ü 日本 🙂', '\n\t\r', '\u0000\u001f', ''];

function history(n: number, pick: (i: number) => string): Msg[] {
  const out: Msg[] = [{ role: 'user', content: [{ type: 'text', text: `start ${pick(0)}` }] }];
  for (let i = 1; i <= n; i++) {
    out.push({ role: 'assistant', content: [{ type: 'text', text: pick(i) }, { type: 'tool_use', id: `t${i}`, name: 'Read', input: { file_path: pick(i + 1), n: i } }] });
    out.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: [{ type: 'text', text: pick(i + 2) }] }] });
  }
  return out;
}

/** The request an agent sends: the last two user messages marked (copies), the rest shared. */
function requestOf(messages: Msg[], fields: Record<string, unknown>, messagesFirst: boolean): Record<string, unknown> {
  const marked = messages.map((m, i) => (i >= messages.length - 3 && m.role === 'user'
    ? { ...m, content: m.content.map((b, j) => (j === m.content.length - 1 ? { ...b, cache_control: { type: 'ephemeral' } } : b)) }
    : m));
  return messagesFirst ? { model: 'claude-sonnet-4-6', max_tokens: 100, messages: marked, ...fields } : { model: 'claude-sonnet-4-6', ...fields, max_tokens: 100, messages: marked, stream: true };
}

function parseBoth(parser: BodyParser, text: string): { mine: unknown; error?: string } {
  let expected: unknown;
  let expectedError: string | undefined;
  try {
    expected = JSON.parse(text);
  } catch (err) {
    expectedError = (err as Error).message;
  }
  let mine: unknown;
  let error: string | undefined;
  try {
    mine = parser.parse(Buffer.from(text, 'utf8'), 'k');
  } catch (err) {
    error = (err as Error).message;
  }
  expect(error).toBe(expectedError);
  expect(mine).toEqual(expected);
  return { mine, ...(error ? { error } : {}) };
}

describe('BodyParser', () => {
  it('gives what JSON.parse gives for growing, edited, reformatted and broken bodies, reusing the unchanged messages', () => {
    fc.assert(fc.property(
      fc.array(fc.record({
        grow: fc.integer({ min: 0, max: 3 }),
        edit: fc.option(fc.nat()),
        tail: fc.constantFrom('none', 'duplicate', 'truncate', 'extra'),
        indent: fc.boolean(),
        first: fc.boolean(),
        seed: fc.nat(),
      }), { minLength: 2, maxLength: 8 }),
      (steps) => {
        const parser = new BodyParser();
        let turns = 1;
        for (const s of steps) {
          turns += s.grow;
          const messages = history(turns, (i) => NASTY[i % NASTY.length]!);
          if (s.edit !== null) {
            const at = s.edit % messages.length;
            messages[at] = { ...messages[at]!, content: [{ type: 'text', text: `rewritten ${NASTY[s.seed % NASTY.length]}` }] };
          }
          const body = requestOf(messages, { system: [{ type: 'text', text: 'sys "x" \\' }], tools: [{ name: 'Read', input_schema: { type: 'object' } }] }, s.first);
          let text = JSON.stringify(body, null, s.indent ? 2 : undefined);
          if (s.tail === 'duplicate') text = `${text.slice(0, text.lastIndexOf('}'))},"messages":[]}`;
          else if (s.tail === 'truncate') text = text.slice(0, text.length - 2);
          else if (s.tail === 'extra') text = `${text.slice(0, text.lastIndexOf('}'))},"metadata":{"user_id":"u \\" ] }"}}`;
          const parsed = (parseBoth(parser, text).mine as { messages?: unknown[] } | undefined)?.messages;
          for (const m of parsed ?? []) expect(isSealedMessage(m) && Object.isFrozen(m) && Object.isFrozen((m as Msg).content)).toBe(true);
        }
      },
    ), { numRuns: 150 });
  });

  it('parses only what follows the shared bytes: the messages before them are the previous objects', () => {
    const parser = new BodyParser();
    const messages = history(50, (i) => `step ${i} "quoted" \\ [`);
    const first = parser.parse(Buffer.from(JSON.stringify(requestOf(messages, {}, true))), 'k') as { messages: unknown[] };
    const grown = [...messages, ...history(51, (i) => `step ${i} "quoted" \\ [`).slice(messages.length)];
    const second = parser.parse(Buffer.from(JSON.stringify(requestOf(grown, {}, true))), 'k') as { messages: unknown[] };
    expect(second.messages).toHaveLength(first.messages.length + 2);
    // The markers moved off the last two user messages of the first request: everything before
    // the first of them is shared, and it and what follows are parsed again.
    const changed = first.messages.length - 3;
    for (let i = 0; i < changed; i++) expect(second.messages[i]).toBe(first.messages[i]);
    for (let i = changed; i < first.messages.length; i++) expect(second.messages[i]).not.toBe(first.messages[i]);
    // Another key is another conversation: nothing is shared with it.
    const other = parser.parse(Buffer.from(JSON.stringify(requestOf(grown, {}, true))), 'other') as { messages: unknown[] };
    expect(other.messages[0]).not.toBe(second.messages[0]);
    expect(other).toEqual(second);
  });

  it('refuses what JSON.parse refuses after shared bytes: a trailing comma, an empty element, a cut body', () => {
    const messages = history(3, (i) => `m${i}`);
    const good = JSON.stringify(requestOf(messages, { tools: [] }, true));
    const closing = good.indexOf('],"tools"');
    for (const bad of [
      `${good.slice(0, closing)},${good.slice(closing)}`,
      `${good.slice(0, closing)},,{"role":"user","content":"x"}${good.slice(closing)}`,
      good.slice(0, closing),
    ]) {
      const parser = new BodyParser();
      parseBoth(parser, good);
      parseBoth(parser, bad);
      // And the parser is not thrown off for the next good body.
      parseBoth(parser, good);
    }
  });

  it('finds the first differing byte at any place, across the native compare steps', () => {
    const a = Buffer.alloc(200_000, 0x61);
    for (const at of [0, 1, 65_535, 65_536, 65_537, 131_072, 199_999]) {
      const b = Buffer.from(a);
      b[at] = 0x62;
      expect(commonPrefixLength(a, b)).toBe(at);
    }
    expect(commonPrefixLength(a, a.subarray(0, 70_000))).toBe(70_000);
  });
});

const servers: SimServer[] = [];
afterEach(async () => { await Promise.all(servers.splice(0).map((s) => s.close())); });

describe('the simulator over HTTP against the same requests as objects', () => {
  it('gives the same status, usage, cache entries and errors for a growing conversation with deferred tools, an edit, a bad pairing and too many markers', async () => {
    const reply = '  - reply: [{ text: "ok" }]\n';
    const scenario = `turns:\n${reply.repeat(40)}`;
    const overHttp = createSimulator({ scenario: parseScenario(scenario), clock: () => 1_000 });
    const asObjects = createSimulator({ scenario: parseScenario(scenario), clock: () => 1_000 });
    const server = await startSimServer({ simulator: overHttp });
    servers.push(server);
    const tools = [
      { name: 'Read', description: 'r'.repeat(3000), input_schema: { type: 'object' } },
      { name: 'Late', description: 'l'.repeat(300), input_schema: { type: 'object' }, defer_loading: true },
      { name: 'Search', description: 's'.repeat(3000), input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } },
    ];
    // A marker that stays on the first message: the shared messages carry a breakpoint.
    let messages: Msg[] = [{ role: 'user', content: [{ type: 'text', text: 'q'.repeat(9000), cache_control: { type: 'ephemeral' } }] }];
    const send = async (body: Record<string, unknown>) => {
      const res = await fetch(`${server.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-rein-source': 'main_loop' }, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() as Record<string, any> };
    };
    const reads: number[] = [];
    for (let turn = 1; turn <= 12; turn++) {
      const id = `t${turn}`;
      messages = [
        ...messages,
        { role: 'assistant', content: [{ type: 'text', text: `turn ${turn} "go" \\` }, { type: 'tool_use', id, name: 'Read', input: { n: turn } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: turn === 3 ? [{ type: 'tool_reference', tool_name: 'Late' }] : [{ type: 'text', text: `result ${turn} `.repeat(300) }] }] },
      ];
      // Turn 6 rewrites an early message; turn 9 answers a tool_use that is not there.
      if (turn === 6) messages[1] = { ...messages[1]!, content: [{ type: 'text', text: 'rewritten' }, messages[1]!.content[1]!] };
      let sent = messages;
      if (turn === 9) sent = [...messages.slice(0, -1), { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'nope', content: 'x' }] }];
      // Turn 10 marks the system block too: five markers with the one on the shared first message, a 400.
      const system = [{ type: 'text', text: 's'.repeat(8000), ...(turn === 10 ? { cache_control: { type: 'ephemeral' } } : {}) }];
      const body = requestOf(sent, { tools, system }, true);
      const http = await send(body);
      const local = asObjects.handle(JSON.parse(JSON.stringify(body)), { headers: { 'x-rein-source': 'main_loop' } });
      expect(http.status).toBe(local.status);
      expect(local.status).toBe(turn === 9 || turn === 10 ? 400 : 200);
      if (local.status === 200) {
        expect(http.body.usage).toEqual(local.message!.usage);
        reads.push(http.body.usage.cache_read_input_tokens as number);
        // Both caches hold the same prefixes: every entry the object path wrote, the HTTP path wrote too.
        const written = local.prefix!.blocks.filter((b) => asObjects.cache.get(b.hash, 1_000));
        expect(written.length).toBeGreaterThan(0);
        for (const b of written) expect(overHttp.cache.get(b.hash, 1_000)).toBeDefined();
        expect(overHttp.cache.size).toBe(asObjects.cache.size);
      }
      else expect(http.body.error).toEqual((local.body as Record<string, any>).error);
    }
    // The history was read from the cache, and the rewrite of an early message at turn 6 read less.
    expect(reads[3]).toBeGreaterThan(0);
    expect(reads[5]).toBeLessThan(reads[4]!);
    // The same history with its last tool_result replaced by text: the assistant message before it
    // is shared with the previous request (known valid), its pairing with the new message is not.
    const unanswered: Msg[] = [...messages.slice(0, -1), { role: 'user', content: [{ type: 'text', text: 'no result' }] }];
    const body = requestOf(unanswered, { tools, system: [{ type: 'text', text: 's'.repeat(8000) }] }, true);
    const http = await send(body);
    const local = asObjects.handle(JSON.parse(JSON.stringify(body)), { headers: { 'x-rein-source': 'main_loop' } });
    expect(local.status).toBe(400);
    expect(http.status).toBe(400);
    expect(http.body.error).toEqual((local.body as Record<string, any>).error);
    expect(http.body.error.message).toContain('`tool_use` ids were found without `tool_result` blocks immediately after: t12');
    expect(overHttp.stats).toEqual(asObjects.stats);
  });
});
