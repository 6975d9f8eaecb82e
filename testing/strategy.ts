/**
 * Wiring for strategy tests and the strategy benchmark: a kernel driven against rein's simulator,
 * either over loopback HTTP through the real SDK (tests: the real wire path) or in-process (the
 * benchmark: thousands of requests without sockets), plus two small read-only tools over real files
 * and a responder that plays a planned session.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import {
  type Kernel, type KernelPreset, ModelRequestError,
  type ModelClient, type ModelRequest, definePlugin, type Plugin, defineTool, ToolError, type AgentEvent, type ApiMessage, type RunResult,
} from '../kernel/index.js';
import { createKernel } from '../agent/kernel.js';
import { createAnthropicClient, estimateBlockTokens, estimateToolTokens, isPromptTooLong } from '../lib/index.js';
import { startSimServer, type SimServer } from '../simulator/server.js';
import type { Simulator } from '../simulator/simulator.js';
import type { DraftBlock, Responder } from '../simulator/responders/types.js';

/** A model client that calls the simulator in-process (no HTTP), with the same error mapping. */
export function inProcessClient(simulator: Simulator): ModelClient {
  const headersOf = (params: ModelRequest, source: string) => ({
    'x-rein-source': source,
    ...(params.betas?.length ? { 'anthropic-beta': params.betas.join(',') } : {}),
  });
  const bodyOf = (params: ModelRequest) => {
    const { betas: _b, ...body } = params;
    return JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  };
  return {
    kind: 'simulator',
    baseURL: 'in-process',
    async send(params, opts) {
      const r = simulator.handle(bodyOf(params), { headers: headersOf(params, opts.source) });
      if (r.status !== 200 || !r.message) {
        const message = (r.error?.error.message ?? `HTTP ${r.status}`);
        throw new ModelRequestError({
          kind: 'http', status: r.status, type: r.error?.error.type, message: `${r.status} ${r.error?.error.type ?? 'error'}: ${message}`,
          promptTooLong: isPromptTooLong(r.status, message),
        });
      }
      if (opts.onEvent) for (const e of r.events) opts.onEvent(e.data as never);
      return { message: r.message as unknown as ApiMessage, requestId: r.requestId };
    },
    async countTokens(params) {
      const r = simulator.countTokens(bodyOf(params), { headers: headersOf(params, 'side') });
      if (r.status !== 200) throw new ModelRequestError({ kind: 'http', status: r.status, message: JSON.stringify(r.body) });
      return (r.body as { input_tokens: number }).input_tokens;
    },
    close: async () => undefined,
  };
}

/** The simulator on loopback and an SDK client pointed at it. */
export async function httpClient(simulator: Simulator, log?: string): Promise<{ client: ModelClient; server: SimServer }> {
  const server = await startSimServer({ simulator, port: 0, ...(log ? { log } : {}) });
  const client = createAnthropicClient({ baseURL: server.url, apiKey: 'test', kind: 'simulator', onClose: () => server.close() });
  return { client, server };
}

/** Request bodies the server logged, in order (main-loop and side requests; count_tokens left out). */
export function loggedRequests(log: string): { body: Record<string, any>; headers: Record<string, string>; usage?: Record<string, number>; source: string; status: number }[] {
  let text = '';
  try { text = readFileSync(log, 'utf8'); } catch { return []; }
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.path === '/v1/messages');
}

function within(cwd: string, p: string): string {
  const abs = isAbsolute(p) ? p : resolve(cwd, p);
  const rel = relative(cwd, abs);
  if (rel.startsWith('..') || isAbsolute(rel)) throw new ToolError(`${p} is outside the working directory`);
  return abs;
}

/** `Read{file_path, offset, limit}` over real files, `cat -n` numbered. Read-only. */
export const readTool = defineTool<{ file_path: string; offset?: number; limit?: number }>({
  name: 'Read',
  description: 'Reads a file of the working directory and returns its lines numbered from 1.',
  inputSchema: z.object({ file_path: z.string(), offset: z.number().int().min(1).optional(), limit: z.number().int().min(1).optional() }),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  maxResultSizeChars: Infinity,
  async call(input, ctx) {
    const abs = within(ctx.cwd, input.file_path);
    let text: string;
    try { text = readFileSync(abs, 'utf8'); } catch (err) { throw new ToolError(`cannot read ${input.file_path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`); }
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const start = (input.offset ?? 1) - 1;
    const end = input.limit ? start + input.limit : lines.length;
    return lines.slice(start, end).map((l, i) => `${String(start + i + 1).padStart(6)}\t${l}`).join('\n');
  },
  filePath: (input) => input.file_path,
});

/** `Grep{pattern, path}`: lines matching a regular expression in the files under a directory. Read-only. */
export const grepTool = defineTool<{ pattern: string; path?: string }>({
  name: 'Grep',
  description: 'Searches the files under a directory for lines matching a regular expression.',
  inputSchema: z.object({ pattern: z.string(), path: z.string().optional() }),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  async call(input, ctx) {
    const root = within(ctx.cwd, input.path ?? '.');
    const re = new RegExp(input.pattern);
    const out: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir).sort()) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) { if (!name.startsWith('.')) walk(p); continue; }
        readFileSync(p, 'utf8').split('\n').forEach((l, i) => { if (re.test(l)) out.push(`${relative(ctx.cwd, p)}:${i + 1}:${l}`); });
      }
    };
    walk(root);
    return out.length ? out.join('\n') : 'No matches.';
  },
});

/** A plugin that registers the two test tools. */
export const testToolsPlugin: Plugin = definePlugin({
  name: 'test-tools',
  apply(kernel) {
    kernel.tools.register(readTool, 'test-tools');
    kernel.tools.register(grepTool, 'test-tools');
  },
});

/** One planned turn: the reply blocks of one main-loop response. */
export type PlannedTurn = DraftBlock[];

/**
 * Plays `turns` in order for main-loop requests (turn N answers the N-th main request, whatever the
 * request holds); past the end it answers `Done.` with end_turn.
 */
export function plannedResponder(turns: readonly PlannedTurn[]): Responder {
  return {
    respond(req) {
      const t = turns[req.mainTurn - 1];
      return { reply: { content: t ? t.map((b) => ({ ...b })) : [{ type: 'text', text: 'Done.' }] } };
    },
  };
}

export interface KernelSetup {
  cwd: string;
  client: ModelClient;
  preset?: KernelPreset;
  plugins: { plugin: Plugin; options?: unknown }[];
  resume?: string;
  sessionId?: string;
}

/** Creates a kernel with the test tools and `plugins`. */
export function strategyKernel(s: KernelSetup): Promise<Kernel> {
  return createKernel({
    preset: s.preset ?? { model: { name: 'claude-sonnet-4-6', maxTokens: 8_000, contextWindow: 200_000 } },
    cwd: s.cwd,
    client: s.client,
    plugins: [{ plugin: testToolsPlugin }, ...s.plugins],
    ...(s.resume ? { resume: s.resume } : {}),
    ...(s.sessionId ? { sessionId: s.sessionId } : {}),
  });
}

/** Runs one prompt and collects the events and the result. */
export async function runPrompt(kernel: Kernel, prompt: string): Promise<{ events: AgentEvent[]; result: RunResult }> {
  const events: AgentEvent[] = [];
  const run = kernel.run({ prompt });
  for await (const e of run) events.push(e);
  return { events, result: await run.result };
}

/** Notices of a run from one source. */
export function notices(events: readonly AgentEvent[], source: string): string[] {
  return events.flatMap((e) => (e.type === 'notice' && e.source === source ? [e.message] : []));
}

/** Writes a file of `lines` lines of 39 characters plus a newline (≈ 10 tokens a line, ≈ 12 once numbered). */
export function writeLines(dir: string, name: string, lines: number, tag: string): void {
  const pad = Math.max(0, 39 - tag.length - 11);
  writeFileSync(join(dir, name), Array.from({ length: lines }, (_, i) => `${tag} line ${String(i).padStart(4, '0')} ${'x'.repeat(pad)}`).join('\n') + '\n');
}

/** Writes an AGENTS.md of about `tokens` tokens (so a cached prefix is above the model's minimum). */
export function writeAgentsMd(dir: string, tokens = 2_500): void {
  const sentence = 'Keep every change small and tested. ';
  writeFileSync(join(dir, 'AGENTS.md'), `# Project rules\n${sentence.repeat(Math.ceil((tokens * 4) / sentence.length))}\n`);
}

/** Estimated tokens of a message's content blocks, or of a list of tools / a system param. */
export function tokensOf(value: { content: unknown[] } | unknown[] | undefined): number {
  if (!value) return 0;
  if (Array.isArray(value)) return value.reduce((n: number, b) => n + ((b as { name?: string }).name !== undefined && (b as { type?: string }).type === undefined ? estimateToolTokens(b) : estimateBlockTokens(b)), 0);
  return value.content.reduce((n: number, b) => n + estimateBlockTokens(b), 0);
}

/** A copy of `value` with every `cache_control` key dropped (to compare bytes apart from markers). */
export function withoutMarkers<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (k, v) => (k === 'cache_control' ? undefined : v))) as T;
}
