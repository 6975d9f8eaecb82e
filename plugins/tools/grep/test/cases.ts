/**
 * The Grep tests both backends must pass, on one fixture tree: ../grep.test.ts runs them on the JS
 * search (`npm test`, no ripgrep needed), ../grep.system.test.ts on ripgrep, with the parity check.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import grepPlugin, { DEFAULT_HEAD_LIMIT } from '../index.js';
import { callTool, cleanupTempDirs, tempDir, textOf, toolKernel, useTempReinHome, writeAgedFile } from '../../../../testing/tools.js';

export type Backend = 'js' | 'ripgrep';

/** Builds the fixture tree before the file's tests and removes it after; returns its directory. */
export function useGrepFixture(): () => string {
  let dir = '';
  const file = (rel: string, content: string | Buffer, ageS = 0) => writeAgedFile(dir, rel, content, ageS);
  beforeAll(() => {
    useTempReinHome();
    dir = tempDir();
    file('.gitignore', 'build/\n');
    file('src/app.ts', 'import x from "y";\nfunction main() {\n  return TODO_fix;\n}\n// todo: later\n', 10);
    file('src/util.py', 'def helper():\n    pass  # TODO tidy\n', 20);
    file('src/a-b/z.ts', 'const TODO_z = 1;\n', 30);
    file('src/a/b.ts', 'const TODO_b = 2;\n', 40);
    file('vendor/lib.js', 'TODO vendor\n', 50);
    file('build/out.js', 'TODO built\n', 5);
    file('.git/HEAD', 'TODO in git\n');
    file('bin.dat', Buffer.concat([Buffer.from('TODO '), Buffer.from([0, 1, 2])]));
    file('multi.txt', 'struct Foo {\n  a: int,\n  field: str,\n}\nother\n', 60);
    file('many.txt', Array.from({ length: 300 }, (_, i) => `hit ${i}`).join('\n') + '\n', 70);
  });
  afterAll(cleanupTempDirs);
  return () => dir;
}

/** A kernel with the Grep plugin forced to one backend, working in `dir`. */
export const grepKernel = (dir: string, backend: Backend) => toolKernel({ plugins: [{ plugin: grepPlugin, options: { backend } }], cwd: dir });

/** The cases both backends must answer identically. */
export const PARITY_CASES: [string, Record<string, unknown>][] = [
  ['files, default mode', { pattern: 'TODO' }],
  ['content with line numbers', { pattern: 'TODO', output_mode: 'content' }],
  ['content without line numbers, case-insensitive', { pattern: 'todo', output_mode: 'content', '-n': false, '-i': true }],
  ['context lines', { pattern: 'TODO_fix', output_mode: 'content', '-C': 1 }],
  ['after/before context across files', { pattern: 'TODO_[zb]', output_mode: 'content', '-B': 1, '-A': 1 }],
  ['count', { pattern: 'TODO', output_mode: 'count' }],
  ['glob filter', { pattern: 'TODO', glob: '*.ts', output_mode: 'content' }],
  ['negated glob excludes a folder', { pattern: 'TODO', glob: '!vendor' }],
  ['type filter', { pattern: 'TODO', type: 'py', output_mode: 'content' }],
  ['path to a folder', { pattern: 'TODO', path: 'src/a', output_mode: 'content' }],
  ['path to one file', { pattern: 'main', path: join('src', 'app.ts'), output_mode: 'content' }],
  ['multiline', { pattern: 'struct Foo \\{.*?field', multiline: true, output_mode: 'content' }],
  ['head limit default', { pattern: 'hit', output_mode: 'content' }],
  ['head limit given', { pattern: 'hit \\d+', output_mode: 'content', head_limit: 3 }],
  ['no match', { pattern: 'absent_string_xyz' }],
];

/** The behaviour tests, for one backend, on the fixture `dir()` returns. */
export function describeBackend(backend: Backend, dir: () => string): void {
  const kernelFor = () => grepKernel(dir(), backend);
  describe(`${backend} backend`, () => {
    it('lists matching files newest first, skipping .gitignored, .git and binary files', async () => {
      const t = textOf(await callTool(await kernelFor(), 'Grep', { pattern: 'TODO' }));
      expect(t).toBe('Found 5 files\nsrc/app.ts\nsrc/util.py\nsrc/a-b/z.ts\nsrc/a/b.ts\nvendor/lib.js');
    });

    it('prints content as path:line:text in path order', async () => {
      const t = textOf(await callTool(await kernelFor(), 'Grep', { pattern: 'TODO_', output_mode: 'content' }));
      expect(t).toBe('src/a/b.ts:1:const TODO_b = 2;\nsrc/a-b/z.ts:1:const TODO_z = 1;\nsrc/app.ts:3:  return TODO_fix;');
    });

    it(`caps results at ${DEFAULT_HEAD_LIMIT} by default and says so`, async () => {
      const t = textOf(await callTool(await kernelFor(), 'Grep', { pattern: '^hit', output_mode: 'content' }));
      const lines = t.split('\n');
      expect(lines.filter((l) => l.startsWith('many.txt:'))).toHaveLength(DEFAULT_HEAD_LIMIT);
      expect(t).toContain(`Showing the first ${DEFAULT_HEAD_LIMIT} of 300 lines`);
      const all = textOf(await callTool(await kernelFor(), 'Grep', { pattern: '^hit', output_mode: 'content', head_limit: 0 }));
      expect(all.split('\n')).toHaveLength(300);
    });

    it('finds a match across lines with multiline', async () => {
      const t = textOf(await callTool(await kernelFor(), 'Grep', { pattern: 'Foo \\{[\\s\\S]*?field', multiline: true, output_mode: 'content' }));
      expect(t).toBe('multi.txt:1:struct Foo {\nmulti.txt:2:  a: int,\nmulti.txt:3:  field: str,');
    });

    it('returns errors as is_error results: bad regex, missing path, \\n without multiline', async () => {
      const k = await kernelFor();
      const bad = await callTool(k, 'Grep', { pattern: 'foo(' });
      expect(bad.is_error).toBe(true);
      const missing = await callTool(k, 'Grep', { pattern: 'x', path: 'nowhere' });
      expect(textOf(missing)).toContain('Path does not exist');
      const nl = await callTool(k, 'Grep', { pattern: 'a\\nb' });
      expect(textOf(nl)).toContain('multiline: true');
    });
  });
}
