import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './tool.js';
import { ToolRegistry } from './tool-registry.js';

const tool = (name: string) => defineTool({ name, description: `${name} tool`, inputSchema: z.object({ file_path: z.string() }).strict(), call: async () => 'ok' });

describe('ToolRegistry', () => {
  it('orders built-ins by name, then MCP tools by name', () => {
    const r = new ToolRegistry();
    for (const n of ['mcp__b__x', 'Write', 'mcp__a__y', 'Bash', 'Read']) r.register(tool(n));
    expect(r.names()).toEqual(['Bash', 'Read', 'Write', 'mcp__a__y', 'mcp__b__x']);
  });

  it('gives byte-identical tool definitions on every call', () => {
    const r = new ToolRegistry();
    r.register(tool('Read'));
    r.register(tool('Bash'));
    const a = JSON.stringify(r.definitions());
    const b = JSON.stringify(r.definitions());
    expect(a).toBe(b);
    expect(r.definitions()[0]).toEqual({
      name: 'Bash', description: 'Bash tool',
      input_schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'], additionalProperties: false },
    });
  });

  it('refuses a second tool with the same name', () => {
    const r = new ToolRegistry();
    r.register(tool('Read'), 'tools/read');
    expect(() => r.register(tool('Read'), 'other')).toThrow(/Read is registered twice \(by tools\/read and other\)/);
  });

  it('defaults fail closed: not read-only, not concurrency-safe, 50,000-character cap', () => {
    const t = tool('X');
    expect(t.isReadOnly({ file_path: 'a' })).toBe(false);
    expect(t.isConcurrencySafe({ file_path: 'a' })).toBe(false);
    expect(t.maxResultSizeChars).toBe(50_000);
  });
});
