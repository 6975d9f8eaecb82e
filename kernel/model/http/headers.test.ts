/**
 * HttpHeaders against Node's own `Headers` (the Fetch standard's behaviour for what the SDK uses),
 * and LazyFormData's stand-in behaviour.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { HttpHeaders, LazyFormData } from './headers.js';

const token = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,8}$/);
const value = fc.stringMatching(/^[ \t]{0,2}[!-~]{0,6}( [!-~]{1,4})?[ \t]{0,2}$/);
type Op = ['append' | 'set' | 'delete', string, string];
const op: fc.Arbitrary<Op> = fc.tuple(fc.constantFrom('append' as const, 'set' as const, 'delete' as const), token, value);

describe('HttpHeaders', () => {
  it('matches Node\'s Headers for any sequence of append, set and delete (get, has, iteration order)', () => {
    fc.assert(fc.property(fc.array(op, { maxLength: 12 }), fc.array(token, { maxLength: 4 }), (ops, probes) => {
      const ours = new HttpHeaders();
      const node = new Headers();
      for (const [verb, name, v] of ops) {
        if (verb === 'delete') { ours.delete(name); node.delete(name); } else { ours[verb](name, v); node[verb](name, v); }
      }
      expect([...ours]).toEqual([...node]);
      for (const name of [...probes, ...ops.map((o) => o[1].toUpperCase())]) {
        expect(ours.get(name)).toBe(node.get(name));
        expect(ours.has(name)).toBe(node.has(name));
      }
    }));
  });

  it('is built from a record (arrays as repeated values, undefined skipped), pairs, or another Headers of either class', () => {
    const fromRecord = new HttpHeaders({ 'X-One': '1', 'x-many': ['a', 'b'], skipped: undefined });
    expect([...fromRecord]).toEqual([['x-many', 'a, b'], ['x-one', '1']]);
    expect([...new HttpHeaders([['B', '2'], ['a', '1']])]).toEqual([['a', '1'], ['b', '2']]);
    expect([...new HttpHeaders(new Headers({ Z: '26' }))]).toEqual([['z', '26']]);
    expect([...new HttpHeaders(fromRecord)]).toEqual([...fromRecord]);
    expect(() => new HttpHeaders([['only-a-name']] as never)).toThrow(TypeError);
    expect([...new HttpHeaders(null)]).toEqual([]);
  });

  it('keys, values and forEach follow the same order as entries', () => {
    const h = new HttpHeaders({ b: '2', a: '1' });
    expect([...h.keys()]).toEqual(['a', 'b']);
    expect([...h.values()]).toEqual(['1', '2']);
    const seen: string[] = [];
    h.forEach((v, k, self) => { seen.push(`${k}=${v}`); expect(self).toBe(h); });
    expect(seen).toEqual(['a=1', 'b=2']);
    // A name deleted while iterating is skipped, as with Node's Headers.
    const during: string[] = [];
    for (const [k] of new HttpHeaders({ a: '1', b: '2', c: '3' }).entries()) during.push(k);
    const h2 = new HttpHeaders({ a: '1', b: '2', c: '3' });
    const left: [string, string][] = [];
    for (const e of h2) { left.push(e); h2.delete('b'); }
    expect(during).toEqual(['a', 'b', 'c']);
    expect(left).toEqual([['a', '1'], ['c', '3']]);
  });

  it('instanceof accepts both classes and nothing else, so code testing for either takes both', () => {
    expect(new HttpHeaders()).toBeInstanceOf(HttpHeaders);
    expect(new Headers() instanceof HttpHeaders).toBe(true);
    expect({ 'content-type': 'x' } instanceof HttpHeaders).toBe(false);
    expect([['a', 'b']] instanceof HttpHeaders).toBe(false);
    expect(Object.prototype.toString.call(new HttpHeaders())).toBe('[object Headers]');
  });
});

describe('LazyFormData', () => {
  it('builds a real FormData and recognises only real ones', () => {
    const form = new LazyFormData() as unknown as FormData;
    expect(form).toBeInstanceOf(FormData);
    form.append('a', '1');
    expect(form.get('a')).toBe('1');
    expect(form instanceof LazyFormData).toBe(true);
    expect({} instanceof LazyFormData).toBe(false);
    expect({ [Symbol.toStringTag]: 'FormData' } instanceof LazyFormData).toBe(false);
    expect(('text' as unknown) instanceof LazyFormData).toBe(false);
  });
});
