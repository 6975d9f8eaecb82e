import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RowSpill } from './spill.js';

describe('RowSpill', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'rein-spill-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gives back every row pushed, in order, across several batches, as written when pushed', () => {
    const spill = new RowSpill<{ n: number; source: string; recall?: { needed: number } }>(join(dir, 'rows.jsonl'));
    const rows = Array.from({ length: 1000 }, (_, i) => ({ n: i + 1, source: i % 3 ? 'main_loop' : 'compact', ...(i % 7 ? {} : { recall: { needed: i } }) }));
    for (const r of rows) spill.push(r);
    rows[0]!.source = 'changed after the push';
    expect(spill.length).toBe(1000);
    const back = spill.readAll();
    expect(back).toHaveLength(1000);
    expect(back[0]!.source).toBe('compact');
    expect(back.slice(1)).toEqual(rows.slice(1));
  });

  it('holds the rows in its file, not in memory, and close(true) removes the file', () => {
    const file = join(dir, 'rows.jsonl');
    const spill = new RowSpill<{ n: number }>(file);
    for (let n = 1; n <= 600; n++) spill.push({ n });
    // Two full batches of 256 are on disk; the rest waits for the next batch or readAll.
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(512);
    expect(spill.readAll().map((r) => r.n)).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
    spill.close(true);
    expect(existsSync(file)).toBe(false);
  });

  it('gives back no rows when none were pushed', () => {
    const spill = new RowSpill<unknown>(join(dir, 'none.jsonl'));
    expect(spill.readAll()).toEqual([]);
    spill.close(true);
  });
});
