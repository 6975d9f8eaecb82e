/**
 * Tool output too large for the context: saved to a file in the session directory, and a
 * `<persisted-output>` block with a preview put in its place. The kernel saves a result over its
 * tool's cap through this (the `persistResult` service, `libServices`); the result budget and Bash
 * write the same block.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Size of the preview kept in place of a saved result, bytes (Claude Code: 2,000). */
export const PREVIEW_BYTES = 2_000;

/**
 * Saves `full` to `<sessionDir>/tool-results/<toolUseId>.txt` and returns the text that replaces it:
 * where it was saved, its size, and a preview of at most PREVIEW_BYTES cut at a newline.
 */
export function persistLargeResult(sessionDir: string, toolUseId: string, full: string): string {
  const dir = join(sessionDir, 'tool-results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${toolUseId.replace(/[^A-Za-z0-9_-]/g, '_')}.txt`);
  writeFileSync(file, full);
  let preview = Buffer.from(full).subarray(0, PREVIEW_BYTES).toString('utf8');
  const nl = preview.lastIndexOf('\n');
  if (nl > PREVIEW_BYTES / 2) preview = preview.slice(0, nl);
  preview = preview.replace(/\uFFFD$/, '');
  return formatPersistedOutput({ size: `${full.length} characters`, file, preview: { label: `Preview (first ${Buffer.byteLength(preview)} bytes)`, text: preview } });
}

/** What a `<persisted-output>` block says: how large the output was, where it is, and what of it is shown. */
export interface PersistedOutput {
  /** The whole output's size with its unit (`"61234 characters"`, `"2097152 bytes"`). */
  size: string;
  /** Absolute path of the file that holds the whole output. */
  file: string;
  /** The part shown first (`Preview (first 2000 bytes)`, `First lines`). */
  preview: { label: string; text: string };
  /** A part shown after an ellipsis (`Last lines`), when the end matters too. */
  tail?: { label: string; text: string };
}

/**
 * The text that stands in for an output too large to keep in the context: a `<persisted-output>`
 * block, the wording Claude Code uses, so models trained on it know to read the saved file.
 * Every tool result saved to disk (the kernel's per-result cap, the result budget, Bash) is written
 * by this function, so they read the same and `isPersistedOutput` recognises them all.
 */
export function formatPersistedOutput(o: PersistedOutput): string {
  const tail = o.tail ? `\n${o.tail.label}:\n${o.tail.text}\n` : '';
  return `${PERSISTED_OUTPUT_OPEN}\nOutput too large (${o.size}). Full output saved to: ${o.file}\n\n${o.preview.label}:\n${o.preview.text}\n...\n${tail}</persisted-output>`;
}

const PERSISTED_OUTPUT_OPEN = '<persisted-output>';

/** True when `text` is a `<persisted-output>` stand-in (it is never saved or shortened again). */
export function isPersistedOutput(text: string): boolean {
  return text.startsWith(PERSISTED_OUTPUT_OPEN);
}
