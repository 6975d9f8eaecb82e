/**
 * The prefix-rule corpus: commands a rule like `Bash(git status:*)` must not allow (chaining,
 * substitution, redirection to files, newline and quoting tricks, wrappers, aliases and functions
 * shadowing the allowed command), and commands a set of allow rules must allow.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Kernel } from '../../../../kernel/index.js';
import permissions from '../../index.js';
import defaultMode from '../../default/index.js';
import { decide, testKernel } from '../../../../testing/permissions.js';
import { BENIGN, BENIGN_RULES, MUST_NOT_ALLOW } from './corpus.js';

describe('Bash prefix rules: commands that must not be allowed', () => {
  let kernel: Kernel;
  beforeAll(async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'rein-corpus-'));
    kernel = await testKernel({ cwd, preset: { permissions: { allow: ['Bash(git status:*)'] } }, plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
  });

  it('has at least 100 commands', () => {
    expect(MUST_NOT_ALLOW.length).toBeGreaterThanOrEqual(100);
  });

  it.each(MUST_NOT_ALLOW.map((c) => [c]))('%j is asked or denied', async (command) => {
    const d = await decide(kernel, 'Bash', { command });
    expect(d?.behavior).toMatch(/^(ask|deny)$/);
  });

  it('still allows the plain command the rule names', async () => {
    expect((await decide(kernel, 'Bash', { command: 'git status' }))?.behavior).toBe('allow');
    expect((await decide(kernel, 'Bash', { command: 'git status --porcelain' }))?.behavior).toBe('allow');
  });
});

describe('Bash rules: benign commands are allowed', () => {
  let kernel: Kernel;
  beforeAll(async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'rein-corpus-'));
    kernel = await testKernel({ cwd, preset: { permissions: { allow: BENIGN_RULES } }, plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
  });

  it('has a benign corpus', () => {
    expect(BENIGN.length).toBeGreaterThanOrEqual(25);
  });

  it.each(BENIGN.map((c) => [c]))('%j is allowed', async (command) => {
    const d = await decide(kernel, 'Bash', { command });
    expect(d, JSON.stringify(d)).toMatchObject({ behavior: 'allow', source: 'permissions' });
  });
});
