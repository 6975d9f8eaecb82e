/**
 * Text helpers shared by Read, Edit and Grep: line numbering in the form Read prints, binary
 * detection, and the file kinds Read shows as images or refuses as binary.
 */
import { extname } from 'node:path';

/** Bytes sniffed for a NUL byte to tell binary from text (the same window git and ripgrep look at). */
export const BINARY_SNIFF_BYTES = 8_192;

/** Image types Read returns as image blocks, by extension → media type (the types the Messages API accepts). */
export const IMAGE_MEDIA_TYPES: Readonly<Record<string, 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'>> = Object.freeze({
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
});

/** Extensions that are binary whatever their first bytes look like (archives, media, compiled code, databases). */
export const BINARY_EXTENSIONS: ReadonlySet<string> = new Set([
  '.7z', '.a', '.avi', '.bin', '.bmp', '.bz2', '.class', '.db', '.dll', '.dmg', '.doc', '.docx', '.dylib', '.eot',
  '.exe', '.flac', '.gz', '.ico', '.iso', '.jar', '.lib', '.mkv', '.mov', '.mp3', '.mp4', '.o', '.obj', '.ogg',
  '.otf', '.pdf', '.ppt', '.pptx', '.psd', '.pyc', '.pyo', '.rar', '.so', '.sqlite', '.sqlite3', '.tar', '.tgz',
  '.tif', '.tiff', '.ttf', '.wasm', '.wav', '.webm', '.woff', '.woff2', '.xls', '.xlsx', '.xz', '.zip', '.zst',
]);

/** Lower-cased extension with its dot (`.ts`), or ''. */
export function extensionOf(path: string): string {
  return extname(path).toLowerCase();
}

/** True when `buf` (the start of a file) holds a NUL byte within BINARY_SNIFF_BYTES. */
export function looksBinary(buf: Uint8Array): boolean {
  const n = Math.min(buf.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

/**
 * One numbered line as Read prints it: the 1-based line number, a tab, then the line exactly as in
 * the file. Edit's description tells the model that everything up to the tab is not file content.
 */
export function numberedLine(lineNumber: number, text: string): string {
  return `${lineNumber}\t${text}`;
}

/** Splits file text into lines: `\n` separated, a `\r` before it dropped, no empty last line for a final newline. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.endsWith('\r')) lines[i] = l.slice(0, -1);
  }
  return lines;
}

/** Longest line Read shows, characters (UTF-16 code units); longer ones are cut (Claude Code's Read limit). */
export const MAX_LINE_CHARS = 2_000;

/** `line` cut to `max` characters with a note saying how long it was. */
export function cutLine(line: string, max = MAX_LINE_CHARS): string {
  return line.length > max ? `${line.slice(0, max)}… [line cut: ${line.length} characters]` : line;
}

/**
 * `n` with a comma between each group of three digits (100000 → "100,000"), for tool descriptions.
 * Not `toLocaleString`: the first Intl call loads ICU data, ~12 ms of every cold start.
 */
export function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
