import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeJsonFile } from './json-file.js';

describe('writeJsonFile', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'rein-json-file-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const nest = (levels: number, leaf: unknown): unknown => (levels ? { [`level${levels}`]: nest(levels - 1, leaf) } : leaf);

  const same = async (value: unknown) => {
    const file = join(dir, 'out.json');
    await writeJsonFile(file, value);
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify(value, null, 2) + '\n');
  };

  it('writes what JSON.stringify(value, null, 2) writes, byte for byte, for the values JSON treats specially', async () => {
    class Point { constructor(readonly x: number, readonly y: number) {} get sum() { return this.x + this.y; } }
    const withGetter = Object.defineProperty({ a: 1 }, 'b', { enumerable: true, get: () => [1, { c: 'd' }] });
    await same({
      empty: { array: [], object: {}, nested: [[], {}, [{}]] },
      omitted: { u: undefined, f: () => 1, s: Symbol('s'), kept: null },
      inArrays: [undefined, () => 1, Symbol('s'), null, NaN, Infinity, -0],
      // eslint-disable-next-line no-sparse-arrays
      sparse: [1, , 3],
      strings: ['line one\nline two', 'tab\there', 'quote " and \\ backslash', 'ünïcödé ✓', '\u2028'],
      numbers: [0, -1.5, 1e21, 123456789.123],
      date: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
      instance: new Point(1, 2),
      boxed: [new Number(3), new String('s'), new Boolean(false)],
      getter: withGetter,
      nullProto: Object.assign(Object.create(null) as object, { z: 1, y: [2] }),
      deep: nest(12, [1, { k: 'deep\nline' }]),
    });
  });

  it('writes a report-sized value (many rows, past one write) exactly', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => ({ n: i + 1, source: i % 5 ? 'main_loop' : 'compact', costUsd: i / 3, ...(i % 7 ? {} : { recall: { needed: 3, recalled: i % 4 } }) }));
    await same({ version: 2, workloads: [{ name: 'w', runs: [{ preset: 'default', requests: rows, compactions: [] }] }] });
  });

  it('writes top-level scalars and arrays exactly', async () => {
    for (const v of [null, 0, 'text', true, [1, [2, [3]]], []]) await same(v);
  });
});
