import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStateStore, type FileStateEntry } from './file-state.js';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'rein-file-state-'));
  dirs.push(d);
  return d;
}

describe('FileStateStore transcript entries', () => {
  it('writes a whole record on the first read and a short seen entry for an unchanged re-read', () => {
    const dir = tempDir();
    const a = join(dir, 'a.txt');
    writeFileSync(a, 'one\ntwo\n');
    const entries: FileStateEntry[] = [];
    const store = new FileStateStore((e) => entries.push(e));
    store.record(a, { content: 'one\ntwo\n' });
    store.record(a, { content: 'one\ntwo\n' });
    expect(entries.map((e) => e.op)).toEqual(['set', 'seen']);
    const seen = entries[1] as Extract<FileStateEntry, { op: 'seen' }>;
    expect(seen.path).toBe(a);
    expect(JSON.stringify(seen).length).toBeLessThan(JSON.stringify(entries[0]).length / 2);
  });

  it('writes a whole record again when the file, its hash or the range changed', () => {
    const dir = tempDir();
    const a = join(dir, 'a.txt');
    writeFileSync(a, 'one\n');
    const entries: FileStateEntry[] = [];
    const store = new FileStateStore((e) => entries.push(e));
    store.record(a, { content: 'one\n' });
    store.record(a, { content: 'one\n', partial: true });
    writeFileSync(a, 'one\nmore\n');
    store.record(a, { content: 'one\nmore\n' });
    utimesSync(a, new Date(), new Date(Date.now() + 5_000));
    store.record(a, { content: 'one\nmore\n' });
    expect(entries.map((e) => e.op)).toEqual(['set', 'set', 'set', 'set']);
  });

  it('restores the same records and newest-first order from its entries as it held live', () => {
    const dir = tempDir();
    const [a, b] = [join(dir, 'a.txt'), join(dir, 'b.txt')];
    writeFileSync(a, 'a\n');
    writeFileSync(b, 'b\n');
    const entries: FileStateEntry[] = [];
    const live = new FileStateStore((e) => entries.push(e));
    let now = 1_000;
    const realNow = Date.now;
    Date.now = () => now;
    try {
      live.record(a, { content: 'a\n' });
      now += 10;
      live.record(b, { content: 'b\n' });
      now += 10;
      live.record(a, { content: 'a\n' }); // a is the newest again, through a `seen` entry
    } finally {
      Date.now = realNow;
    }
    expect(entries.map((e) => e.op)).toEqual(['set', 'set', 'seen']);
    const resumed = new FileStateStore();
    resumed.restore(JSON.parse(JSON.stringify(entries)) as FileStateEntry[]);
    expect(resumed.snapshot()).toEqual(live.snapshot());
    expect(resumed.snapshot().map((r) => r.path)).toEqual([a, b]);
    expect(resumed.check(a)).toMatchObject({ ok: true });
  });

  it('ignores a seen entry for a file it has no record of (after a clear)', () => {
    const resumed = new FileStateStore();
    resumed.restore([{ op: 'clear' }, { op: 'seen', path: '/nowhere/a.txt', at: 5 }]);
    expect(resumed.size).toBe(0);
  });
});
