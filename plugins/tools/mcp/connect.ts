/**
 * Connecting to one MCP server and listing its tools, within a time limit. A stdio server's stderr
 * is kept (its last lines) so a server that dies at start-up can be reported with its own words.
 */
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ServerConfig } from './config.js';
import type { McpToolInfo } from './tools.js';

/** Bytes of a stdio server's stderr kept for error messages. */
const STDERR_TAIL_BYTES = 2_000;

export interface Connected {
  client: Client;
  tools: McpToolInfo[];
}

function transportFor(cfg: ServerConfig, cwd: string, env: Record<string, string>, stderrTail: { text: string }): Transport {
  if ('command' in cfg) {
    const t = new StdioClientTransport({
      command: cfg.command,
      args: cfg.args,
      env,
      cwd: cfg.cwd ? resolve(cwd, cfg.cwd) : cwd,
      stderr: 'pipe',
    });
    t.stderr?.on('data', (b: Buffer) => { stderrTail.text = (stderrTail.text + b.toString('utf8')).slice(-STDERR_TAIL_BYTES); });
    return t;
  }
  const headers = cfg.headers;
  if (cfg.type === 'sse') return new SSEClientTransport(new URL(cfg.url), { requestInit: { headers } });
  return new StreamableHTTPClientTransport(new URL(cfg.url), { requestInit: { headers } });
}

/**
 * Connects and lists tools. `env` is the whole environment of a stdio server (the kernel's
 * `subprocessEnv`, the server's own `env` included). Throws an Error whose message says why the
 * server is unusable.
 */
export async function connectServer(name: string, cfg: ServerConfig, opts: { cwd: string; timeoutMs: number; version: string; env: Record<string, string> }): Promise<Connected> {
  const stderrTail = { text: '' };
  const client = new Client({ name: 'rein', version: opts.version });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not answer within ${opts.timeoutMs / 1000} s`)), opts.timeoutMs);
  });
  try {
    const transport = transportFor(cfg, opts.cwd, opts.env, stderrTail);
    const work = (async () => {
      await client.connect(transport);
      const tools: McpToolInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined);
        tools.push(...(page.tools as McpToolInfo[]));
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    })();
    const tools = await Promise.race([work, timeout]);
    return { client, tools };
  } catch (err) {
    await client.close().catch(() => undefined);
    const tail = stderrTail.text.trim();
    throw new Error(`MCP server ${name} failed to start: ${(err as Error).message}${tail ? `; its stderr ended with: ${tail.split('\n').slice(-5).join(' | ')}` : ''}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}
