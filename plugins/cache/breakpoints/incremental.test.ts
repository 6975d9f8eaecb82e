import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, ModelRequest } from '../../../kernel/index.js';
import { HistoryDriver, historyOps } from '../../../testing/histories.js';
import { countMarkers, messageMarkerCounter } from './layout.js';

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
});
