/**
 * A Stop hook that always blocks must not keep the model answering forever: after
 * `limits.maxStopHookBlocks` blocks in a row (default 8) the run ends with the terminal reason
 * `stop_hook_limit`, which says why.
 */
import { describe, expect, it } from 'vitest';
import { MAX_STOP_HOOK_BLOCKS } from '../loop/run.js';
import { startAgent } from '../../testing/agent.js';
import { useTestEnv } from '../../testing/env.js';

const env = useTestEnv({ prefix: 'rein-stoploop-' });

const ALWAYS_BLOCK = { Stop: [{ hooks: [{ type: 'command' as const, command: 'echo "the tests are not run yet" >&2; exit 2' }] }] };
const answers = (n: number) => `turns:\n${Array.from({ length: n }, (_, i) => `  - reply: [{ text: "Answer ${i + 1}." }]`).join('\n')}\n`;

describe('a Stop hook that always blocks', () => {
  it(`ends the run with stop_hook_limit after ${MAX_STOP_HOOK_BLOCKS} blocks in a row`, async () => {
    const rig = await startAgent({
      cwd: env.dir, preset: { name: 'loop', model: { name: 'claude-sonnet-4-6' }, hooks: ALWAYS_BLOCK, limits: { maxTurns: 30 } }, scenario: answers(30),
    });
    try {
      const { result } = await rig.run('Finish the task.');
      expect(result.terminalReason).toBe('stop_hook_limit');
      expect(result.numTurns).toBe(MAX_STOP_HOOK_BLOCKS + 1);
      expect(result.terminalDetail).toBe(`stop hooks blocked the end of the turn ${MAX_STOP_HOOK_BLOCKS} times in a row (limits.maxStopHookBlocks: ${MAX_STOP_HOOK_BLOCKS}); last reason: the tests are not run yet`);
    } finally {
      await rig.close();
    }
  });

  it('limits.maxStopHookBlocks sets the cap', async () => {
    const rig = await startAgent({
      cwd: env.dir, preset: { name: 'loop', model: { name: 'claude-sonnet-4-6' }, hooks: ALWAYS_BLOCK, limits: { maxTurns: 30, maxStopHookBlocks: 2 } }, scenario: answers(30),
    });
    try {
      const { result } = await rig.run('Finish the task.');
      expect(result.terminalReason).toBe('stop_hook_limit');
      expect(result.numTurns).toBe(3);
    } finally {
      await rig.close();
    }
  });

  it('a block on the last turn the turn limit allows ends the run max_turns, saying why', async () => {
    const rig = await startAgent({
      cwd: env.dir, preset: { name: 'loop', model: { name: 'claude-sonnet-4-6' }, hooks: ALWAYS_BLOCK, limits: { maxTurns: 2 } }, scenario: answers(5),
    });
    try {
      const { result } = await rig.run('Finish the task.');
      expect(result.terminalReason).toBe('max_turns');
      expect(result.numTurns).toBe(2);
      expect(result.terminalDetail).toBe('the turn limit (2) was reached as a stop hook asked for one more turn: the tests are not run yet');
    } finally {
      await rig.close();
    }
  });
});
