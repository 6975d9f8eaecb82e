import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentBlock, Message } from '../../kernel/index.js';
import { HistoryDriver, historyOps } from '../../testing/histories.js';
import { cleanupTempDirs, tempDir, toolKernel, useTempReinHome } from '../../testing/tools.js';
import readPlugin from '../tools/read/index.js';
import { applyResultBudget } from './budget.js';
import budgetPlugin, { replacements } from './index.js';

const MAX = 2_000;

let dir: string;
beforeAll(() => {
  useTempReinHome();
  dir = tempDir();
});
afterAll(() => cleanupTempDirs());

describe('tool-result-budget passes that check only what was added', () => {
  it('give the same history as a pass over every message, on random histories with compactions and edits', async () => {
    await fc.assert(fc.asyncProperty(historyOps(fc, 20), async (ops) => {
      const k = await toolKernel({ cwd: dir, plugins: [{ plugin: readPlugin }, { plugin: budgetPlugin, options: { maxCharsPerMessage: MAX } }] });
      try {
        const h = new HistoryDriver();
        for (const op of ops) {
          const input = h.apply(op);
          const shaped = await k.hooks.context.promise({ messages: input, tokensFreed: 0 }, k.runContext());
          const decided = new Map(replacements(k));
          const full = applyResultBudget(input, {
            maxChars: MAX, sessionDir: k.sessionDir(), replaced: decided,
            exempt: (id) => input.some((m) => m.content.some((b: ContentBlock) => b.type === 'tool_use' && b.id === id && b.name === 'Read')),
          });
          // Nothing the full pass would replace was missed, and the bytes are the same.
          expect(decided.size).toBe(replacements(k).size);
          expect(JSON.stringify(shaped.messages)).toBe(JSON.stringify(full.messages));
          // The kernel keeps the shaped history, and the next turns grow it.
          h.messages = shaped.messages as Message[];
        }
      } finally {
        await k.close();
      }
    }), { numRuns: 25 });
  });
});
