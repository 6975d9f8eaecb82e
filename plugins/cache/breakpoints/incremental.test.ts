import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Message, type ModelRequest, RequestLists, withReplacedMessages } from '../../../kernel/index.js';
import { HistoryDriver, historyOps } from '../../../testing/histories.js';
import { cacheControlFor, countMarkers, messageMarkerCounter, placeMarkers, type TailMark } from './layout.js';

type ApiMessage = ModelRequest['messages'][number];

describe('messageMarkerCounter', () => {
  it('counts what countMarkers counts on the messages, on random histories with compactions and edits', () => {
    fc.assert(fc.property(historyOps(fc), (ops) => {
      const h = new HistoryDriver();
      const forms = new WeakMap<Message, ApiMessage>();
      const count = messageMarkerCounter();
      for (const op of ops) {
        const messages = h.apply(op).map((m) => {
          let f = forms.get(m);
          if (!f) { f = { role: m.role, content: m.content } as ApiMessage; forms.set(m, f); }
          return f;
        });
        expect(count(messages)).toBe(countMarkers({ model: 'm', max_tokens: 1, messages }));
      }
    }), { numRuns: 100 });
  });

  it('counts what countMarkers counts on request lists the kernel makes, with a reminder on the first message and two-tail markers placed', () => {
    fc.assert(fc.property(historyOps(fc), (ops) => {
      const h = new HistoryDriver();
      const lists = new RequestLists<Message, ApiMessage>((m) => ({ role: m.role, content: m.content }) as ApiMessage);
      const count = messageMarkerCounter();
      const check = messageMarkerCounter();
      let previousTail: TailMark | undefined;
      for (const op of ops) {
        let messages = lists.open(h.apply(op));
        if (messages.length && Array.isArray(messages[0]!.content)) {
          messages = withReplacedMessages(messages, [[0, { ...messages[0]!, content: [{ type: 'text', text: 'reminder' }, ...messages[0]!.content] } as ApiMessage]]);
        }
        const params: ModelRequest = { model: 'm', max_tokens: 1, messages };
        let counted = -1;
        const messageMarkers = (ms: ModelRequest['messages']) => {
          counted = count(ms);
          expect(counted).toBe(countMarkers({ ...params, messages: ms }));
          return counted;
        };
        const r = placeMarkers({ layout: 'two-tail', cacheControl: cacheControlFor('5m'), staticSystemBlocks: 0, previousTail, messageMarkers }, params);
        expect(counted).toBeGreaterThanOrEqual(0);
        if (r.tail) previousTail = r.tail;
        RequestLists.release(messages, r.params.messages);
        // The list as sent, to a counter that saw every list as sent.
        expect(check(r.params.messages)).toBe(countMarkers(r.params));
      }
    }), { numRuns: 100 });
  });
});

