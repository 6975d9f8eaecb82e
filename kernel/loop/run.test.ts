import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HistoryDriver, historyOps } from '../../testing/histories.js';
import type { Message, ToolUseBlock } from '../types.js';
import { reusedToolUseIds } from './run.js';

/** The same question answered by a pass over the whole history. */
function fullReused(history: readonly Message[], uses: readonly ToolUseBlock[]): string | undefined {
  const ids = new Set(uses.map((u) => u.id));
  for (const m of history) {
    if (m.role !== 'assistant') continue;
    for (const b of m.content) if (b.type === 'tool_use' && ids.has(b.id)) return b.id;
  }
  return undefined;
}

const use = (id: string): ToolUseBlock => ({ type: 'tool_use', id, name: 'Bash', input: {} });

const idsOf = (history: readonly Message[]) =>
  history.flatMap((m) => (m.role === 'assistant' ? m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : []));

describe('reusedToolUseIds', () => {
  it('agrees with a pass over the whole history on random histories with appends, compactions, edits, clears and resumes', () => {
    fc.assert(fc.property(historyOps(fc), fc.nat(), (ops, pick) => {
      const h = new HistoryDriver();
      const lookup = reusedToolUseIds();
      for (const op of ops) {
        const history = h.apply(op);
        const ids = idsOf(history);
        // The newest id, one picked at random, the first id ever made (gone after a compaction) and a new one.
        const candidates = [ids[ids.length - 1], ids.length ? ids[pick % ids.length] : undefined, 'toolu_1', 'toolu_new'];
        const uses = candidates.filter((id): id is string => id !== undefined).map(use);
        expect(lookup(history, uses)).toBe(fullReused(history, uses));
        expect(lookup(history, [use('toolu_new')])).toBeUndefined();
      }
    }), { numRuns: 80 });
  });

  it('names the id that comes first in the history when several are reused', () => {
    const lookup = reusedToolUseIds();
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [use('a')] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'ok' }] },
      { role: 'assistant', content: [use('b')] },
    ];
    expect(lookup(history, [use('b'), use('a')])).toBe('a');
    history.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: 'ok' }] }, { role: 'assistant', content: [use('c')] });
    expect(lookup(history, [use('c')])).toBe('c');
    // A compacted history no longer has the ids it summarised away.
    expect(lookup([{ role: 'user', content: [{ type: 'text', text: 'summary' }] }], [use('a')])).toBeUndefined();
  });
});
