import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HistoryDriver, historyOps } from '../testing/histories.js';
import { Incremental, sharedPrefixLength } from './incremental.js';
import type { Message } from './types.js';

/** Characters of every message's JSON, in order: a per-item state that can be rolled back. */
const lengths = () => new Incremental<Message, number[]>({
  init: () => [],
  add: (s, m) => { s.push(JSON.stringify(m).length); },
  truncate: (s, n) => { s.length = n; },
});

/** Tool names by id: a state that cannot be rolled back (rebuilt on any change before the end). */
const names = () => new Incremental<Message, Map<string, string>>({
  init: () => new Map(),
  add: (s, m) => { for (const b of m.content) if (b.type === 'tool_use') s.set(b.id, b.name); },
});

const fullLengths = (ms: readonly Message[]) => ms.map((m) => JSON.stringify(m).length);
const fullNames = (ms: readonly Message[]) => new Map(ms.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_use' ? [[b.id, b.name] as const] : []))));

describe('Incremental', () => {
  it('agrees with the full computation on random histories with appends, compactions, edits, clears and resumes', () => {
    fc.assert(fc.property(historyOps(fc), (ops) => {
      const h = new HistoryDriver();
      const a = lengths();
      const b = names();
      for (const op of ops) {
        const ms = h.apply(op);
        expect(a.update(ms)).toEqual(fullLengths(ms));
        expect(b.update(ms)).toEqual(fullNames(ms));
      }
    }), { numRuns: 80 });
  });

  it('adds only the new items when the same array grew, and rolls back to the first changed item of a new array', () => {
    const h = new HistoryDriver();
    let added = 0;
    const inc = new Incremental<Message, number[]>({
      init: () => [],
      add: (s) => { added++; s.push(0); },
      truncate: (s, n) => { s.length = n; },
    });
    inc.update(h.apply({ kind: 'append', turns: 3, size: 10, tool: 0, marked: false }));
    expect(added).toBe(7);
    inc.update(h.apply({ kind: 'append', turns: 1, size: 10, tool: 0, marked: false }));
    expect(added).toBe(9);
    inc.update(h.apply({ kind: 'edit', at: 7, size: 5 }));
    expect(added).toBe(11);
    expect(inc.rebuilds).toBe(0);
    inc.update(h.apply({ kind: 'resume' }));
    expect(added).toBe(20);
    expect(inc.rebuilds).toBe(1);
  });

  it('sees the same array shortened or changed at its end in place, and starts again', () => {
    const ms: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'a' }] }, { role: 'assistant', content: [{ type: 'text', text: 'b' }] }];
    const a = lengths();
    a.update(ms);
    ms.pop();
    expect(a.update(ms)).toEqual(fullLengths(ms));
    ms[0] = { role: 'user', content: [{ type: 'text', text: 'a longer one' }] };
    expect(a.update(ms)).toEqual(fullLengths(ms));
  });

  it('sharedPrefixLength compares by identity up to the given length', () => {
    const x = {}; const y = {}; const z = {};
    expect(sharedPrefixLength([x, y, z], 3, [x, y, {}])).toBe(2);
    expect(sharedPrefixLength([x, y, z], 1, [x, y, z])).toBe(1);
    expect(sharedPrefixLength([], 0, [x])).toBe(0);
  });
});
