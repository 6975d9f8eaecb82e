/**
 * The built-in tools send the input JSON Schemas generated ahead of time
 * (shared/generated/input-schemas.ts, `npm run schema`): each must be what the kernel would generate from
 * the tool's zod schema, so the request's bytes are those of a tool without one.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Tool } from '../../kernel/index.js';
import { createBashTool } from './bash/tool.js';
import { createBashOutputTool, createKillShellTool } from './bash/shell-tools.js';
import { editTool } from './edit/tool.js';
import { globTool } from './glob/tool.js';
import { createGrepTool } from './grep/tool.js';
import { readTool } from './read/tool.js';
import { createSkillTool } from './skill/tool.js';
import { createTaskTool } from './task/tool.js';
import { todoWriteTool } from './todo-write/tool.js';
import { createToolSearchTool } from './tool-search/tool.js';
import { createWebFetchTool } from './web-fetch/tool.js';
import { writeTool } from './write/tool.js';

/** kernel/tool-registry.ts `inputSchemaOf` for a tool that brings no JSON Schema. */
const fromZod = (tool: Tool) => {
  const schema = z.toJSONSchema(tool.inputSchema, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
};

const tools: Tool[] = [
  createBashTool({ background: false }), createBashTool(), createBashOutputTool(), createKillShellTool(),
  editTool, globTool, createGrepTool('auto'), readTool, todoWriteTool, writeTool,
  createSkillTool({ find: () => undefined, names: () => [], invoke: async () => '' } as never),
  createTaskTool({ agents: {}, defaultAgent: 'general-purpose' }),
  createToolSearchTool(() => []),
  createWebFetchTool({ mode: 'raw', maxBytes: 1, timeoutMs: 1, maxContentChars: 1, maxRawChars: 1 }),
];

describe('built-in tools\' input JSON Schemas', () => {
  it.each(tools.map((t) => [`${t.name}${t.description.includes('run_in_background') ? ' (background)' : ''}`, t] as const))('%s sends the JSON Schema of its zod input schema', (_name, tool) => {
    expect(tool.inputJsonSchema).toBeDefined();
    expect(JSON.stringify(tool.inputJsonSchema)).toBe(JSON.stringify(fromZod(tool)));
  });

  it('Bash with background shells sends the schema with run_in_background, without them the one without', () => {
    expect(createBashTool().inputJsonSchema!.properties).toHaveProperty('run_in_background');
    expect(createBashTool({ background: false }).inputJsonSchema!.properties).not.toHaveProperty('run_in_background');
  });
});
