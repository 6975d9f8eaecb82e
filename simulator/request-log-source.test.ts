/**
 * The simulator's request log names who sent each request (`source`), rejected ones included: a
 * 400 to a compaction or classifier request is that source's failure, not the main loop's.
 */
import { describe, expect, it } from 'vitest';
import { definePlugin } from '../kernel/index.js';
import { startAgent } from '../testing/agent.js';
import { useTestEnv } from '../testing/env.js';

const env = useTestEnv({ prefix: 'rein-simlog-' });

/** A plugin that sends one malformed side request of each source after the first response. */
const badSideRequests = definePlugin({
  name: 'bad-side-requests',
  apply(kernel) {
    let sent = false;
    kernel.hooks.response.tapPromise('bad-side-requests', async (_info, ctx) => {
      if (sent) return;
      sent = true;
      for (const source of ['compact', 'classifier', 'title'] as const) {
        await kernel.sideRequest({ messages: [], max_tokens: 100 }, source, ctx).catch(() => undefined);
      }
    });
  },
});

describe('the simulator request log', () => {
  it('labels a rejected request with the source that sent it, not main_loop', async () => {
    const rig = await startAgent({
      cwd: env.dir,
      preset: { name: 'log', model: { name: 'claude-sonnet-4-6' }, plugins: { retry: false } },
      scenario: 'turns:\n  - reply: [{ text: "done" }]\n',
      plugins: [{ plugin: badSideRequests }],
    });
    try {
      const { result } = await rig.run('hi');
      expect(result.terminalReason).toBe('end_turn');
      const logged = rig.requests().map((r) => `${r.source} ${r.status}`);
      expect(logged).toEqual(['main_loop 200', 'compact 400', 'classifier 400', 'title 400']);
    } finally {
      await rig.close();
    }
  });
});
