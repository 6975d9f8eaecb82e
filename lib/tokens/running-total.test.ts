/** The shared token counter keeps its message total as a running total (kernel/incremental.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HistoryDriver, historyOps } from '../../testing/histories.js';
import { toolKernel, useTestEnv } from '../../testing/index.js';
import { tokenCounter } from './accounting.js';

const env = useTestEnv({ prefix: 'rein-running-total-' });

describe('tokenCounter.messagesTokens as a running total', () => {
  it('equals the sum of every message\'s estimate after any change to the history', async () => {
    const kernel = await toolKernel({ plugins: [], cwd: env.dir });
    try {
      const counter = tokenCounter(kernel);
      fc.assert(fc.property(historyOps(fc), (ops) => {
        const h = new HistoryDriver();
        for (const op of ops) {
          const ms = h.apply(op);
          expect(counter.messagesTokens(ms)).toBe(ms.reduce((n, m) => n + counter.messageTokens(m), 0));
        }
      }), { numRuns: 100 });
    } finally {
      await kernel.close();
    }
  });
});
