/**
 * Class: git run in a folder the agent laid out as a repository. git takes a folder with a `HEAD`,
 * an `objects/` and a `refs/` as a (bare) repository, and reads its `config`, whose
 * `core.fsmonitor` (like `core.pager` or `diff.external`) names a program git runs. Those are
 * ordinary file names an agent may write in acceptEdits, so `cd sub && git status` under
 * `Bash(git *)` would run any program. Through `rein run` with real files, real bash and real git:
 * each way of pointing git at such a folder is denied or refused by git, no planted program runs,
 * and git in the project's own repository still runs. Starting rein in such a folder (the system
 * prompt's git status) runs nothing either.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ids, reinRun, sandbox, type Outcome, type Sandbox } from './harness.js';

/** The lines of a repository `config` that runs `touch marker` whenever git looks at the work tree `worktree`. */
function plantedConfig(worktree: string, marker: string): string[] {
  return ['[core]', 'repositoryformatversion = 0', 'bare = false', `worktree = ${worktree}`, `fsmonitor = "touch ${marker}; false"`];
}

/** Lays `dir` out as a repository whose config runs `touch marker`. */
function plant(dir: string, marker: string): void {
  for (const d of ['objects', 'refs']) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'HEAD'), 'ref: refs/heads/master\n');
  writeFileSync(join(dir, 'config'), `${plantedConfig(dir, marker).join('\n')}\n`);
}

describe('git in a folder laid out as a repository, acceptEdits with Bash(git *)', () => {
  let s: Sandbox;
  let o: Outcome;
  const marker = (name: string) => join(s.outside, `ran-${name}`);
  const calls = () => {
    const sub = join(s.proj, 'sub');
    const writes = ids('gw', [
      { name: 'Write', input: { file_path: join(sub, 'HEAD'), content: 'ref: refs/heads/master\n' } },
      { name: 'Write', input: { file_path: join(sub, 'config'), content: `${plantedConfig(sub, marker('sub')).join('\n')}\n` } },
      { name: 'Write', input: { file_path: join(sub, 'objects/.keep'), content: '' } },
      { name: 'Write', input: { file_path: join(sub, 'refs/.keep'), content: '' } },
    ]);
    const s2 = join(s.proj, 's2');
    const layOut = ['mkdir -p s2/objects s2/refs', "echo 'ref: refs/heads/master' > s2/HEAD", ...plantedConfig(s2, marker('s2')).map((l, i) => `echo '${l}' ${i ? '>>' : '>'} s2/config`)].join(' && ');
    const denied = ids('gd', [
      { name: 'Bash', input: { command: 'cd sub && git status' } },
      { name: 'Bash', input: { command: 'git -C sub status' } },
      { name: 'Bash', input: { command: 'git --git-dir=sub status' } },
      { name: 'Bash', input: { command: 'cd sub && git --bare status' } },
      { name: 'Bash', input: { command: 'env -i git -C s2 status' } },
      { name: 'Bash', input: { command: 'cd "$(echo sub)" && git status' } },
    ]);
    const sameCommand = ids('gs', [{ name: 'Bash', input: { command: `${layOut} && git -C s2 status` } }]);
    const control = ids('gc', [{ name: 'Bash', input: { command: 'git status --short' } }, { name: 'Bash', input: { command: `cd ${join(s.proj, 'plain')} && git status --short` } }]);
    return { writes, denied, sameCommand, control };
  };
  let c: ReturnType<typeof calls>;

  beforeAll(async () => {
    s = sandbox();
    execFileSync('git', ['init', '-q'], { cwd: s.proj });
    mkdirSync(join(s.proj, 'plain'));
    // The planted config really runs its program when git is run there without rein.
    const probe = join(s.root, 'probe');
    plant(probe, marker('probe'));
    spawnSync('git', ['status'], { cwd: probe, stdio: 'ignore' });
    expect(existsSync(marker('probe'))).toBe(true);
    rmSync(marker('probe'));
    c = calls();
    const preset = 'name: git-repo\ntools: [Write, Bash]\npermissions:\n  mode: acceptEdits\n  allow: ["Bash(git *)", "Bash(echo:*)", "Bash(mkdir:*)", "Bash(cd:*)"]\n';
    o = await reinRun(s, preset, [c.writes, c.denied, c.sameCommand, c.control]);
  });
  afterAll(() => s.cleanup());

  it('writes the files (ordinary names inside the project)', () => {
    expect(o.code, o.stderr).toBe(0);
    for (const w of c.writes) expect(o.denials.has(w.id), w.id).toBe(false);
  });
  it('denies git pointed at the folder by cd, -C, --git-dir, --bare, an emptied environment or a directory known only at run time', () => {
    const why = (id: string) => o.denials.get(id) ?? '';
    expect(why(c.denied[0]!.id)).toContain(`git would use ${join(s.proj, 'sub')} as its repository`);
    expect(why(c.denied[1]!.id)).toContain(`git would use ${join(s.proj, 'sub')} as its repository`);
    expect(why(c.denied[2]!.id)).toContain(`it uses ${join(s.proj, 'sub')} as the repository`);
    expect(why(c.denied[3]!.id)).toContain('as the repository');
    expect(why(c.denied[4]!.id)).toContain('environment emptied');
    expect(why(c.denied[5]!.id)).toContain('known only at run time');
  });
  it('has git refuse a folder the same command lays out (the check saw no repository yet)', () => {
    const r = o.results.get(c.sameCommand[0]!.id);
    expect(o.denials.has(c.sameCommand[0]!.id)).toBe(false);
    expect(r?.text).toContain("safe.bareRepository is 'explicit'");
  });
  it('runs none of the planted programs', () => {
    expect(existsSync(marker('sub'))).toBe(false);
    expect(existsSync(marker('s2'))).toBe(false);
  });
  it('still runs git in the project repository, and after a cd into an ordinary folder', () => {
    for (const k of c.control) {
      expect(o.denials.has(k.id), o.denials.get(k.id)).toBe(false);
      expect(o.results.get(k.id)?.isError, o.results.get(k.id)?.text).toBe(false);
    }
  });
});

describe('starting rein in a folder laid out as a repository', () => {
  let s: Sandbox;
  beforeAll(() => { s = sandbox(); });
  afterAll(() => s.cleanup());

  it('runs nothing its config names when the system prompt reads the git state', async () => {
    const marker = join(s.outside, 'ran-at-start');
    plant(s.proj, marker);
    const o = await reinRun(s, 'name: start\nextends: default\n', [], { format: 'text' });
    expect(o.code, o.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });
});
