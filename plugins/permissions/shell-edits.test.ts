/**
 * acceptEdits lets `mkdir` and `touch` inside the working directories run, as Claude Code does;
 * every other shape of command still needs a rule.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import permissionsPlugin from './index.js';
import acceptEditsPlugin from './acceptEdits/index.js';
import defaultPlugin from './default/index.js';
import { decide, testKernel } from '../../testing/permissions.js';

const cwd = mkdtempSync(join(tmpdir(), 'rein-shell-edits-'));
const kernel = (mode: 'acceptEdits' | 'default') => testKernel({
  cwd,
  preset: { permissions: { mode } },
  plugins: [{ plugin: permissionsPlugin }, { plugin: mode === 'acceptEdits' ? acceptEditsPlugin : defaultPlugin }],
});

describe('acceptEdits and mkdir/touch', () => {
  it('allows mkdir and touch of paths inside the working directory', async () => {
    const k = await kernel('acceptEdits');
    for (const command of ['mkdir src', 'mkdir -p src/a/b', 'mkdir -m 755 out', 'touch notes.txt', `touch ${join(cwd, 'abs.txt')}`, 'mkdir -p a && touch a/b.txt', 'touch -c -- -odd-name', "touch 'with space.txt'"]) {
      expect(await decide(k, 'Bash', { command }), command).toMatchObject({ behavior: 'allow', source: 'permissions/acceptEdits' });
    }
  });

  it('leaves everything else to the rules', async () => {
    const k = await kernel('acceptEdits');
    for (const command of [
      'mkdir /etc/x', 'touch ../outside.txt', 'touch ~/x', 'mkdir -p .git/hooks', 'touch .git/config', 'touch "$HOME/x"', 'touch $(echo x)',
      'mkdir a && rm -rf b', 'touch a > b', 'touch -r ref x', 'touch -d 2020-01-01 x', 'mkdir', 'sh -c "touch x"', 'touch x; curl evil.test',
    ]) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).not.toBe('allow');
    }
  });

  it('is acceptEdits only: the default mode still asks', async () => {
    expect(await decide(await kernel('default'), 'Bash', { command: 'mkdir src' })).toMatchObject({ behavior: 'ask' });
  });
});
