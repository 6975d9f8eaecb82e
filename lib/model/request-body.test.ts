import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RequestBodyWriter, RequestBodyWriters } from './request-body.js';

/** A fresh writer's text for `body` (one request). */
const once = (body: object) => new RequestBodyWriter().write(body).toString('utf8');

type Obj = Record<string, any>;

// Strings with every kind of character JSON escapes: quotes, backslashes, controls, U+2028,
// lone surrogates (written as \udXXX escapes), astral characters.
const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('', '"\\\n\t\u0000\u001f\u2028\ud800', '😀 Ünïcödé'));
const marker = fc.constantFrom(undefined, { type: 'ephemeral' }, { type: 'ephemeral', ttl: '1h' });

const textBlock = fc.record({ type: fc.constant('text'), text, cache_control: marker }, { requiredKeys: ['type', 'text'] });
const toolUse = fc.record({ type: fc.constant('tool_use'), id: text, name: text, input: fc.jsonValue({ maxDepth: 3 }) });
const toolResult = fc.record({
  type: fc.constant('tool_result'),
  tool_use_id: text,
  content: fc.oneof(text, fc.array(textBlock, { maxLength: 3 })),
  is_error: fc.constantFrom(undefined, true, false),
}, { requiredKeys: ['type', 'tool_use_id', 'content'] });
// A key whose value JSON leaves out (undefined), as an optional field the code sets to undefined.
const withUndefined = fc.record({ type: fc.constant('thinking'), thinking: text, signature: fc.constant(undefined) });
const block = fc.oneof(textBlock, toolUse, toolResult, withUndefined);
const message = fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.oneof(text, fc.array(block, { maxLength: 4 })) });

/**
 * What happens to a history between requests, as rein does it: growth, compaction (a new array),
 * a message replaced by a copy (the same content, or new content as context edits make it),
 * a rewind to an earlier point, a request of another conversation through the same writer.
 */
const op = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('append' as const), messages: fc.array(message, { minLength: 1, maxLength: 3 }) }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('request' as const), tail: fc.boolean(), head: fc.boolean(), stream: fc.boolean() }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('compact' as const), keep: fc.nat(), summary: message }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('copy' as const), at: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('edit' as const), at: fc.nat(), content: fc.oneof(text, fc.array(block, { maxLength: 3 })) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('editBlock' as const), at: fc.nat(), index: fc.nat(), block }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('rewind' as const), to: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('other' as const), messages: fc.array(message, { maxLength: 3 }) }), weight: 1 },
);

/**
 * The request a session sends: the history's message objects, the last one a marked copy as
 * `cache/breakpoints` makes it, and with `head` the first one a copy with the same content, as
 * `system-prompt` makes it for its reminder.
 */
function bodyOf(history: Obj[], tail: boolean, stream: boolean, head = false): Obj {
  const messages = history.slice();
  const last = messages.at(-1);
  if (tail && last && Array.isArray(last.content) && last.content.length) {
    const content = last.content.slice();
    content[content.length - 1] = { ...content.at(-1), cache_control: { type: 'ephemeral' } };
    messages[messages.length - 1] = { ...last, content };
  }
  if (head && messages.length) messages[0] = { ...messages[0] };
  return {
    model: 'claude-sonnet-4-6',
    max_tokens: 8000,
    messages,
    system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
    tools: [{ name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } }],
    thinking: undefined,
    stream,
  };
}

describe('RequestBodyWriter', () => {
  it('writes the bytes of JSON.stringify for every request of random sessions with compactions, copies, edits and rewinds', () => {
    fc.assert(fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
      const writer = new RequestBodyWriter();
      const check = (body: Obj) => expect(writer.write(body).equals(Buffer.from(JSON.stringify(body), 'utf8'))).toBe(true);
      let history: Obj[] = [];
      const at = (i: number) => i % history.length;
      for (const o of ops) {
        switch (o.kind) {
          case 'append': history.push(...o.messages); break;
          case 'request': check(bodyOf(history, o.tail, o.stream, o.head)); break;
          case 'compact': history = [o.summary, ...history.slice(o.keep % (history.length + 1))]; break;
          case 'copy': if (history.length) history[at(o.at)] = { ...history[at(o.at)]! }; break;
          case 'edit': if (history.length) history[at(o.at)] = { ...history[at(o.at)]!, content: o.content }; break;
          case 'editBlock': {
            if (!history.length) break;
            const m = history[at(o.at)]!;
            if (!Array.isArray(m.content) || !m.content.length) break;
            const content = m.content.slice();
            content[o.index % content.length] = o.block;
            history[at(o.at)] = { ...m, content };
            break;
          }
          case 'rewind': history.length = o.to % (history.length + 1); break;
          case 'other': check(bodyOf(o.messages, true, true)); break;
        }
        // Every step ends with a request too, so each change is checked right after it is made.
        check(bodyOf(history, true, true));
      }
    }), { numRuns: 300 });
  });

  it('writes a message once: a later request with the same message object, or a {role, content} copy of it, reuses its bytes', () => {
    let reads = 0;
    const block = { type: 'text', get text() { reads++; return 'counted'; } };
    const history: Obj[] = [{ role: 'user', content: [block] }];
    const writer = new RequestBodyWriter();
    const first = { model: 'm', max_tokens: 1, messages: history.slice() };
    expect(writer.write(first).toString('utf8')).toBe(JSON.stringify(first));
    const readsAfterFirst = reads;
    history.push({ role: 'assistant', content: 'ok' });
    const second = { model: 'm', max_tokens: 1, messages: history.slice() };
    const bytes = writer.write(second);
    const third = { model: 'm', max_tokens: 1, messages: [{ ...history[0] }, history[1]] };
    const again = writer.write(third);
    expect(reads).toBe(readsAfterFirst);
    expect(bytes.toString('utf8')).toBe(JSON.stringify(second));
    expect(again.toString('utf8')).toBe(JSON.stringify(third));
  });

  it('returns a fresh buffer each time: a later request does not change an earlier one', () => {
    const writer = new RequestBodyWriter();
    const a = { model: 'm', messages: [{ role: 'user', content: 'first' }] };
    const bytesA = writer.write(a);
    writer.write({ model: 'm', messages: [{ role: 'user', content: 'other, and longer' }] });
    expect(bytesA.toString('utf8')).toBe(JSON.stringify(a));
  });

  it('keeps the keys in the body order, leaves out undefined, function and symbol values, and writes null message slots as JSON does', () => {
    const body = { stream: true, a: undefined, f: () => 1, s: Symbol('x'), model: 'm', messages: [{ role: 'user', content: 'hi', extra: undefined }], z: null };
    expect(once(body)).toBe(JSON.stringify(body));
    expect(once({})).toBe('{}');
    expect(once({ messages: [] })).toBe('{"messages":[]}');
    expect(once({ messages: [], model: 'm' })).toBe('{"messages":[],"model":"m"}');
  });

  it('falls back to JSON.stringify where a value has a say in its own form (toJSON, class instances, non-object messages)', () => {
    class Turn { constructor(readonly role: string, readonly content: string) {} }
    const odd: Obj[] = [
      { model: 'm', messages: [new Turn('user', 'hi')] },
      { model: 'm', messages: [{ role: 'user', content: 'a' }, undefined, 3, 'x', null] },
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'a', at: new Date(0) }] }] },
      { model: 'm', metadata: { toJSON: (key: string) => `under ${key}` }, messages: [] },
      { model: 'm', messages: { toJSON: () => [] } },
      { model: 'm', messages: [{ role: 'user', content: 'a', toJSON: (key: string) => `item ${key}` }] },
      Object.assign(Object.create({ inherited: 1 }), { model: 'm', messages: [] }),
    ];
    for (const body of odd) expect(once(body)).toBe(JSON.stringify(body));
  });

  it('throws the TypeError JSON.stringify throws for a BigInt', () => {
    expect(() => once({ model: 'm', messages: [{ role: 'user', content: [{ type: 'x', n: 1n }] }] })).toThrow(TypeError);
  });

  it('RequestBodyWriters: one writer per source and conversation, so interleaved conversations each keep their bytes', () => {
    let reads = 0;
    const counted = (text: string) => ({ type: 'text', get text() { reads++; return text; } });
    const main: Obj[] = [{ role: 'user', content: [counted('main')] }, { role: 'assistant', content: [counted('a1')] }];
    const side: Obj[] = [{ role: 'user', content: [counted('side')] }];
    const writers = new RequestBodyWriters();
    const written: { body: Obj; bytes: Buffer }[] = [];
    const send = (source: string, messages: Obj[]) => {
      const body = { model: 'm', messages };
      written.push({ body, bytes: writers.for(source, messages).write(body) });
    };
    send('main_loop', main.slice());
    send('compact', side.slice());
    send('subagent', side.slice());
    const readsAfterFirst = reads;
    for (let i = 0; i < 3; i++) {
      // The first message copied for a reminder, as system-prompt does, is the same conversation.
      send('main_loop', [{ ...main[0] }, ...main.slice(1)]);
      send('compact', side.slice());
      send('subagent', side.slice());
    }
    expect(reads).toBe(readsAfterFirst);
    for (const { body, bytes } of written) expect(bytes.toString('utf8')).toBe(JSON.stringify(body));
    expect(writers.for('main_loop', main)).toBe(writers.for('main_loop', [{ ...main[0] }]));
    expect(writers.for('main_loop', main)).not.toBe(writers.for('subagent', main));
    expect(writers.for('main_loop', main)).not.toBe(writers.for('main_loop', side));
    const stringFirst = { role: 'user', content: 'hi' };
    expect(writers.for('main_loop', [stringFirst])).toBe(writers.for('main_loop', [stringFirst, { role: 'assistant', content: 'ok' }]));
    expect(writers.for('main_loop', [])).not.toBe(writers.for('main_loop', []));
  });
});
