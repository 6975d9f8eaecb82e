/**
 * Neutralising untrusted text, and escaping text for a terminal. The offset map must describe the
 * same text neutralizeText produces, for any input (property test), since Edit relies on it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { neutralizeText, neutralizeWithMap, restoreReservedTags } from './neutralize.js';
import { escapeControls, statusLine } from './terminal.js';

const pieces = fc.constantFrom('a', 'b', ' ', '\n', '\t', '\r', '<', '/', 'system-reminder', 'SYSTEM_REMINDER', '\u001b[31m', '\u001b]52;c;x\u0007', '\u200B', '\u202E', '\u{E0041}', '＜', '\u0000', '\u009b', 'é', '😀', '&lt;', 'hook-context', '>');
const texts = fc.array(pieces, { maxLength: 40 }).map((p) => p.join(''));

describe('neutralizeText', () => {
  it('neutralizeWithMap gives the same text, and a map into the original', () => {
    fc.assert(fc.property(texts, (t) => {
      const a = neutralizeText(t).text;
      const b = neutralizeWithMap(t);
      expect(b.text).toBe(a);
      expect(b.map).toHaveLength(b.text.length + 1);
      expect(b.map[b.text.length]).toBe(t.length);
      for (let i = 0; i < b.text.length; i++) {
        expect(b.map[i]).toBeGreaterThanOrEqual(0);
        if (i) expect(b.map[i]).toBeGreaterThanOrEqual(b.map[i - 1]!);
        // A kept character maps to itself; an escaped `<` to the `<` (or its look-alike).
        if (b.text.slice(i, i + 4) !== '&lt;' && !(i > 0 && b.text.slice(i - 1, i + 3) === '&lt;') && !(i > 1 && b.text.slice(i - 2, i + 2) === '&lt;') && !(i > 2 && b.text.slice(i - 3, i + 1) === '&lt;')) expect(t[b.map[i]!]).toBe(b.text[i]);
      }
    }), { numRuns: 300 });
  });
  it('never leaves a reserved tag, control sequence or invisible character', () => {
    fc.assert(fc.property(texts, (t) => {
      const out = neutralizeText(t).text;
      expect(out).not.toMatch(/[<＜]\s*\/?\s*(system[\s_-]*reminder|hook-context)/i);
      // eslint-disable-next-line no-control-regex -- matching control characters is the point
      expect(out).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200B\u202E\u{E0041}]/u);
    }), { numRuns: 300 });
  });
  it('restoreReservedTags undoes the escape', () => {
    expect(restoreReservedTags(neutralizeText('<system-reminder>x</system-reminder> a < b').text)).toBe('<system-reminder>x</system-reminder> a < b');
  });
});

describe('terminal escaping', () => {
  it('shows every control as text; keeps lines when asked', () => {
    expect(escapeControls('a\u001b[2K\rb\n\tc\u009b\u202Ed')).toBe('a\\x1b[2K\\x0db\\x0a\\x09c\\x9b\\u{202E}d');
    expect(escapeControls('a\u001b[2K\rb\n\tc', { keepLines: true })).toBe('a\\x1b[2K\\x0db\n\tc');
    expect(statusLine('x\nrein: forged')).toBe('x\\x0arein: forged');
  });
});
