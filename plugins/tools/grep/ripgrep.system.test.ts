/**
 * The ripgrep backend (needs `rg`) obeys Read deny rules file by file: ripgrep reads the files, but
 * nothing of a denied file reaches the model (its lines, its name, its count), and the result says
 * how many files were left out. Paths under a symlinked search root are shown as the model wrote them.
 */
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kernel } from '../../../kernel/index.js';
import permissions from '../../permissions/index.js';
import bypass from '../../permissions/bypassPermissions/index.js';
import grepPlugin from './index.js';
import { findRipgrep } from './ripgrep.js';
import { callTool, cleanupTempDirs, tempDir, textOf, toolKernel, useTempReinHome } from '../../../testing/tools.js';

let dir: string;
let kernel: Kernel;
beforeAll(async () => {
  if (!findRipgrep()) throw new Error('ripgrep (rg) is needed for this suite (.ci/run installs it)');
  useTempReinHome();
  dir = realpathSync(tempDir('rein-rg-'));
  writeFileSync(join(dir, '.env'), 'TOKEN=s3cr3t\n');
  writeFileSync(join(dir, '.env.local'), 'TOKEN=s3cr3t-local\n');
  writeFileSync(join(dir, 'app.ts'), 'before\nconst t = process.env.TOKEN;\nafter\n');
  mkdirSync(join(dir, 'real'));
  writeFileSync(join(dir, 'real/x.ts'), 'TOKEN here\n');
  symlinkSync('real', join(dir, 'alias'));
  kernel = await toolKernel({
    cwd: dir, allowAll: false,
    preset: { permissions: { mode: 'bypassPermissions', allowBypassPermissions: true, deny: ['Read(./.env)', 'Read(./.env.*)'] } },
    plugins: [{ plugin: grepPlugin, options: { backend: 'ripgrep' } }, { plugin: permissions }, { plugin: bypass }],
  });
});
afterAll(cleanupTempDirs);

describe('Grep with ripgrep and Read deny rules', () => {
  it.each<[Record<string, unknown>, string]>([
    [{ pattern: 'TOKEN' }, 'files'],
    [{ pattern: 'TOKEN', output_mode: 'content', '-C': 1 }, 'content'],
    [{ pattern: 'TOKEN', output_mode: 'count' }, 'count'],
    [{ pattern: 's3cr3t', output_mode: 'content', '-n': false }, 'content without line numbers'],
  ])('%j (%s) returns nothing of the denied files', async (input, _mode) => {
    const t = textOf(await callTool(kernel, 'Grep', input));
    expect(t).not.toContain('s3cr3t');
    expect(t).not.toMatch(/(^|\n)\.env/);
    expect(t).toMatch(/2 files were not searched: the permission rules deny reading them/);
  });
  it('keeps the format: context lines, separators, line numbers', async () => {
    const t = textOf(await callTool(kernel, 'Grep', { pattern: 'const t', output_mode: 'content', '-C': 1 }));
    expect(t.split('\n').slice(0, 3)).toEqual(['app.ts-1-before', 'app.ts:2:const t = process.env.TOKEN;', 'app.ts-3-after']);
  });
  it('shows paths under a symlinked root as written', async () => {
    const t = textOf(await callTool(kernel, 'Grep', { pattern: 'TOKEN', path: 'alias', output_mode: 'content' }));
    expect(t).toBe('alias/x.ts:1:TOKEN here');
  });
});
