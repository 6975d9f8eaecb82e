/**
 * The tool contract. A tool is data plus one async function; the kernel owns validation, permission,
 * hooks, size limits and ordering, so a tool author writes only what the tool does.
 *
 * Defaults fail closed: a tool that does not say otherwise is treated as
 * not read-only and not safe to run concurrently.
 */
import type { z } from 'zod';
import type { ContentBlock } from './types.js';
import type { Kernel } from './kernel.js';

/** A path resolved the way `open(2)` resolves it (by `KernelServices.resolvePath`; lib/fs/resolve.ts is rein's). All paths are absolute. */
export interface ResolvedPath {
  /** The path as written, made absolute and normalised lexically (what path rules are written against). */
  written: string;
  /** Each symbolic link followed on the way, by the absolute path of the link itself, in order. */
  links: string[];
  /** Where the path leads once every link is followed (dangling links included); missing components kept as written. */
  real: string;
  /** True when `real` exists. */
  exists: boolean;
  /**
   * Which file `real` was when resolved (device and inode), when it existed: opening it later
   * checks that it is still that file, so a replacement (even a hard link, which no path check
   * can tell from the original) is noticed.
   */
  identity?: { dev: number; ino: number };
  /** Set when the walk could not finish (a loop of links, a component that cannot be read); `real` is then as far as it got. */
  error?: string;
}

/** What a tool's `call` may return: text, content blocks, or either with an error flag. */
export type ToolOutput = string | ContentBlock[] | { content: string | ContentBlock[]; isError?: boolean };

/** Per-call context handed to `Tool.call`. */
export interface ToolContext {
  /** Working directory of the session (absolute path). Tools resolve relative paths against it. */
  cwd: string;
  /** Aborts when the run is aborted, the call times out, or a sibling Bash call failed. */
  signal: AbortSignal;
  sessionId: string;
  /** Directory where the session keeps files beside its transcript (saved large outputs, ...). */
  sessionDir: string;
  toolUseId: string;
  kernel: Kernel;
  /** Emits a notice event (progress, warnings) into the run's event stream. */
  notify(message: string, level?: 'info' | 'warn'): void;
  /**
   * The call's path (`filePath`) as the permission decision resolved it. A file tool opens
   * `target.real`, and only that (see `openResolvedForRead` / `openResolvedForWrite`). Absent for
   * tools without a path and for calls made outside the loop.
   */
  target?: ResolvedPath;
  /**
   * Asks the `pathAccess` hook about one more path met inside this call (a file in a directory
   * walk): a reason string when it must be left out, else undefined. `path` must be absolute and
   * free of symbolic links.
   */
  checkPath(path: string, access: 'read' | 'write'): string | undefined;
}

/** A JSON Schema object (draft 2020-12) as sent in the API's `tools[].input_schema`. */
export type JsonSchema = { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };

export interface Tool<I = any> {
  /** The name the model calls, e.g. `Read`. Claude Code's names, so rules and hook matchers carry over. */
  name: string;
  /** What the model reads to decide when and how to call the tool. */
  description: string;
  /** Zod schema of the input; the API's `input_schema` is generated from it. */
  inputSchema: z.ZodType<I>;
  /**
   * A JSON Schema to send instead of the one generated from `inputSchema` (MCP tools bring their own;
   * rein's built-in tools bring the one generated from `inputSchema` ahead of time, which spares the
   * conversion at start-up).
   * When set, input validation uses `validateInput` if given, else `inputSchema`.
   */
  inputJsonSchema?: JsonSchema;
  /** Extra validation for tools whose schema is JSON Schema (returns an error message, or undefined). */
  validateInput?(input: unknown): string | undefined;
  /** True when this call cannot change anything outside the process. Default false. */
  isReadOnly(input: I): boolean;
  /** True when this call may run in parallel with other concurrency-safe calls. Default false. */
  isConcurrencySafe(input: I): boolean;
  /**
   * Results longer than this (characters) are saved to the session directory and replaced by a
   * preview; the kernel applies min(this, 50,000). `Infinity` opts out.
   */
  maxResultSizeChars: number;
  /** Runs the tool. Throw `ToolError` (or any error) to return an `is_error` result to the model. */
  call(input: I, ctx: ToolContext): Promise<ToolOutput>;
  /** For permission rules and hooks: the path a file tool touches, if any (absolute or relative to cwd). */
  filePath?(input: I): string | undefined;
  /** The plugin that registered the tool (set by the registry). */
  plugin?: string;
}

/** What `defineTool` accepts: the contract with the fail-closed members optional. */
export type ToolSpec<I> = Omit<Tool<I>, 'isReadOnly' | 'isConcurrencySafe' | 'maxResultSizeChars'> &
  Partial<Pick<Tool<I>, 'isReadOnly' | 'isConcurrencySafe' | 'maxResultSizeChars'>>;

/** Default result cap for a tool that does not set one, characters (Claude Code: 50,000 global cap). */
export const DEFAULT_MAX_RESULT_SIZE_CHARS = 50_000;

/**
 * Builds a tool with fail-closed defaults: `isReadOnly` → false, `isConcurrencySafe` → false,
 * `maxResultSizeChars` → 50,000.
 */
export function defineTool<I>(spec: ToolSpec<I>): Tool<I> {
  return {
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    maxResultSizeChars: DEFAULT_MAX_RESULT_SIZE_CHARS,
    ...spec,
  };
}

/** An error whose message goes back to the model verbatim as an `is_error` tool_result. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}
