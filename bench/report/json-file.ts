/**
 * A JSON report written to its file piece by piece. A long replay's report is tens of MB of JSON
 * (one row per request); `JSON.stringify` of it is one string that size, and writing it makes its
 * bytes too, at the end of the run when the replays' garbage is not yet collected: at 20,000
 * requests that was the peak of the whole process. Here arrays and plain objects are written member
 * by member and other values (and everything deeper than MAX_DEPTH) with `JSON.stringify`, so the
 * text is never held whole.
 */
import { open } from 'node:fs/promises';

/** Levels of arrays and plain objects written member by member; deeper values are stringified whole. */
const MAX_DEPTH = 8;
/** Characters gathered before a write. */
const CHUNK_CHARS = 1 << 20;

/** A value JSON leaves out of an object (and writes as null in an array). */
function omitted(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

/** An array, or an object of Object's own prototype (or none) without `toJSON`: written member by member. */
function container(v: unknown): v is Record<string, unknown> | unknown[] {
  if (Array.isArray(v)) return true;
  if (!v || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** The text of `value` at indentation `pad`, in pieces, as `JSON.stringify(value, null, 2)` writes it there. */
function* pieces(value: unknown, pad: string, depth: number): Generator<string> {
  if (depth >= MAX_DEPTH || !container(value)) {
    // JSON escapes the newlines of strings, so every newline here is one of the layout's.
    const text = JSON.stringify(value, null, 2);
    yield pad && text.includes('\n') ? text.replace(/\n/g, `\n${pad}`) : text;
    return;
  }
  const inner = `${pad}  `;
  if (Array.isArray(value)) {
    if (!value.length) { yield '[]'; return; }
    yield '[';
    for (let i = 0; i < value.length; i++) {
      yield i ? `,\n${inner}` : `\n${inner}`;
      const v = value[i];
      if (omitted(v)) yield 'null';
      else yield* pieces(v, inner, depth + 1);
    }
    yield `\n${pad}]`;
    return;
  }
  let first = true;
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (omitted(v)) continue;
    yield `${first ? '{' : ','}\n${inner}${JSON.stringify(key)}: `;
    first = false;
    yield* pieces(v, inner, depth + 1);
  }
  yield first ? '{}' : `\n${pad}}`;
}

/**
 * The text `JSON.stringify(value, null, 2) + '\n'` would be, in chunks of about CHUNK_CHARS
 * characters, without building that string. Throws what `JSON.stringify` throws (a BigInt; a
 * cycle, once it reaches MAX_DEPTH).
 */
function* chunks(value: unknown): Generator<string> {
  let parts: string[] = [];
  let size = 0;
  for (const p of pieces(value, '', 0)) {
    parts.push(p);
    size += p.length;
    if (size >= CHUNK_CHARS) {
      yield parts.join('');
      parts = [];
      size = 0;
    }
  }
  parts.push('\n');
  yield parts.join('');
}

/**
 * Writes `value` to `file` (created or replaced) exactly as `JSON.stringify(value, null, 2) + '\n'`
 * would be written, byte for byte, without building that string. Throws what opening or writing
 * the file throws, and what `JSON.stringify` throws (a BigInt; a cycle, once it reaches MAX_DEPTH).
 */
export async function writeJsonFile(file: string, value: unknown): Promise<void> {
  const fh = await open(file, 'w');
  try {
    for (const c of chunks(value)) await fh.write(c);
  } finally {
    await fh.close();
  }
}

/**
 * Writes `value` to `out` as `writeJsonFile` writes a file, waiting for the stream to drain when
 * its buffer is full (a report is tens of MB). Throws what `JSON.stringify` throws; a write error
 * (a closed pipe) rejects.
 */
export async function writeJsonStream(out: NodeJS.WritableStream, value: unknown): Promise<void> {
  const write = (chunk: string) => new Promise<void>((done, fail) => {
    const onError = (err: Error) => fail(err);
    out.once('error', onError);
    const more = out.write(chunk, (err) => { out.off('error', onError); if (err) fail(err); else if (more) done(); });
    if (!more) out.once('drain', () => done());
  });
  for (const c of chunks(value)) await write(c);
}
