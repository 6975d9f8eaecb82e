/**
 * No test touches the user's folders: sessions go to a temp REIN_HOME and the user config layer
 * is looked for in a temp XDG_CONFIG_HOME (kernel/test/setup-home.ts), also when the user has
 * set either before starting the tests.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, REPO, runCli, tempDir } from '../../testing/support.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => { tmp = tempDir('rein-home-test-'); });
afterEach(() => tmp.cleanup());

/** Every file under `dir`, relative. */
const files = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1));

describe('the tests\' own folders', () => {
  it('a session run by a test is written under a temp REIN_HOME', async () => {
    expect(process.env.REIN_HOME!.startsWith(tmpdir())).toBe(true);
    expect(process.env.XDG_CONFIG_HOME!.startsWith(tmpdir())).toBe(true);
    const r = await runCli(['run', '--no-layers', '--output-format', 'json', 'hi'], { cwd: tmp.dir });
    expect(r.code).toBe(0);
    const { session_id: id } = JSON.parse(r.stdout);
    expect(files(process.env.REIN_HOME!).some((f) => f.endsWith(`${id}.jsonl`))).toBe(true);
  });

  it('the user\'s REIN_HOME and XDG_CONFIG_HOME stay untouched when the tests are started with them set', () => {
    const user = join(tmp.dir, 'user');
    mkdirSync(join(user, 'rein'), { recursive: true });
    mkdirSync(join(user, 'config'));
    const r = spawnSync(process.execPath, [join(REPO, 'node_modules/vitest/vitest.mjs'), 'run', 'kernel/test/home.test.ts', '-t', 'a session run by a test'], {
      cwd: REPO,
      env: { ...cleanEnv(), REIN_HOME: join(user, 'rein'), XDG_CONFIG_HOME: join(user, 'config') },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/1 passed/);
    expect(files(user)).toEqual([]);
  }, 150_000);
});
