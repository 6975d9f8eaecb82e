/**
 * The read-before-write guard Write and Edit share: an existing file may be changed only after the
 * model read it in this session, and only while it is unchanged on disk since.
 */
import { type Kernel, ToolError } from '../../../kernel/index.js';
import { getFileState } from './file-state.js';

/** Throws a ToolError telling the model what to do when `path` (which exists) may not be written now. */
export function assertFreshForWrite(kernel: Kernel, path: string): void {
  const state = getFileState(kernel).check(path);
  if (state.ok) return;
  if (state.reason === 'unread') {
    throw new ToolError(`${path} has not been read in this session. Read it first, then write it, so that you change what is really there.`);
  }
  throw new ToolError(`${path} changed on disk after you read it (by the user, a formatter or another command). Read it again before changing it, so that your edit starts from its current content.`);
}
