/**
 * `tools/mcp`: tools from the MCP servers of the preset's `mcpServers` (Claude Code's format; the
 * preset loader passes them as this plugin's `servers` option). Every server is connected in
 * parallel when the plugin loads; each tool becomes `mcp__<server>__<tool>`, sorted after the
 * built-in tools. A server that fails to start is reported (a warning when the session starts, and
 * `mcpServers(kernel)`), and the others keep working. Connections close with `kernel.close()`.
 */
import { createKernelState, definePlugin, type Kernel } from '../../../kernel/index.js';
import { mcpOptions } from './config.js';
import { connectServer, connectTransport, type Connected } from './connect.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS } from './config.js';
import { createMcpTool, mcpToolName } from './tools.js';
import { subprocessEnv } from '../../../lib/index.js';

export { mcpOptions, type McpOptions, type ServerConfig } from './config.js';
export { mcpToolName, normalizeName } from './tools.js';

/** How one configured server fared. */
export interface McpServerStatus {
  name: string;
  status: 'connected' | 'failed';
  /** Why it failed, or why some of its tools were left out. */
  error?: string;
  /** Names of the tools registered from it. */
  tools: string[];
}

/**
 * The configured servers and how each fared, in kernel state under this plugin's name so that
 * other plugins read it without importing this one (the printer's `system/init` line lists every
 * server with its status, a failed one included, as Claude Code's does).
 */
const mcpState = createKernelState('tools/mcp', () => ({ servers: [] as McpServerStatus[] }));

/** The MCP servers of a kernel and how each fared. */
export function mcpServers(kernel: Kernel): readonly McpServerStatus[] {
  return mcpState(kernel).servers;
}

/** Registers a connected server's tools (`mcp__<server>__<tool>`) and closes it with the kernel. */
function registerServer(kernel: Kernel, name: string, { client, tools }: Connected, callTimeoutMs: number): McpServerStatus {
  kernel.onClose(() => client.close());
  const status: McpServerStatus = { name, status: 'connected', tools: [] };
  const problems: string[] = [];
  for (const info of tools) {
    const toolName = mcpToolName(name, info.name);
    if (kernel.tools.has(toolName)) { problems.push(`${info.name}: the name ${toolName} is already taken`); continue; }
    try {
      kernel.tools.register(createMcpTool(name, info, client, callTimeoutMs), 'tools/mcp');
      status.tools.push(toolName);
    } catch (err) {
      problems.push(`${info.name}: its input schema is invalid (${(err as Error).message})`);
    }
  }
  if (problems.length) status.error = `tools left out: ${problems.join('; ')}`;
  return status;
}

/**
 * Connects one more MCP server over a transport the caller made (an in-process server of the
 * program driving rein, reached over the stdio control protocol) and registers its tools. Throws
 * an Error saying why when the server does not start or list its tools within the connect timeout.
 */
export async function addMcpServer(kernel: Kernel, name: string, make: () => Transport, opts: { connectTimeoutMs?: number; callTimeoutMs?: number } = {}): Promise<McpServerStatus> {
  const connected = await connectTransport(name, make, { timeoutMs: opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS, version: '0.1.0' });
  const status = registerServer(kernel, name, connected, opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS);
  const state = mcpState(kernel);
  state.servers = [...state.servers, status];
  return status;
}

export default definePlugin({
  name: 'tools/mcp',
  description: 'Tools from MCP servers (stdio, streamable HTTP, SSE), named mcp__<server>__<tool>, inputs validated by their JSON Schema.',
  options: mcpOptions,
  async apply(kernel, options) {
    const list: McpServerStatus[] = [];
    mcpState(kernel).servers = list;
    const entries = Object.entries(options.servers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const settled = await Promise.allSettled(entries.map(([name, cfg]) => connectServer(name, cfg, { cwd: kernel.cwd, timeoutMs: options.connectTimeoutMs, version: '0.1.0', env: 'command' in cfg ? subprocessEnv(kernel, { kind: 'mcp', name }, cfg.env) : {} })));
    settled.forEach((s, i) => {
      const name = entries[i]![0];
      if (s.status === 'rejected') list.push({ name, status: 'failed', error: (s.reason as Error).message, tools: [] });
      else list.push(registerServer(kernel, name, s.value, options.callTimeoutMs));
    });
    kernel.hooks.sessionStart.tap('tools/mcp', () => {
      for (const s of list) {
        if (s.error) kernel.emit({ type: 'notice', level: 'warn', source: 'tools/mcp', message: s.status === 'failed' ? s.error : `MCP server ${s.name}: ${s.error}` });
      }
    });
  },
});
