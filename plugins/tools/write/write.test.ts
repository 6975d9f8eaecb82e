import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import readPlugin from '../read/index.js';
import editPlugin from '../edit/index.js';
import writePlugin from './index.js';
import { callTool, cleanupTempDirs, tempDir, textOf, toolKernel, useTempReinHome } from '../../../testing/tools.js';

let dir: string;
beforeAll(() => {
  useTempReinHome();
  dir = tempDir();
});
afterAll(cleanupTempDirs);

const plugins = [{ plugin: readPlugin }, { plugin: writePlugin }, { plugin: editPlugin }];
const kernel = () => toolKernel({ plugins, cwd: dir });

describe('Write', () => {
  it('creates new files with their folders, and overwrites only read files', async () => {
    const k = await kernel();
    const f = join(dir, 'w/x/new.txt');
    const c = await callTool(k, 'Write', { file_path: f, content: 'one\ntwo\n' });
    expect(textOf(c)).toContain('Created');
    expect(readFileSync(f, 'utf8')).toBe('one\ntwo\n');

    const other = join(dir, 'existing.txt');
    writeFileSync(other, 'keep me\n');
    const denied = await callTool(k, 'Write', { file_path: other, content: 'lost\n' });
    expect(denied.is_error).toBe(true);
    expect(textOf(denied)).toContain('has not been read');
    expect(readFileSync(other, 'utf8')).toBe('keep me\n');
    await callTool(k, 'Read', { file_path: other });
    const ok = await callTool(k, 'Write', { file_path: other, content: 'replaced\n' });
    expect(ok.is_error).toBeUndefined();
    expect(readFileSync(other, 'utf8')).toBe('replaced\n');
  });

  it('is denied by the headless default when no permission plugin allows it', async () => {
    const k = await toolKernel({ plugins, cwd: dir, allowAll: false });
    const r = await callTool(k, 'Write', { file_path: join(dir, 'denied.txt'), content: 'x' });
    expect(r.is_error).toBe(true);
    expect(textOf(r)).toContain('denied');
  });
});
