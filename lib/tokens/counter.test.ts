import { describe, expect, it } from 'vitest';
import { COEFFICIENTS } from './coefficients.js';
import {
  BYTE_COUNTER, CALIBRATED_COUNTER, calibratedCounter, countRequestTokens, imageSize, TEXT_FEATURES, textFeatures,
} from './counter.js';
import { estimateBlockTokens, estimateRequestTokens } from './estimate.js';

/** A PNG of `w` × `h` px as far as its header goes (IHDR), base64. */
function png(w: number, h: number): string {
  const b = Buffer.alloc(33);
  b.writeUInt32BE(0x89504e47, 0); b.writeUInt32BE(0x0d0a1a0a, 4); b.writeUInt32BE(13, 8); b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(w, 16); b.writeUInt32BE(h, 20);
  return b.toString('base64');
}
const image = (data: string) => ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } });

describe('textFeatures', () => {
  it('counts letters, words, digits, digit runs, punctuation, newlines, spaces, indentation runs, non-ASCII and camelCase joints', () => {
    const f = Object.fromEntries(TEXT_FEATURES.map((k, i) => [k, textFeatures('parseHeader(x1, 23)\n    é 😀')[i]]));
    expect(f).toEqual({ letters: 12, words: 2, digits: 3, digitRuns: 2, punct: 3, newlines: 1, spaces: 6, spaceRuns: 1, nonAscii: 2, caseChanges: 1 });
  });
});

describe('calibrated counter', () => {
  it('counts prose at about 4–5 bytes a token, code near 3 and JSON-like text closer to 2', () => {
    const prose = 'The quick brown fox jumps over the lazy dog while the cat watches from the window. '.repeat(20);
    const code = 'function parseHeader(line: string): Header {\n  const [key, value] = line.split(":");\n  return { key: key.trim(), value };\n}\n'.repeat(12);
    const json = JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ id: i * 7919, ok: i % 2 === 0, v: [i, i + 1] })));
    const bpt = (s: string) => Buffer.byteLength(s) / CALIBRATED_COUNTER.block({ type: 'text', text: s });
    expect(bpt(prose)).toBeGreaterThan(3.8);
    expect(bpt(prose)).toBeLessThan(6);
    expect(bpt(code)).toBeGreaterThan(2.3);
    expect(bpt(code)).toBeLessThan(bpt(prose));
    expect(bpt(json)).toBeLessThan(bpt(code));
  });

  it('adds the per-message constant to the first block only, and counts an empty string (not opening a message) as nothing', () => {
    const b = { type: 'text', text: 'hello there' };
    const diff = CALIBRATED_COUNTER.block(b, true) - CALIBRATED_COUNTER.block(b, false);
    // Each block is rounded on its own, so the difference is the constant rounded either way.
    expect(diff).toBeGreaterThanOrEqual(Math.floor(COEFFICIENTS.block.message));
    expect(diff).toBeLessThanOrEqual(Math.ceil(COEFFICIENTS.block.message));
    expect(diff).toBeGreaterThan(0);
    expect(CALIBRATED_COUNTER.block('', false)).toBe(0);
    expect(CALIBRATED_COUNTER.block({ type: 'text', text: 'x' })).toBeGreaterThanOrEqual(1);
  });

  it('gives a thinking signature no weight and a tool_use block the tool constant', () => {
    const a = CALIBRATED_COUNTER.block({ type: 'thinking', thinking: 'Let me check the file.', signature: 'x' });
    const b = CALIBRATED_COUNTER.block({ type: 'thinking', thinking: 'Let me check the file.', signature: 'S'.repeat(5000) });
    expect(a).toBe(b);
    const use = CALIBRATED_COUNTER.block({ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a.ts' } });
    expect(use).toBeGreaterThanOrEqual(Math.round(COEFFICIENTS.block.tool));
  });

  it('counts an image by the vision docs: width × height / 750 after scaling to 1568 px and 1.15 MP', () => {
    expect(imageSize(Buffer.from(png(800, 600), 'base64'))).toEqual({ width: 800, height: 600 });
    expect(CALIBRATED_COUNTER.block(image(png(800, 600)))).toBe(640);
    // 3000 × 1000 → 1568 × 522.7 px = 819,541 px → 1,093 tokens.
    expect(CALIBRATED_COUNTER.block(image(png(3000, 1000)))).toBe(1093);
    // 2000 × 2000 → 1568² is over 1.15 MP → 1,150,000 px → 1,534 tokens (the docs' ~1,600 cap).
    expect(CALIBRATED_COUNTER.block(image(png(2000, 2000)))).toBe(1534);
    expect(CALIBRATED_COUNTER.block(image('not an image'))).toBe(COEFFICIENTS.imageFallback);
  });

  it('follows its coefficients: doubling every weight doubles a long text', () => {
    const double = calibratedCounter({
      ...COEFFICIENTS,
      text: Object.fromEntries(Object.entries(COEFFICIENTS.text).map(([k, v]) => [k, 2 * v])) as typeof COEFFICIENTS.text,
      block: { text: 0, thinking: 0, tool: 0, message: 0 },
    });
    const single = calibratedCounter({ ...COEFFICIENTS, block: { text: 0, thinking: 0, tool: 0, message: 0 } });
    const t = { type: 'text', text: 'Some words, 42 numbers and camelCase.\n'.repeat(50) };
    expect(Math.abs(double.block(t) - 2 * single.block(t))).toBeLessThanOrEqual(1);
  });
});

describe('byte counter', () => {
  it('is rein\'s documented estimate, block for block and for whole requests', () => {
    const blocks = [{ type: 'text', text: 'a'.repeat(41) }, { type: 'tool_use', id: 'x', name: 'Bash', input: { command: 'ls' } }];
    for (const b of blocks) expect(BYTE_COUNTER.block(b, true)).toBe(estimateBlockTokens(b));
    const req = { tools: [{ name: 'T', input_schema: {} }], system: 'a'.repeat(8), messages: [{ role: 'user', content: 'a'.repeat(12) }, { role: 'assistant', content: blocks }] };
    expect(countRequestTokens(BYTE_COUNTER, req)).toBe(estimateRequestTokens(req));
  });
});
