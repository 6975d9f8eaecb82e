/**
 * Streaming reader for JSON Lines files as agents write them: one JSON value per line, except that
 * a writer which appended to a file lacking a final newline leaves two objects on one line (seen in
 * pi sessions), and a CLI may print a stack trace into its stream. Each physical line is parsed on
 * its own; a line that fails is split into its top-level values; what still fails is reported as
 * malformed with its line number, never thrown.
 */
import { constants } from 'node:buffer';
import { createReadStream } from 'node:fs';

/** One parsed JSON value and the 1-based line it came from. */
export interface JsonlEntry {
  line: number;
  value: unknown;
}

/** A line that held no parseable JSON value. */
export interface MalformedLine {
  line: number;
  /** The first characters of the line, for the report (at most 80). */
  preview: string;
  error: string;
}

/**
 * Splits `text` into its top-level JSON values (objects and arrays) by tracking bracket depth
 * outside strings, then parses each. Returns undefined when the text is not a clean concatenation
 * (anything but whitespace between values, unbalanced brackets, or a value that fails to parse).
 */
export function splitConcatenated(text: string): unknown[] | undefined {
  const out: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) {
      if (depth === 0) return undefined; // a bare string at top level: not what we split
      inString = true;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (depth === 0) start = i;
      depth++;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
      if (depth < 0) return undefined;
      if (depth === 0) {
        try {
          out.push(JSON.parse(text.slice(start, i + 1)));
        } catch {
          return undefined;
        }
      }
    } else if (depth === 0 && c !== 32 && c !== 9 && c !== 13 && c !== 10) {
      return undefined;
    }
  }
  return depth === 0 && out.length > 0 ? out : undefined;
}

/**
 * The longest line readJsonl reads, bytes: V8's longest string, in UTF-16 code units
 * (`buffer.constants.MAX_STRING_LENGTH`, https://nodejs.org/api/buffer.html#bufferconstantsmax_string_length).
 * A line of more UTF-8 bytes than that can hold more characters than one string holds, so it cannot
 * be parsed as one JSON value.
 */
export const MAX_LINE_BYTES = constants.MAX_STRING_LENGTH;

/**
 * The physical lines of a file (split at `\n`; a `\r` before it is the line's own), as UTF-8 text.
 * Throws, naming the line, when one is longer than `maxBytes`: it is not read into memory first.
 */
async function* lines(path: string, maxBytes: number): AsyncGenerator<string> {
  let parts: Buffer[] = [];
  let size = 0;
  let line = 1;
  const tooLong = () => new Error(`line ${line} is longer than ${maxBytes.toLocaleString('en-US')} bytes, more than one JSON value can be read from`);
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      if (size + nl - start > maxBytes) throw tooLong();
      parts.push(chunk.subarray(start, nl));
      yield Buffer.concat(parts).toString('utf8');
      parts = [];
      size = 0;
      line++;
      start = nl + 1;
    }
    if (start < chunk.length) {
      size += chunk.length - start;
      if (size > maxBytes) throw tooLong();
      parts.push(chunk.subarray(start));
    }
  }
  if (size > 0) yield Buffer.concat(parts).toString('utf8');
}

/**
 * Reads a JSONL file line by line (streaming: memory stays flat however large the file). Blank lines
 * are ignored. Calls `onMalformed` for each line that holds no JSON value. Throws, naming the line,
 * for a line longer than `maxLineBytes` (default MAX_LINE_BYTES), and what reading the file throws.
 */
export async function* readJsonl(path: string, onMalformed: (m: MalformedLine) => void, onLine?: () => void, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<JsonlEntry> {
  let line = 0;
  for await (const raw of lines(path, maxLineBytes)) {
    line++;
    onLine?.();
    const text = raw.trim();
    if (!text) continue;
    if (text[0] !== '{' && text[0] !== '[') {
      onMalformed({ line, preview: text.slice(0, 80), error: 'not a JSON object' });
      continue;
    }
    try {
      yield { line, value: JSON.parse(text) };
      continue;
    } catch (err) {
      const values = splitConcatenated(text);
      if (!values) {
        onMalformed({ line, preview: text.slice(0, 80), error: (err as Error).message });
        continue;
      }
      for (const value of values) yield { line, value };
    }
  }
}
