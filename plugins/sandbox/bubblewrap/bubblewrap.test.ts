/**
 * The sandbox's parts that need no bwrap: the credential filter, host patterns, the bwrap command
 * line for a policy, the refusal note, and the load failure without bwrap (never unsandboxed).
 * The real sandbox is tested in bubblewrap.system.test.ts.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBuilt, tempDir } from '../../../testing/support.js';
import { bwrapArgs, bwrapUnavailable, explainRefusal, hostAllowed, isCredentialName, withoutCredentials, type SandboxPolicy } from './index.js';

const tmp = tempDir('rein-bwrap-unit-');
afterAll(() => tmp.cleanup());

describe('credentials in the environment', () => {
  it('removes well-known names and names with a secret word as a part, keeps the rest and keepEnv', () => {
    const env = { ANTHROPIC_API_KEY: 'a', AWS_SECRET_ACCESS_KEY: 'b', GITHUB_TOKEN: 'c', MY_SERVICE_API_KEY: 'd', DB_PASSWORD: 'e', SSH_AUTH_SOCK: 'f', npm_config__authToken: 'g', PATH: '/bin', HOME: '/h', KEYBOARD: 'k', TOKENIZERS_PARALLELISM: 'false', LANG: 'C', KEEP_TOKEN: 'kept' };
    const { env: out, removed } = withoutCredentials(env, ['KEEP_TOKEN']);
    expect(out).toEqual({ PATH: '/bin', HOME: '/h', KEYBOARD: 'k', TOKENIZERS_PARALLELISM: 'false', LANG: 'C', KEEP_TOKEN: 'kept' });
    expect(removed).toEqual(['ANTHROPIC_API_KEY', 'AWS_SECRET_ACCESS_KEY', 'DB_PASSWORD', 'GITHUB_TOKEN', 'MY_SERVICE_API_KEY', 'SSH_AUTH_SOCK', 'npm_config__authToken'].sort());
    expect(isCredentialName('aws_session_token')).toBe(true);
    expect(isCredentialName('EDITOR')).toBe(false);
  });
});

describe('allowed hosts', () => {
  it('exact names and *. subdomain patterns, case-insensitive; IP literals only exactly', () => {
    const allow = ['registry.npmjs.org', '*.github.com', '127.0.0.1'];
    expect(hostAllowed('registry.npmjs.org', allow)).toBe(true);
    expect(hostAllowed('REGISTRY.npmjs.org.', allow)).toBe(true);
    expect(hostAllowed('api.github.com', allow)).toBe(true);
    expect(hostAllowed('github.com', allow)).toBe(false);
    expect(hostAllowed('evilgithub.com', allow)).toBe(false);
    expect(hostAllowed('registry.npmjs.org.evil.test', allow)).toBe(false);
    expect(hostAllowed('127.0.0.1', allow)).toBe(true);
    expect(hostAllowed('127.0.0.2', allow)).toBe(false);
  });
});

const home = join(tmp.dir, 'home');
const cwd = join(tmp.dir, 'project');
mkdirSync(join(home, '.ssh'), { recursive: true });
mkdirSync(join(cwd, '.git', 'hooks'), { recursive: true });
writeFileSync(join(home, '.netrc'), 'machine x password y\n');
const policy: SandboxPolicy = {
  cwd, home, writable: [cwd], hideHome: true, allowRead: [], denyRead: [join(home, '.ssh'), join(home, '.netrc'), join(home, '.absent')],
  denyWrite: [join(cwd, '.git', 'hooks'), join(cwd, '.git', 'absent')], allowedDomains: [],
};

describe('the bwrap command line', () => {
  it('read-only root, private /tmp and /run, hidden home, the working directory writable, credentials unreadable, every namespace unshared', () => {
    const a = bwrapArgs(policy, 'bash', ['-c', 'true'], cwd, { deniedFile: '/x/denied' });
    const s = a.join(' ');
    expect(s.startsWith('--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /run')).toBe(true);
    expect(s).toContain(`--tmpfs ${home} --bind ${cwd} ${cwd} --ro-bind ${cwd}/.git/hooks ${cwd}/.git/hooks`);
    expect(s).toContain(`--perms 0000 --tmpfs ${home}/.ssh --ro-bind /x/denied ${home}/.netrc`);
    expect(s).not.toContain('.absent');
    expect(s).not.toContain('.git/absent');
    expect(s.endsWith(`--unshare-all --cap-drop ALL --chdir ${cwd} -- bash -c true`)).toBe(true);
    expect(a).not.toContain('--share-net');
  });

  it('with allowed hosts: the proxy socket is mounted and the bridge runs first', () => {
    const a = bwrapArgs({ ...policy, allowedDomains: ['localhost'] }, 'bash', ['-c', 'true'], cwd, { deniedFile: '/x/denied', proxySocket: '/p/proxy.sock', node: '/usr/bin/node' });
    const s = a.join(' ');
    expect(s).toContain('--ro-bind /p/proxy.sock /run/rein-proxy.sock --unshare-all');
    expect(a.slice(a.indexOf('--') + 1, a.indexOf('--') + 3)).toEqual(['/usr/bin/node', '-e']);
    expect(a.slice(-5)).toEqual(['/run/rein-proxy.sock', '3128', 'bash', '-c', 'true']);
  });
});

describe('the refusal note', () => {
  it('names writes, hidden reads and the network when the output shows them; nothing otherwise', () => {
    expect(explainRefusal('sandbox/bubblewrap', policy, 'all good', [])).toBeUndefined();
    expect(explainRefusal('sandbox/bubblewrap', policy, 'cat: missing.txt: No such file or directory', [])).toBeUndefined();
    const w = explainRefusal('sandbox/bubblewrap', policy, "touch: cannot touch '/etc/x': Read-only file system", [])!;
    expect(w).toMatch(/^<sandbox_violations>\n[\s\S]*- a write outside the writable folders/);
    expect(explainRefusal('sandbox/bubblewrap', policy, `cat: ${home}/.ssh/id_rsa: Permission denied`, [])).toMatch(/- a read of a hidden path/);
    expect(explainRefusal('sandbox/bubblewrap', policy, `ls: cannot access '${home}/notes': No such file or directory`, [])).toMatch(/- a read of a hidden path/);
    expect(explainRefusal('sandbox/bubblewrap', policy, 'bash: ./run.sh: Permission denied', [])).toBeUndefined();
    expect(explainRefusal('sandbox/bubblewrap', policy, 'curl: (6) Could not resolve host: example.com', [])).toMatch(/- network access: the sandbox has no network/);
    expect(explainRefusal('sandbox/bubblewrap', { ...policy, allowedDomains: ['a.test'] }, '403', ['b.test:443'])).toMatch(/- network access to b\.test:443: only a\.test may be reached/);
    expect(explainRefusal('sandbox/bubblewrap', policy, 'bwrap: Creating new namespace failed: Operation not permitted', [])).toMatch(/- the sandbox could not start the command: Creating new namespace failed/);
  });
});

describe('without bwrap', () => {
  it('the plugin fails at load with a clear message: rein never runs the commands unsandboxed', async () => {
    expect(bwrapUnavailable('/nonexistent/bwrap')).toMatch(/^\/nonexistent\/bwrap was not found; install bubblewrap \(Debian and Ubuntu: apt-get install bubblewrap/);
    writeFileSync(join(tmp.dir, 'agent.yaml'), 'name: s\ntools: [Bash]\nplugins:\n  sandbox/bubblewrap: { command: /nonexistent/bwrap }\n');
    writeFileSync(join(tmp.dir, 'scenario.yaml'), 'turns:\n  - reply: [{ tool_use: { name: Bash, input: { command: "touch ran.txt" } } }]\n  - reply: [{ text: done }]\n');
    const r = await runBuilt(['run', '--preset', join(tmp.dir, 'agent.yaml'), '--sim', join(tmp.dir, 'scenario.yaml'), '--no-layers', 'go'], { cwd, env: { REIN_HOME: join(tmp.dir, 'rh') } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/sandbox\/bubblewrap: \/nonexistent\/bwrap was not found; install bubblewrap[\s\S]*rein will not run commands without one/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(cwd, 'ran.txt'))).toBe(false);
  }, 60_000);
});
