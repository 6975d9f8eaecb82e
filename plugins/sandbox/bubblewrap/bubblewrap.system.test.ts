/**
 * The bubblewrap sandbox with real bwrap, through `rein run` (the built command, the simulator
 * playing a script), judged by effect on the host: escape attempts leave no file outside the
 * working directory, no key text in any result, no connection on a host port, while a build
 * inside the working directory succeeds. Needs Debian's `bubblewrap` (`.ci/run` installs it).
 */
import { execFileSync } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuilt, tempDir } from '../../../testing/support.js';
import { ESCAPE_ATTEMPTS } from '../shared/escapes.js';

const KEY = 'FAKE-PRIVATE-KEY-8c1d6f';
const ENV_SECRET = 'env-secret-5a7e21';

let tmp: ReturnType<typeof tempDir>;
let project: string;
let outside: string;
let home: string;
let listener: Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  tmp = tempDir('rein-bwrap-');
  project = join(tmp.dir, 'project');
  // A host folder the sandbox shows read-only (the private /tmp would hide one under /tmp
  // altogether): this test's own temp folder in /var/tmp, removed after it.
  outside = mkdtempSync('/var/tmp/rein-escape-');
  home = join(tmp.dir, 'home');
  for (const d of [project, join(home, '.ssh'), join(home, '.aws')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), `${KEY}\n`);
  writeFileSync(join(home, '.aws', 'credentials'), `[default]\naws_secret_access_key = ${KEY}\n`);
  writeFileSync(join(home, '.bashrc'), '# untouched\n');
  execFileSync('git', ['init', '-q', project]);
  listener = createServer((s) => { connections++; s.destroy(); });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', () => r()));
  port = (listener.address() as AddressInfo).port;
});
afterAll(() => {
  listener.close();
  rmSync(outside, { recursive: true, force: true });
  tmp.cleanup();
});

interface Out { result: Record<string, any>; results: { text: string; isError: boolean }[]; stderr: string; code: number | null }

let runs = 0;
/** Runs `rein run` in the project with the preset and one scripted turn of Bash calls. */
async function run(preset: string, commands: string[], extra: { env?: NodeJS.ProcessEnv; side?: string; background?: boolean } = {}): Promise<Out> {
  const n = ++runs;
  const reinHome = join(tmp.dir, `rein-home-${n}`);
  // With `background`, the first command runs in the background.
  const calls = commands.map((c, i) => `      - { tool_use: { name: Bash, input: ${JSON.stringify({ command: c, ...(extra.background && i === 0 ? { run_in_background: true } : {}) })} } }`).join('\n');
  writeFileSync(join(tmp.dir, `agent-${n}.yaml`), preset);
  writeFileSync(join(tmp.dir, `scenario-${n}.yaml`), `turns:\n  - reply:\n${calls}\n  - reply: [{ text: "done" }]\n${extra.side ?? ''}`);
  const r = await runBuilt(['run', '--preset', join(tmp.dir, `agent-${n}.yaml`), '--sim', join(tmp.dir, `scenario-${n}.yaml`), '--no-layers', '--output-format', 'json', 'go'], {
    cwd: project, env: { HOME: home, REIN_HOME: reinHome, MY_SERVICE_TOKEN: ENV_SECRET, AWS_SECRET_ACCESS_KEY: ENV_SECRET, ...extra.env }, timeoutMs: 110_000,
  });
  const results: Out['results'] = [];
  const root = join(reinHome, 'sessions');
  if (existsSync(root)) {
    const dir = join(root, readdirSync(root)[0]!);
    for (const line of readFileSync(join(dir, readdirSync(dir).find((f) => f.endsWith('.jsonl'))!), 'utf8').split('\n')) {
      if (!line) continue;
      const e = JSON.parse(line);
      if (e.type === 'message') for (const b of e.message.content) if (b.type === 'tool_result') results.push({ text: typeof b.content === 'string' ? b.content : b.content.map((c: { text?: string }) => c.text ?? '').join('\n'), isError: b.is_error === true });
    }
  }
  return { result: r.stdout.startsWith('{') ? JSON.parse(r.stdout) : {}, results, stderr: r.stderr, code: r.code };
}

const SANDBOXED = (extra = '') => `name: sandboxed
tools: [Bash]
permissions: { mode: bypassPermissions, allowBypassPermissions: true }
plugins:
  sandbox/bubblewrap: {${extra}}
`;

describe('sandbox/bubblewrap (real bwrap)', () => {
  it('every escape attempt fails, even with bypassPermissions, while a build inside the working directory succeeds', async () => {
    const attempts = ESCAPE_ATTEMPTS.map((a) => a.command.replaceAll('OUTSIDE', outside).replaceAll('PORT', String(port)));
    writeFileSync(join(project, 'build.js'), "require('fs').mkdirSync('dist', { recursive: true }); require('fs').writeFileSync('dist/app.js', 'console.log(\"built ok\")');\n");
    const out = await run(SANDBOXED(), ['node build.js && node dist/app.js', ...attempts]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.results).toHaveLength(attempts.length + 1);
    expect(out.results[0]).toEqual({ text: 'built ok', isError: false });
    // Nothing outside, nothing in the hidden home, no git hook planted, no connection, no secret.
    expect(readdirSync(outside)).toEqual([]);
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('# untouched\n');
    expect(existsSync(join(project, '.git', 'hooks', 'post-checkout'))).toBe(false);
    expect(connections).toBe(0);
    const all = out.results.map((r) => r.text).join('\n');
    expect(all).not.toContain(KEY);
    expect(all).not.toContain(ENV_SECRET);
    expect(readFileSync(join(project, 'stolen.txt'), { encoding: 'utf8', flag: 'a+' })).not.toContain(KEY);
    // bypassPermissions still refuses some paths it can see (a redirection, or a file a program's
    // operands write, outside the working directories or protected); the rest ran, inside the sandbox.
    const ran = out.results.slice(1).filter((r) => !r.text.startsWith('Permission to use Bash was denied'));
    expect(ran.length).toBeGreaterThanOrEqual(16);
    expect(ran.filter((r) => r.text.includes('<sandbox_violations>')).length).toBeGreaterThanOrEqual(11);
    expect(all).toMatch(/refused:\n- a write outside the writable folders/);
    expect(all).toMatch(/- a read of a hidden path/);
    expect(all).toMatch(/- network access: the sandbox has no network/);
  }, 120_000);

  it('with allowed hosts, the listed one is reached through the proxy, others get a 403 and a note, direct sockets fail', async () => {
    const web = createHttpServer((_req, res) => res.end('hello from the allowed host'));
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', () => r()));
    const webPort = (web.address() as AddressInfo).port;
    try {
      const out = await run(SANDBOXED(' network: { allowedDomains: [localhost] } '), [
        `curl -sS -m 10 http://localhost:${webPort}/`,
        `curl -sS -m 10 -o /dev/null -w "%{http_code}" http://127.0.0.1:${webPort}/`,
        `curl -sS -m 3 --noproxy "*" http://localhost:${webPort}/`,
        'echo "$HTTPS_PROXY"',
      ]);
      expect(out.results[0]!.text).toBe('hello from the allowed host');
      expect(out.results[1]!.text).toMatch(/^Exit code 0\n403\n\n<sandbox_violations>[\s\S]*network access to 127\.0\.0\.1:\d+: only localhost may be reached/);
      expect(out.results[2]!.isError).toBe(true);
      expect(out.results[2]!.text).toMatch(/Failed to connect|Couldn't connect/);
      expect(out.results[3]!.text).toBe('http://127.0.0.1:3128');
    } finally {
      web.close();
    }
  }, 120_000);

  it('in auto mode a sandboxed command inside the working directory needs no classifier request', async () => {
    const preset = (sandbox: boolean) => `name: auto
tools: [Bash]
permissions: { mode: auto }
${sandbox ? 'plugins:\n  sandbox/bubblewrap: {}\n' : ''}`;
    const side = 'side:\n  - match: { source: classifier }\n    reply: [{ text: "<block>no" }]\n';
    const with_ = await run(preset(true), ['mkdir -p out && cp build.js out/ && echo copied'], { side });
    expect(with_.results[0]!.text).toBe('copied');
    expect(with_.result.side_usage?.classifier).toBeUndefined();
    const without = await run(preset(false), ['cp build.js out/again.js && echo copied'], { side });
    expect(without.result.side_usage?.classifier?.input_tokens).toBeGreaterThan(0);
  }, 120_000);

  it('background shells run in the sandbox too, and shell hooks with hooks: true', async () => {
    const marker = join(outside, 'from-hook.txt');
    const out = await run(`${SANDBOXED(' hooks: true ')}hooks:
  PostToolUse:
    - hooks: [{ type: command, command: "cat > /dev/null; touch ${marker}; echo hook-ran > hook.txt" }]
`, [`node -e "require('fs').writeFileSync('${outside}/bg.txt', 'x')"; echo tried > tried.txt`, 'sleep 1.5'], { background: true });
    expect(out.results[0]!.text).toMatch(/^Command running in background with ID: bash_1/);
    expect(readFileSync(join(project, 'tried.txt'), 'utf8')).toBe('tried\n');
    expect(readdirSync(outside)).toEqual([]);
    expect(readFileSync(join(project, 'hook.txt'), 'utf8')).toBe('hook-ran\n');
  }, 120_000);
});
