import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupDigits } from './text.js';

describe('groupDigits', () => {
  it('groups digits by three as en-US does', () => {
    expect(groupDigits(100_000)).toBe('100,000');
    expect(groupDigits(999)).toBe('999');
    fc.assert(fc.property(fc.nat(), (n) => groupDigits(n) === n.toLocaleString('en-US')));
  });
});
