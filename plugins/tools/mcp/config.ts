/**
 * MCP server configuration in Claude Code's `mcpServers` format: `stdio` servers are a command to
 * start (`type` may be left out), `http` servers speak streamable HTTP, `sse` servers the older
 * HTTP+SSE transport.
 */
import { z } from 'zod';

export const stdioServer = z.strictObject({
  type: z.literal('stdio').optional().register(z.globalRegistry, { description: 'Transport: `stdio`, a command to start (may be left out).' }),
  command: z.string().min(1).register(z.globalRegistry, { description: 'Program to start' }),
  args: z.array(z.string()).default([]).register(z.globalRegistry, { description: 'Arguments of the command.' }),
  /** Added to rein's own environment. */
  env: z.record(z.string(), z.string()).default({}).register(z.globalRegistry, { description: 'Environment variables for the server, added to the environment rein gives child processes.' }),
  /** Working directory of the server (default: the session's). */
  cwd: z.string().optional().register(z.globalRegistry, { description: 'Working directory of the server, relative to the session\'s; default: the session\'s.' }),
});

export const httpServer = z.strictObject({
  type: z.enum(['http', 'sse']).register(z.globalRegistry, { description: 'Transport: `http` (streamable HTTP) or `sse` (the older HTTP+SSE transport).' }),
  url: z.string().url().register(z.globalRegistry, { description: 'The server\'s URL.' }),
  headers: z.record(z.string(), z.string()).default({}).register(z.globalRegistry, { description: 'HTTP headers sent with every request to the server.' }),
});

export const serverConfig = z.union([stdioServer, httpServer]);

/** Time a server gets to start and answer `initialize`, ms (Claude Code's MCP_TIMEOUT default: 30 s). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** Time one tool call may take, ms. */
export const DEFAULT_CALL_TIMEOUT_MS = 600_000;
/** Longest tool description sent to the model, characters (Claude Code caps MCP descriptions at 2,048). */
export const MAX_MCP_DESCRIPTION_CHARS = 2_048;

export const mcpOptions = z.strictObject({
  /** Servers by name; the name becomes the middle of `mcp__<server>__<tool>`. */
  servers: z.record(z.string().min(1), serverConfig).default({}).register(z.globalRegistry, { description: 'MCP servers by name (Claude Code\'s `mcpServers` format); the name becomes the middle of `mcp__<server>__<tool>`.' }),
  connectTimeoutMs: z.number().int().positive().default(DEFAULT_CONNECT_TIMEOUT_MS).register(z.globalRegistry, { description: 'Time a server gets to start and answer `initialize`, ms (Claude Code\'s MCP_TIMEOUT default: 30 s).' }),
  callTimeoutMs: z.number().int().positive().default(DEFAULT_CALL_TIMEOUT_MS).register(z.globalRegistry, { description: 'Time one MCP tool call may take, ms.' }),
});

export type ServerConfig = z.output<typeof serverConfig>;
export type McpOptions = z.output<typeof mcpOptions>;
