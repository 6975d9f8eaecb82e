/**
 * `rein batch` on this machine, as the built command (bin/rein.js): each task a real `rein run`
 * process against the embedded demo simulator (no API key), in a directory as given or a fresh
 * clone of a real git repository at a revision, then its check in bash; one result line per task.
 */
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../testing/support.js';
import { rein, reinDone } from '../../queue/test/harness.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;

/** A repository whose first commit (tag v1) has FIRST and whose second has SECOND instead. */
function makeRepo(dir: string): void {
  mkdirSync(dir);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.org', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.org' }, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'FIRST'), 'one\n');
  git('add', '.');
  git('commit', '-qm', 'one');
  git('tag', 'v1');
  git('rm', '-q', 'FIRST');
  writeFileSync(join(dir, 'SECOND'), 'two\n');
  git('add', '.');
  git('commit', '-qm', 'two');
}

beforeAll(() => {
  tmp = tempDir('rein-batch-');
  env = { REIN_HOME: join(tmp.dir, 'home'), TMPDIR: join(tmp.dir, 'tmp') };
  mkdirSync(join(tmp.dir, 'tmp'));
  makeRepo(join(tmp.dir, 'repo'));
  mkdirSync(join(tmp.dir, 'here'));
  writeFileSync(join(tmp.dir, 'here', 'README.md'), '# here\n');
});
afterAll(() => tmp?.cleanup());

/** Result lines by task id. */
function results(stdout: string): Record<string, Record<string, unknown>> {
  return Object.fromEntries(stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).map((r) => [r.id as string, r]));
}

/** Waits until `ready()` is true (a check command's process is running). */
async function appears(ready: () => boolean, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > until) throw new Error(`${String(ready)} is still false after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Processes whose command line is exactly `argv` (Linux /proc). */
function running(argv: readonly string[]): number[] {
  const want = argv.join('\0') + '\0';
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((pid) => {
    try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === want; } catch { return false; }
  }).map(Number);
}

describe('rein batch (local)', () => {
  it('runs every task in its directory and reports terminal reason, cost, usage, check exit code and session', async () => {
    writeFileSync(join(tmp.dir, 'tasks.jsonl'), [
      '{"id": "here", "prompt": "What is here?", "cwd": "here", "check": "test -f README.md"}',
      '{"id": "v1", "prompt": "Look around", "repo": "repo", "rev": "v1", "check": "test -f FIRST && ! test -f SECOND"}',
      '{"id": "main", "prompt": "Look around", "repo": "repo", "check": "test -f FIRST"}',
      '{"id": "missing", "prompt": "Anything", "cwd": "nowhere"}',
    ].join('\n') + '\n');
    const r = await reinDone(['batch', 'tasks.jsonl', '--preset', 'minimal', '--concurrency', '2', '--no-progress'], { cwd: tmp.dir, env });
    expect(r.code, r.stderr).toBe(1);
    const by = results(r.stdout);
    expect(Object.keys(by).sort()).toEqual(['here', 'main', 'missing', 'v1']);
    for (const id of ['here', 'v1', 'main']) {
      expect(by[id]).toMatchObject({ terminal_reason: 'end_turn', total_cost_usd: expect.any(Number), session_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      expect((by[id]!.usage as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    }
    expect(by.here).toMatchObject({ check_exit_code: 0, cwd: join(tmp.dir, 'here'), line: 1 });
    // The revision asked for was checked out; HEAD of the default branch is the other one.
    expect(by.v1!.check_exit_code).toBe(0);
    expect(by.main!.check_exit_code).toBe(1);
    expect(by.missing).toMatchObject({ line: 4, error: `cwd ${join(tmp.dir, 'nowhere')}: no such directory` });
    expect(by.missing!.terminal_reason).toBeUndefined();
    // Fresh clones are removed afterwards.
    expect(by.v1!.cwd).toBeUndefined();
    expect(execFileSync('ls', ['-A', join(tmp.dir, 'tmp')], { encoding: 'utf8' })).toBe('');
    expect(r.stderr).toContain('rein: task main (line 3): the check exited 1');
    expect(r.stderr).toContain(`rein: task missing (line 4): cwd ${join(tmp.dir, 'nowhere')}: no such directory`);
  });

  it('exits 0 when every task ends its turn and passes its check; --keep keeps the clone', async () => {
    writeFileSync(join(tmp.dir, 'ok.jsonl'), '{"id": "v1", "prompt": "Look around", "repo": "repo", "rev": "v1", "check": "test -f FIRST"}\n');
    const r = await reinDone(['batch', 'ok.jsonl', '--preset', 'minimal', '--keep', '--no-progress'], { cwd: tmp.dir, env });
    expect(r.code, r.stderr).toBe(0);
    const kept = results(r.stdout).v1!.cwd as string;
    expect(existsSync(join(kept, 'FIRST'))).toBe(true);
  });

  it('bad input: a batch file with problems, or an unknown preset, runs nothing and exits 2', async () => {
    writeFileSync(join(tmp.dir, 'bad.jsonl'), '{"prompt": "ok"}\n{"promt": "typo"}\n');
    const bad = await reinDone(['batch', 'bad.jsonl', '--preset', 'minimal'], { cwd: tmp.dir, env });
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/bad\.jsonl:2: unknown field "promt"/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const noPreset = await reinDone(['batch', 'ok.jsonl', '--preset', 'no-such-preset'], { cwd: tmp.dir, env });
    expect(noPreset.code).toBe(2);
    expect(noPreset.stdout).toBe('');
    expect(noPreset.stderr).not.toMatch(/\n\s+at /);
    const noFile = await reinDone(['batch', 'none.jsonl', '--preset', 'minimal'], { cwd: tmp.dir, env });
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toBe('rein: none.jsonl: cannot read the batch file: no such file\n');
    const dir = await reinDone(['batch', 'here', '--preset', 'minimal'], { cwd: tmp.dir, env });
    expect(dir.code).toBe(2);
    expect(dir.stderr).toBe('rein: here: cannot read the batch file: it is a directory (give the .jsonl file of tasks)\n');
  });

  it('a Redis server that cannot be reached is one clear line and exit 2', async () => {
    const { freePort } = await import('../../queue/test/harness.js');
    const port = await freePort();
    const r = await reinDone(['batch', 'ok.jsonl', '--preset', 'minimal', '--queue', `redis://127.0.0.1:${port}`], { cwd: tmp.dir, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`rein: cannot reach Redis at redis://127.0.0.1:${port}: connection refused (is redis-server running there, on that port?)\n`);
    const w = await reinDone(['worker', '--queue', `redis://127.0.0.1:${port}`], { cwd: tmp.dir, env });
    expect(w.code).toBe(2);
    expect(w.stderr).toBe(`rein: cannot reach Redis at redis://127.0.0.1:${port}: connection refused (is redis-server running there, on that port?)\n`);
    const b = await reinDone(['bench', '-w', 'gen:turns=3', '--preset', 'minimal', '--queue', `redis://127.0.0.1:${port}`], { cwd: tmp.dir, env });
    expect(b.code).toBe(2);
    expect(b.stderr).toBe(`rein: cannot reach Redis at redis://127.0.0.1:${port}: connection refused (is redis-server running there, on that port?)\n`);
  });

  it('a first SIGINT: no task starts, the running check gets SIGINT, every task has a line, exit 130', async () => {
    writeFileSync(join(tmp.dir, 'stop.jsonl'), [
      '{"id": "running", "prompt": "hi", "check": "exec sleep 20.25", "cwd": "here"}',
      '{"id": "next", "prompt": "hi"}',
      '{"id": "last", "prompt": "hi"}',
    ].join('\n') + '\n');
    const p = rein(['batch', 'stop.jsonl', '--preset', 'minimal', '--concurrency', '1', '--no-progress'], { cwd: tmp.dir, env });
    // The check is running once its `sleep` is.
    await appears(() => running(['sleep', '20.25']).length > 0);
    const at = Date.now();
    p.child.kill('SIGINT');
    expect((await p.exited).code).toBe(130);
    // The check's `sleep 20` got the signal too: the batch did not wait for it.
    expect(Date.now() - at).toBeLessThan(15_000);
    expect(running(['sleep', '20.25'])).toEqual([]);
    const by = results(p.stdout());
    expect(Object.keys(by).sort()).toEqual(['last', 'next', 'running']);
    expect(by.running).toMatchObject({ terminal_reason: 'end_turn', check_exit_code: null });
    expect(by.next).toMatchObject({ line: 2, error: 'not run: stopped by SIGINT' });
    expect(by.last).toMatchObject({ line: 3, error: 'not run: stopped by SIGINT' });
    expect(p.stderr()).toContain('rein: SIGINT: no more tasks start; the running ones get SIGINT and report how they ended (SIGINT again to stop now)');
    expect(p.stderr()).not.toMatch(/\n\s+at /);
  });

  it('a second signal exits at once with its code (143 for SIGTERM) and ends the running check', async () => {
    writeFileSync(join(tmp.dir, 'stuck.jsonl'), `{"id": "stuck", "prompt": "hi", "cwd": "here", "check": "trap '' INT; exec sleep 37.25"}\n`);
    const p = rein(['batch', 'stuck.jsonl', '--preset', 'minimal', '--no-progress'], { cwd: tmp.dir, env });
    await appears(() => running(['sleep', '37.25']).length > 0);
    p.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    // The check ignores SIGINT: the first signal does not end it.
    expect(p.child.exitCode).toBeNull();
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(143);
    expect(p.stderr()).toContain('rein: SIGTERM again: stopping now');
    expect(p.stderr()).toContain('rein: 1 task without a result line');
    await new Promise((r) => setTimeout(r, 200));
    expect(running(['sleep', '37.25'])).toEqual([]);
  });

  it('more tasks at once than Node\'s default listener limit (10) print no listener-leak warning', async () => {
    writeFileSync(join(tmp.dir, 'wide.jsonl'), Array.from({ length: 11 }, (_, i) => `{"id": "w${i}", "prompt": "hi", "cwd": "here", "check": "true"}`).join('\n') + '\n');
    const r = await reinDone(['batch', 'wide.jsonl', '--preset', 'minimal', '--concurrency', '11', '--no-progress'], { cwd: tmp.dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(Object.keys(results(r.stdout))).toHaveLength(11);
    expect(r.stderr).toBe('');
  });
});
