/**
 * The per-message budget: keeps the tool results of one user message within a shared number of
 * characters by saving the largest to the session folder and putting a `<persisted-output>` preview
 * in their place (lib/'s `persistLargeResult`).
 */
import type { Message, ToolResultBlock } from '../../kernel/index.js';
import { isPersistedOutput, persistLargeResult } from '../../lib/index.js';

/**
 * Budget for the tool results of one user message together, characters (Claude Code's
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
  /**
   * Index of the first message to check (default 0): the messages before it already passed an
   * earlier pass of the same budget (they are that pass's output), so they are kept as they are.
   */
  from?: number;
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
 * Keeps the tool results of every user message within `maxChars`. Over budget, the
 * largest results (ties: the earlier one) are saved to disk and replaced by a preview until the
 * message fits. A result replaced once stays replaced with the same bytes on every later pass, even
 * when its message would now fit, so the prompt prefix never changes back and the cache holds.
 * Results already persisted (a `<persisted-output>` preview), results with images, exempt results
 * and results no larger than their replacement are never chosen.
 */
export function applyResultBudget(messages: Message[], o: ResultBudgetOptions): ResultBudgetOutcome {
  let out: Message[] | undefined;
  let charsFreed = 0;
  for (let mi = o.from ?? 0; mi < messages.length; mi++) {
    const m = messages[mi]!;
    if (m.role !== 'user' || !m.content.some((b) => b.type === 'tool_result')) continue;
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
        .filter((x) => x.text !== undefined && !isPersistedOutput(x.text))
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
  }
  return { messages: out ?? messages, charsFreed };
}
