import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES, readJsonl, splitConcatenated, type MalformedLine } from './jsonl.js';
import { loadWorkloads } from './load.js';

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

  it('names a line too long to read as one JSON value as the reason its file is not replayed', async () => {
    // A Claude Code session whose third line is longer than V8's longest string (a sparse file:
    // the long line is NUL bytes that take no disk).
    const sub = await mkdtemp(join(dir, 'huge-'));
    const file = join(sub, 'huge.jsonl');
    const head = '{"type":"summary","summary":"s","leafUuid":"u"}\n{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"a","timestamp":"2025-01-01T00:00:00Z"}\n';
    const fh = await open(file, 'w');
    await fh.write(head);
    await fh.truncate(Buffer.byteLength(head) + MAX_LINE_BYTES + 10);
    await fh.close();
    const r = await loadWorkloads(sub);
    expect(r.workloads).toEqual([]);
    expect(r.skippedFiles).toEqual([{ path: file, reason: `import failed: line 3 is longer than ${MAX_LINE_BYTES.toLocaleString('en-US')} bytes, more than one JSON value can be read from` }]);
  }, 60_000);

  it('reads a last line without a newline, and CRLF line ends', async () => {
    const file = join(dir, 'crlf.jsonl');
    await writeFile(file, '{"n":1}\r\n\r\n{"n":2}');
    const got: unknown[] = [];
    for await (const e of readJsonl(file, () => {})) got.push(e);
    expect(got).toEqual([{ line: 1, value: { n: 1 } }, { line: 3, value: { n: 2 } }]);
  });
});
