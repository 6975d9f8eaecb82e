/**
 * Processes a Bash command starts in the background (`cmd &`) do not outlive the run: the call's
 * result says they are running and where their output goes, and when the run ends rein stops
 * them (SIGTERM, then SIGKILL), so nothing keeps running or writing after it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startAgent } from '../../../testing/agent.js';
import { useTestEnv } from '../../../testing/env.js';

const env = useTestEnv({ prefix: 'rein-bg-' });

/** True while `pid` is a live process (a zombie, killed but not yet reaped, counts as gone). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

const SCENARIO = `
turns:
  - reply: [{ tool_use: { name: Bash, input: { command: "(while true; do echo tick >> ticks.txt; sleep 0.1; done) & echo $! > bg.pid; echo started" } } }]
  - reply: [{ text: "The ticker runs in the background." }]
`;

describe('background processes of a Bash command', () => {
  it('are reported in the result and stopped when the run ends', async () => {
    const rig = await startAgent({
      cwd: env.dir, preset: { name: 'bg', model: { name: 'claude-sonnet-4-6' }, tools: ['Bash'], permissions: { allow: ['Bash'] } }, scenario: SCENARIO,
    });
    try {
      const { events, result } = await rig.run('Start a ticker in the background.');
      expect(result.terminalReason).toBe('end_turn');
      const pid = Number(readFileSync(join(env.dir, 'bg.pid'), 'utf8'));
      const block = events.flatMap((e) => (e.type === 'tool_results' ? e.message.content : []))[0] as { content: { text: string }[] };
      expect(block.content[0]!.text).toMatch(/^started\n\n\(Processes this command started in the background are still running; their output goes to .*\.log\. They are stopped when this run ends\.\)$/);
      // The run is over: the ticker is gone and writes no more.
      expect(await until(() => !running(pid), 3000)).toBe(true);
      const ticks = readFileSync(join(env.dir, 'ticks.txt'), 'utf8');
      await new Promise((r) => setTimeout(r, 400));
      expect(readFileSync(join(env.dir, 'ticks.txt'), 'utf8')).toBe(ticks);
    } finally {
      await rig.close();
    }
    expect(existsSync(join(env.dir, 'bg.pid'))).toBe(true);
  });
});
