import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import readPlugin from '../read/index.js';
import writePlugin from '../write/index.js';
import editPlugin from './index.js';
import { callTool, cleanupTempDirs, tempDir, textOf, toolKernel, useTempReinHome } from '../../../testing/tools.js';

let dir: string;
beforeAll(() => {
  useTempReinHome();
  dir = tempDir();
});
afterAll(cleanupTempDirs);

const plugins = [{ plugin: readPlugin }, { plugin: writePlugin }, { plugin: editPlugin }];
const kernel = (opts: { resume?: string } = {}) => toolKernel({ plugins, cwd: dir, ...opts });

describe('Edit', () => {
  it('refuses a file that was not read, then edits it after a Read and shows the changed lines', async () => {
    const f = join(dir, 'app.js');
    writeFileSync(f, 'const a = 1;\nconst b = 2;\nconsole.log(a + b);\n');
    const k = await kernel();
    const before = await callTool(k, 'Edit', { file_path: f, old_string: 'const b = 2;', new_string: 'const b = 40;' });
    expect(before.is_error).toBe(true);
    expect(textOf(before)).toContain('has not been read');
    expect(readFileSync(f, 'utf8')).toContain('const b = 2;');

    await callTool(k, 'Read', { file_path: f });
    const r = await callTool(k, 'Edit', { file_path: f, old_string: 'const b = 2;', new_string: 'const b = 40;' });
    expect(r.is_error).toBeUndefined();
    expect(readFileSync(f, 'utf8')).toBe('const a = 1;\nconst b = 40;\nconsole.log(a + b);\n');
    expect(textOf(r)).toContain('2\tconst b = 40;');
    // A second edit needs no new Read: the write was recorded.
    const again = await callTool(k, 'Edit', { file_path: f, old_string: 'const a = 1;', new_string: 'const a = 2;' });
    expect(again.is_error).toBeUndefined();
  });

  it('refuses an old_string that is not unique, and replaces all with replace_all', async () => {
    const f = join(dir, 'dup.txt');
    writeFileSync(f, 'x = 1\ny = 2\nx = 1\n');
    const k = await kernel();
    await callTool(k, 'Read', { file_path: f });
    const r = await callTool(k, 'Edit', { file_path: f, old_string: 'x = 1', new_string: 'x = 3' });
    expect(r.is_error).toBe(true);
    expect(textOf(r)).toContain('occurs 2 times');
    expect(textOf(r)).toContain('lines 1, 3');
    const all = await callTool(k, 'Edit', { file_path: f, old_string: 'x = 1', new_string: 'x = 3', replace_all: true });
    expect(textOf(all)).toContain('replaced 2 occurrences');
    expect(readFileSync(f, 'utf8')).toBe('x = 3\ny = 2\nx = 3\n');
  });

  it('refuses a file changed on disk since it was read', async () => {
    const f = join(dir, 'stale.txt');
    writeFileSync(f, 'one\n');
    const k = await kernel();
    await callTool(k, 'Read', { file_path: f });
    writeFileSync(f, 'one changed elsewhere\n');
    utimesSync(f, new Date(), new Date(Date.now() + 5000));
    const r = await callTool(k, 'Edit', { file_path: f, old_string: 'one', new_string: 'two' });
    expect(r.is_error).toBe(true);
    expect(textOf(r)).toContain('changed on disk after you read it');
    expect(readFileSync(f, 'utf8')).toBe('one changed elsewhere\n');
  });

  it('forgives a touch that leaves the content the same', async () => {
    const f = join(dir, 'touched.txt');
    writeFileSync(f, 'same\n');
    const k = await kernel();
    await callTool(k, 'Read', { file_path: f });
    utimesSync(f, new Date(), new Date(Date.now() + 5000));
    const r = await callTool(k, 'Edit', { file_path: f, old_string: 'same', new_string: 'new' });
    expect(r.is_error).toBeUndefined();
  });

  it('explains a missing old_string, spotting copied line numbers', async () => {
    const f = join(dir, 'nf.txt');
    writeFileSync(f, 'alpha\nbeta\n');
    const k = await kernel();
    await callTool(k, 'Read', { file_path: f });
    const r = await callTool(k, 'Edit', { file_path: f, old_string: '2\tbeta', new_string: 'gamma' });
    expect(r.is_error).toBe(true);
    expect(textOf(r)).toContain('line-number prefixes');
    const r2 = await callTool(k, 'Edit', { file_path: f, old_string: 'delta', new_string: 'gamma' });
    expect(textOf(r2)).toContain('was not found');
  });

  it('keeps CRLF line endings and literal $ patterns', async () => {
    const f = join(dir, 'win.txt');
    writeFileSync(f, 'a\r\nb\r\nc\r\n');
    const k = await kernel();
    await callTool(k, 'Read', { file_path: f });
    const r = await callTool(k, 'Edit', { file_path: f, old_string: 'a\nb', new_string: "a\n$& b'" });
    expect(r.is_error).toBeUndefined();
    expect(readFileSync(f, 'utf8')).toBe("a\r\n$& b'\r\nc\r\n");
  });

  it('creates a file with an empty old_string, and refuses the same old and new strings', async () => {
    const f = join(dir, 'new/dir/made.txt');
    const k = await kernel();
    const r = await callTool(k, 'Edit', { file_path: f, old_string: '', new_string: 'hello\n' });
    expect(r.is_error).toBeUndefined();
    expect(readFileSync(f, 'utf8')).toBe('hello\n');
    const same = await callTool(k, 'Edit', { file_path: f, old_string: 'hello', new_string: 'hello' });
    expect(same.is_error).toBe(true);
    const missing = await callTool(k, 'Edit', { file_path: join(dir, 'nope.txt'), old_string: 'a', new_string: 'b' });
    expect(textOf(missing)).toContain('File does not exist');
  });

  it('remembers what was read across --resume', async () => {
    const f = join(dir, 'resume.txt');
    writeFileSync(f, 'before\n');
    const k1 = await kernel();
    await callTool(k1, 'Read', { file_path: f });
    const k2 = await kernel({ resume: k1.sessionId });
    const r = await callTool(k2, 'Edit', { file_path: f, old_string: 'before', new_string: 'after' });
    expect(r.is_error).toBeUndefined();
    expect(readFileSync(f, 'utf8')).toBe('after\n');
    const fresh = await kernel();
    const r3 = await callTool(fresh, 'Edit', { file_path: f, old_string: 'after', new_string: 'again' });
    expect(textOf(r3)).toContain('has not been read');
  });
});
