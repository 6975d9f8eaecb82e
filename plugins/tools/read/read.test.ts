import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import readPlugin, { DEFAULT_READ_LINES, MAX_READ_CHARS } from './index.js';
import { getFileState } from '../shared/file-state.js';
import { callTool, cleanupTempDirs, tempDir, textOf, toolKernel, useTempReinHome } from '../../../testing/tools.js';

let dir: string;
beforeAll(() => {
  useTempReinHome();
  dir = tempDir();
});
afterAll(cleanupTempDirs);

const kernel = () => toolKernel({ plugins: [{ plugin: readPlugin }], cwd: dir });

describe('Read', () => {
  it('returns numbered lines and records the file as read', async () => {
    writeFileSync(join(dir, 'a.txt'), 'alpha\n\tbeta\r\ngamma\n');
    const k = await kernel();
    const r = await callTool(k, 'Read', { file_path: join(dir, 'a.txt') });
    expect(r.is_error).toBeUndefined();
    expect(textOf(r)).toBe('1\talpha\n2\t\tbeta\n3\tgamma');
    expect(getFileState(k).get(join(dir, 'a.txt'))?.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('resolves a relative path against the working directory', async () => {
    writeFileSync(join(dir, 'rel.txt'), 'x\n');
    const r = await callTool(await kernel(), 'Read', { file_path: 'rel.txt' });
    expect(textOf(r)).toBe('1\tx');
  });

  it('reads 2,000 lines by default and says how to read further', async () => {
    writeFileSync(join(dir, 'long.txt'), Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`).join('\n'));
    const t = textOf(await callTool(await kernel(), 'Read', { file_path: join(dir, 'long.txt') }));
    const lines = t.split('\n').filter((l) => /^\d+\t/.test(l));
    expect(lines).toHaveLength(DEFAULT_READ_LINES);
    expect(lines.at(-1)).toBe('2000\tline 2000');
    expect(t).toContain('Showing lines 1-2000 of 5000');
  });

  it('honours offset and limit', async () => {
    const t = textOf(await callTool(await kernel(), 'Read', { file_path: join(dir, 'long.txt'), offset: 4999, limit: 10 }));
    expect(t).toBe('4999\tline 4999\n5000\tline 5000');
  });

  it('reports an offset past the end instead of returning nothing', async () => {
    const r = await callTool(await kernel(), 'Read', { file_path: join(dir, 'a.txt'), offset: 50 });
    expect(textOf(r)).toContain('has 3 lines');
  });

  it('cuts long lines', async () => {
    writeFileSync(join(dir, 'wide.txt'), 'x'.repeat(5000) + '\nshort\n');
    const t = textOf(await callTool(await kernel(), 'Read', { file_path: join(dir, 'wide.txt') }));
    expect(t.split('\n')[0]).toBe(`1\t${'x'.repeat(2000)}… [line cut: 5000 characters]`);
    expect(t.split('\n')[1]).toBe('2\tshort');
  });

  it('says so for an empty file', async () => {
    writeFileSync(join(dir, 'empty.txt'), '');
    expect(textOf(await callTool(await kernel(), 'Read', { file_path: join(dir, 'empty.txt') }))).toContain('exists but is empty');
  });

  it('refuses a missing file with an is_error result and suggests a near name', async () => {
    const r = await callTool(await kernel(), 'Read', { file_path: join(dir, 'a.txx') });
    expect(r.is_error).toBe(true);
    expect(textOf(r)).toContain('File does not exist');
    expect(textOf(r)).toContain(`Did you mean ${join(dir, 'a.txt')}?`);
  });

  it('refuses a directory', async () => {
    mkdirSync(join(dir, 'sub'), { recursive: true });
    const r = await callTool(await kernel(), 'Read', { file_path: join(dir, 'sub') });
    expect(r.is_error).toBe(true);
    expect(textOf(r)).toContain('is a directory');
  });

  it('refuses binary files by content and by extension', async () => {
    writeFileSync(join(dir, 'blob.dat'), Buffer.from([1, 2, 0, 4, 5]));
    writeFileSync(join(dir, 'doc.pdf'), '%PDF-1.4 text-looking');
    const a = await callTool(await kernel(), 'Read', { file_path: join(dir, 'blob.dat') });
    const b = await callTool(await kernel(), 'Read', { file_path: join(dir, 'doc.pdf') });
    expect(a.is_error).toBe(true);
    expect(textOf(a)).toContain('binary file');
    expect(b.is_error).toBe(true);
    expect(textOf(b)).toContain('PDF');
  });

  it('returns an image block for a PNG', async () => {
    // A 1 × 1 PNG: signature, IHDR, IDAT, IEND.
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d4944415478da63f8ffff3f0005fe02fe0def46b80000000049454e44ae426082', 'hex');
    writeFileSync(join(dir, 'pic.png'), png);
    const r = await callTool(await kernel(), 'Read', { file_path: join(dir, 'pic.png') });
    const block = (r.content as { type: string; source?: { media_type: string; data: string } }[])[0]!;
    expect(block.type).toBe('image');
    expect(block.source?.media_type).toBe('image/png');
    expect(Buffer.from(block.source!.data, 'base64').equals(png)).toBe(true);
  });

  it('refuses a range over the size cap and names the line count', async () => {
    writeFileSync(join(dir, 'fat.txt'), Array.from({ length: 100 }, () => 'y'.repeat(1500)).join('\n'));
    const r = await callTool(await kernel(), 'Read', { file_path: join(dir, 'fat.txt') });
    expect(r.is_error).toBe(true);
    expect(textOf(r)).toContain(`more than the ${MAX_READ_CHARS}`);
    expect(textOf(r)).toContain('the file has 100 lines');
  });

  it('sends bad input back naming the field', async () => {
    const r = await callTool(await kernel(), 'Read', { file_path: join(dir, 'a.txt'), limit: -3 });
    expect(r.is_error).toBe(true);
    expect(textOf(r)).toMatch(/^InputValidationError: Read .*limit:/);
    const r2 = await callTool(await kernel(), 'Read', { path: 'a.txt' });
    expect(textOf(r2)).toContain('file_path');
  });
});
