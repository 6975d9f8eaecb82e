/**
 * `rein hooks`: the text output ends with the guard shell hooks and how each one fails (open or
 * closed), so a user can see which guards let a call run when their own check breaks.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestEnv } from '../../testing/env.js';
import { writeFiles } from '../../testing/support.js';
import { hooksCommand } from './hooks.js';

const env = useTestEnv({ prefix: 'rein-hooks-cli-' });

describe('rein hooks', () => {
  it('names each guard hook and whether it fails open', async () => {
    writeFiles(env.dir, {
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
    expect(await hooksCommand({ preset: join(env.dir, 'guards.yaml'), cwd: env.dir, layers: false }, (t) => { out += t; })).toBe(0);
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
