/**
 * Turns a tool's output into the tool_result block the model sees: an empty result becomes a short
 * placeholder (book ch4 §4.13), and a result over the tool's cap is saved to the session directory
 * and replaced by a preview (book ch4 §4.11). `applyResultBudget` keeps all results of one message
 * within a shared budget (book ch4 §4.12); the `tool-result-budget` plugin runs it before each request.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunContext } from '../hook-payloads.js';
import type { Kernel } from '../kernel.js';
import { DEFAULT_MAX_RESULT_SIZE_CHARS, type Tool, type ToolOutput } from '../tool.js';
import type { ContentBlock, Message, ToolResultBlock } from '../types.js';

/** Global ceiling on one result, characters (book ch2 §2.5: 50,000). */
export const MAX_RESULT_CHARS = DEFAULT_MAX_RESULT_SIZE_CHARS;
/** Size of the preview kept in place of a saved result, bytes (book ch4 §4.11: 2,000). */
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
  // `Infinity` opts out (Read bounds its own output; book ch2 §2.5); any other cap is clamped to 50,000.
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
  return `<persisted-output>\nOutput too large (${full.length} characters). Full output saved to: ${file}\n\nPreview (first ${Buffer.byteLength(preview)} bytes):\n${preview}\n...\n</persisted-output>`;
}

/**
 * Budget for the tool results of one user message together, characters (book ch2 §2.5 and ch4 §4.12:
 * MAX_TOOL_RESULTS_PER_MESSAGE_CHARS = 200,000). Ten parallel calls each just under their own cap
 * would otherwise put 500,000 characters into one message.
 */
export const MAX_RESULTS_PER_MESSAGE_CHARS = 200_000;

/** Replacements already made, tool_use_id → the exact text that replaced the result. */
export type ReplacementMap = Map<string, string>;

export interface ResultBudgetOptions {
  /** Most characters of tool_result text one message may carry. */
  maxChars: number;
  /** Where replaced results are saved (`<sessionDir>/tool-results/<id>.txt`). */
  sessionDir: string;
  /** Replacements made earlier; reused byte for byte and extended with new ones. */
  replaced: ReplacementMap;
  /** Results that must never be replaced (tools that bound their own output: Read). */
  exempt?(toolUseId: string): boolean;
  /** Called once for each new replacement, so the caller can record it. */
  onReplace?(toolUseId: string, text: string): void;
}

export interface ResultBudgetOutcome {
  /** The same array when nothing changed, else a new one (changed messages copied, others shared). */
  messages: Message[];
  /** Characters taken out of the history by this pass. */
  charsFreed: number;
}

/** Characters of text in one tool_result block (images and documents count as 0). */
export function toolResultChars(block: ToolResultBlock): number {
  const c = block.content;
  if (c === undefined) return 0;
  if (typeof c === 'string') return c.length;
  return c.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0);
}

function resultText(block: ToolResultBlock): string | undefined {
  const c = block.content;
  if (c === undefined) return '';
  if (typeof c === 'string') return c;
  if (!c.every((b) => b.type === 'text')) return undefined;
  return c.map((b) => (b as { text: string }).text).join('\n');
}

function isReplacedText(block: ToolResultBlock, text: string): boolean {
  const c = block.content;
  return Array.isArray(c) && c.length === 1 && c[0]!.type === 'text' && c[0]!.text === text;
}

/**
 * Keeps the tool results of every user message within `maxChars` (book ch4 §4.12). Over budget, the
 * largest results (ties: the earlier one) are saved to disk and replaced by a preview until the
 * message fits. A result replaced once stays replaced with the same bytes on every later pass, even
 * when its message would now fit, so the prompt prefix never changes back and the cache holds.
 * Results already persisted (a `<persisted-output>` preview), results with images, exempt results
 * and results no larger than their replacement are never chosen.
 */
export function applyResultBudget(messages: Message[], o: ResultBudgetOptions): ResultBudgetOutcome {
  let out: Message[] | undefined;
  let charsFreed = 0;
  messages.forEach((m, mi) => {
    if (m.role !== 'user' || !m.content.some((b) => b.type === 'tool_result')) return;
    const blocks = [...m.content];
    let changed = false;
    const replace = (i: number, text: string) => {
      const b = blocks[i] as ToolResultBlock;
      charsFreed += toolResultChars(b) - text.length;
      blocks[i] = { ...b, content: [{ type: 'text', text }] };
      changed = true;
    };
    // 1. Sticky: earlier decisions are applied again, whatever the message's size is now.
    blocks.forEach((b, i) => {
      if (b.type !== 'tool_result') return;
      const text = o.replaced.get(b.tool_use_id);
      if (text !== undefined && !isReplacedText(b, text)) replace(i, text);
    });
    // 2. New decisions, largest first, until the message fits.
    let total = blocks.reduce((n, b) => n + (b.type === 'tool_result' ? toolResultChars(b) : 0), 0);
    if (total > o.maxChars) {
      const candidates = blocks
        .map((b, i) => ({ b, i }))
        .filter((x): x is { b: ToolResultBlock; i: number } => x.b.type === 'tool_result')
        .filter(({ b }) => !o.replaced.has(b.tool_use_id) && !(o.exempt?.(b.tool_use_id) ?? false))
        .map(({ b, i }) => ({ i, id: b.tool_use_id, size: toolResultChars(b), text: resultText(b) }))
        .filter((x) => x.text !== undefined && !x.text.startsWith('<persisted-output>'))
        .sort((a, b) => b.size - a.size || a.i - b.i);
      for (const c of candidates) {
        if (total <= o.maxChars) break;
        const text = persistLargeResult(o.sessionDir, c.id, c.text!);
        if (text.length >= c.size) continue;
        o.replaced.set(c.id, text);
        o.onReplace?.(c.id, text);
        total -= c.size - text.length;
        replace(c.i, text);
      }
    }
    if (changed) {
      out ??= [...messages];
      out[mi] = { ...m, content: blocks };
    }
  });
  return { messages: out ?? messages, charsFreed };
}
