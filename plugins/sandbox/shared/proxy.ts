/**
 * The sandbox's way out: an HTTP proxy (proxy-chain: plain requests and CONNECT tunnels) on
 * 127.0.0.1 that admits only the hosts the preset lists. The sandbox has a network namespace of its
 * own (nothing but its own loopback), so a byte relay on a Unix socket in a private folder (mode
 * 0700) leads to the proxy; the sandbox mounts that socket, and a bridge inside it offers it as
 * `http://127.0.0.1:<port>` through `HTTP_PROXY` / `HTTPS_PROXY`. A host that is not listed gets a
 * 403 whose text says the sandbox refused it, and is remembered so the tool result can say so too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type AddressInfo, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestError, Server } from 'proxy-chain';

/**
 * True when `host` is allowed by one of `patterns`: an exact name (`registry.npmjs.org`), or
 * `*.example.com` for every subdomain of example.com (not example.com itself), as Claude Code's
 * `sandbox.network.allowedDomains` reads them. Case does not matter; IP literals match only exactly.
 */
export function hostAllowed(host: string, patterns: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  return patterns.some((p) => {
    const q = p.toLowerCase().trim();
    if (q.startsWith('*.')) return h.endsWith(q.slice(1)) && h.length > q.length - 1;
    return h === q;
  });
}

/** A request the proxy refused. */
export interface BlockedRequest {
  host: string;
  port: number;
  /** ms since the epoch. */
  at: number;
}

/** The message a refused client gets (curl prints the status; clients that show bodies show this). */
export const BLOCKED_TEXT = 'Blocked by the rein sandbox: this host is not in network.allowedDomains';

export class NetworkProxy {
  readonly socketPath: string;
  private readonly dir: string;
  private readonly server: Server;
  private readonly relay: NetServer;
  private started: Promise<void> | undefined;
  readonly blocked: BlockedRequest[] = [];

  constructor(readonly allowedDomains: readonly string[]) {
    this.dir = mkdtempSync(join(tmpdir(), 'rein-proxy-'));
    this.socketPath = join(this.dir, 'proxy.sock');
    this.server = new Server({
      port: 0,
      host: '127.0.0.1',
      prepareRequestFunction: ({ hostname, port }) => {
        if (hostAllowed(hostname, this.allowedDomains)) return {};
        this.blocked.push({ host: hostname, port, at: Date.now() });
        if (this.blocked.length > 1000) this.blocked.splice(0, this.blocked.length - 1000);
        throw new RequestError(`${BLOCKED_TEXT} (${hostname})`, 403);
      },
    });
    this.relay = createServer((c) => {
      const port = (this.server.server.address() as AddressInfo | null)?.port;
      if (!port) return c.destroy();
      const u = connect(port, '127.0.0.1');
      c.pipe(u);
      u.pipe(c);
      c.on('error', () => u.destroy());
      u.on('error', () => c.destroy());
    });
  }

  /** Starts the proxy and the relay (once); resolves when the socket accepts connections. */
  start(): Promise<void> {
    this.started ??= this.server.listen().then(() => new Promise<void>((resolve, reject) => {
      this.relay.once('error', reject);
      this.relay.listen(this.socketPath, () => {
        this.relay.off('error', reject);
        resolve();
      });
    }));
    return this.started;
  }

  /** Hosts refused since `since` (ms since the epoch), each once. */
  blockedSince(since: number): string[] {
    return [...new Set(this.blocked.filter((b) => b.at >= since).map((b) => `${b.host}:${b.port}`))];
  }

  async close(): Promise<void> {
    if (this.started) {
      const relayClosed = new Promise<void>((resolve) => this.relay.close(() => resolve()));
      await this.server.close(true).catch(() => undefined);
      await relayClosed;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
