/**
 * The tool contract: data plus one async function; the kernel owns validation, permission, hooks
 * and size limits. Defaults fail closed: not read-only, not safe to run concurrently.
 */
import type { z } from 'zod';
import type { ContentBlock } from './types.js';
import type { Kernel } from './kernel.js';

/** A path resolved as `open(2)` would (`services.resolvePath`). All paths absolute. */
export interface ResolvedPath {
  /** As written, made absolute and normalised lexically (what path rules match). */
  written: string;
  /** Each symbolic link followed on the way, in order. */
  links: string[];
  /** Where it leads once every link is followed; missing components kept as written. */
  real: string;
  /** True when `real` exists. */
  exists: boolean;
  /** Device and inode of `real` when resolved: opening it later checks it is still that file. */
  identity?: { dev: number; ino: number };
  /** Why the walk could not finish (a loop of links); `real` is as far as it got. */
  error?: string;
}

/** What a tool's `call` may return: text, content blocks, or either with an error flag. */
export type ToolOutput = string | ContentBlock[] | { content: string | ContentBlock[]; isError?: boolean };

/** Per-call context handed to `Tool.call`. */
export interface ToolContext {
  /** Absolute working directory; relative paths resolve against it. */
  cwd: string;
  /** Aborts when the run is aborted, the call times out, or (with `tool-concurrency`) a sibling Bash call failed. */
  signal: AbortSignal;
  sessionId: string;
  /** Where the session keeps files beside its transcript. */
  sessionDir: string;
  toolUseId: string;
  kernel: Kernel;
  /** Emits a notice event into the run's stream. */
  notify(message: string, level?: 'info' | 'warn'): void;
  /** The call's path as the permission decision resolved it: a file tool opens `target.real` and only that. */
  target?: ResolvedPath;
  /** Asks `pathAccess` about one more absolute, link-free path of this call: a reason to leave it out, or undefined. */
  checkPath(path: string, access: 'read' | 'write'): string | undefined;
}

/** A JSON Schema object (draft 2020-12) as sent in the API's `tools[].input_schema`. */
export type JsonSchema = { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };

export interface Tool<I = any> {
  /** The name the model calls (`Read`). */
  name: string;
  description: string;
  /** Zod schema of the input; the API's `input_schema` is generated from it. */
  inputSchema: z.ZodType<I>;
  /** A JSON Schema to send instead of converting `inputSchema` (MCP tools; built-ins, generated at build). Validation then uses `validateInput` if given, else `inputSchema`. */
  inputJsonSchema?: JsonSchema;
  /** Validation for a JSON Schema input: an error message, or undefined. */
  validateInput?(input: unknown): string | undefined;
  /** True when this call cannot change anything outside the process. Default false. */
  isReadOnly(input: I): boolean;
  /** True when this call may run in parallel with other concurrency-safe calls. Default false. */
  isConcurrencySafe(input: I): boolean;
  /** Results longer than this (characters, at most 50,000) go to `services.persistResult`. `Infinity` opts out. */
  maxResultSizeChars: number;
  /** Runs the tool; a throw (`ToolError`: its message verbatim) is an `is_error` result. */
  call(input: I, ctx: ToolContext): Promise<ToolOutput>;
  /** The path a file tool touches, if any (absolute or relative to cwd). */
  filePath?(input: I): string | undefined;
  /** The plugin that registered the tool (set by the registry). */
  plugin?: string;
}

/** What `defineTool` accepts: the contract with the fail-closed members optional. */
export type ToolSpec<I> = Omit<Tool<I>, 'isReadOnly' | 'isConcurrencySafe' | 'maxResultSizeChars'> &
  Partial<Pick<Tool<I>, 'isReadOnly' | 'isConcurrencySafe' | 'maxResultSizeChars'>>;

/** Result cap for a tool that sets none, characters (Claude Code's global cap). */
export const DEFAULT_MAX_RESULT_SIZE_CHARS = 50_000;

/** A tool with fail-closed defaults: not read-only, not concurrency-safe, 50,000 characters. */
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
