/**
 * Class: programs that write files named by data rather than by their arguments: `tar -x` and
 * `unzip` write the archive's members, `uniq IN OUT` its second operand, `split IN PREFIX` pieces
 * named after the prefix, `tar -c` its archive. A project link `lout` → `../outside` (a link a
 * cloned repository can carry, or an earlier `ln -s` made) sends a member named `lout/x` outside;
 * a member `.git/hooks/pre-commit` or `.mcp.json` is a protected file. Under narrow allow rules
 * (`Bash(tar:*)`, `Bash(unzip:*)`, `Bash(uniq:*)`, `Bash(split:*)`), in acceptEdits and in
 * default mode, each must be denied and nothing may appear outside or in a protected place; an
 * extraction that stays inside the project is still allowed and runs. Likewise `git apply`, `patch`,
 * `git checkout`, `git switch` and `git restore` write the paths a patch or a revision names:
 * a branch or patch adding `.mcp.json` or `.vscode/tasks.json` must be denied; `git clone` into
 * a protected folder or through the link likewise.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ids, reinRun, sandbox, type Outcome, type Sandbox } from './harness.js';

/** Archives built with the real tar and zip in a scratch folder next to the project. */
function plant(s: Sandbox): void {
  const scratch = join(s.root, 'scratch');
  for (const d of ['lout', '.git/hooks', 'top/lout', 'p', 'q']) mkdirSync(join(scratch, d), { recursive: true });
  writeFileSync(join(scratch, 'lout/x'), 'through the link\n');
  writeFileSync(join(scratch, '.git/hooks/pre-commit'), '#!/bin/sh\ntouch hooked\n');
  writeFileSync(join(scratch, '.mcp.json'), '{"mcpServers":{}}\n');
  writeFileSync(join(scratch, 'top/lout/x'), 'stripped into the link\n');
  writeFileSync(join(scratch, 'p/ok.txt'), 'inside\n');
  writeFileSync(join(scratch, 'q/ok.txt'), 'inside\n');
  const tar = (out: string, ...members: string[]) => execFileSync('tar', ['cf', join(s.proj, out), '-C', scratch, ...members]);
  tar('link.tar', 'lout/x');
  execFileSync('tar', ['czf', join(s.proj, 'link.tgz'), '-C', scratch, 'lout/x']);
  tar('hook.tar', '.git/hooks/pre-commit');
  tar('mcp.tar', '.mcp.json');
  tar('top.tar', 'top/lout/x');
  tar('plain.tar', 'p/ok.txt');
  // `./.git/hooks/pre-commit`: GNU tar counts the `.` as the first component, so
  // --strip-components=1 leaves `.git/hooks/pre-commit`.
  tar('dothook.tar', './.git/hooks/pre-commit');
  // `.//<outside>/abs.txt`: after --strip-components=1 the name starts with `/`, and tar 1.34
  // writes it there, outside the destination.
  execFileSync('tar', ['cf', join(s.proj, 'abs.tar'), '-P', '-C', scratch, `--transform=s,^p/ok.txt,.//${s.outside.replace(/^\/+/, '')}/abs.txt,`, 'p/ok.txt']);
  const zip = (out: string, ...members: string[]) => execFileSync('zip', ['-q', join(s.proj, out), ...members], { cwd: scratch });
  zip('link.zip', 'lout/x');
  zip('hook.zip', '.git/hooks/pre-commit');
  zip('plain.zip', 'q/ok.txt');
  writeFileSync(join(s.proj, 'lines.txt'), 'a\nb\nc\n');
  execFileSync('git', ['init', '-q'], { cwd: s.proj });
  symlinkSync('../outside', join(s.proj, 'lout'));
}

const ATTACKS = [
  'tar -xf link.tar', 'tar xf link.tar', 'tar --extract --file=link.tar', 'tar -xzf link.tgz', 'tar -x -f link.tar -C .',
  'tar -xf plain.tar -C lout', 'tar -xf top.tar --strip-components=1', 'tar --ext -f link.tar', 'tar -xf link.tar --transform=s,^q,r,',
  'cat link.tar | tar -x', 'tar -xf hook.tar', 'tar -xf mcp.tar', 'tar -cf lout/made.tar lines.txt', 'tar cf lout/made2.tar lines.txt',
  'unzip -o -q link.zip', 'unzip -oq plain.zip -d lout', 'unzip -o -q hook.zip', 'unzip -o -: link.zip',
  'uniq lines.txt lout/uniq.txt', 'split -l 1 lines.txt lout/piece', 'split -l 1 -a 1 lines.txt .bashr',
  'tar -xf dothook.tar --strip-components=1', 'tar -xf abs.tar --strip-components=1',
];
const BENIGN = ['tar -xf plain.tar', 'unzip -o -q plain.zip', 'tar -tf link.tar', 'uniq lines.txt', 'uniq lines.txt uniq.txt', 'split -l 1 lines.txt piece'];

const PRESET = (mode: string) => `name: data-writes\ntools: [Bash]\npermissions:\n  mode: ${mode}\n  allow: ["Bash(tar:*)", "Bash(unzip:*)", "Bash(uniq:*)", "Bash(split:*)", "Bash(cat:*)"]\n`;

describe.each(['acceptEdits', 'default'])('files named by archives and prefixes, %s mode', (mode) => {
  const attacks = ids('dw', ATTACKS.map((command) => ({ name: 'Bash', input: { command } })));
  const benign = ids('dwok', BENIGN.map((command) => ({ name: 'Bash', input: { command } })));
  let s: Sandbox;
  let o: Outcome;
  beforeAll(async () => {
    s = sandbox();
    plant(s);
    o = await reinRun(s, PRESET(mode), [[...attacks, ...benign]]);
  });
  afterAll(() => s.cleanup());

  it('the run ends normally', () => {
    expect(o.code, o.stderr).toBe(0);
  });
  it.each(ATTACKS.map((command, i) => [command, i] as const))('%j is denied with a reason', (_command, i) => {
    expect(o.denials.get(attacks[i]!.id), `no denial for ${attacks[i]!.id}`).toMatch(/\w/);
  });
  it('nothing appeared outside the project, in .git/hooks, in .mcp.json or as a shell start-up file', () => {
    expect(readdirSync(s.outside)).toEqual([]);
    expect(existsSync(join(s.proj, '.git/hooks/pre-commit'))).toBe(false);
    expect(existsSync(join(s.proj, '.mcp.json'))).toBe(false);
    expect(readdirSync(s.proj).filter((n) => n.startsWith('.bashr'))).toEqual([]);
  });
  it.each(BENIGN.map((command, i) => [command, i] as const))('%j stays allowed and runs', (_command, i) => {
    const id = benign[i]!.id;
    expect(o.denials.get(id)).toBeUndefined();
    expect(o.results.get(id)?.isError, o.results.get(id)?.text).toBe(false);
  });
  it('the allowed extractions wrote inside the project', () => {
    expect(existsSync(join(s.proj, 'p/ok.txt'))).toBe(true);
    expect(existsSync(join(s.proj, 'q/ok.txt'))).toBe(true);
  });
});

describe('the attacks write where the test says when bash runs them', () => {
  let s: Sandbox;
  beforeAll(() => {
    s = sandbox();
    plant(s);
    for (const c of ['tar -xf link.tar', 'unzip -oq plain.zip -d lout', 'uniq lines.txt lout/uniq.txt', 'split -l 1 lines.txt lout/piece', 'tar -xf abs.tar --strip-components=1']) execFileSync('bash', ['-c', c], { cwd: s.proj });
  });
  afterAll(() => s.cleanup());
  it('files appear outside, one through an absolute name left by --strip-components', () => {
    expect(readdirSync(s.outside).sort()).toEqual(['abs.txt', 'pieceaa', 'pieceab', 'pieceac', 'q', 'uniq.txt', 'x']);
  });
  it.each(['tar -xf hook.tar', 'tar -xf dothook.tar --strip-components=1'])('%j writes .git/hooks/pre-commit', (command) => {
    rmSync(join(s.proj, '.git/hooks/pre-commit'), { force: true });
    execFileSync('bash', ['-c', command], { cwd: s.proj });
    expect(existsSync(join(s.proj, '.git/hooks/pre-commit'))).toBe(true);
  });
});

/** A repository whose branch `evilmcp` adds `.mcp.json` and `.vscode/tasks.json`, and patches that add them. */
function plantRepo(s: Sandbox): void {
  const git = (...a: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...a], { cwd: s.proj });
  git('init', '-q', '-b', 'main');
  mkdirSync(join(s.proj, 'src'));
  writeFileSync(join(s.proj, 'src/a.ts'), 'export const a = 1;\n');
  git('add', '.');
  git('commit', '-q', '-m', 'start');
  git('checkout', '-q', '-b', 'evilmcp');
  mkdirSync(join(s.proj, '.vscode'));
  writeFileSync(join(s.proj, '.mcp.json'), '{"mcpServers":{"x":{"command":"touch"}}}\n');
  writeFileSync(join(s.proj, '.vscode/tasks.json'), '{}\n');
  git('add', '.');
  git('commit', '-q', '-m', 'servers');
  git('checkout', '-q', 'main');
  const add = (path: string, line: string) => `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+${line}\n`;
  writeFileSync(join(s.proj, 'mcp.patch'), add('.mcp.json', '{}'));
  writeFileSync(join(s.proj, 'vscode.patch'), add('.vscode/tasks.json', '{}'));
  writeFileSync(join(s.proj, 'ok.patch'), add('src/b.ts', 'export const b = 2;'));
  symlinkSync('../outside', join(s.proj, 'lout'));
  // A repository in `sub` (its own, not the project's) whose branch `evilsub` adds `.vscode/tasks.json`.
  const sub = (...a: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...a], { cwd: join(s.proj, 'sub') });
  mkdirSync(join(s.proj, 'sub'));
  sub('init', '-q', '-b', 'main');
  writeFileSync(join(s.proj, 'sub/readme.txt'), 'sub\n');
  sub('add', '.');
  sub('commit', '-q', '-m', 'start');
  sub('checkout', '-q', '-b', 'evilsub');
  mkdirSync(join(s.proj, 'sub/.vscode'));
  writeFileSync(join(s.proj, 'sub/.vscode/tasks.json'), '{}\n');
  sub('add', '.');
  sub('commit', '-q', '-m', 'tasks');
  sub('checkout', '-q', 'main');
}

/** The same writes behind git's global options, its environment, or a `cd` into another repository. */
const GIT_HIDDEN = [
  'git -C . checkout -q evilmcp', 'git -c core.quotepath=off apply mcp.patch', 'git --git-dir=.git restore --source=evilmcp .',
  'git --no-pager checkout -q evilmcp -- .vscode', 'cd sub && git checkout -q evilsub', 'GIT_WORK_TREE=. git checkout -q evilmcp',
];
const GIT_HIDDEN_BENIGN = ['git checkout -q -- src/a.ts', 'git -C src status', 'git apply ok.patch'];
const wroteProtected = (s: Sandbox) => ['.mcp.json', '.vscode', 'sub/.vscode'].some((f) => existsSync(join(s.proj, f))) || readdirSync(s.outside).length > 0;

describe('git writes behind global options, GIT_ variables and a cd, under Bash(git:*)', () => {
  const attacks = ids('gh', GIT_HIDDEN.map((command) => ({ name: 'Bash', input: { command } })));
  const benign = ids('ghok', GIT_HIDDEN_BENIGN.map((command) => ({ name: 'Bash', input: { command } })));
  let s: Sandbox;
  let o: Outcome;
  beforeAll(async () => {
    s = sandbox();
    plantRepo(s);
    const preset = 'name: git-hidden\ntools: [Bash]\npermissions:\n  mode: default\n  allow: ["Bash(git:*)", "Bash(cd:*)", "Bash(GIT_WORK_TREE=. git:*)"]\n';
    o = await reinRun(s, preset, [[...attacks, ...benign]]);
  });
  afterAll(() => s.cleanup());

  it('the run ends normally', () => {
    expect(o.code, o.stderr).toBe(0);
  });
  it.each(GIT_HIDDEN.map((command, i) => [command, i] as const))('%j is denied with a reason', (_command, i) => {
    expect(o.denials.get(attacks[i]!.id), `no denial for ${attacks[i]!.id}`).toMatch(/\w/);
  });
  it('no protected file appeared, nothing outside', () => {
    expect(wroteProtected(s)).toBe(false);
  });
  it.each(GIT_HIDDEN_BENIGN.map((command, i) => [command, i] as const))('%j stays allowed and runs', (_command, i) => {
    const id = benign[i]!.id;
    expect(o.denials.get(id)).toBeUndefined();
    expect(o.results.get(id)?.isError, o.results.get(id)?.text).toBe(false);
  });
});

const GIT_ATTACKS = [
  'git apply mcp.patch', 'git apply -v vscode.patch', 'git apply -p1 mcp.patch', 'patch -p1 < mcp.patch', 'patch -p1 -i vscode.patch',
  'git checkout -q evilmcp', 'git checkout -q evilmcp -- .', 'git checkout evilmcp -- .mcp.json', 'git switch -q evilmcp', 'git restore --source=evilmcp .',
  'git clone -q ./.git .vscode', 'git clone -q ./.git lout/cloned',
];
const GIT_BENIGN = ['git apply ok.patch', 'git checkout -q -- src/a.ts', 'git restore src/a.ts', 'git status', 'git apply --stat mcp.patch', 'git clone -q ./.git copy'];

describe('files named by patches and revisions, default mode', () => {
  const attacks = ids('gw', GIT_ATTACKS.map((command) => ({ name: 'Bash', input: { command } })));
  const benign = ids('gwok', GIT_BENIGN.map((command) => ({ name: 'Bash', input: { command } })));
  let s: Sandbox;
  let o: Outcome;
  beforeAll(async () => {
    s = sandbox();
    plantRepo(s);
    const preset = 'name: git-writes\ntools: [Bash]\npermissions:\n  mode: default\n  allow: ["Bash(git clone:*)", "Bash(git apply:*)", "Bash(patch:*)", "Bash(git checkout:*)", "Bash(git switch:*)", "Bash(git restore:*)", "Bash(git status:*)"]\n';
    o = await reinRun(s, preset, [[...attacks, ...benign]]);
  });
  afterAll(() => s.cleanup());

  it('the run ends normally', () => {
    expect(o.code, o.stderr).toBe(0);
  });
  it.each(GIT_ATTACKS.map((command, i) => [command, i] as const))('%j is denied with a reason', (_command, i) => {
    expect(o.denials.get(attacks[i]!.id), `no denial for ${attacks[i]!.id}`).toMatch(/\w/);
  });
  it('no protected file appeared, nothing outside', () => {
    expect(existsSync(join(s.proj, '.mcp.json'))).toBe(false);
    expect(existsSync(join(s.proj, '.vscode'))).toBe(false);
    expect(readdirSync(s.outside)).toEqual([]);
  });
  it.each(GIT_BENIGN.map((command, i) => [command, i] as const))('%j stays allowed and runs', (_command, i) => {
    const id = benign[i]!.id;
    expect(o.denials.get(id)).toBeUndefined();
    expect(o.results.get(id)?.isError, o.results.get(id)?.text).toBe(false);
  });
  it('the allowed patch and clone wrote their files', () => {
    expect(existsSync(join(s.proj, 'src/b.ts'))).toBe(true);
    expect(existsSync(join(s.proj, 'copy/src/a.ts'))).toBe(true);
  });
});

describe('listing what git checkout writes', () => {
  const calls = ids('ghf', [{ name: 'Bash', input: { command: 'git checkout -q evilmcp' } }]);
  let s: Sandbox;
  let o: Outcome;
  beforeAll(async () => {
    s = sandbox();
    plantRepo(s);
    // A clean filter the repository configures for `*.ts`, and a file git must compare again (its
    // time changed): git diff runs the filter on it unless rein switches it off for the listing.
    execFileSync('git', ['config', 'filter.mark.clean', `sh -c 'touch ${join(s.root, 'filter-ran')}; cat'`], { cwd: s.proj });
    writeFileSync(join(s.proj, '.gitattributes'), '*.ts filter=mark\n');
    utimesSync(join(s.proj, 'src/a.ts'), new Date(), new Date(Date.now() + 60_000));
    o = await reinRun(s, 'name: git-filter\ntools: [Bash]\npermissions:\n  mode: default\n  allow: ["Bash(git checkout:*)"]\n', [calls]);
  });
  afterAll(() => s.cleanup());
  it('finds the protected files and runs no clean filter of the repository', () => {
    expect(o.code, o.stderr).toBe(0);
    expect(o.denials.get(calls[0]!.id)).toMatch(/\.mcp\.json|\.vscode/);
    expect(existsSync(join(s.root, 'filter-ran'))).toBe(false);
  });
});

describe('the patch and revision attacks write protected files when bash runs them', () => {
  it.each([...GIT_ATTACKS, ...GIT_HIDDEN])('%j', (command) => {
    const s = sandbox();
    try {
      plantRepo(s);
      execFileSync('bash', ['-c', command], { cwd: s.proj, stdio: 'ignore' });
      expect(wroteProtected(s)).toBe(true);
    } finally {
      s.cleanup();
    }
  });
});

describe('the programs rein runs to list an archive or a patch are not the project\'s', () => {
  // Under `npx`, PATH starts with <project>/node_modules/.bin, where the agent can write files.
  const calls = ids('lp', ['tar -xf plain.tar', 'unzip -o -q plain.zip', 'git apply ok.patch', 'tar -xf fifo.tar'].map((command) => ({ name: 'Bash', input: { command } })));
  let s: Sandbox;
  let o: Outcome;
  beforeAll(async () => {
    s = sandbox();
    plant(s);
    writeFileSync(join(s.proj, 'ok.patch'), 'diff --git a/src/b.ts b/src/b.ts\nnew file mode 100644\n--- /dev/null\n+++ b/src/b.ts\n@@ -0,0 +1 @@\n+export const b = 2;\n');
    execFileSync('mkfifo', [join(s.proj, 'fifo.tar')]);
    const bin = join(s.proj, 'node_modules/.bin');
    mkdirSync(bin, { recursive: true });
    mkdirSync(join(s.root, 'marks'));
    // Each planted program leaves a mark when run the way rein lists with, then runs the real one.
    for (const [name, listing] of [['tar', '*--force-local*'], ['unzip', '*-Z1*'], ['git', '*--numstat*|*diff*']] as const) {
      const real = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
      writeFileSync(join(bin, name), `#!/bin/sh\ncase "$*" in ${listing}) touch '${join(s.root, 'marks', name)}';; esac\nexec '${real}' "$@"\n`);
      chmodSync(join(bin, name), 0o755);
    }
    const preset = 'name: listing-path\ntools: [Bash]\npermissions:\n  mode: default\n  allow: ["Bash(tar:*)", "Bash(unzip:*)", "Bash(git apply:*)"]\n';
    o = await reinRun(s, preset, [calls], { env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` } });
  });
  afterAll(() => s.cleanup());

  it('the run ends normally', () => {
    expect(o.code, o.stderr).toBe(0);
  });
  it('no planted program ran while rein judged the calls', () => {
    expect(readdirSync(join(s.root, 'marks'))).toEqual([]);
  });
  it.each([0, 1, 2])('extraction %i is still allowed and runs', (i) => {
    expect(o.denials.get(calls[i]!.id)).toBeUndefined();
    expect(o.results.get(calls[i]!.id)?.isError, o.results.get(calls[i]!.id)?.text).toBe(false);
  });
  it('an archive that is a FIFO is asked about without being read', () => {
    expect(o.denials.get(calls[3]!.id)).toMatch(/not a regular file/);
  });
});

describe('extractions into a project with a hook script, under Bash(tar:*), Bash(unzip:*), Bash(git apply:*), Bash(git checkout:*), Bash(rm:*)', () => {
  const BENIGN_HOOKED = ['tar -xf ok.tar', 'tar -xf scripts.tar', 'unzip -o -q ok.zip', 'git apply ok.patch'];
  const ATTACKS_HOOKED = ['rm -rf scripts', 'tar -xf hookover.tar', 'git checkout -q main'];
  const benign = ids('hk', BENIGN_HOOKED.map((command) => ({ name: 'Bash', input: { command } })));
  const attacks = ids('hkx', ATTACKS_HOOKED.map((command) => ({ name: 'Bash', input: { command } })));
  let s: Sandbox;
  let o: Outcome;
  beforeAll(async () => {
    s = sandbox();
    const scratch = join(s.root, 'scratch');
    mkdirSync(join(scratch, 'p'), { recursive: true });
    mkdirSync(join(scratch, 'scripts'));
    writeFileSync(join(scratch, 'p/ok.txt'), 'inside\n');
    writeFileSync(join(scratch, 'scripts/new.sh'), 'echo new\n');
    writeFileSync(join(scratch, 'scripts/hook.sh'), '#!/bin/sh\ntouch replaced\n');
    execFileSync('tar', ['cf', join(s.proj, 'ok.tar'), '-C', scratch, 'p/ok.txt']);
    execFileSync('tar', ['cf', join(s.proj, 'scripts.tar'), '-C', scratch, '--no-recursion', 'scripts', 'scripts/new.sh']);
    execFileSync('tar', ['cf', join(s.proj, 'hookover.tar'), '-C', scratch, 'scripts/hook.sh']);
    execFileSync('zip', ['-q', join(s.proj, 'ok.zip'), 'p/ok.txt'], { cwd: scratch });
    writeFileSync(join(s.proj, 'ok.patch'), 'diff --git a/src/b.ts b/src/b.ts\nnew file mode 100644\n--- /dev/null\n+++ b/src/b.ts\n@@ -0,0 +1 @@\n+export const b = 2;\n');
    mkdirSync(join(s.proj, 'scripts'));
    writeFileSync(join(s.proj, 'scripts/hook.sh'), '#!/bin/sh\nexit 0\n');
    const preset = `name: hooked\ntools: [Bash]\npermissions:\n  mode: default\n  allow: ["Bash(tar:*)", "Bash(unzip:*)", "Bash(git apply:*)", "Bash(git checkout:*)", "Bash(rm:*)"]\nhooks:\n  PreToolUse:\n    - hooks: [{ type: command, command: "bash scripts/hook.sh" }]\n`;
    o = await reinRun(s, preset, [[...benign, ...attacks]]);
  });
  afterAll(() => s.cleanup());

  it('the run ends normally', () => {
    expect(o.code, o.stderr).toBe(0);
  });
  it.each(BENIGN_HOOKED.map((command, i) => [command, i] as const))('%j stays allowed and runs', (_command, i) => {
    const id = benign[i]!.id;
    expect(o.denials.get(id)).toBeUndefined();
    expect(o.results.get(id)?.isError, o.results.get(id)?.text).toBe(false);
  });
  it.each(ATTACKS_HOOKED.map((command, i) => [command, i] as const))('%j is still asked about (denied headless)', (_command, i) => {
    expect(o.denials.get(attacks[i]!.id), `no denial for ${attacks[i]!.id}`).toMatch(/\w/);
  });
  it('the extractions wrote their files and the hook script is untouched', () => {
    expect(existsSync(join(s.proj, 'p/ok.txt'))).toBe(true);
    expect(existsSync(join(s.proj, 'scripts/new.sh'))).toBe(true);
    expect(existsSync(join(s.proj, 'src/b.ts'))).toBe(true);
    expect(readFileSync(join(s.proj, 'scripts/hook.sh'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
  });
});
