import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mcpPlugin, { mcpServers } from './index.js';
import readPlugin from '../read/index.js';
import toolConcurrency from '../../tool-concurrency/index.js';
import type { Kernel, AgentEvent } from '../../../kernel/index.js';
import { callTool, cleanupTempDirs, runCalls, tempDir, textOf, toolKernel, use, useTempReinHome } from '../../../testing/tools.js';
// @ts-expect-error: a plain .mjs fixture without types
import { serveHttp } from './fixtures/server.mjs';

const SERVER = fileURLToPath(new URL('./fixtures/server.mjs', import.meta.url));
let dir: string;
let http: { url: string; close(): Promise<void> };
let kernel: Kernel;

beforeAll(async () => {
  useTempReinHome();
  dir = tempDir();
  http = await serveHttp();
  kernel = await toolKernel({
    cwd: dir,
    allowAll: false,
    plugins: [
      { plugin: readPlugin },
      { plugin: toolConcurrency },
      {
        plugin: mcpPlugin,
        options: {
          servers: {
            local: { command: process.execPath, args: [SERVER] },
            remote: { type: 'http', url: http.url },
            broken: { command: process.execPath, args: [SERVER, '--crash'] },
            missing: { command: '/no/such/program' },
          },
          connectTimeoutMs: 20_000,
        },
      },
    ],
  });
  kernel.hooks.permission.tap('allow-all', () => ({ behavior: 'allow' }));
}, 60_000);

afterAll(async () => {
  await kernel?.close();
  await http?.close();
  cleanupTempDirs();
});

describe('tools/mcp', () => {
  it('registers each tool as mcp__<server>__<tool>, sorted after the built-ins, with the server\'s schema', () => {
    const names = kernel.tools.names();
    expect(names[0]).toBe('Read');
    expect(names.slice(1)).toEqual([
      'mcp__local__add', 'mcp__local__fail', 'mcp__local__picture', 'mcp__local__wait', 'mcp__local__write_note',
      'mcp__remote__add', 'mcp__remote__fail', 'mcp__remote__picture', 'mcp__remote__wait', 'mcp__remote__write_note',
    ]);
    const add = kernel.tools.definitions().find((d) => d.name === 'mcp__local__add')!;
    expect(add.input_schema).toEqual({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false });
    expect(add.description).toBe('Adds two numbers.');
  });

  it('reports the servers that failed to start, with their own error, and keeps the others', async () => {
    const byName = Object.fromEntries(mcpServers(kernel).map((s) => [s.name, s]));
    expect(byName.local!.status).toBe('connected');
    expect(byName.remote!.status).toBe('connected');
    expect(byName.broken!.status).toBe('failed');
    expect(byName.broken!.error).toContain('missing configuration file');
    expect(byName.missing!.status).toBe('failed');
    const events: AgentEvent[] = [];
    kernel.hooks.event.tap('t', (e) => { events.push(e); });
    await kernel.hooks.sessionStart.promise({ sessionId: 's', cwd: dir, resumed: false, source: 'startup' }, kernel.runContext());
    const warnings = events.filter((e) => e.type === 'notice' && e.level === 'warn').map((e) => (e as { message: string }).message);
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).toContain('MCP server broken failed to start');
  });

  it('calls tools over stdio and over streamable HTTP', async () => {
    expect(textOf(await callTool(kernel, 'mcp__local__add', { a: 2, b: 3 }))).toBe('5');
    expect(textOf(await callTool(kernel, 'mcp__remote__add', { a: 20, b: 22 }))).toBe('42');
    expect(textOf(await callTool(kernel, 'mcp__local__write_note', { text: 'hi' }))).toBe('stored: hi');
  });

  it('validates input with the JSON Schema before calling, naming the field', async () => {
    const r = await callTool(kernel, 'mcp__local__add', { a: 'two', b: 3, c: 1 });
    expect(r.is_error).toBe(true);
    expect(textOf(r)).toBe('InputValidationError: mcp__local__add was called with invalid input: (input): unexpected property c; a: must be number');
    const r2 = await callTool(kernel, 'mcp__remote__write_note', {});
    expect(textOf(r2)).toContain('text: is required');
  });

  it('passes on is_error results and maps images and resources', async () => {
    const f = await callTool(kernel, 'mcp__local__fail', {});
    expect(f.is_error).toBe(true);
    expect(textOf(f)).toBe('it broke');
    const p = await callTool(kernel, 'mcp__local__picture', {});
    const blocks = p.content as { type: string; text?: string }[];
    expect(blocks.map((b) => b.type)).toEqual(['image', 'text']);
    expect(blocks[1]!.text).toBe('[resource mem://note]\na note');
  });

  it('runs tools marked read-only in parallel', async () => {
    const events: AgentEvent[] = [];
    kernel.hooks.event.tap('overlap', (e) => { events.push(e); });
    const out = await runCalls(kernel, [use('mcp__local__wait', { ms: 200 }), use('mcp__remote__wait', { ms: 200 })]);
    expect(out.results.map(textOf)).toEqual(['waited', 'waited']);
    expect(events.filter((e) => e.type === 'tool_start' || e.type === 'tool_end').map((e) => e.type)).toEqual(['tool_start', 'tool_start', 'tool_end', 'tool_end']);
  });

  it('is asked for permission like any tool (write tools are denied without a rule)', async () => {
    const strict = await toolKernel({ cwd: dir, allowAll: false, plugins: [{ plugin: mcpPlugin, options: { servers: { local: { command: process.execPath, args: [SERVER] } } } }] });
    try {
      expect((await callTool(strict, 'mcp__local__write_note', { text: 'x' })).is_error).toBe(true);
      expect(textOf(await callTool(strict, 'mcp__local__add', { a: 1, b: 1 }))).toBe('2');
    } finally {
      await strict.close();
    }
  });
});
