import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HistoryDriver, historyOps } from '../testing/histories.js';
import { changedPlaces, forEachChangedPlace, RequestLists, withReplacedMessages } from './request-messages.js';
import type { Message } from './types.js';

type Form = { role: string; content: unknown };
const toForm = (m: Message): Form => ({ role: m.role, content: m.content });

describe('RequestLists and changedPlaces', () => {
  it('name every place where two requests of the same history differ, on random histories with compactions, edits and replaced places', () => {
    fc.assert(fc.property(historyOps(fc), fc.array(fc.nat(), { minLength: 30, maxLength: 30 }), (ops, picks) => {
      const h = new HistoryDriver();
      const lists = new RequestLists<Message, Form>(toForm);
      let prev: Form[] | undefined;
      ops.forEach((op, k) => {
        const history = h.apply(op);
        let list = lists.open(history);
        // The list holds the history's API forms.
        expect(list).toEqual(history.map(toForm));
        // Taps replace a few places: the first (a reminder), the last (a marker), one more.
        const pick = picks[k % picks.length]!;
        if (list.length) {
          const places = [0, list.length - 1, pick % list.length].slice(0, 1 + (pick % 3));
          list = withReplacedMessages(list, places.map((i) => [i, { ...list[i]! }] as const));
        }
        if (pick % 5 === 0 && list.length) {
          // A change after the request was built copies the list, with its lineage.
          RequestLists.release(list);
          const copy = withReplacedMessages(list, [[list.length - 1, { ...list[list.length - 1]! }]]);
          expect(copy).not.toBe(list);
          list = copy;
        }
        RequestLists.release(list);
        if (prev) {
          const known = changedPlaces(prev, list);
          if (known) {
            const named = new Set(known);
            for (let i = 0; i < Math.min(prev.length, list.length); i++) if (!named.has(i)) expect(list[i]).toBe(prev[i]);
          }
          // forEachChangedPlace visits every place that differs, and every place past what a caller kept.
          const kept = pick % (prev.length + 2);
          const visited = new Set<number>();
          forEachChangedPlace(prev, list, kept, (i) => visited.add(i));
          for (let i = 0; i < list.length; i++) {
            if (i >= Math.min(kept, prev.length) || list[i] !== prev[i]) expect(visited.has(i)).toBe(true);
          }
          for (const i of visited) expect(i).toBeLessThan(list.length);
        }
        prev = list;
      });
    }), { numRuns: 100 });
  });

  it('gives a place list only for lists of the same history and generation', () => {
    const h = new HistoryDriver();
    const lists = new RequestLists<Message, Form>(toForm);
    const a = lists.open(h.apply({ kind: 'append', turns: 2, size: 10, tool: 0, marked: false }));
    RequestLists.release(a);
    const b = lists.open(h.apply({ kind: 'append', turns: 1, size: 10, tool: 0, marked: false }));
    expect(changedPlaces(a, b)).toEqual([]);
    const c = withReplacedMessages(b, [[0, { ...b[0]! }], [b.length - 1, { ...b[b.length - 1]! }]]);
    // Still the request's own list: replaced in place.
    expect(c).toBe(b);
    expect(changedPlaces(a, c)).toEqual([0, b.length - 1]);
    RequestLists.release(c);
    // An edit (a new array with one message changed) starts a new generation.
    const d = lists.open(h.apply({ kind: 'edit', at: 1, size: 5 }));
    expect(changedPlaces(c, d)).toBeUndefined();
    // Another history, a plain array, or the same array: nothing is known.
    const other = new RequestLists<Message, Form>(toForm).open(h.messages);
    expect(changedPlaces(d, other)).toBeUndefined();
    expect(changedPlaces(d, d.slice())).toBeUndefined();
    expect(changedPlaces(d, d)).toBeUndefined();
  });

  it('forEachChangedPlace: unrelated lists by identity, the same array again in full, always past what the caller kept', () => {
    const x = { n: 1 }, y = { n: 2 }, z = { n: 3 };
    const seen = (prev: readonly unknown[], cur: readonly unknown[], kept: number) => {
      const out: number[] = [];
      forEachChangedPlace(prev, cur, kept, (i) => out.push(i));
      return out;
    };
    expect(seen([x, y], [x, z, y], 9)).toEqual([1, 2]);
    expect(seen([x, y], [x, z, y], 1)).toEqual([1, 2]);
    expect(seen([x, y], [x, y], 0)).toEqual([0, 1]);
    const same = [x, y];
    expect(seen(same, same, 9)).toEqual([0, 1]);
    expect(seen([x, y, z], [x], 9)).toEqual([]);
  });

  it('copies a list that is not a request\'s own, never changing it, and refuses a place outside the list', () => {
    const plain = [{ n: 1 }, { n: 2 }];
    const out = withReplacedMessages(plain, [[1, { n: 3 }]]);
    expect(out).not.toBe(plain);
    expect(plain).toEqual([{ n: 1 }, { n: 2 }]);
    expect(out).toEqual([{ n: 1 }, { n: 3 }]);
    expect(() => withReplacedMessages(plain, [[2, { n: 4 }]])).toThrow(RangeError);
    expect(() => withReplacedMessages(plain, [[-1, { n: 4 }]])).toThrow(/outside a list of 2 messages/);
  });
});
