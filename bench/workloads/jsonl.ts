/**
 * Streaming reader for JSON Lines files as agents write them: one JSON value per line, except that
 * a writer which appended to a file lacking a final newline leaves two objects on one line (seen in
 * pi sessions), and a CLI may print a stack trace into its stream. Each physical line is parsed on
 * its own; a line that fails is split into its top-level values; what still fails is reported as
 * malformed with its line number, never thrown.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

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
 * Reads a JSONL file line by line (streaming: memory stays flat however large the file). Blank lines
 * are ignored. Calls `onMalformed` for each line that holds no JSON value.
 */
export async function* readJsonl(path: string, onMalformed: (m: MalformedLine) => void, onLine?: () => void): AsyncGenerator<JsonlEntry> {
  const rl = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let line = 0;
  for await (const raw of rl) {
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
