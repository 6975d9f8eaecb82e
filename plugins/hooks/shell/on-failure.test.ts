/**
 * A PreToolUse guard that exits 1 lets the call run (Claude Code's protocol: only exit 2 blocks);
 * with `onFailure: block` on the hook it blocks instead (`rein hooks`, which says which guards fail
 * open, is tested in cli/commands/hooks.test.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startAgent } from '../../../testing/agent.js';
import { useTestEnv } from '../../../testing/env.js';

const env = useTestEnv({ prefix: 'rein-onfail-' });

/** A guard whose own check is broken: it exits 1 (a missing tool, a typo in the script, …). */
const BROKEN = 'echo "check-policy: command not found in PATH" >&2; exit 1';
const SCENARIO = 'turns:\n  - reply: [{ tool_use: { name: Bash, input: { command: "touch made.txt" } } }]\n  - reply: [{ text: "done" }]\n';

function preset(onFailure?: 'block' | 'continue') {
  return {
    name: 'guarded', model: { name: 'claude-sonnet-4-6' }, tools: ['Bash'], permissions: { allow: ['Bash(touch:*)', 'Edit(./made.txt)'] },
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command' as const, command: BROKEN, ...(onFailure ? { onFailure } : {}) }] }] },
  };
}

describe('a PreToolUse guard that exits 1', () => {
  it('lets the call run by default, as in Claude Code', async () => {
    const rig = await startAgent({ cwd: env.dir, preset: preset(), scenario: SCENARIO });
    try {
      await rig.run('Make the file.');
      expect(existsSync(join(env.dir, 'made.txt'))).toBe(true);
    } finally {
      await rig.close();
    }
  });

  it('with onFailure: block, blocks the call and tells the model why', async () => {
    const rig = await startAgent({ cwd: env.dir, preset: preset('block'), scenario: SCENARIO });
    try {
      const { result } = await rig.run('Make the file.');
      expect(existsSync(join(env.dir, 'made.txt'))).toBe(false);
      expect(result.permissionDenials).toEqual([expect.objectContaining({ tool_name: 'Bash', reason: expect.stringMatching(/exited with 1: check-policy: command not found in PATH \(onFailure: block\)/) })]);
    } finally {
      await rig.close();
    }
  });
});
