/**
 * What the loop needs from outside the kernel, given to `createKernel({ services })` (rein's are in
 * lib/). A service left out gets a default that knows no model and fails closed.
 */
import { resolve } from 'node:path';
import type { ModelRequest } from './model/client.js';
import type { ResolvedPath } from './tool.js';
import type { Message, Usage } from './types.js';
import type { Kernel } from './kernel.js';
import { NO_SESSIONS, type SessionStore } from './session.js';

export interface KernelServices {
  /** Estimated tokens of `messages`. Default: UTF-8 bytes of the content as JSON / 4. */
  messageTokens(messages: readonly Message[]): number;
  /** The context's size if `messages` were sent now, system and tools included, tokens. Default: `messageTokens`. */
  contextTokens(kernel: Kernel, messages: readonly Message[]): number;
  /** What `usage` cost on `model`, USD. Default: 0 (so `limits.maxBudgetUsd` makes `createKernel` throw). */
  costUsd(model: string, usage: Usage): number;
  /** `params` as its model accepts them, one sentence per change (a notice, once). Default: unchanged. */
  fitRequest(params: ModelRequest): { params: ModelRequest; changes: string[] };
  /** The model's output limit, tokens, or undefined. */
  maxOutputTokens(model: string): number | undefined;
  /** The `anthropic-beta` that opens a `contextWindow`-token window on `model`, or undefined. */
  longContextBeta(model: string, contextWindow: number): string | undefined;
  /** A path resolved as `open(2)` would. Never throws. Default: absolute, with `error` set, so file tools refuse. */
  resolvePath(path: string, cwd: string): ResolvedPath;
  /** What replaces a result over its tool's cap. Default: its first 2,000 characters, nothing saved. */
  persistResult(sessionDir: string, toolUseId: string, full: string): string;
  /** Where sessions are kept. Default: `NO_SESSIONS` (a run fails with a SessionError). */
  sessions: SessionStore;
}

const BYTES_PER_TOKEN = 4;
/** What the default `persistResult` keeps, characters. */
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
