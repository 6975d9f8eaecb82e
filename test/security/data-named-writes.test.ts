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
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
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
    for (const c of ['tar -xf link.tar', 'unzip -oq plain.zip -d lout', 'uniq lines.txt lout/uniq.txt', 'split -l 1 lines.txt lout/piece', 'tar -xf hook.tar']) execFileSync('bash', ['-c', c], { cwd: s.proj });
  });
  afterAll(() => s.cleanup());
  it('files appear outside and in .git/hooks', () => {
    expect(readdirSync(s.outside).sort()).toEqual(['pieceaa', 'pieceab', 'pieceac', 'q', 'uniq.txt', 'x']);
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
}

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

describe('the patch and revision attacks write protected files when bash runs them', () => {
  it.each(GIT_ATTACKS)('%j', (command) => {
    const s = sandbox();
    try {
      plantRepo(s);
      execFileSync('bash', ['-c', command], { cwd: s.proj, stdio: 'ignore' });
      expect(existsSync(join(s.proj, '.mcp.json')) || existsSync(join(s.proj, '.vscode')) || readdirSync(s.outside).length > 0).toBe(true);
    } finally {
      s.cleanup();
    }
  });
});
