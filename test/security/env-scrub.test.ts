/**
 * Class: credentials in child processes. With `subprocess-env-scrub` (on in the `auto` preset),
 * the Bash tool, shell hooks and stdio MCP servers started by a real `rein run` see none of the
 * credentials rein itself was started with; what the preset or a server's own `env` sets on
 * purpose stays. Without the plugin they do see them (the control).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../../testing/support.js';
import { ids, reinRun, sandbox, type Outcome, type Sandbox } from './harness.js';

/** Credentials rein is started with (fake values; `--sim` keeps every request local). */
const SECRETS: Record<string, string> = {
  ANTHROPIC_API_KEY: 'sk-ant-fake-1', CLAUDE_CODE_OAUTH_TOKEN: 'fake-oauth-2', ANTHROPIC_AUTH_TOKEN: 'fake-auth-3',
  AWS_SECRET_ACCESS_KEY: 'fake-aws-4', AWS_SESSION_TOKEN: 'fake-aws-5', GOOGLE_APPLICATION_CREDENTIALS: '/fake/gcp-6.json',
  AZURE_CLIENT_SECRET: 'fake-azure-7', OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer fake-otel-8',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'fake-oidc-9', INPUT_ANTHROPIC_API_KEY: 'sk-ant-fake-10',
  OPENAI_API_KEY: 'fake-openai-11', NPM_TOKEN: 'fake-npm-12', DB_PASSWORD: 'fake-db-13', SSH_AUTH_SOCK: '/tmp/fake-agent-14.sock',
};
const KEPT: Record<string, string> = { GITHUB_TOKEN: 'gh-kept', PLAIN_SETTING: 'visible' };
const VALUES = Object.values(SECRETS);

function preset(scrub: string, mcp: string): string {
  return `name: c9
${scrub}
tools: [Bash]
env: { PRESET_API_KEY: set-by-the-preset }
permissions: { mode: bypassPermissions, allowBypassPermissions: true }
mcpServers:
  hostile: { type: stdio, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(mcp)}], env: { SERVER_TOKEN: given-to-the-server } }
hooks:
  SessionStart:
    - hooks: [{ type: command, command: "env > hook-start.env" }]
  PreToolUse:
    - matcher: Bash
      hooks: [{ type: command, command: "env > hook-pre.env" }]
`;
}

const calls = ids('c9', [
  { name: 'Bash', input: { command: 'env > bash.env' } },
  { name: 'Bash', input: { command: 'bash -c "env" > nested.env' } },
  { name: 'mcp__hostile__env', input: { names: [...Object.keys(SECRETS), ...Object.keys(KEPT), 'SERVER_TOKEN', 'PRESET_API_KEY'] } },
]);

async function run(s: Sandbox, scrub: string): Promise<Outcome> {
  return reinRun(s, preset(scrub, join(REPO, 'test/security/fixtures/hostile-mcp.mjs')), [calls], { env: { ...SECRETS, ...KEPT } });
}

describe.each([
  ['the plugin in a preset', 'plugins: { subprocess-env-scrub: {} }'],
  ['the auto preset', 'extends: auto'],
])('credentials are scrubbed from child processes: %s', (_name, scrub) => {
  let s: Sandbox;
  let o: Outcome;
  beforeAll(async () => {
    s = sandbox();
    o = await run(s, scrub);
  });
  afterAll(() => s.cleanup());

  it('Bash, its children and both hooks see no credential, and keep what is not one', () => {
    expect(o.code, o.stderr).toBe(0);
    for (const f of ['bash.env', 'nested.env', 'hook-start.env', 'hook-pre.env']) {
      const env = readFileSync(join(s.proj, f), 'utf8');
      for (const v of VALUES) expect(env, `${f} has ${v}`).not.toContain(v);
      expect(env).toContain('PLAIN_SETTING=visible');
      expect(env).toContain('GITHUB_TOKEN=gh-kept');
      expect(env).toContain('PRESET_API_KEY=set-by-the-preset');
    }
  });
  it('the stdio MCP server sees none either, but its own configured variable', () => {
    const text = o.results.get(calls[2]!.id)?.text ?? '';
    for (const name of Object.keys(SECRETS)) expect(text).toContain(`${name}=(unset)`);
    expect(text).toContain('SERVER_TOKEN=given-to-the-server');
    expect(text).toContain('PLAIN_SETTING=visible');
  });
});

describe('without the plugin (the control)', () => {
  let s: Sandbox;
  beforeAll(async () => {
    s = sandbox();
    await run(s, '');
  });
  afterAll(() => s.cleanup());
  it('child processes inherit the credentials', () => {
    const env = readFileSync(join(s.proj, 'bash.env'), 'utf8');
    expect(env).toContain('ANTHROPIC_API_KEY=sk-ant-fake-1');
    expect(readFileSync(join(s.proj, 'hook-pre.env'), 'utf8')).toContain('AWS_SECRET_ACCESS_KEY=fake-aws-4');
  });
});
