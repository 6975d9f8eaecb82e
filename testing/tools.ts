/**
 * Test support for the tool plugins (imported only by *.test.ts files): a kernel whose model client
 * is never called, temp folders, and a one-call runner through the kernel's real tool pipeline
 * (validation, permission, hooks, result caps).
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import {
  definePlugin, defineTool, type Kernel, type KernelPreset, type ModelClient, type Plugin, runToolCalls,
  type Tool, type ToolBatchOutcome, type ToolResultBlock, type ToolUseBlock,
} from '../kernel/index.js';
import { createKernel } from '../agent/kernel.js';

/** A model client for kernels that only run tools: any request fails the test loudly. */
export const unusedClient: ModelClient = {
  kind: 'simulator',
  baseURL: 'http://127.0.0.1:9',
  async send() { throw new Error('this test kernel has no model'); },
  async countTokens() { throw new Error('this test kernel has no model'); },
  async close() {},
};

/** A fresh temp folder; `cleanup()` removes all made so far. */
const made: string[] = [];
export function tempDir(prefix = 'rein-tools-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}
/**
 * Writes `content` to `root/rel` (folders made as needed) with a fixed modification time `ageS`
 * seconds before a reference instant (2024-01-01T00:16:40Z), so tests that sort by mtime (Glob,
 * Grep's file list) get the same order on every machine.
 */
export function writeAgedFile(root: string, rel: string, content: string | Buffer = 'x\n', ageS = 0): void {
  const p = join(root, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, content);
  const t = new Date(Date.UTC(2024, 0, 1) + (1000 - ageS) * 1000);
  utimesSync(p, t, t);
}

export function cleanupTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Points transcripts at a temp REIN_HOME (call in beforeAll). */
export function useTempReinHome(): string {
  const home = tempDir('rein-home-');
  process.env.REIN_HOME = home;
  return home;
}

/**
 * A kernel with `plugins` loaded, cwd `cwd`. `allowAll` taps `permission` to allow every call (the
 * headless default would deny writes, which only the permission tests want).
 */
export async function toolKernel(opts: { plugins: { plugin: Plugin; options?: unknown }[]; cwd: string; allowAll?: boolean; preset?: KernelPreset; resume?: string }): Promise<Kernel> {
  const kernel = await createKernel({ preset: opts.preset ?? { name: 'tools-test' }, cwd: opts.cwd, client: unusedClient, plugins: opts.plugins, resume: opts.resume });
  if (opts.allowAll ?? true) kernel.hooks.permission.tap('test-allow-all', () => ({ behavior: 'allow' }));
  return kernel;
}

let seq = 0;
/** A tool_use block with a fresh id. */
export function use(name: string, input: Record<string, unknown>, id = `toolu_${String(++seq).padStart(4, '0')}`): ToolUseBlock {
  return { type: 'tool_use', id, name, input };
}

/** Runs calls through the kernel's tool pipeline, as one assistant message would. */
export function runCalls(kernel: Kernel, calls: ToolUseBlock[], signal?: AbortSignal): Promise<ToolBatchOutcome> {
  return runToolCalls(kernel, calls, kernel.runContext(signal));
}

/** Runs one call; returns its tool_result. */
export async function callTool(kernel: Kernel, name: string, input: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResultBlock> {
  const out = await runCalls(kernel, [use(name, input)], signal);
  return out.results[0]!;
}

/** The text of a tool_result (text blocks joined by newlines). */
export function textOf(block: ToolResultBlock): string {
  const c = block.content;
  if (typeof c === 'string') return c;
  return (c ?? []).map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}

/** The input of `testTool` tools: an `id` to tell calls apart, and optional fields a test's `call` may read. */
export const testToolInput = z.strictObject({ id: z.string(), size: z.number().optional(), text: z.string().optional(), description: z.string().optional() });
export type TestToolInput = z.output<typeof testToolInput>;

/** A tool named `name` taking `testToolInput`, with `spec` (at least `call`) over the defaults. */
export function testTool(name: string, spec: Partial<Tool<TestToolInput>> & Pick<Tool<TestToolInput>, 'call'>): Tool<TestToolInput> {
  return defineTool<TestToolInput>({ name, description: name, inputSchema: testToolInput, ...spec });
}

/** A plugin that registers `tools`, named after them. */
export function toolsPlugin(...tools: Tool<TestToolInput>[]): Plugin {
  return definePlugin({ name: `test-tools-${tools.map((t) => t.name).join('-')}`, apply(k) { for (const t of tools) k.tools.register(t); } });
}
