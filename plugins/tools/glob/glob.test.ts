import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import globPlugin, { GLOB_MAX_RESULTS } from './index.js';
import { callTool, cleanupTempDirs, tempDir, textOf, toolKernel, useTempReinHome, writeAgedFile } from '../../../testing/tools.js';

let dir: string;
const file = (rel: string, content = 'x\n', ageS = 0): void => writeAgedFile(dir, rel, content, ageS);

beforeAll(() => {
  useTempReinHome();
  dir = tempDir();
  file('.gitignore', 'dist/\n*.log\n!keep.log\n');
  file('src/a.ts', 'a', 30);
  file('src/b.ts', 'b', 10);
  file('src/deep/c.ts', 'c', 20);
  file('src/deep/.gitignore', 'ignored.ts\n');
  file('src/deep/ignored.ts');
  file('dist/out.ts');
  file('debug.log');
  file('keep.log');
  file('.hidden/h.ts', 'h', 40);
  file('.git/config.ts');
  file('README.md');
});
afterAll(cleanupTempDirs);

const kernel = () => toolKernel({ plugins: [{ plugin: globPlugin }], cwd: dir });

describe('Glob', () => {
  it('matches at any depth with **, newest first, honouring .gitignore files at every level', async () => {
    const t = textOf(await callTool(await kernel(), 'Glob', { pattern: '**/*.ts' }));
    expect(t.split('\n')).toEqual(['src/b.ts', 'src/deep/c.ts', 'src/a.ts', '.hidden/h.ts']);
  });

  it('matches only the top folder without **', async () => {
    expect(textOf(await callTool(await kernel(), 'Glob', { pattern: '*.log' }))).toBe('keep.log');
    expect(textOf(await callTool(await kernel(), 'Glob', { pattern: '*.ts' }))).toBe('No files found');
  });

  it('takes a path, a pattern with a folder prefix, or an absolute pattern', async () => {
    expect(textOf(await callTool(await kernel(), 'Glob', { pattern: '*.ts', path: join(dir, 'src/deep') }))).toBe('src/deep/c.ts');
    expect(textOf(await callTool(await kernel(), 'Glob', { pattern: 'src/*.ts' })).split('\n')).toEqual(['src/b.ts', 'src/a.ts']);
    expect(textOf(await callTool(await kernel(), 'Glob', { pattern: `${dir}/src/**/*.{ts,md}` })).split('\n')).toEqual(['src/b.ts', 'src/deep/c.ts', 'src/a.ts']);
  });

  it('caps the list and says so', async () => {
    for (let i = 0; i < GLOB_MAX_RESULTS + 5; i++) file(`many/f${i}.txt`);
    const t = textOf(await callTool(await kernel(), 'Glob', { pattern: 'many/*.txt' }));
    const lines = t.split('\n');
    expect(lines).toHaveLength(GLOB_MAX_RESULTS + 1);
    expect(lines.at(-1)).toContain(`${GLOB_MAX_RESULTS + 5} files matched`);
  });

  it('reports a missing search folder as an is_error result', async () => {
    const r = await callTool(await kernel(), 'Glob', { pattern: '*', path: join(dir, 'nope') });
    expect(r.is_error).toBe(true);
    expect(textOf(r)).toContain('Directory does not exist');
  });

  it('lists no links, no .git file, nothing under an ignored folder, and applies the .gitignore above the searched folder', async () => {
    const repo = tempDir();
    writeFileSync(join(repo, '.gitignore'), 'gen/\n*.tmp\n');
    mkdirSync(join(repo, '.git'));
    mkdirSync(join(repo, 'pkg/gen/deep'), { recursive: true });
    mkdirSync(join(repo, 'pkg/sub'), { recursive: true });
    writeFileSync(join(repo, 'pkg/a.ts'), 'a');
    writeFileSync(join(repo, 'pkg/b.tmp'), 'b');
    writeFileSync(join(repo, 'pkg/gen/deep/g.ts'), 'g');
    writeFileSync(join(repo, 'pkg/sub/.git'), 'gitdir: elsewhere\n');
    writeFileSync(join(repo, 'pkg/sub/s.ts'), 's');
    symlinkSync(join(repo, 'pkg/a.ts'), join(repo, 'pkg/link.ts'));
    symlinkSync(join(repo, 'pkg/sub'), join(repo, 'pkg/linked-dir'));
    const k = await toolKernel({ plugins: [{ plugin: globPlugin }], cwd: join(repo, 'pkg') });
    expect(textOf(await callTool(k, 'Glob', { pattern: '**/*' })).split('\n').sort()).toEqual(['a.ts', 'sub/s.ts']);
    expect(textOf(await callTool(k, 'Glob', { pattern: '*' })).split('\n')).toEqual(['a.ts']);
  });
});
