/**
 * Rows a replay produces one per request, kept on disk until the replay ends: a long replay would
 * otherwise hold every row (about 330 bytes of heap each, 7 MB at 20,000 requests) beside
 * everything else it keeps while it runs, and V8 lets a heap grow past what it keeps. The rows are
 * written as JSON lines, a batch at a time, and read back once at the end, when the replay's own
 * state (kernel, simulator, indexes) is garbage.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

/** Rows written to the file at a time: one write per batch instead of one per row. */
const BATCH_ROWS = 256;

/**
 * An append-only list of JSON rows in a file. A row must survive JSON as it is: plain objects,
 * arrays, strings, booleans and finite numbers, no `undefined` values that matter (JSON drops
 * them, as the JSON report does).
 */
export class RowSpill<T> {
  private fd: number | undefined;
  private batch: string[] = [];
  private rows = 0;

  /** Creates (or empties) `file`. Throws what `open` throws. */
  constructor(private readonly file: string) {
    this.fd = openSync(file, 'w');
  }

  /** Rows pushed so far. */
  get length(): number {
    return this.rows;
  }

  /** Appends a row (as its JSON now: later changes to the object are not kept). Throws what `write` throws. */
  push(row: T): void {
    this.batch.push(JSON.stringify(row));
    this.rows++;
    if (this.batch.length >= BATCH_ROWS) this.flush();
  }

  private flush(): void {
    if (!this.batch.length || this.fd === undefined) return;
    writeSync(this.fd, this.batch.join('\n') + '\n');
    this.batch = [];
  }

  /** Every row pushed, in order, as new objects. Closes the file; throws what reading it throws. */
  readAll(): T[] {
    this.flush();
    this.close();
    const text = readFileSync(this.file, 'utf8');
    const out: T[] = [];
    for (let start = 0; start < text.length;) {
      const end = text.indexOf('\n', start);
      out.push(JSON.parse(text.slice(start, end)) as T);
      start = end + 1;
    }
    return out;
  }

  /** Closes the file (idempotent); `remove` deletes it too. */
  close(remove = false): void {
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
    }
    if (remove) rmSync(this.file, { force: true });
  }
}
