/**
 * An MCP server's tool as a rein tool: named `mcp__<server>__<tool>`, sent with the server's own
 * JSON Schema, its input checked against that schema with ajv before the call, read-only and
 * parallel when the server marks it `readOnlyHint`.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import { defineTool, ToolError, type JsonSchema, type Tool } from '../../../kernel/index.js';
import { MAX_MCP_DESCRIPTION_CHARS } from './config.js';
import { toContentBlocks } from './results.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv | Ajv2020) => void;

/** The part of an MCP tool listing used here. */
export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; title?: string };
}

/** Tool name characters the Messages API accepts; everything else becomes `_`. */
export function normalizeName(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The model-facing name of a server's tool (at most 64 characters, the API's limit). */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${normalizeName(server)}__${normalizeName(tool)}`.slice(0, 64);
}

let draft7: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

/** Compiles a tool's JSON Schema (draft-07 unless it declares 2020-12). Throws for a schema ajv rejects. */
export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  const modern = typeof schema.$schema === 'string' && schema.$schema.includes('2020-12');
  if (modern) {
    if (!draft2020) { draft2020 = new Ajv2020({ allErrors: true, strict: false }); addFormats(draft2020); }
    return draft2020.compile(schema);
  }
  if (!draft7) { draft7 = new Ajv({ allErrors: true, strict: false }); addFormats(draft7); }
  const { $schema: _drop, ...rest } = schema;
  return draft7.compile(rest);
}

/** ajv errors → one line naming each field and its problem, like the kernel's zod messages. */
export function describeAjvErrors(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => {
    const at = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '';
    if (e.keyword === 'required') return `${at ? `${at}.` : ''}${(e.params as { missingProperty: string }).missingProperty}: is required`;
    if (e.keyword === 'additionalProperties') return `${at || '(input)'}: unexpected property ${(e.params as { additionalProperty: string }).additionalProperty}`;
    return `${at || '(input)'}: ${e.message ?? 'is invalid'}`;
  }).join('; ');
}

/** Builds the rein tool for one MCP tool of `server`. Throws when its schema cannot be compiled. */
export function createMcpTool(server: string, info: McpToolInfo, client: Client, callTimeoutMs: number): Tool<Record<string, unknown>> {
  const schema = { ...info.inputSchema, type: 'object' } as JsonSchema;
  delete (schema as Record<string, unknown>).$schema;
  const validate = compileSchema(info.inputSchema);
  let description = info.description?.trim() || `${info.annotations?.title ?? info.name} (tool of the MCP server ${server})`;
  if (description.length > MAX_MCP_DESCRIPTION_CHARS) description = `${description.slice(0, MAX_MCP_DESCRIPTION_CHARS - 1)}…`;
  const readOnly = info.annotations?.readOnlyHint === true;
  return defineTool<Record<string, unknown>>({
    name: mcpToolName(server, info.name),
    description,
    inputSchema: z.record(z.string(), z.unknown()),
    inputJsonSchema: schema,
    validateInput: (input) => (validate(input ?? {}) ? undefined : describeAjvErrors(validate.errors)),
    isReadOnly: () => readOnly,
    isConcurrencySafe: () => readOnly,
    async call(input, ctx) {
      let result;
      try {
        result = await client.callTool({ name: info.name, arguments: input }, undefined, { signal: ctx.signal, timeout: callTimeoutMs });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        throw new ToolError(`MCP server ${server} failed on ${info.name}: ${(err as Error).message}`);
      }
      const content = toContentBlocks(result as Parameters<typeof toContentBlocks>[0]);
      return { content, isError: result.isError === true };
    },
  });
}
