import { describe, expect, it } from 'vitest';
import { TwoGenerationMemo } from './generations.js';

describe('TwoGenerationMemo', () => {
  const byLength = () => new TwoGenerationMemo<string, number>(10, (k) => k.length);

  it('gives back what it keeps, and nothing for a key it never kept', () => {
    const m = byLength();
    m.set('abc', 1);
    expect(m.get('abc')).toBe(1);
    expect(m.get('xyz')).toBeUndefined();
  });

  it('keeps the previous generation when the younger fills, and drops the one before', () => {
    const m = byLength();
    m.set('aaaaa', 1); // young: 5
    m.set('bbbbb', 2); // young: 10
    m.set('ccccc', 3); // full: young becomes old {a, b}, young {c}
    expect(m.get('ccccc')).toBe(3);
    expect(m.get('aaaaa')).toBe(1); // moved from old into young: young {c, a} = 10
    m.set('ddddd', 4); // full again: old {c, a}, young {d}; b is gone
    expect(m.get('bbbbb')).toBeUndefined();
    expect(m.get('aaaaa')).toBe(1);
    expect(m.get('ccccc')).toBe(3);
  });

  it('holds an entry larger than the limit until the next one arrives', () => {
    const m = byLength();
    m.set('a'.repeat(25), 1);
    expect(m.get('a'.repeat(25))).toBe(1);
    m.set('b', 2);
    expect(m.get('a'.repeat(25))).toBe(1);
  });
});
