/**
 * Test helpers for permission plugins: stand-in tools with Claude Code's names and input fields,
 * and a kernel built from a preset object. The tools run for real (bash, the file system) so
 * end-to-end tests see real effects; permission unit tests only need their names and flags.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import {
  type Kernel, type KernelPreset, type ModelClient, definePlugin, type Plugin, defineTool,
  ToolError, type Tool, type PermissionDecision,
} from '../kernel/index.js';
import { createKernel } from '../agent/kernel.js';

/** A client for tests that never reach the model: any request fails loudly. */
export const noModelClient: ModelClient = {
  kind: 'simulator',
  baseURL: 'http://127.0.0.1:0',
  async send() { throw new Error('this test does not expect a model request'); },
  async countTokens() { return 0; },
  async close() {},
};

/** Bash{command,timeout,description}: runs the command with bash in the working directory. */
export const bashTool: Tool = defineTool({
  name: 'Bash',
  description: 'Runs a shell command.',
  inputSchema: z.object({ command: z.string(), timeout: z.number().optional(), description: z.string().optional() }),
  call: (input: { command: string }, ctx) => new Promise((res, rej) => {
    execFile('bash', ['-c', input.command], { cwd: ctx.cwd, timeout: 20_000 }, (err, stdout, stderr) => {
      if (err && typeof (err as { code?: unknown }).code !== 'number') rej(err);
      else res(`${stdout}${stderr}${err ? `\n(exit ${(err as { code: number }).code})` : ''}`);
    });
  }),
});

/** Read{file_path}: reads a file. */
export const readTool: Tool = defineTool({
  name: 'Read',
  description: 'Reads a file.',
  inputSchema: z.object({ file_path: z.string(), offset: z.number().optional(), limit: z.number().optional() }),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  filePath: (i: { file_path: string }) => i.file_path,
  async call(i: { file_path: string }, ctx) {
    try { return readFileSync(resolve(ctx.cwd, i.file_path), 'utf8'); } catch (e) { throw new ToolError((e as Error).message); }
  },
});

/** Write{file_path,content}: writes a file. */
export const writeTool: Tool = defineTool({
  name: 'Write',
  description: 'Writes a file.',
  inputSchema: z.object({ file_path: z.string(), content: z.string() }),
  filePath: (i: { file_path: string }) => i.file_path,
  async call(i: { file_path: string; content: string }, ctx) {
    const p = resolve(ctx.cwd, i.file_path);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, i.content);
    return `wrote ${p}`;
  },
});

/** Edit{file_path,old_string,new_string}: replaces text in a file. */
export const editTool: Tool = defineTool({
  name: 'Edit',
  description: 'Edits a file.',
  inputSchema: z.object({ file_path: z.string(), old_string: z.string(), new_string: z.string(), replace_all: z.boolean().optional() }),
  filePath: (i: { file_path: string }) => i.file_path,
  async call(i: { file_path: string; old_string: string; new_string: string }, ctx) {
    const p = resolve(ctx.cwd, i.file_path);
    writeFileSync(p, readFileSync(p, 'utf8').replace(i.old_string, i.new_string));
    return `edited ${p}`;
  },
});

/** Glob{pattern,path}: read-only. */
export const globTool: Tool = defineTool({
  name: 'Glob',
  description: 'Finds files.',
  inputSchema: z.object({ pattern: z.string(), path: z.string().optional() }),
  isReadOnly: () => true,
  async call() { return ''; },
});

/** WebFetch{url,prompt}: returns a fixed page (no network in tests). */
export const webFetchTool: Tool = defineTool({
  name: 'WebFetch',
  description: 'Fetches a page.',
  inputSchema: z.object({ url: z.string(), prompt: z.string() }),
  isReadOnly: () => true,
  async call(i: { url: string }) { return `page ${i.url}`; },
});

/** A plugin registering the given tools. */
export function toolsPlugin(tools: readonly Tool[]): Plugin {
  return definePlugin({ name: 'test/tools', apply(kernel) { for (const t of tools) kernel.tools.register(t, 'test/tools'); } });
}

export const ALL_TEST_TOOLS: readonly Tool[] = [bashTool, readTool, writeTool, editTool, globTool, webFetchTool];

/** Creates a kernel with the test tools and the given plugins. */
export async function testKernel(opts: { preset?: KernelPreset; cwd: string; presetDir?: string; plugins: { plugin: Plugin; options?: unknown }[]; client?: ModelClient; tools?: readonly Tool[] }): Promise<Kernel> {
  const preset = opts.preset ?? {};
  return createKernel({
    // Transcripts go to a temp dir, never to the user's ~/.rein.
    preset: { ...preset, session: { dir: mkdtempSync(join(tmpdir(), 'rein-perm-sessions-')), ...preset.session } },
    cwd: opts.cwd,
    presetDir: opts.presetDir,
    client: opts.client ?? noModelClient,
    plugins: [{ plugin: toolsPlugin(opts.tools ?? ALL_TEST_TOOLS) }, ...opts.plugins],
  });
}

/** Asks the kernel's `permission` hook about one call, as the loop does before running it. */
export async function decide(kernel: Kernel, toolName: string, input: Record<string, unknown>, toolUseId = 'toolu_test'): Promise<PermissionDecision | undefined> {
  const tool = kernel.tools.get(toolName);
  if (!tool) throw new Error(`no tool ${toolName}`);
  return kernel.hooks.permission.promise({ tool, toolName, input, toolUseId }, kernel.runContext());
}
