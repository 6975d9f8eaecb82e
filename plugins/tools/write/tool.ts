/**
 * `Write`: writes a whole file. A new file is created (with its folders); an existing file is
 * overwritten only if it was read in this session and has not changed on disk since.
 */
import { closeSync, fstatSync, ftruncateSync, lstatSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { defineTool, ToolError } from '../../../kernel/index.js';
import { openResolvedForWrite } from '../../../lib/index.js';
import { getFileState } from '../shared/file-state.js';
import { assertFreshForWrite } from '../shared/guard.js';
import { errnoCode, resolveToolPath } from '../shared/paths.js';
import { asToolError, callTarget } from '../shared/target.js';
import { INPUT_JSON_SCHEMAS } from '../shared/generated/input-schemas.js';

export const writeInput = z.lazy(() => z.strictObject({
  file_path: z.string().min(1).describe('Absolute path of the file to write (a relative path is taken from the working directory)'),
  content: z.string().describe('The complete new content of the file'),
}));

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

/** The same contract in fewer words (the plugin's `description: condensed`). */
export const CONDENSED_DESCRIPTION = `Writes content as the whole file at file_path (absolute; missing folders are created). Overwriting an existing file needs a Read of it in this session and fails if it changed on disk since. To change part of a file use Edit. Create files only when the task needs them; no documentation files unless asked.`;

export const writeTool = defineTool<WriteInput>({
  name: 'Write',
  description: DESCRIPTION,
  inputSchema: writeInput,
  inputJsonSchema: INPUT_JSON_SCHEMAS.writeInput,
  filePath: (input) => input.file_path,
  async call(input, ctx) {
    const path = resolveToolPath(ctx.cwd, input.file_path);
    // The file is opened once, where the permission decision resolved the path, and written only
    // through that descriptor (a link swapped in meanwhile is refused, not followed).
    const target = callTarget(ctx, input.file_path);
    let exists = false;
    try {
      const st = lstatSync(target.real);
      if (st.isDirectory()) throw new ToolError(`${path} is a directory; give the path of a file.`);
      exists = true;
    } catch (err) {
      if (err instanceof ToolError) throw err;
      if (errnoCode(err) !== 'ENOENT') throw new ToolError(`Cannot write ${path}: ${(err as Error).message}`);
    }
    if (exists) assertFreshForWrite(ctx.kernel, path);
    let stat;
    try {
      const w = openResolvedForWrite(target, { create: exists ? true : 'new', mkdirs: true });
      try {
        ftruncateSync(w.fd, 0);
        const bytes = Buffer.from(input.content);
        for (let off = 0; off < bytes.length;) off += writeSync(w.fd, bytes, off, bytes.length - off, off);
        stat = fstatSync(w.fd);
      } finally {
        closeSync(w.fd);
      }
    } catch (err) {
      const e = asToolError(err);
      if (e instanceof ToolError) throw e;
      if (errnoCode(err) === 'EEXIST') throw new ToolError(`${path} appeared while this call waited to run. Read it, then write it.`);
      throw new ToolError(`Cannot write ${path}: ${(err as Error).message}`);
    }
    getFileState(ctx.kernel).record(path, { content: input.content, stat });
    const lines = countLines(input.content);
    return exists
      ? `Wrote ${path} (${lines} lines, ${Buffer.byteLength(input.content)} bytes), replacing its previous content.`
      : `Created ${path} (${lines} lines, ${Buffer.byteLength(input.content)} bytes).`;
  },
});
