/**
 * What the permission rules need to know about a tool call: which path it touches, whether it
 * writes, whether it only reads. Tools say so through `filePath` and `isReadOnly`; Claude Code's
 * tool names are recognised too, so rules written for Claude Code carry over.
 */
import type { PermissionQuery } from '../../../kernel/index.js';

/** Tools a `Read(…)` rule applies to (Claude Code: rules for reading apply to every built-in reader). */
export const READ_TOOLS: ReadonlySet<string> = new Set(['Read', 'Glob', 'Grep', 'LS', 'NotebookRead']);
/** Tools an `Edit(…)` rule applies to (Claude Code: rules for editing apply to every built-in editor). */
export const EDIT_TOOLS: ReadonlySet<string> = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);
/** The shell tool, whose `command` is matched by Bash rules. */
export const SHELL_TOOL = 'Bash';

/** The path a call touches (as given; may be relative or start with `~`), or undefined. */
export function filePathOf(q: PermissionQuery): string | undefined {
  try {
    const p = q.tool.filePath?.(q.input);
    if (typeof p === 'string' && p) return p;
  } catch {
    // a throwing filePath is treated as "no path known"; the call is then judged without one
  }
  for (const key of ['file_path', 'notebook_path', 'path']) {
    const v = q.input[key];
    if (typeof v === 'string' && v) return v;
  }
  return undefined;
}

/**
 * Tools that reach outside the machine (network fetches, MCP servers): even a read can send data
 * out in its URL or arguments, so modes never allow them as "read-only"; rules or the classifier must.
 */
export const REACHES_OUTSIDE = /^(WebFetch|WebSearch|mcp__.+)$/;

/** True when the tool says this call only reads. A predicate that throws means "not read-only". */
export function isReadOnlyCall(q: PermissionQuery): boolean {
  if (q.toolName === SHELL_TOOL) return false; // a command's effects are judged by rules, never by a flag
  if (REACHES_OUTSIDE.test(q.toolName)) return false;
  try {
    return q.tool.isReadOnly(q.input) === true;
  } catch {
    return false;
  }
}

/** True when the call writes a file: an editing tool, or any non-read-only tool that names a path. */
export function isFileWrite(q: PermissionQuery): boolean {
  if (q.toolName === SHELL_TOOL) return false;
  if (EDIT_TOOLS.has(q.toolName)) return true;
  return !isReadOnlyCall(q) && (typeof q.tool.filePath === 'function' ? filePathOf(q) !== undefined : false);
}
