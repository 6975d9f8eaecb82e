import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Message, type ModelRequest, RequestLists, withReplacedMessages } from '../../../kernel/index.js';
import { HistoryDriver, historyOps } from '../../../testing/histories.js';
import { createFingerprinter, fingerprint, messagesDigest } from './fingerprint.js';

type ApiMessage = ModelRequest['messages'][number];

/**
 * Requests as the kernel builds them from a history: one API form per message object, shared by
 * every request (so content arrays are the same from one request to the next), and the last
 * message a marked copy (the breakpoints plugin's tail marker, which moves every request).
 */
function requestsOf() {
  const forms = new WeakMap<Message, ApiMessage>();
  return (ms: readonly Message[]): ModelRequest => {
    const messages = ms.map((m) => {
      let f = forms.get(m);
      if (!f) { f = { role: m.role, content: m.content } as ApiMessage; forms.set(m, f); }
      return f;
    });
    const last = messages[messages.length - 1];
    if (last && Array.isArray(last.content) && last.content.length) {
      const content = last.content.slice();
      content[content.length - 1] = { ...(content[content.length - 1] as object), cache_control: { type: 'ephemeral' } } as never;
      messages[messages.length - 1] = { ...last, content } as ApiMessage;
    }
    return { model: 'claude-sonnet-4-5', max_tokens: 100, system: [{ type: 'text', text: 'sys' }], messages };
  };
}

describe('createFingerprinter', () => {
  it('gives what fingerprint() gives, and the digest of its message hashes, on random histories with compactions and edits', () => {
    fc.assert(fc.property(historyOps(fc), (ops) => {
      const h = new HistoryDriver();
      const build = requestsOf();
      const next = createFingerprinter();
      for (const op of ops) {
        const req = build(h.apply(op));
        const fp = next(req);
        const full = fingerprint(req);
        expect(fp).toEqual(full);
        expect(next.digest).toBe(messagesDigest(full.messages));
      }
    }), { numRuns: 100 });
  });

  it('gives what fingerprint() gives on request lists the kernel makes, the reminder and the moving tail marker replaced in them', () => {
    fc.assert(fc.property(historyOps(fc), fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }), (ops, hours) => {
      const h = new HistoryDriver();
      const lists = new RequestLists<Message, ApiMessage>((m) => ({ role: m.role, content: m.content }) as ApiMessage);
      const next = createFingerprinter();
      for (const [k, op] of ops.entries()) {
        let messages = lists.open(h.apply(op));
        const places: [number, ApiMessage][] = [];
        const first = messages[0];
        if (first && Array.isArray(first.content)) places.push([0, { ...first, content: [{ type: 'text', text: 'reminder' }, ...first.content] } as ApiMessage]);
        const at = messages.length - 1;
        const last = places.length && at === 0 ? places[0]![1] : messages[at];
        if (last && Array.isArray(last.content) && last.content.length) {
          const content = last.content.slice();
          content[content.length - 1] = { ...(content[content.length - 1] as object), cache_control: hours[k] ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' } } as never;
          if (at === 0) places.length = 0;
          places.push([at, { ...last, content } as ApiMessage]);
        }
        if (places.length) messages = withReplacedMessages(messages, places);
        RequestLists.release(messages);
        const req: ModelRequest = { model: 'claude-sonnet-4-5', max_tokens: 100, system: [{ type: 'text', text: 'sys' }], messages };
        const fp = next(req);
        const full = fingerprint(req);
        expect(fp).toEqual(full);
        expect(next.digest).toBe(messagesDigest(full.messages));
      }
    }), { numRuns: 100 });
  });
});
