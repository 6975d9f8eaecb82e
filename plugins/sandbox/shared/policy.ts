/**
 * What a sandbox allows, independent of the mechanism that enforces it (bubblewrap on Linux; the
 * same policy could drive macOS `sandbox-exec`): the options every sandbox plugin takes, the policy
 * they resolve to for one kernel, and the note a refused command gets.
 */
import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import type { Kernel } from '../../../kernel/index.js';

/**
 * Credential locations hidden even when the home folder is visible (relative to it). Sources: the
 * default paths of ssh, the AWS/gcloud/Azure/kubectl/docker/GitHub CLIs, gpg, npm, pip/twine,
 * git's credential store and netrc.
 */
export const DEFAULT_DENY_READ = [
  '~/.ssh', '~/.aws', '~/.gnupg', '~/.config/gcloud', '~/.azure', '~/.kube', '~/.docker',
  '~/.config/gh', '~/.netrc', '~/.npmrc', '~/.pypirc', '~/.git-credentials', '~/.rein', '~/.claude',
  '~/.claude.json', '~/.cargo/credentials', '~/.cargo/credentials.toml', '~/.local/share/keyrings',
  '~/.password-store', '~/.vault-token', '~/.terraform.d/credentials.tfrc.json',
] as const;

/**
 * Home paths kept visible (read-only) when the home folder is hidden: git's identity and the
 * usual per-user toolchain folders, so `git commit`, `cargo`, `python` from pyenv or `node` from
 * nvm keep working. PATH entries under the home folder are kept too.
 */
export const DEFAULT_ALLOW_READ = [
  '~/.gitconfig', '~/.config/git', '~/.cargo', '~/.rustup', '~/.pyenv', '~/.nvm', '~/.volta', '~/.bun',
  '~/.deno', '~/.sdkman', '~/go',
] as const;

/**
 * Paths inside the writable folders that stay read-only when they exist (relative to each writable
 * folder): git hooks and config run code outside the sandbox the next time someone uses git there,
 * and agent settings grant permissions to the next run.
 */
export const DEFAULT_DENY_WRITE = ['.git/hooks', '.git/config', '.rein', '.claude'] as const;

export const sandboxOptions = z.strictObject({
  filesystem: z.strictObject({
    /** Folders writable besides the working directory and `permissions.additionalDirectories`. */
    allowWrite: z.array(z.string().min(1)).default([]).register(z.globalRegistry, { description: 'Folders writable besides the working directory and `permissions.additionalDirectories`.' }),
    /** Hide the home folder behind an empty one (default true); the working directory stays visible. */
    hideHome: z.boolean().default(true).register(z.globalRegistry, { description: 'Hide the home folder behind an empty one; the working directory, git\'s identity, usual toolchain folders and PATH entries stay visible, read-only.' }),
    /** Paths of the home folder kept visible (read-only) when it is hidden, besides DEFAULT_ALLOW_READ and PATH entries. */
    allowRead: z.array(z.string().min(1)).default([]).register(z.globalRegistry, { description: 'Paths of the home folder kept visible (read-only) when it is hidden, besides the defaults (git\'s identity, toolchain folders) and PATH entries.' }),
    /** Paths unreadable besides the defaults (DEFAULT_DENY_READ: ~/.ssh, ~/.aws, ...). */
    denyRead: z.array(z.string().min(1)).default([]).register(z.globalRegistry, { description: 'Paths made unreadable besides the defaults (credential locations such as ~/.ssh, ~/.aws, ~/.rein).' }),
    /** Paths kept read-only inside the writable folders besides the defaults (DEFAULT_DENY_WRITE). */
    denyWrite: z.array(z.string().min(1)).default([]).register(z.globalRegistry, { description: 'Paths kept read-only inside the writable folders besides the defaults (.git/hooks, .git/config, .rein, .claude).' }),
  }).default({ allowWrite: [], hideHome: true, allowRead: [], denyRead: [], denyWrite: [] }).register(z.globalRegistry, { description: 'What sandboxed commands may read and write.' }),
  network: z.strictObject({
    /**
     * Hosts the sandbox may reach, through rein's proxy: `registry.npmjs.org`, or `*.example.com`
     * for its subdomains. Empty (the default): no network at all.
     */
    allowedDomains: z.array(z.string().min(1)).default([]).register(z.globalRegistry, { description: 'Hosts the sandbox may reach over HTTP(S) through rein\'s proxy: `registry.npmjs.org`, or `*.example.com` for its subdomains; empty: no network at all.' }),
  }).default({ allowedDomains: [] }).register(z.globalRegistry, { description: 'What sandboxed commands may reach over the network.' }),
  /** Run shell hooks inside the sandbox too (default false: hooks are the preset author's own code). */
  hooks: z.boolean().default(false).register(z.globalRegistry, { description: 'Run shell hooks inside the sandbox too; off by default, as hooks are the preset author\'s own code.' }),
  /**
   * Allow sandboxed Bash calls that no rule decided without asking the mode: unset (the default) does
   * so in `auto` mode only, where the sandbox replaces the classifier call; true in every mode but
   * plan; false never. Deny and ask rules and PreToolUse hooks still come first.
   */
  autoAllowBashIfSandboxed: z.boolean().optional().register(z.globalRegistry, { description: 'Allow sandboxed Bash calls no rule decided without asking the mode: unset, in `auto` mode only (the sandbox replaces the classifier call); true, in every mode but plan; false, never.' }),
  /** Environment variables kept although they look like credentials. */
  keepEnv: z.array(z.string().min(1)).default([]).register(z.globalRegistry, { description: 'Environment variables kept in sandboxed commands although they look like credentials.' }),
});

export type SandboxOptions = z.output<typeof sandboxOptions>;

/** The resolved policy: absolute real paths. */
export interface SandboxPolicy {
  cwd: string;
  home: string;
  /** Writable folders: the working directory, additional directories, allowWrite (existing ones). */
  writable: string[];
  hideHome: boolean;
  allowRead: string[];
  denyRead: string[];
  denyWrite: string[];
  allowedDomains: string[];
}

/** `~/x`, `./x`, `x` or `/x` as an absolute path. */
export function expandPath(p: string, cwd: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return isAbsolute(p) ? resolve(p) : resolve(cwd, p);
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Resolves the options against the kernel's working directory and preset. */
export function resolvePolicy(kernel: Kernel, o: SandboxOptions, home = process.env.HOME || homedir()): SandboxPolicy {
  const cwd = real(kernel.cwd);
  const h = real(home);
  const extra = ((kernel.preset.permissions as { additionalDirectories?: string[] } | undefined)?.additionalDirectories ?? []);
  const writable = [...new Set([cwd, ...[...extra, ...o.filesystem.allowWrite].map((d) => real(expandPath(d, cwd, h))).filter((d) => existsSync(d))])];
  const denyWrite = writable.flatMap((w) => [...DEFAULT_DENY_WRITE, ...o.filesystem.denyWrite].map((d) => (isAbsolute(d) || d.startsWith('~') ? expandPath(d, cwd, h) : join(w, d))));
  return {
    cwd,
    home: h,
    writable,
    hideHome: o.filesystem.hideHome,
    allowRead: [...new Set([
      ...[...DEFAULT_ALLOW_READ, ...o.filesystem.allowRead].map((p) => expandPath(p, cwd, h)),
      ...(process.env.PATH ?? '').split(':').filter((d) => d && isAbsolute(d) && inside(resolve(d), h)).map((d) => resolve(d)),
      dirname(process.execPath),
    ].map(real).filter((d) => inside(d, h) && existsSync(d)))],
    denyRead: [...new Set([...DEFAULT_DENY_READ, ...o.filesystem.denyRead].map((p) => expandPath(p, cwd, h)))],
    denyWrite: [...new Set(denyWrite)],
    allowedDomains: o.network.allowedDomains,
  };
}

/** True when `p` is `dir` or inside it. */
export function inside(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

const WRITE_REFUSED = /Read-only file system|EROFS/;
const READ_REFUSED = /Permission denied|EACCES/;

/** True when `line` names a path of the hidden home outside the visible folders. */
function namesHiddenHome(p: SandboxPolicy, line: string): boolean {
  return p.hideHome && line.includes(p.home) && !p.writable.some((w) => line.includes(w)) && !p.allowRead.some((r) => line.includes(r));
}

/** A "Permission denied" line that names a credential path, or a "not found" one under the hidden home. */
function readRefused(p: SandboxPolicy, output: string): boolean {
  return output.split('\n').some((line) => (READ_REFUSED.test(line)
    && (p.denyRead.some((d) => line.includes(d) || line.includes(d.replace(p.home, '~'))) || namesHiddenHome(p, line)))
    || (NOT_FOUND.test(line) && namesHiddenHome(p, line)));
}
const NO_NETWORK = /Could not resolve host|Temporary failure in name resolution|Name or service not known|Network is unreachable|getaddrinfo|EAI_AGAIN|ENOTFOUND|ENETUNREACH|No address associated with hostname|Couldn't connect to server|Connection refused|ECONNREFUSED/;
const NOT_FOUND = /No such file or directory|ENOENT/;

/**
 * The note for a command whose output shows the sandbox refused something, or undefined. `blocked`
 * are hosts the proxy refused while it ran. The note is in a `<sandbox_violations>` block, as
 * Claude Code reports them, so the model knows the failure is the sandbox and not the command.
 */
export function explainRefusal(name: string, p: SandboxPolicy, output: string, blocked: string[]): string | undefined {
  const lines: string[] = [];
  const setup = /^bwrap: (.*)$/m.exec(output);
  if (setup) lines.push(`the sandbox could not start the command: ${setup[1]}`);
  if (WRITE_REFUSED.test(output)) lines.push(`a write outside the writable folders (${p.writable.join(', ')} and a private /tmp; ${DEFAULT_DENY_WRITE.join(', ')} in them stay read-only)`);
  if (readRefused(p, output)) lines.push(`a read of a hidden path (credentials such as ~/.ssh and ~/.aws${p.hideHome ? ', and the home folder outside the working directory' : ''}), or of a file the sandbox keeps read-only`);
  if (blocked.length) lines.push(`network access to ${blocked.join(', ')}: only ${p.allowedDomains.join(', ')} may be reached, through the sandbox's proxy`);
  else if (NO_NETWORK.test(output)) lines.push(p.allowedDomains.length ? `network access outside the proxy: only ${p.allowedDomains.join(', ')} may be reached, through HTTP_PROXY/HTTPS_PROXY` : 'network access: the sandbox has no network (its loopback is its own: services on the host are not reachable)');
  if (!lines.length) return undefined;
  return `<sandbox_violations>\nThis command ran in rein's sandbox (${name}), which refused:\n${lines.map((l) => `- ${l}`).join('\n')}\nThis is the sandbox's policy, not a fault of the command: do not retry it the same way. Work inside the writable folders, or tell the user what you need.\n</sandbox_violations>`;
}
