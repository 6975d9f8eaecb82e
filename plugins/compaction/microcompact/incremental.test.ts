import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HistoryDriver, historyOps } from '../../../testing/histories.js';
import { clearOldResults, unclearedCount, unclearedCounter } from './index.js';

describe('unclearedCounter', () => {
  it('counts what unclearedCount counts, on random histories with compactions, edits and clearing passes', () => {
    fc.assert(fc.property(historyOps(fc), fc.nat({ max: 3 }), (ops, keep) => {
      const tools = ['Read', 'Bash'];
      const h = new HistoryDriver();
      const count = unclearedCounter(tools);
      for (const op of ops) {
        let ms = h.apply(op);
        expect(count(ms)).toBe(unclearedCount(ms, tools));
        // A clearing pass replaces the history, as the plugin does.
        const r = clearOldResults(ms, tools, keep);
        h.messages = ms = r.messages;
        expect(count(ms)).toBe(unclearedCount(ms, tools));
      }
    }), { numRuns: 100 });
  });
});
