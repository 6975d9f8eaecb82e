/**
 * Random conversation histories for property tests of running state (kernel/incremental.ts): a
 * history changed the ways the kernel changes it, so a test can check after every change that what
 * a plugin keeps up to date gives the same result as computing it over the whole history.
 *
 * - `append`: turns pushed onto the same array, as the loop grows `kernel.messages`;
 * - `compact`: a new array, a summary message and the last `keep` messages (compaction);
 * - `edit`: a new array in which one message is a new object with other content (a context
 *   strategy's rewrite: a cleared or budgeted tool result, a changed prompt);
 * - `clear`: an empty array (`/clear`);
 * - `resume`: a new array of copies of every message (a transcript read back: equal content,
 *   other objects).
 *
 * The operations come as plain data; `historyOps(fc)` builds their fast-check arbitrary from the
 * fast-check module the test passes in, so this file does not load fast-check itself.
 */
import type fcModule from 'fast-check';
import type { Arbitrary } from 'fast-check';
import type { ContentBlock, Message } from '../kernel/index.js';

export type HistoryOp =
  | { kind: 'append'; turns: number; size: number; tool: number; marked: boolean }
  | { kind: 'compact'; keep: number }
  | { kind: 'edit'; at: number; size: number }
  | { kind: 'clear' }
  | { kind: 'resume' };

/** Tool names the turns call, in the order `tool` indexes them. */
export const HISTORY_TOOLS = ['Read', 'Bash', 'Grep', 'Write'] as const;

/** A fast-check arbitrary of operation lists (appends weighted so histories grow). */
export function historyOps(fc: typeof fcModule, maxOps = 30): Arbitrary<HistoryOp[]> {
  const op: Arbitrary<HistoryOp> = fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('append' as const), turns: fc.integer({ min: 1, max: 4 }), size: fc.integer({ min: 1, max: 3_000 }), tool: fc.nat({ max: HISTORY_TOOLS.length - 1 }), marked: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('compact' as const), keep: fc.nat({ max: 6 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('edit' as const), at: fc.nat(), size: fc.integer({ min: 1, max: 3_000 }) }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'resume' as const }) },
  );
  return fc.array(op, { minLength: 1, maxLength: maxOps });
}

/** A history the operations change, as the kernel changes `kernel.messages`. */
export class HistoryDriver {
  messages: Message[] = [];
  private ids = 0;

  /** Applies one operation; returns the (possibly new) history. */
  apply(op: HistoryOp): Message[] {
    switch (op.kind) {
      case 'append':
        for (let t = 0; t < op.turns; t++) this.turn(op.size + t, HISTORY_TOOLS[op.tool]!, op.marked && t === op.turns - 1);
        break;
      case 'compact':
        this.messages = [
          { role: 'user', content: [{ type: 'text', text: `Summary of ${this.messages.length} messages.` }], meta: { at: 0 } },
          ...this.messages.slice(Math.max(0, this.messages.length - op.keep)),
        ];
        // A kept tail must not start with results whose tool_use was summarised away.
        while (this.messages.length > 1 && this.messages[1]!.content.some((b) => b.type === 'tool_result')) this.messages.splice(1, 1);
        break;
      case 'edit': {
        if (!this.messages.length) break;
        const at = op.at % this.messages.length;
        const m = this.messages[at]!;
        const content: ContentBlock[] = m.content.map((b) => {
          if (b.type === 'tool_result') return { ...b, content: [{ type: 'text', text: 'e'.repeat(op.size) }] } as ContentBlock;
          if (b.type === 'text') return { type: 'text', text: `${b.text} (edited ${op.size})` };
          return b;
        });
        const next = this.messages.slice();
        next[at] = { ...m, content };
        this.messages = next;
        break;
      }
      case 'clear':
        this.messages = [];
        break;
      case 'resume':
        this.messages = JSON.parse(JSON.stringify(this.messages)) as Message[];
        break;
    }
    return this.messages;
  }

  /** A turn pushed onto the same array: a prompt first when the history is empty, then an assistant tool call and its result. */
  private turn(size: number, tool: string, marked: boolean): void {
    const at = ++this.ids;
    const id = `toolu_${at}`;
    if (!this.messages.length) this.messages.push({ role: 'user', content: [{ type: 'text', text: `prompt ${at}` }], meta: { at } });
    const text = (marked ? { type: 'text', text: `step ${at}`, cache_control: { type: 'ephemeral' } } : { type: 'text', text: `step ${at}` }) as ContentBlock;
    this.messages.push({ role: 'assistant', content: [text, { type: 'tool_use', id, name: tool, input: { file_path: `f${size}.txt`, command: 'ls' } }], meta: { at } });
    this.messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: [{ type: 'text', text: 'x'.repeat(size) }] }], meta: { at } });
  }
}
