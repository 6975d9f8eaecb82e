import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestBodyJson } from './request-body.js';

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

/** What happens to a history between requests: growth, compaction, replacements and in-place edits. */
const op = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('append' as const), messages: fc.array(message, { minLength: 1, maxLength: 3 }) }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('request' as const), tail: fc.boolean(), stream: fc.boolean() }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('compact' as const), keep: fc.nat(), summary: message }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('copy' as const), at: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('newContent' as const), at: fc.nat(), content: fc.oneof(text, fc.array(block, { maxLength: 3 })) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('setBlock' as const), at: fc.nat(), index: fc.nat(), block }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('pushBlock' as const), at: fc.nat(), block }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('popBlock' as const), at: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('flipRole' as const), at: fc.nat() }), weight: 1 },
);

/** The request a session sends: the history's message objects, the last one a marked copy as `cache/breakpoints` makes it. */
function bodyOf(history: Obj[], tail: boolean, stream: boolean): Obj {
  const messages = history.slice();
  const last = messages.at(-1);
  if (tail && last && Array.isArray(last.content) && last.content.length) {
    const content = last.content.slice();
    content[content.length - 1] = { ...content.at(-1), cache_control: { type: 'ephemeral' } };
    messages[messages.length - 1] = { ...last, content };
  }
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

describe('requestBodyJson', () => {
  it('writes the same string as JSON.stringify for every request of random sessions with compactions and in-place edits', () => {
    fc.assert(fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
      let history: Obj[] = [];
      const pick = (at: number) => (history.length ? history[at % history.length]! : undefined);
      for (const o of ops) {
        switch (o.kind) {
          case 'append': history.push(...o.messages); break;
          case 'request': {
            const body = bodyOf(history, o.tail, o.stream);
            expect(requestBodyJson(body)).toBe(JSON.stringify(body));
            break;
          }
          case 'compact': history = [o.summary, ...history.slice(o.keep % (history.length + 1))]; break;
          case 'copy': if (history.length) history[o.at % history.length] = { ...history[o.at % history.length]! }; break;
          case 'newContent': { const m = pick(o.at); if (m) m.content = o.content; break; }
          case 'setBlock': { const m = pick(o.at); if (m && Array.isArray(m.content) && m.content.length) m.content[o.index % m.content.length] = o.block; break; }
          case 'pushBlock': { const m = pick(o.at); if (m) m.content = Array.isArray(m.content) ? (m.content.push(o.block), m.content) : [o.block]; break; }
          case 'popBlock': { const m = pick(o.at); if (m && Array.isArray(m.content)) m.content.pop(); break; }
          case 'flipRole': { const m = pick(o.at); if (m) m.role = m.role === 'user' ? 'assistant' : 'user'; break; }
        }
        // Every step ends with a request too, so each edit is checked right after it is made.
        const body = bodyOf(history, true, true);
        expect(requestBodyJson(body)).toBe(JSON.stringify(body));
      }
    }), { numRuns: 300 });
  });

  it('writes a message once: a later request with the same message object reuses its JSON', () => {
    let reads = 0;
    const block = { type: 'text', get text() { reads++; return 'counted'; } };
    const history: Obj[] = [{ role: 'user', content: [block] }];
    const first = { model: 'm', max_tokens: 1, messages: history.slice() };
    expect(requestBodyJson(first)).toBe(JSON.stringify(first));
    const readsAfterFirst = reads;
    history.push({ role: 'assistant', content: 'ok' });
    const second = { model: 'm', max_tokens: 1, messages: history.slice() };
    const json = requestBodyJson(second);
    expect(reads).toBe(readsAfterFirst);
    expect(json).toBe(JSON.stringify(second));
  });

  it('keeps the keys in the body order, leaves out undefined, function and symbol values, and writes null message slots as JSON does', () => {
    const body = { stream: true, a: undefined, f: () => 1, s: Symbol('x'), model: 'm', messages: [{ role: 'user', content: 'hi', extra: undefined }], z: null };
    expect(requestBodyJson(body)).toBe(JSON.stringify(body));
    expect(requestBodyJson({})).toBe('{}');
    expect(requestBodyJson({ messages: [] })).toBe('{"messages":[]}');
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
    for (const body of odd) expect(requestBodyJson(body)).toBe(JSON.stringify(body));
  });

  it('throws the TypeError JSON.stringify throws for a BigInt', () => {
    expect(() => requestBodyJson({ model: 'm', messages: [{ role: 'user', content: [{ type: 'x', n: 1n }] }] })).toThrow(TypeError);
  });
});
