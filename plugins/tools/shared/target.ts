/**
 * The file a tool call may open: the path the permission decision resolved (`ctx.target`), so a
 * symlink swapped in after the decision is not followed. A tool opens `real` once, through
 * `openResolvedForRead` / `openResolvedForWrite`, and reads or writes only through that descriptor.
 */
import { realpathSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { ToolError, type ResolvedPath, type ToolContext } from '../../../kernel/index.js';
import { PathChangedError, resolvePath } from '../../../lib/index.js';
import { resolveToolPath } from './paths.js';

/**
 * The resolved form of `p` for this call: the decision's when it is about the same path (the
 * loop resolved it before the decision), else resolved now (a call made outside the loop).
 * Throws ToolError when the path cannot be resolved (a loop of links).
 */
export function callTarget(ctx: ToolContext, p: string): ResolvedPath {
  const written = resolveToolPath(ctx.cwd, p);
  const t = ctx.target && ctx.target.written === written ? ctx.target : resolvePath(p, ctx.cwd);
  if (t.error) throw new ToolError(`Cannot open ${written}: ${t.error}.`);
  return t;
}

/** A PathChangedError as the model should read it; other errors unchanged. */
export function asToolError(err: unknown): unknown {
  return err instanceof PathChangedError ? new ToolError(err.message) : err;
}

/**
 * Checks that a directory walked by path is still the one the decision resolved (no link was
 * swapped in above or at it). Throws ToolError otherwise.
 */
export function assertSameDirectory(t: ResolvedPath): void {
  let now: string;
  try {
    now = realpathSync(t.real);
  } catch (err) {
    throw new ToolError(`Cannot search ${t.written}: ${(err as Error).message}`);
  }
  if (now !== t.real) throw new ToolError(new PathChangedError(t.written, `it now leads to ${now}`).message);
}

/**
 * Maps a path under `t.real` back under the path as the model wrote it (`linkdir/x`, not the
 * link's target), so results name paths the model can use again.
 */
export function underWritten(t: ResolvedPath, abs: string): string {
  if (t.real === t.written) return abs;
  const rel = relative(t.real, abs);
  return rel === '' ? t.written : rel.startsWith('..') ? abs : `${t.written}${sep}${rel}`;
}
