/** The tools a kernel offers; the `tools` param is generated once, in a fixed order, so its bytes stay cached. */
import { z } from 'zod';
import { zod3Problem } from './plugin.js';
import type { Tool } from './tool.js';
import type { ToolDefinition } from './types.js';

/** JSON Schema for a zod input schema, as the API's `input_schema` wants it. */
export function inputSchemaOf(tool: Tool): ToolDefinition['input_schema'] {
  if (tool.inputJsonSchema) return tool.inputJsonSchema as ToolDefinition['input_schema'];
  const schema = z.toJSONSchema(tool.inputSchema, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema as ToolDefinition['input_schema'];
}

/** Sort key: built-ins first, then `mcp__` tools; each group by name (code-point order). */
function orderKey(name: string): [number, string] {
  return [name.startsWith('mcp__') ? 1 : 0, name];
}

export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private defs: ToolDefinition[] | undefined;

  /** Adds a tool. Throws when a tool of that name is already registered, or its schema is zod 3's. */
  register(tool: Tool, plugin?: string): void {
    const old = tool.inputJsonSchema ? undefined : zod3Problem(tool.inputSchema, `tool ${tool.name}: inputSchema`);
    if (old) throw new Error(old);
    if (this.tools.has(tool.name)) {
      const other = this.tools.get(tool.name)!.plugin;
      throw new Error(`tool ${tool.name} is registered twice (by ${other ?? 'unknown'} and ${plugin ?? 'unknown'})`);
    }
    this.tools.set(tool.name, plugin ? { ...tool, plugin } : tool);
    this.defs = undefined;
  }

  /** Removes a tool (a bare deny rule takes the tool out of the request). */
  unregister(name: string): boolean {
    this.defs = undefined;
    return this.tools.delete(name);
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** Tool names in request order. */
  names(): string[] {
    return this.list().map((t) => t.name);
  }

  /** Tools in request order. */
  list(): Tool[] {
    return [...this.tools.values()].sort((a, b) => {
      const [ga, na] = orderKey(a.name);
      const [gb, nb] = orderKey(b.name);
      return ga - gb || (na < nb ? -1 : na > nb ? 1 : 0);
    });
  }

  /** The `tools` param, built once per registry change; callers get a fresh array of shared objects. */
  definitions(): ToolDefinition[] {
    if (!this.defs) {
      this.defs = this.list().map((t) => Object.freeze({ name: t.name, description: t.description, input_schema: inputSchemaOf(t) }) as ToolDefinition);
    }
    return [...this.defs];
  }
}
