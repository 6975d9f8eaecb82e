/**
 * A PreToolUse guard that exits 1 lets the call run (Claude Code's protocol: only exit 2 blocks);
 * with `onFailure: block` on the hook it blocks instead. `rein hooks` says which guards fail open.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hooksCommand } from '../../../cli/commands/hooks.js';
import { tempDir } from '../../../kernel/test/support.js';
import { startAgent, writeTree } from '../../../test/support/agent.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => { tmp = tempDir('rein-onfail-'); process.env.REIN_HOME = join(tmp.dir, 'home'); });
afterEach(() => tmp.cleanup());

/** A guard whose own check is broken: it exits 1 (a missing tool, a typo in the script, …). */
const BROKEN = 'echo "check-policy: command not found in PATH" >&2; exit 1';
const SCENARIO = 'turns:\n  - reply: [{ tool_use: { name: Bash, input: { command: "touch made.txt" } } }]\n  - reply: [{ text: "done" }]\n';

function preset(onFailure?: 'block' | 'continue') {
  return {
    name: 'guarded', model: { name: 'claude-sonnet-4-6' }, tools: ['Bash'], permissions: { allow: ['Bash(touch:*)'] },
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command' as const, command: BROKEN, ...(onFailure ? { onFailure } : {}) }] }] },
  };
}

describe('a PreToolUse guard that exits 1', () => {
  it('lets the call run by default, as in Claude Code', async () => {
    const rig = await startAgent({ cwd: tmp.dir, preset: preset(), scenario: SCENARIO });
    try {
      await rig.run('Make the file.');
      expect(existsSync(join(tmp.dir, 'made.txt'))).toBe(true);
    } finally {
      await rig.close();
    }
  });

  it('with onFailure: block, blocks the call and tells the model why', async () => {
    const rig = await startAgent({ cwd: tmp.dir, preset: preset('block'), scenario: SCENARIO });
    try {
      const { result } = await rig.run('Make the file.');
      expect(existsSync(join(tmp.dir, 'made.txt'))).toBe(false);
      expect(result.permissionDenials).toEqual([expect.objectContaining({ tool_name: 'Bash', reason: expect.stringMatching(/exited with 1: check-policy: command not found in PATH \(onFailure: block\)/) })]);
    } finally {
      await rig.close();
    }
  });

  it('rein hooks names each guard and whether it fails open', async () => {
    writeTree(tmp.dir, {
      'guards.yaml': [
        'name: guards',
        'tools: [Bash]',
        'hooks:',
        '  PreToolUse:',
        `    - { matcher: Bash, hooks: [{ type: command, command: "./check.sh" }, { type: command, command: "./strict.sh", onFailure: block }] }`,
        '  UserPromptSubmit:',
        '    - { hooks: [{ type: command, command: "./lint-prompt.sh", onFailure: continue }] }',
        '',
      ].join('\n'),
    });
    let out = '';
    expect(await hooksCommand({ preset: join(tmp.dir, 'guards.yaml'), cwd: tmp.dir, layers: false }, (t) => { out += t; })).toBe(0);
    expect(out.slice(out.indexOf('guard shell hooks'))).toBe([
      'guard shell hooks (hooks/shell):',
      '    PreToolUse [Bash]  ./check.sh',
      '        fails open on exit codes: a crash or timeout blocks, but exit 1 (any code but 0 and 2) lets the call run; set onFailure: block to block it',
      '    PreToolUse [Bash]  ./strict.sh',
      '        fails closed: a crash, a timeout or any exit code but 0 and 2 blocks',
      '    UserPromptSubmit  ./lint-prompt.sh',
      '        fails open (onFailure: continue): only exit 2 blocks',
      '',
    ].join('\n'));
  });
});
