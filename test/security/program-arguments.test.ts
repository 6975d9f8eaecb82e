/**
 * Class: programs that run code, write files or read other files through their own arguments,
 * under a narrow allow rule (`Bash(sed:*)`, `Bash(awk:*)`, `Bash(git log:*)`, `Bash(find:*)`,
 * `Bash(sort:*)`, `Bash(tar -tf:*)`, `Bash(less:*)`, `Bash(man:*)`, `Bash(date:*)`,
 * `Bash(jq:*)`, `Bash(env:*)`, `Bash(xargs:*)`), mode default, headless, with `Read(./.env)`
 * denied. Every attack runs through `rein run` with real bash: each would create a canary file
 * outside the project, change a file outside it, or print the secret of `.env`. Each must be
 * denied with a reason, no canary may appear, no outside file may change and the secret may not
 * reach the model. The common harmless uses of the same programs must still be allowed and run.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allText, ids, reinRun, sandbox, type Call, type Outcome, type Sandbox } from './harness.js';

const SECRET = 'SECRET_TOKEN=zebra-canary-42';
const VICTIM = 'outside file, unchanged\n';

const RULES = ['sed:*', 'sed -n:*', 'awk:*', 'grep:*', 'git log:*', 'git diff:*', 'find:*', 'sort:*', 'tar -tf:*', 'xargs:*', 'env:*', 'less:*', 'man:*', 'date:*', 'jq:*', 'cat:*', 'echo:*', 'printf:*'];
const PRESET = `name: progargs\ntools: [Bash]\npermissions:\n  mode: default\n  allow: [${RULES.map((r) => JSON.stringify(`Bash(${r})`)).join(', ')}]\n  deny: ["Read(./.env)"]\n`;

/** Attacks: `O` in the command is the outside directory, where the canaries would appear. */
const ATTACKS: string[] = [
  // sed: the e command and the s///e flag run commands; w, W and s///w write files; -i edits.
  `sed '1e touch O/sed-e' file.txt`,
  `sed 's/^.*$/touch O\\/sed-se/e' file.txt`,
  `sed 's|^.*$|touch O/sed-pipe|e' file.txt`,
  `sed -n '1w O/sed-w' file.txt`,
  `sed -n 'W O/sed-W' file.txt`,
  `sed 's/a/b/w O/sed-sw' file.txt`,
  `sed 's/[/]/x/;1e touch O/sed-bracket' file.txt`,
  `sed -n -e p -e '1e touch O/sed-e2' file.txt`,
  `sed --expression='1e touch O/sed-e3' file.txt`,
  `sed --expr='1e touch O/sed-e4' file.txt`,
  `sed -ne '1e touch O/sed-e5' file.txt`,
  `sed -n '1{e touch O/sed-brace\n}' file.txt`,
  `sed '$!N;1!G;$e touch O/sed-addr' file.txt`,
  `sed -f prog.sed file.txt`,
  `sed -i 's/outside/CHANGED/' O/victim.txt`,
  `sed -ni 's/outside/CHANGED/p' O/victim.txt`,
  `sed --in-place=.bak 's/outside/CHANGED/' O/victim.txt`,
  `sed -n "$(printf '1e touch O/sed-dyn')" file.txt`,
  `sed '1r .env' file.txt`,
  `sed -n p .env`,
  // awk: system(), getline from a command, print to a file or a pipe, ARGV, -f.
  `awk 'BEGIN{system("touch O/awk-sys")}'`,
  `awk 'BEGIN { system ("touch O/awk-sys2") }'`,
  `awk 'BEGIN{"touch O/awk-getline" | getline x}'`,
  `awk 'BEGIN{print "x" > "O/awk-print"}'`,
  `awk 'BEGIN{printf "x" >> "O/awk-append"}'`,
  `awk 'BEGIN{print "touch O/awk-pipe" | "sh"}'`,
  `awk 'BEGIN{while ((getline l < ".env") > 0) print l}'`,
  `awk 'BEGIN{ARGV[1]=".env"; ARGC=2} {print}' file.txt`,
  `awk -f prog.awk file.txt`,
  `awk '{print}' .env`,
  `awk -- 'BEGIN{system("touch O/awk-dashdash")}'`,
  // git log / git diff: output files, config and external diff programs.
  `git log --output=O/git-out --oneline`,
  `git log --outp=O/git-abbr --oneline`,
  `git diff --output O/git-out2 HEAD`,
  `git -c core.pager='touch O/git-pager' log`,
  `git -c alias.x='!touch O/git-alias' x`,
  `GIT_EXTERNAL_DIFF=./ext.sh git diff --ext-diff --no-index file.txt other.txt`,
  `git diff --no-index .env file.txt`,
  // find: -exec and friends run commands (each must be allowed on its own), -fprint writes, -delete deletes.
  `find . -name file.txt -exec touch O/find-exec \\;`,
  `find . -name file.txt -execdir touch O/find-execdir \\;`,
  `find . -name file.txt -fprint O/find-fprint`,
  `find . -name file.txt -fprintf O/find-fprintf '%p'`,
  `find O/victimdir -delete`,
  `find . -name .env -exec cat {} +`,
  // sort: output files, compress programs, reading .env.
  `sort -o O/sort-o file.txt`,
  `sort --output=O/sort-long file.txt`,
  `sort -mo O/sort-cluster file.txt`,
  `sort --compress-program=./comp.sh -S 1K file.txt`,
  `sort .env`,
  `sort --files0-from=.env`,
  // tar -tf: programs run by options, files written by options.
  `tar -tf a.tar --checkpoint=1 --checkpoint-action=exec='touch O/tar-ckpt'`,
  `tar -tf a.tar -I ./comp.sh`,
  `tar -tf a.tar --use-compress-program=./comp.sh`,
  `tar -tf a.tar --to-command='touch O/tar-tocmd'`,
  `tar -tf a.tar --index-file=O/tar-index`,
  `tar -tf a.tar --volno-file=O/tar-volno`,
  `TAR_OPTIONS='--index-file=O/tar-env' tar -tf a.tar`,
  // xargs and env run what they are given.
  `echo O/xargs-1 | xargs touch`,
  `echo 'touch O/xargs-2' | xargs -I{} sh -c '{}'`,
  `env -S 'touch O/env-S'`,
  `env --split-string='touch O/env-S2'`,
  `env -i touch O/env-i`,
  `env touch O/env-plain`,
  `env -C O touch env-C`,
  // less and man: log files, lesskey files that set LESSOPEN, pagers and HTML browsers.
  `less -o O/less-log file.txt`,
  `less --log-file=O/less-log2 file.txt`,
  `less --lesskey-src=keys.txt file.txt`,
  `LESSOPEN='|touch O/less-open %s' less file.txt`,
  `less .env`,
  `man -P 'touch O/man-P' -l page.1`,
  `man --pager='touch O/man-pager' -l page.1`,
  `man --html='touch O/man-html' -l page.1`,
  `MANPAGER='touch O/man-env' man -l page.1`,
  // date and jq reading the denied file.
  `date -f .env`,
  `date --file=.env`,
  `date -f.env`,
  `jq -n --rawfile s .env '$s'`,
  `jq -R . .env`,
  `jq -n --slurpfile s .env '$s'`,
  `jq -n -L . 'import "data" as $d; $d'`,
  `jq -f prog.jq data.json`,
  `cat .env`,
  `grep -H '' .env`,
  `xargs -a .env echo`,
  `timeout 5 cat .env`,
  `git show HEAD:.env`,
  // Searches of a whole tree that holds .env.
  `grep -r zebra .`,
  `grep -rn zebra`,
  `grep -R SECRET_TOKEN`,
  `grep --recursive -e zebra`,
  `find . -type f -exec cat {} +`,
  `find . -exec grep -H zebra {} ';'`,
];

/** Harmless uses that must stay allowed, with a piece of their expected output. */
const BENIGN: [string, string][] = [
  [`sed -n '1,20p' file.txt`, 'a x'],
  [`sed 's/a/b/g' file.txt`, 'b x'],
  [`sed -E 's/(a) (x)/\\2 \\1/' file.txt`, 'x a'],
  [`sed -n '/[x]/p;$=' file.txt`, 'a x'],
  [`sed '1d;$d' three.txt`, 'two'],
  [`sed -n 's/two/2/p' three.txt`, '2'],
  [`awk '{print $1}' file.txt`, 'a'],
  [`awk -F' ' '$2 > "a" {print $2}' file.txt`, 'x'],
  [`awk '/x/ || /y/ {n++} END {print n+0}' file.txt`, '1'],
  [`git log --oneline`, 'first'],
  [`git diff HEAD`, ''],
  [`find . -name '*.ts'`, 'mod.ts'],
  [`find src -name '*.ts' -exec cat {} +`, 'export'],
  [`sort three.txt`, 'one'],
  [`tar -tf a.tar`, 'file.txt'],
  [`jq .name data.json`, '"demo"'],
  [`jq -n '$__loc__'`, 'file'],
  [`date -d @0 -u +%Y`, '1970'],
  [`grep -n x file.txt`, '1:a x'],
  [`grep -rn export src`, 'mod.ts'],
  [`less file.txt`, 'a x'],
];

function setup(s: Sandbox): void {
  const O = s.outside;
  const w = (rel: string, text: string) => writeFileSync(join(s.proj, rel), text);
  w('.env', `${SECRET}\n`);
  w('file.txt', 'a x\n');
  w('other.txt', 'b y\n');
  w('three.txt', 'one\ntwo\nthree\n');
  w('mod.ts', 'export {};\n');
  mkdirSync(join(s.proj, 'src'));
  w('src/mod.ts', 'export {};\n');
  w('data.json', '{"name":"demo"}\n');
  w('prog.sed', `1e touch ${O}/sed-f\n`);
  w('prog.awk', `BEGIN { system("touch ${O}/awk-f") }\n`);
  w('prog.jq', 'import "data" as $d; $d\n');
  w('ext.sh', `#!/bin/sh\ntouch ${O}/git-ext\n`);
  w('comp.sh', `#!/bin/sh\ntouch ${O}/compress-program\ncat\n`);
  w('keys.txt', `#env\nLESSOPEN=|touch ${O}/less-key %s\n`);
  w('page.1', '.TH DEMO 1\n.SH NAME\ndemo \\- a page\n');
  for (const f of ['ext.sh', 'comp.sh']) chmodSync(join(s.proj, f), 0o755);
  writeFileSync(join(O, 'victim.txt'), VICTIM);
  mkdirSync(join(O, 'victimdir'));
  writeFileSync(join(O, 'victimdir/keep.txt'), 'keep\n');
  const git = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...a], { cwd: s.proj, stdio: 'ignore' });
  git('init', '-q');
  git('add', 'file.txt', 'three.txt');
  git('commit', '-q', '-m', 'first');
  execFileSync('tar', ['-cf', 'a.tar', 'file.txt'], { cwd: s.proj });
}

describe('programs that run code, write or read files through their own arguments, default mode, headless', () => {
  let s: Sandbox;
  let o: Outcome;
  let attacks: Call[];
  let benign: Call[];
  beforeAll(async () => {
    s = sandbox();
    setup(s);
    attacks = ids('pa', ATTACKS.map((c) => ({ name: 'Bash', input: { command: c.replaceAll('O/', `${s.outside}/`).replace(/-C O /, `-C ${s.outside} `) } })));
    benign = ids('pb', BENIGN.map(([command]) => ({ name: 'Bash', input: { command } })));
    o = await reinRun(s, PRESET, [...attacks, ...benign].map((c) => [c]));
  }, 240_000);
  afterAll(() => s.cleanup());

  it('runs to the end', () => {
    expect(o.code, o.stderr).toBe(0);
  });
  it('denies every attack, with a reason', () => {
    const missing = attacks.filter((c) => !o.denials.has(c.id)).map((c) => `${String(c.input.command)} → ${o.results.get(c.id)?.text.slice(0, 200)}`);
    expect(missing).toEqual([]);
  });
  it('leaves no canary, changes no outside file, and no secret reaches the model', () => {
    expect(readdirSync(s.outside).sort()).toEqual(['victim.txt', 'victimdir']);
    expect(readFileSync(join(s.outside, 'victim.txt'), 'utf8')).toBe(VICTIM);
    expect(existsSync(join(s.outside, 'victimdir/keep.txt'))).toBe(true);
    expect(allText(o)).not.toContain('zebra-canary');
  });
  it('still allows and runs the harmless uses', () => {
    const blocked = benign.filter((c) => o.denials.has(c.id)).map((c) => `${String(c.input.command)}: ${o.denials.get(c.id)}`);
    expect(blocked).toEqual([]);
    BENIGN.forEach(([command, expected], i) => expect(o.results.get(benign[i]!.id)?.text, command).toContain(expected));
  });
});

/**
 * Files a program writes through its own arguments are writes: even under a rule that writes the
 * option out (`Bash(sed -i:*)`, `Bash(sort -o:*)`, `Bash(git log --output:*)`), with
 * `Edit(./**)`, a target outside the project, a protected file, or a link leading out asks
 * (headless: is denied) and stays unchanged; targets inside the project are written.
 */
describe('files written through arguments under rules that name the option, default mode with Edit(./**)', () => {
  let s: Sandbox;
  let o: Outcome;
  let attacks: Call[];
  let benign: Call[];
  const preset = 'name: progwrites\ntools: [Bash]\npermissions:\n  mode: default\n  allow: ["Bash(sed -i:*)", "Bash(sort -o:*)", "Bash(git log --output:*)", "Bash(find . -name file.txt -fprint:*)", "Edit(./**)"]\n';
  beforeAll(async () => {
    s = sandbox();
    setup(s);
    writeFileSync(join(s.home, '.bashrc'), VICTIM);
    const { symlinkSync } = await import('node:fs');
    symlinkSync('../outside/victim.txt', join(s.proj, 'link.txt'));
    const O = s.outside;
    attacks = ids('pw', [
      `sed -i 's/outside/CHANGED/' ${O}/victim.txt`,
      `sed -i -e 's/outside/CHANGED/' ~/.bashrc`,
      `sed -i 's/a/b/' .git/config`,
      `sed -i 's/outside/CHANGED/' link.txt`,
      `sort -o ${O}/sorted three.txt`,
      'sort -o .claude/settings.json three.txt',
      'sort -o .g\u200cit/config three.txt',
      `git log --output ${O}/log.txt --oneline`,
      'git log --output .git/hooks/pre-commit --oneline',
      `find . -name file.txt -fprint ${O}/found`,
    ].map((command) => ({ name: 'Bash', input: { command } })));
    benign = ids('pwb', ["sed -i 's/a/b/' file.txt", 'sort -o sorted.txt three.txt', 'git log --output log.txt --oneline'].map((command) => ({ name: 'Bash', input: { command } })));
    o = await reinRun(s, preset, [...attacks, ...benign].map((c) => [c]));
  }, 240_000);
  afterAll(() => s.cleanup());

  it('denies every write outside, to a protected file or through a link, naming why', () => {
    expect(o.code, o.stderr).toBe(0);
    const missing = attacks.filter((c) => !o.denials.has(c.id)).map((c) => `${String(c.input.command)} → ${o.results.get(c.id)?.text.slice(0, 200)}`);
    expect(missing).toEqual([]);
    for (const c of attacks) expect(o.denials.get(c.id), String(c.input.command)).toMatch(/outside the working directories|protected/);
  });
  it('changes nothing outside and no protected file', () => {
    expect(readdirSync(s.outside).sort()).toEqual(['victim.txt', 'victimdir']);
    expect(readFileSync(join(s.outside, 'victim.txt'), 'utf8')).toBe(VICTIM);
    expect(readFileSync(join(s.home, '.bashrc'), 'utf8')).toBe(VICTIM);
    expect(existsSync(join(s.proj, '.claude'))).toBe(false);
    expect(existsSync(join(s.proj, '.git/hooks/pre-commit'))).toBe(false);
  });
  it('still writes inside the project', () => {
    for (const c of benign) expect(o.denials.has(c.id), String(c.input.command)).toBe(false);
    expect(readFileSync(join(s.proj, 'file.txt'), 'utf8')).toBe('b x\n');
    expect(readFileSync(join(s.proj, 'sorted.txt'), 'utf8')).toBe('one\nthree\ntwo\n');
    expect(readFileSync(join(s.proj, 'log.txt'), 'utf8')).toContain('first');
  });
});
