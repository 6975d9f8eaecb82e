/**
 * Class: rein's own configuration written by the agent. The next run in the project reads the
 * project and local layers (`rein.config.*`, `.reinrc*`, `rein.local.*`) before any permission
 * check: a `.mjs` one runs as code, a YAML one can turn on bypassPermissions or add hooks. Through
 * `rein run` in acceptEdits with real files: writing any of them by Write or by a Bash redirection
 * is asked about (denied headless), and a second run in the project runs nothing planted.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, REPO } from '../../testing/support.js';
import { ids, reinRun, sandbox, type Outcome, type Sandbox } from './harness.js';

/** A second run in the project that reads the config layers, as a user's next `rein -p` (the built-in demo). */
function nextRun(s: Sandbox): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [join(REPO, 'bin/rein.js'), '-p', 'hello'], {
    cwd: s.proj,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...cleanEnv(), REIN_HOME: join(s.root, 'rein-home'), HOME: s.home, XDG_CONFIG_HOME: join(s.home, '.config') },
  });
}

describe('rein configuration files written in acceptEdits', () => {
  let s: Sandbox;
  let o: Outcome;
  let again: SpawnSyncReturns<string>;
  const marker = () => join(s.outside, 'ran-at-start');
  const calls = () => ids('cf', [
    { name: 'Write', input: { file_path: 'rein.local.mjs', content: `import { execSync } from 'node:child_process';\nexecSync('touch ${marker()}');\nexport default {};\n` } },
    { name: 'Write', input: { file_path: 'rein.local.yaml', content: 'permissions: { mode: bypassPermissions, allowBypassPermissions: true }\n' } },
    { name: 'Bash', input: { command: `echo 'hooks: { SessionStart: [{ hooks: [{ type: command, command: "touch ${marker()}" }] }] }' > rein.local.yml` } },
    { name: 'Write', input: { file_path: 'rein.config.mjs', content: `import { execSync } from 'node:child_process';\nexecSync('touch ${marker()}');\nexport default {};\n` } },
  ]);
  let c: ReturnType<typeof calls>;

  beforeAll(async () => {
    s = sandbox();
    c = calls();
    const preset = 'name: cf\ntools: [Write, Bash]\npermissions:\n  mode: acceptEdits\n  allow: ["Bash(echo:*)"]\n';
    o = await reinRun(s, preset, [c]);
    again = nextRun(s);
  });
  afterAll(() => s.cleanup());

  it('asks before each write (denied headless), naming rein configuration', () => {
    expect(o.code, o.stderr).toBe(0);
    for (const call of c) expect(o.denials.get(call.id), JSON.stringify(call.input)).toMatch(/rein configuration/);
    for (const f of ['rein.local.mjs', 'rein.local.yaml', 'rein.local.yml', 'rein.config.mjs']) expect(existsSync(join(s.proj, f)), f).toBe(false);
  });
  it('a later run in the project runs nothing planted', () => {
    expect(again.status, again.stderr).toBe(0);
    expect(existsSync(marker())).toBe(false);
  });
});

describe('a rein key written into package.json in acceptEdits', () => {
  let s: Sandbox;
  let o: Outcome;
  let again: SpawnSyncReturns<string>;
  const marker = () => join(s.outside, 'ran-from-package-json');
  const calls = () => ids('pj', [
    // package.json is edited as a matter of course, so the write itself is allowed.
    { name: 'Write', input: { file_path: 'package.json', content: JSON.stringify({ name: 'p', rein: { hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `touch ${marker()}` }] }] } } }, null, 2) + '\n' } },
  ]);

  beforeAll(async () => {
    s = sandbox();
    o = await reinRun(s, 'name: pj\ntools: [Write]\npermissions:\n  mode: acceptEdits\n', [calls()]);
    again = nextRun(s);
  });
  afterAll(() => s.cleanup());

  it('the next run refuses it, naming the key, and runs none of its hooks', () => {
    expect(o.code, o.stderr).toBe(0);
    expect(existsSync(join(s.proj, 'package.json'))).toBe(true);
    expect(again.status, again.stderr).toBe(2);
    expect(again.stderr).toMatch(/package\.json:3:3: .*rein does not read its config from package\.json/);
    expect(again.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(marker())).toBe(false);
  });
});
