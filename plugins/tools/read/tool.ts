/**
 * `Read`: a file's lines, numbered, from `offset` for `limit` lines (2,000 by default); images as
 * image blocks; binary files refused with a message that says what to do instead.
 */
import { closeSync, fstatSync, readFileSync, readSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { closest, distance } from 'fastest-levenshtein';
import { z } from 'zod';
import { defineTool, ToolError } from '../../../kernel/index.js';
import { openResolvedForRead } from '../../../lib/index.js';
import { getFileState, MAX_HASHED_BYTES } from '../shared/file-state.js';
import { wholeNumber } from '../shared/schema.js';
import { displayPath, errnoCode, resolveToolPath } from '../shared/paths.js';
import { asToolError, callTarget } from '../shared/target.js';
import {
  BINARY_EXTENSIONS, BINARY_SNIFF_BYTES, cutLine, extensionOf, groupDigits, IMAGE_MEDIA_TYPES, looksBinary, numberedLine, splitLines,
} from '../shared/text.js';
import { INPUT_JSON_SCHEMAS } from '../shared/generated/input-schemas.js';

/** Lines returned when no `limit` is given (Claude Code's MAX_LINES_TO_READ). */
export const DEFAULT_READ_LINES = 2_000;

/**
 * Most characters one Read may return (about 25,000 tokens at 4 characters a token, Claude Code's
 * Read token cap). Read is exempt from result persistence (its cap is Infinity), so
 * it bounds itself: a larger range is refused with the file's line count, so the model asks for less.
 */
export const MAX_READ_CHARS = 100_000;

/**
 * Largest image returned, bytes: base64 grows data by 4/3 and the Messages API takes at most 5 MB
 * of base64 per image (its 400 says so: `image exceeds 5 MB maximum: N bytes > 5242880 bytes`).
 * Pixel sizes and the media type are checked in image.ts.
 */
export const MAX_IMAGE_BYTES = Math.floor((5 * 1024 * 1024 * 3) / 4);

export const readInput = z.lazy(() => z.strictObject({
  file_path: z.string().min(1).describe('Absolute path of the file to read (a relative path is taken from the working directory)'),
  offset: wholeNumber(0).optional().describe('Line number to start from (1 is the first line). Give it only for files too long to read at once'),
  limit: wholeNumber(1).optional().describe(`How many lines to read (default ${DEFAULT_READ_LINES})`),
}));

export type ReadInput = z.output<typeof readInput>;

const DESCRIPTION = `Reads a file from the local file system.

Usage:
- file_path should be an absolute path. A relative path is taken from the session's working directory.
- It returns up to ${DEFAULT_READ_LINES} lines from the start. For a long file, pass offset (first line wanted, from 1) and limit (how many lines); otherwise read the whole file.
- Output is numbered like \`cat -n\`: each line is its line number, a tab, then the line's text exactly as in the file. The number and the tab are not part of the file.
- Lines longer than 2,000 characters are cut. One call returns at most ${groupDigits(MAX_READ_CHARS)} characters; for more, read in ranges or search with Grep.
- PNG, JPEG, GIF and WebP images are returned as images you can look at (at most 8,000 pixels on a side, 2,000 once the conversation holds more than 20 images).
- Other binary files (archives, executables, PDFs, ...) are refused; inspect them through Bash.
- It reads files, not directories: list a directory with Glob, or with ls through Bash.
- Read a file before you Edit or overwrite it with Write; those tools refuse files not read in this session.
- Several Read calls in one message run in parallel.`;

/** Lists a few names in `dir` close to `name`, for a "did you mean" hint. */
async function similarName(path: string): Promise<string | undefined> {
  try {
    const names = await readdir(dirname(path));
    if (!names.length) return undefined;
    const want = basename(path);
    const best = closest(want, names);
    return distance(want, best) <= Math.max(2, Math.floor(want.length / 3)) ? join(dirname(path), best) : undefined;
  } catch {
    return undefined;
  }
}

/** The same contract in fewer words (the plugin's `description: condensed`). */
export const CONDENSED_DESCRIPTION = `Reads the file at file_path (absolute, or relative to the working directory). Returns lines numbered like cat -n (number, tab, text; the number and tab are not part of the file): up to ${DEFAULT_READ_LINES} lines, from line offset (from 1) for limit lines when given. Lines over 2,000 characters are cut; at most ${groupDigits(MAX_READ_CHARS)} characters a call. PNG, JPEG, GIF and WebP come back as images; other binary files and directories are refused. Read a file before you Edit or Write it. Several Reads in one message run in parallel.`;

export const readTool = defineTool<ReadInput>({
  name: 'Read',
  description: DESCRIPTION,
  inputSchema: readInput,
  inputJsonSchema: INPUT_JSON_SCHEMAS.readInput,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  maxResultSizeChars: Infinity,
  filePath: (input) => input.file_path,
  async call(input, ctx) {
    const path = resolveToolPath(ctx.cwd, input.file_path);
    const shown = displayPath(ctx.cwd, path);
    // Opened once, at the path the permission decision resolved, and read only through the descriptor.
    const target = callTarget(ctx, input.file_path);
    let fd: number;
    try {
      fd = openResolvedForRead(target);
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') {
        const near = await similarName(path);
        throw new ToolError(`File does not exist: ${path}${near ? `. Did you mean ${near}?` : ''}`);
      }
      const e = asToolError(err);
      throw e instanceof ToolError ? e : new ToolError(`Cannot read ${path}: ${(err as Error).message}`);
    }
    try {
      const st = fstatSync(fd);
      if (st.isDirectory()) throw new ToolError(`${path} is a directory, not a file. List it with Glob (pattern "*" and path "${shown}") or with ls through Bash.`);
      if (!st.isFile()) throw new ToolError(`${path} is not a regular file (a device, socket or pipe); Read shows files only.`);
      const store = getFileState(ctx.kernel);
      const ext = extensionOf(path);

      const media = IMAGE_MEDIA_TYPES[ext];
      if (media) {
        if (st.size > MAX_IMAGE_BYTES) throw new ToolError(`Image ${path} is ${st.size} bytes; the largest image Read returns is ${MAX_IMAGE_BYTES} bytes. Make a smaller copy (for example with ImageMagick through Bash) and read that.`);
        const data = readFileSync(fd);
        // Loaded on the first image read, not with the tool: image-size and its format tables are
        // no part of a run that reads no image (1–2 M instructions of every cold start).
        const { imageBlock } = await import('./image.js');
        const block = imageBlock(path, data, ctx.kernel.messages);
        store.record(path, { content: data, stat: st });
        return [block];
      }
      if (BINARY_EXTENSIONS.has(ext)) throw binaryError(path, st.size, ext);

      // Small enough to hold: read once, hash for stale detection, number the wanted range.
      if (st.size <= MAX_HASHED_BYTES) {
        const buf = readFileSync(fd);
        if (looksBinary(buf.subarray(0, BINARY_SNIFF_BYTES))) throw binaryError(path, st.size, ext);
        let text = buf.toString('utf8');
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        const lines = splitLines(text);
        const out = render(path, lines, input, lines.length);
        store.record(path, { content: buf, stat: st, partial: out.partial });
        return out.text;
      }
      // Very large: read only the wanted range, line by line.
      const head = Buffer.alloc(BINARY_SNIFF_BYTES);
      readSync(fd, head, 0, head.length, 0);
      if (looksBinary(head)) throw binaryError(path, st.size, ext);
      const first = Math.max(1, input.offset ?? 1);
      const want = input.limit ?? DEFAULT_READ_LINES;
      const lines = await readLineRange(fd, first, want);
      const out = render(path, lines, { ...input, offset: 1, limit: want }, undefined, first);
      store.record(path, { stat: st, partial: true });
      return out.text;
    } finally {
      closeSync(fd);
    }
  },
});

/** Bytes read per chunk when scanning a large file for a line range. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Lines `first` to `first + want - 1` (1-based) of the file open at `fd`, read in chunks through
 * the descriptor, yielding to the event loop now and then so a long scan does not stall the run.
 */
async function readLineRange(fd: number, first: number, want: number): Promise<string[]> {
  const lines: string[] = [];
  const buf = Buffer.alloc(CHUNK_BYTES);
  let pos = 0;
  let n = 0;
  let rest: Buffer = Buffer.alloc(0);
  for (let chunks = 1; lines.length < want; chunks++) {
    const got = readSync(fd, buf, 0, buf.length, pos);
    pos += got;
    let data = got ? Buffer.concat([rest, buf.subarray(0, got)]) : rest;
    let nl = data.indexOf(10);
    while (nl !== -1 && lines.length < want) {
      n++;
      if (n >= first) lines.push(data.subarray(0, nl).toString('utf8').replace(/\r$/, ''));
      data = data.subarray(nl + 1);
      nl = data.indexOf(10);
    }
    rest = Buffer.from(data);
    if (got === 0) {
      if (rest.length && lines.length < want && ++n >= first) lines.push(rest.toString('utf8').replace(/\r$/, ''));
      break;
    }
    if (chunks % 64 === 0) await new Promise((r) => setImmediate(r));
  }
  return lines;
}

function binaryError(path: string, size: number, ext: string): ToolError {
  const kind = ext === '.pdf' ? 'a PDF document' : 'a binary file';
  return new ToolError(`Cannot read ${path}: it is ${kind} (${size} bytes), and Read shows only text files and PNG, JPEG, GIF or WebP images. Inspect it with a suitable command through Bash (file, strings, xxd, unzip -l, ...).`);
}

/**
 * Numbers the requested range. `total` is the file's line count when known; `startAt` is the line
 * number of `lines[0]` when `lines` is already the range.
 */
function render(path: string, lines: string[], input: ReadInput, total: number | undefined, startAt?: number): { text: string; partial: boolean } {
  const first = startAt ?? Math.max(1, input.offset ?? 1);
  const want = input.limit ?? DEFAULT_READ_LINES;
  const range = startAt !== undefined ? lines : lines.slice(first - 1, first - 1 + want);
  if (total === 0) return { text: `(${path} exists but is empty.)`, partial: false };
  if (range.length === 0) {
    return { text: `(${path} has ${total ?? 'fewer than ' + first} lines, so there is nothing from line ${first} on. Use a smaller offset.)`, partial: true };
  }
  const body = range.map((l, i) => numberedLine(first + i, cutLine(l))).join('\n');
  const last = first + range.length - 1;
  const partial = first > 1 || total === undefined || last < total;
  if (body.length > MAX_READ_CHARS) {
    throw new ToolError(`Lines ${first}-${last} of ${path} come to ${body.length} characters, more than the ${MAX_READ_CHARS} one Read returns${total !== undefined ? ` (the file has ${total} lines)` : ''}. Read a smaller range with offset and limit, or search the file with Grep.`);
  }
  if (total !== undefined && last < total) {
    return { text: `${body}\n\n(Showing lines ${first}-${last} of ${total}. Pass offset and limit to read further.)`, partial };
  }
  if (total === undefined) {
    return { text: `${body}\n\n(Showing lines ${first}-${last}; the file is large. Pass offset and limit to read further.)`, partial };
  }
  return { text: body, partial };
}
