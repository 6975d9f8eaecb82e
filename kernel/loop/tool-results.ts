/**
 * Turns a tool's output into the tool_result block the model sees: an empty result becomes a short
 * placeholder, and a result over the tool's cap is saved to the session directory
 * and replaced by a preview. Keeping all results of one message within a shared
 * budget is the `tool-result-budget` plugin's job.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunContext } from '../hook-payloads.js';
import type { Kernel } from '../kernel.js';
import { DEFAULT_MAX_RESULT_SIZE_CHARS, type Tool, type ToolOutput } from '../tool.js';
import type { ContentBlock, ToolResultBlock } from '../types.js';

/** Global ceiling on one result, characters (Claude Code: 50,000). */
export const MAX_RESULT_CHARS = DEFAULT_MAX_RESULT_SIZE_CHARS;
/** Size of the preview kept in place of a saved result, bytes (Claude Code: 2,000). */
export const PREVIEW_BYTES = 2_000;

type ResultContent = Extract<ToolResultBlock['content'], unknown[]>;

/** The tool_result block for `output`. */
export async function finalizeResult(
  kernel: Kernel, tool: Tool, toolUseId: string, output: ToolOutput, isError: boolean, _ctx: RunContext,
): Promise<ToolResultBlock> {
  const raw = typeof output === 'object' && !Array.isArray(output) ? output.content : output;
  let content: ResultContent = typeof raw === 'string' ? [{ type: 'text', text: raw }] : (raw as ResultContent);
  if (content.length === 0 || content.every((b) => b.type === 'text' && b.text.trim() === '')) {
    content = [{ type: 'text', text: `(${tool.name} completed with no output)` }];
  }
  // `Infinity` opts out (Read bounds its own output); any other cap is clamped to 50,000.
  const cap = Number.isFinite(tool.maxResultSizeChars) ? Math.min(tool.maxResultSizeChars, MAX_RESULT_CHARS) : Infinity;
  const textLen = content.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0);
  if (Number.isFinite(cap) && textLen > cap && content.every((b) => b.type === 'text')) {
    const full = content.map((b) => (b as { text: string }).text).join('\n');
    content = [{ type: 'text', text: persistLargeResult(kernel.sessionDir(), toolUseId, full) }];
  }
  const block: ToolResultBlock = { type: 'tool_result', tool_use_id: toolUseId, content: content as ContentBlock[] as ResultContent };
  if (isError) block.is_error = true;
  return block;
}

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
