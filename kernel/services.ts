/**
 * What the loop needs from outside the kernel: a token estimate, a price, what each model accepts,
 * where a path leads, where sessions are kept and where an oversized tool result goes. The kernel owns none of them; `createKernel({ services })` is given them
 * (the `rein` entry's `createKernel` and `createAgent` pass rein's own, from lib/). A service left
 * out gets the default below, which is small, knows no model, and fails closed.
 */
import { resolve } from 'node:path';
import type { ModelRequest } from './model/client.js';
import type { ResolvedPath } from './tool.js';
import type { Message, Usage } from './types.js';
import type { Kernel } from './kernel.js';
import { NO_SESSIONS, type SessionStore } from './session.js';

export interface KernelServices {
  /**
   * Estimated tokens of `messages` (the compaction hooks' `tokens`). Default: the UTF-8 bytes of
   * each message's content as JSON, 4 bytes a token.
   */
  messageTokens(messages: readonly Message[]): number;
  /**
   * The context's size if `messages` were sent now, tokens: system and tools included (the `compact`
   * event's `tokensBefore` / `tokensAfter`). Default: `messageTokens(messages)`.
   */
  contextTokens(kernel: Kernel, messages: readonly Message[]): number;
  /**
   * What a response with `usage` cost on `model`, USD (run results, `limits.maxBudgetUsd`). Default:
   * no prices, 0; a preset with `limits.maxBudgetUsd` then makes `createKernel` throw, since the
   * limit could never be reached.
   */
  costUsd(model: string, usage: Usage): number;
  /**
   * `params` as its model accepts it (output limit, thinking, effort), with one sentence per
   * change (sent as a notice once per kernel). Default: unchanged.
   */
  fitRequest(params: ModelRequest): { params: ModelRequest; changes: string[] };
  /** The model's output limit, tokens, or undefined when unknown (caps the max_tokens escalation). Default: undefined. */
  maxOutputTokens(model: string): number | undefined;
  /**
   * The `anthropic-beta` value that opens a context window of `contextWindow` tokens on `model`, or
   * undefined when none is needed or the model has none. Default: undefined.
   */
  longContextBeta(model: string, contextWindow: number): string | undefined;
  /**
   * A tool call's path resolved as `open(2)` would (absolute, or relative to `cwd`). Never throws.
   * Default: the path made absolute, with `error` set (no link was followed), so file tools refuse
   * the call instead of opening a path nobody resolved.
   */
  resolvePath(path: string, cwd: string): ResolvedPath;
  /**
   * The text that takes the place of a tool result longer than its tool's cap (`full`, characters).
   * Default: the first 2,000 characters and a line saying the rest was dropped (nothing is saved).
   */
  persistResult(sessionDir: string, toolUseId: string, full: string): string;
  /**
   * Where sessions are kept (kernel/session.ts): the kernel creates its session there, or opens the
   * one it resumes. Default: none (`NO_SESSIONS`), so a run fails with a SessionError that says so.
   */
  sessions: SessionStore;
}

const BYTES_PER_TOKEN = 4;
/** What the default `persistResult` keeps of an oversized result, characters (as much as rein's preview). */
const KEPT_CHARS = 2_000;

/** The services of a kernel given none (see each member's default). */
export const DEFAULT_SERVICES: Readonly<KernelServices> = Object.freeze({
  messageTokens: (messages: readonly Message[]) =>
    messages.reduce((n, m) => n + Math.ceil(Buffer.byteLength(typeof m.content === 'string' ? m.content : JSON.stringify(m.content)) / BYTES_PER_TOKEN), 0),
  contextTokens: (_kernel: Kernel, messages: readonly Message[]) => DEFAULT_SERVICES.messageTokens(messages),
  costUsd: () => 0,
  fitRequest: (params: ModelRequest) => ({ params, changes: [] }),
  maxOutputTokens: () => undefined,
  longContextBeta: () => undefined,
  resolvePath: (path: string, cwd: string): ResolvedPath => {
    const written = resolve(cwd, path);
    return { written, links: [], real: written, exists: false, error: 'this kernel resolves no paths (createKernel was given no resolvePath service)' };
  },
  persistResult: (_sessionDir: string, _toolUseId: string, full: string) =>
    `${full.slice(0, KEPT_CHARS)}\n...\n(output too large: ${full.length} characters; this kernel saves no large outputs, so the rest was dropped)`,
  sessions: NO_SESSIONS,
});
