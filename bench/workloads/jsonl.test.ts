import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonl, splitConcatenated, type MalformedLine } from './jsonl.js';

let dir: string;
beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'rein-jsonl-')); });
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

describe('splitConcatenated', () => {
  it('splits two objects written with no newline between them', () => {
    expect(splitConcatenated('{"a":1}{"b":"}{"}')).toEqual([{ a: 1 }, { b: '}{' }]);
  });
  it('keeps escaped quotes inside strings', () => {
    expect(splitConcatenated('{"a":"x\\"}"} {"b":2}')).toEqual([{ a: 'x"}' }, { b: 2 }]);
  });
  it('refuses text between values and unbalanced input', () => {
    expect(splitConcatenated('{"a":1} junk {"b":2}')).toBeUndefined();
    expect(splitConcatenated('{"a":1')).toBeUndefined();
  });
});

describe('readJsonl', () => {
  it('yields each value with its line, splits concatenated lines and reports the rest as malformed', async () => {
    const file = join(dir, 'mixed.jsonl');
    await writeFile(file, ['{"n":1}', '', '{"n":2}{"n":3}', 'Error: spawn ps ENOENT', '    at foo (x.js:1:1)', '{"n":4', '{"n":5}'].join('\n'));
    const bad: MalformedLine[] = [];
    const got: { line: number; value: unknown }[] = [];
    for await (const e of readJsonl(file, (m) => bad.push(m))) got.push(e);
    expect(got).toEqual([
      { line: 1, value: { n: 1 } }, { line: 3, value: { n: 2 } }, { line: 3, value: { n: 3 } }, { line: 7, value: { n: 5 } },
    ]);
    expect(bad.map((b) => b.line)).toEqual([4, 5, 6]);
    expect(bad[0]!.error).toBe('not a JSON object');
  });
});
