/**
 * `Write`: writes a whole file. A new file is created (with its folders); an existing file is
 * overwritten only if it was read in this session and has not changed on disk since.
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { defineTool, ToolError } from '../../../kernel/index.js';
import { getFileState } from '../shared/file-state.js';
import { assertFreshForWrite } from '../shared/guard.js';
import { errnoCode, resolveToolPath } from '../shared/paths.js';

export const writeInput = z.strictObject({
  file_path: z.string().min(1).describe('Absolute path of the file to write (a relative path is taken from the working directory)'),
  content: z.string().describe('The complete new content of the file'),
});

export type WriteInput = z.output<typeof writeInput>;

const DESCRIPTION = `Writes a file to the local file system, replacing it completely if it exists.

Usage:
- file_path should be an absolute path. Missing parent folders are created.
- Overwriting an existing file requires that you Read it earlier in this session, and fails if it changed on disk since; Read it again in that case.
- To change part of an existing file, use Edit: it sends only the changed text and cannot lose the rest of the file by accident.
- Create new files only when the task needs them; prefer changing existing files. Do not write documentation files (*.md, README) unless asked.`;

function countLines(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

export const writeTool = defineTool<WriteInput>({
  name: 'Write',
  description: DESCRIPTION,
  inputSchema: writeInput,
  filePath: (input) => input.file_path,
  async call(input, ctx) {
    const path = resolveToolPath(ctx.cwd, input.file_path);
    let exists = false;
    try {
      const st = await stat(path);
      if (st.isDirectory()) throw new ToolError(`${path} is a directory; give the path of a file.`);
      exists = true;
    } catch (err) {
      if (err instanceof ToolError) throw err;
      if (errnoCode(err) !== 'ENOENT') throw new ToolError(`Cannot write ${path}: ${(err as Error).message}`);
    }
    if (exists) assertFreshForWrite(ctx.kernel, path);
    try {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, input.content);
    } catch (err) {
      throw new ToolError(`Cannot write ${path}: ${(err as Error).message}`);
    }
    getFileState(ctx.kernel).record(path, { content: input.content });
    const lines = countLines(input.content);
    return exists
      ? `Wrote ${path} (${lines} lines, ${Buffer.byteLength(input.content)} bytes), replacing its previous content.`
      : `Created ${path} (${lines} lines, ${Buffer.byteLength(input.content)} bytes).`;
  },
});
