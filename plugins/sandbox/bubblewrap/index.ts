/**
 * `sandbox/bubblewrap`: every Bash command (and, with `hooks: true`, every shell hook) runs inside
 * bubblewrap (Linux), under the policy of `../shared/policy.ts`: a read-only file system but for
 * the working directory, additional directories and a private /tmp; the home folder and
 * credentials hidden; no network, or only the listed hosts through rein's proxy; credentials
 * removed from the environment. See README.md for the threat model and its limits.
 *
 *   spawn        wraps the process in bwrap (fails closed: a sandbox that cannot be set up throws,
 *                and the command does not run)
 *   permission   at ALLOW_RULES + 50: in auto mode, a sandboxed Bash call needs no classifier call
 *   sessionEnd   nothing; the proxy closes with the kernel (onClose)
 *
 * Without a usable bwrap the plugin fails when it loads: rein never runs a command unsandboxed
 * when the preset asked for a sandbox.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { definePlugin, PERMISSION_STAGE, PluginError, type Kernel, type PermissionDecision, type SpawnRequest } from '../../../kernel/index.js';
import { withoutCredentials } from '../shared/env.js';
import { explainRefusal, resolvePolicy, sandboxOptions, type SandboxPolicy } from '../shared/policy.js';
import { NetworkProxy } from '../shared/proxy.js';
import { bwrapArgs, proxyEnv } from './bwrap.js';

export const PLUGIN_NAME = 'sandbox/bubblewrap';

export const bubblewrapOptions = sandboxOptions.extend({
  /** The bwrap program (default `bwrap`, found on PATH). */
  command: z.string().min(1).default('bwrap').register(z.globalRegistry, { description: 'The bwrap program, found on PATH unless a path is given.' }),
});

export type BubblewrapOptions = z.output<typeof bubblewrapOptions>;

/**
 * Checks that `command` runs a sandbox here: it exists and can create its namespaces. Returns why
 * not, or undefined. Takes one bwrap start (a few ms).
 */
export function bwrapUnavailable(command: string): string | undefined {
  if (process.platform !== 'linux') return `bubblewrap runs on Linux only (this is ${process.platform})`;
  const r = spawnSync(command, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--cap-drop', 'ALL', '--', 'true'], { encoding: 'utf8', timeout: 10_000 });
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    return code === 'ENOENT'
      ? `${command} was not found; install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)`
      : `${command} could not be run: ${r.error.message}`;
  }
  if (r.status !== 0) return `${command} cannot create a sandbox on this machine: ${(r.stderr || `exit ${r.status}`).trim()} (unprivileged user namespaces may be disabled)`;
  return undefined;
}

class Bubblewrap {
  readonly policy: SandboxPolicy;
  private readonly dir: string;
  private readonly deniedFile: string;
  private proxy: NetworkProxy | undefined;

  constructor(private readonly kernel: Kernel, private readonly o: BubblewrapOptions) {
    this.policy = resolvePolicy(kernel, o);
    this.dir = mkdtempSync(join(tmpdir(), 'rein-bwrap-'));
    this.deniedFile = join(this.dir, 'denied');
    writeFileSync(this.deniedFile, '');
    chmodSync(this.deniedFile, 0o000);
  }

  /** Wraps one process. Throws when the proxy cannot start (the command then does not run). */
  async wrap(req: SpawnRequest): Promise<SpawnRequest> {
    if (req.sandbox) return req; // already wrapped (a child agent's own sandbox under its parent's)
    const p = this.policy;
    let proxySocket: string | undefined;
    if (p.allowedDomains.length) {
      this.proxy ??= new NetworkProxy(p.allowedDomains);
      await this.proxy.start();
      proxySocket = this.proxy.socketPath;
    }
    const { env } = withoutCredentials(req.env, this.o.keepEnv);
    Object.assign(env, { TMPDIR: '/tmp' }, proxySocket ? proxyEnv() : {});
    const started = Date.now();
    const proxy = this.proxy;
    return {
      ...req,
      file: this.o.command,
      args: bwrapArgs(p, req.file, req.args, req.cwd, { deniedFile: this.deniedFile, proxySocket }),
      env,
      sandbox: {
        name: PLUGIN_NAME,
        writable: p.writable,
        network: p.allowedDomains.length ? [...p.allowedDomains] : 'none',
        explain: (output) => explainRefusal(PLUGIN_NAME, p, output, proxy ? proxy.blockedSince(started) : []),
      },
    };
  }

  async close(): Promise<void> {
    await this.proxy?.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'Runs Bash commands (and optionally shell hooks) inside bubblewrap: read-only file system but the working directories and /tmp, hidden credentials, no network or listed hosts through a proxy.',
  options: bubblewrapOptions,
  apply(kernel, options) {
    const why = bwrapUnavailable(options.command);
    if (why) throw new PluginError(PLUGIN_NAME, `${PLUGIN_NAME}: ${why}. The preset asks for a sandbox, so rein will not run commands without one; remove the plugin to run unsandboxed.`);
    const sandbox = new Bubblewrap(kernel, options);
    kernel.hooks.spawn.tapPromise(PLUGIN_NAME, async (req) => (req.purpose === 'bash' || options.hooks ? sandbox.wrap(req) : req));
    kernel.onClose(() => sandbox.close());

    // The sandbox is the guard: a sandboxed command can write only inside the working directories,
    // so auto mode need not ask its classifier (deny and ask rules, and hooks, ran before this stage).
    const mode = ((kernel.preset.permissions as { mode?: string } | undefined)?.mode) ?? 'default';
    const autoAllow = options.autoAllowBashIfSandboxed ?? mode === 'auto';
    if (autoAllow && mode !== 'plan') {
      kernel.hooks.permission.tap({ name: PLUGIN_NAME, stage: PERMISSION_STAGE.ALLOW_RULES + 50 }, (q): PermissionDecision | undefined => (
        q.toolName === 'Bash' ? { behavior: 'allow', reason: `sandboxed by ${PLUGIN_NAME} (writes only inside ${sandbox.policy.writable.join(', ')})`, source: PLUGIN_NAME } : undefined
      ));
    }
  },
});

export { withoutCredentials, isCredentialName, CREDENTIAL_NAMES } from '../shared/env.js';
export { hostAllowed, NetworkProxy } from '../shared/proxy.js';
export { resolvePolicy, explainRefusal, DEFAULT_DENY_READ, DEFAULT_DENY_WRITE, DEFAULT_ALLOW_READ, type SandboxPolicy } from '../shared/policy.js';
export { bwrapArgs, BRIDGE_SCRIPT, PROXY_PORT_INSIDE } from './bwrap.js';
