/**
 * The bubblewrap command line for a policy (bwrap(1); options as in bubblewrap 0.8, Debian's
 * `bubblewrap` package). Mounts are applied in order, so later ones sit on top of earlier ones:
 *
 *   /                        read-only, with a fresh /dev and /proc (a new pid namespace: no
 *                            other process, or its environment, is visible)
 *   /tmp, /run               private, empty tmpfs (no host sockets such as docker's or an ssh agent's)
 *   the home folder          an empty tmpfs, when hidden
 *   allowRead                read-only again on top of the hidden home
 *   writable folders         read-write (the working directory, additional directories, allowWrite)
 *   denyWrite                read-only again inside them (.git/hooks, .git/config, ...)
 *   denyRead                 unreadable (mode 0000; with every capability dropped, root obeys it too)
 *
 * Every namespace is unshared (network included: only loopback exists inside); with allowed hosts
 * the proxy's socket is mounted and a bridge offers it on loopback.
 */
import { existsSync, statSync } from 'node:fs';
import { inside, type SandboxPolicy } from '../shared/policy.js';

/** Where the proxy's socket appears inside the sandbox. */
export const PROXY_SOCKET_INSIDE = '/run/rein-proxy.sock';
/** The loopback port the bridge listens on inside the sandbox (its own network namespace, so any port is free). */
export const PROXY_PORT_INSIDE = 3128;

/**
 * Runs inside the sandbox before the command when hosts are allowed: listens on loopback and
 * forwards each connection to the proxy's socket, then runs the command (fds 0-3 passed on) and
 * exits as it did. Plain Node, so it needs nothing the machine running rein lacks.
 */
export const BRIDGE_SCRIPT = `
const net = require('net'), fs = require('fs'), { spawn } = require('child_process');
const [sock, port, file, ...args] = process.argv.slice(1);
const fail = (e, code) => { process.stderr.write('bwrap: rein network bridge: ' + e.message + '\\n'); process.exit(code); };
const server = net.createServer((c) => {
  const u = net.connect(sock);
  c.pipe(u); u.pipe(c);
  c.on('error', () => u.destroy()); u.on('error', () => c.destroy());
});
server.on('error', (e) => fail(e, 126));
server.listen(Number(port), '127.0.0.1', () => {
  const stdio = [0, 1, 2];
  try { fs.fstatSync(3); stdio.push(3); } catch {}
  const child = spawn(file, args, { stdio });
  child.on('error', (e) => fail(e, 127));
  child.on('exit', (code, signal) => {
    if (signal) { process.removeAllListeners(signal); process.kill(process.pid, signal); }
    process.exit(code ?? 1);
  });
});
`;

export interface BwrapExtras {
  /** A file of mode 0000 to mount over denied files (directories get a mode-0000 tmpfs). */
  deniedFile: string;
  /** The proxy's socket on the host, when hosts are allowed. */
  proxySocket?: string;
  /** Node, for the bridge (default: the running one). */
  node?: string;
}

const isDir = (p: string) => { try { return statSync(p).isDirectory(); } catch { return false; } };

/**
 * The arguments after `bwrap` that run `file args` under policy `p`, in `cwd`. Paths that do not
 * exist are skipped (bwrap cannot mount over nothing on a read-only root).
 */
export function bwrapArgs(p: SandboxPolicy, file: string, args: readonly string[], cwd: string, x: BwrapExtras): string[] {
  const a: string[] = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/run'];
  if (p.hideHome) a.push('--tmpfs', p.home);
  for (const r of p.allowRead) if (existsSync(r)) a.push('--ro-bind', r, r);
  for (const w of p.writable) a.push('--bind', w, w);
  for (const d of p.denyWrite) if (existsSync(d) && p.writable.some((w) => inside(d, w))) a.push('--ro-bind', d, d);
  // Existing credential paths become unreadable (an absent one has nothing to hide); hidden or not,
  // so a read fails with "Permission denied" rather than a puzzling "No such file".
  for (const d of p.denyRead) {
    if (!existsSync(d)) continue;
    if (isDir(d)) a.push('--perms', '0000', '--tmpfs', d);
    else a.push('--ro-bind', x.deniedFile, d);
  }
  if (x.proxySocket) a.push('--ro-bind', x.proxySocket, PROXY_SOCKET_INSIDE);
  a.push('--unshare-all', '--cap-drop', 'ALL', '--chdir', cwd, '--');
  if (x.proxySocket) a.push(x.node ?? process.execPath, '-e', BRIDGE_SCRIPT, PROXY_SOCKET_INSIDE, String(PROXY_PORT_INSIDE), file, ...args);
  else a.push(file, ...args);
  return a;
}

/** Proxy variables for a sandbox with allowed hosts (both spellings: tools read one or the other). */
export function proxyEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${PROXY_PORT_INSIDE}`;
  return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, ALL_PROXY: url, all_proxy: url, NO_PROXY: '', no_proxy: '' };
}
