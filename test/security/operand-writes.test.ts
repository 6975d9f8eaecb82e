/**
 * Class: programs that write files through their own operands (`cp`, `mv`, `install`, `ln`,
 * `tee`, `dd`, `truncate`, `touch`, `mkdir`, `rm`, `chmod`) and script interpreters given a
 * program on the command line or on standard input (`perl -e`, `perl -pi -e`, `python3 -c`,
 * `python3 <<EOF`, `node -e`), under narrow allow rules (`Bash(cp:*)`, `Bash(tee:*)`, ...,
 * `Bash(perl:*)`, `Bash(python3:*)`, `Bash(node:*)`) plus `Edit(./**)`, mode default, headless.
 * Every attack runs through `rein run` with real bash: each would create a canary outside the
 * project, change a file outside it or in the home directory, or write a protected file of the
 * project. Each must be denied with a reason, and nothing may be written. The same programs'
 * ordinary uses inside the project must still be allowed and do their work.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ids, reinRun, sandbox, type Call, type Outcome, type Sandbox } from './harness.js';

const VICTIM = 'outside file, unchanged\n';
const RULES = ['cp', 'mv', 'install', 'ln', 'tee', 'dd', 'truncate', 'touch', 'mkdir', 'rm', 'chmod', 'cat', 'echo', 'find', 'xargs', 'env', 'timeout', 'perl', 'python3', 'node'];
const PRESET = `name: operands\ntools: [Bash]\npermissions:\n  mode: default\n  allow: [${[...RULES.map((r) => `Bash(${r}:*)`), 'Edit(./**)'].map((r) => JSON.stringify(r)).join(', ')}]\n`;

/** Attacks: `O` is the outside directory, where canaries would appear; `~` is the run's HOME. */
const ATTACKS: string[] = [
  'cp file.txt ~/.bashrc',
  'cp -t O file.txt',
  'cp --target-directory=O file.txt',
  'cp --target=O file.txt',
  'cp -tO file.txt',
  'cp -rt O src',
  'cp file.txt -T O/cp-T',
  'cp -- file.txt O/cp-dashdash',
  'cp file.txt other.txt O',
  'cp payload/.mcp.json .',
  'cp -r payload/. .',
  'cp -r payload newdir && cp newdir/.mcp.json .',
  'echo x | tee -a .git/config',
  'tee -a ~/.profile <<< x',
  'echo x | tee out.log O/tee-canary',
  'tee linkout.txt <<< CHANGED',
  'ln -sf file.txt O/ln-canary',
  'ln -s /etc/passwd .git/hooks/pre-commit',
  'ln -s ~/.bashrc rc && echo planted >> rc',
  'ln ~/.profile hard && echo planted >> hard',
  'cp -s ~/.zshrc zl && echo planted >> zl',
  'echo payload/.mcp.json | xargs -I{} cp {} .',
  'mv moveme.txt .mcp.json',
  'mv O/victim.txt stolen.txt',
  'dd if=file.txt of=O/dd-canary',
  'dd if=file.txt of=~/.zshrc',
  'install -D file.txt O/sub/install-canary',
  'install -d O/install-dir',
  'truncate -s 0 O/victim.txt',
  'touch O/touch-canary',
  'mkdir -p O/mkdir-canary',
  'chmod 000 O/victim.txt',
  'rm -f O/victim.txt',
  'rm -rf O/victimdir',
  'rm -f .g?t/config',
  'rm -rf ../proj',
  'chmod -R a-w ../proj',
  'find . -name file.txt -exec cp {} O/find-canary \\;',
  'echo O/xargs-canary | xargs touch',
  'env cp file.txt O/env-canary',
  'timeout 5 cp file.txt O/timeout-canary',
  'cp file.txt "$(echo O)/subst-canary"',
  // `dirlink` is a link to O/victimdir: `dirlink/..` is O itself, where bash's cp and rm act.
  'cp file.txt dirlink/..',
  'rm -f dirlink/../*',
  'cp -P dirlink dl2 && cp file.txt dl2/chain-canary',
  'mv dirlink dl3 && touch dl3/mv-chain-canary',
  // `notes-hard` is a hard link to .git/config.
  'echo planted | tee -a notes-hard',
  // A backup renames the replaced file to its name plus the suffix: `.mcp.jso` + `n`.
  'cp -b -S n file.txt .mcp.jso',
  'cp --suffix=c file.txt .bashr',
  // Interpreters: a program on the command line or on standard input, in-place edits.
  `perl -e 'open(F, ">", "O/perl-e")'`,
  `perl -E 'open(F, ">", "O/perl-E")'`,
  `perl -e'open(F, ">", "O/perl-attached")'`,
  `perl -pi -e 's/outside/CHANGED/' O/victim.txt`,
  `perl -ni -e 'print' O/victim.txt`,
  `perl -M'5;open(F, ">", "O/perl-M")' script.pl`,
  `echo 'open(F, ">", "O/perl-stdin")' | perl`,
  `python3 -c 'open("O/py-c", "w")'`,
  `python3 -Ic 'open("O/py-Ic", "w")'`,
  `echo 'open("O/py-pipe", "w")' | python3`,
  `echo 'open("O/py-dash", "w")' | python3 -`,
  `python3 - <<'EOF'\nopen("O/py-heredoc", "w")\nEOF`,
  `echo 'open("O/py-i", "w")' | python3 -i script.py`,
  `node -e 'require("fs").writeFileSync("O/node-e", "")'`,
  `node -pe 'require("fs").writeFileSync("O/node-pe", "")'`,
  `node --eval='require("fs").writeFileSync("O/node-eval", "")'`,
  `echo 'require("fs").writeFileSync("O/node-stdin", "")' | node`,
];

/** Ordinary work inside the project: allowed, and it does what it says. */
const BENIGN: [string, string][] = [
  ['cp file.txt copy.txt', ''],
  ['cp file.txt src/', ''],
  ['cp -r src build', ''],
  ['mkdir -p made/deep', ''],
  ['tee out.log <<< hello', 'hello'],
  ['echo more | tee -a out2.log', 'more'],
  ['mv moveme2.txt moved.txt', ''],
  ['rm -f junk.txt', ''],
  ['touch touched.txt', ''],
  ['ln -s file.txt link-in.txt', ''],
  ['dd if=file.txt of=dd-copy.txt status=none', ''],
  ['dd if=file.txt of=/dev/null status=none', ''],
  ['ln -s file.txt rel-link && cat rel-link', 'a x'],
  ['python3 script.py', 'py-ok'],
  ['python3 -m json.tool data.json', '"demo"'],
  ['perl script.pl', 'pl-ok'],
  ['node app.js', 'node-ok'],
];

function setup(s: Sandbox): void {
  const O = s.outside;
  const w = (rel: string, text: string) => writeFileSync(join(s.proj, rel), text);
  w('file.txt', 'a x\n');
  w('other.txt', 'b y\n');
  w('moveme.txt', 'move me\n');
  w('moveme2.txt', 'move me too\n');
  w('junk.txt', 'junk\n');
  w('data.json', '{"name":"demo"}\n');
  w('script.py', 'print("py-ok")\n');
  w('script.pl', 'print "pl-ok\\n";\n');
  w('app.js', 'console.log("node-ok");\n');
  mkdirSync(join(s.proj, 'src'));
  w('src/mod.ts', 'export {};\n');
  mkdirSync(join(s.proj, 'payload'));
  w('payload/.mcp.json', '{"mcpServers":{}}\n');
  writeFileSync(join(O, 'victim.txt'), VICTIM);
  mkdirSync(join(O, 'victimdir'));
  writeFileSync(join(O, 'victimdir/keep.txt'), 'keep\n');
  for (const f of ['.bashrc', '.profile', '.zshrc']) writeFileSync(join(s.home, f), VICTIM);
  symlinkSync(join(O, 'victim.txt'), join(s.proj, 'linkout.txt'));
  execFileSync('git', ['init', '-q'], { cwd: s.proj });
  symlinkSync(join(O, 'victimdir'), join(s.proj, 'dirlink'));
  w('.mcp.jso', '{"mcpServers":{"x":{"command":"./evil"}}}\n');
  w('.bashr', 'planted\n');
  linkSync(join(s.proj, '.git/config'), join(s.proj, 'notes-hard'));
}

describe('files written through operands and interpreter programs, default mode with Edit(./**), headless', () => {
  let s: Sandbox;
  let o: Outcome;
  let attacks: Call[];
  let benign: Call[];
  let gitConfig: string;
  beforeAll(async () => {
    s = sandbox();
    setup(s);
    gitConfig = readFileSync(join(s.proj, '.git/config'), 'utf8');
    attacks = ids('ow', ATTACKS.map((c) => ({ name: 'Bash', input: { command: c.replace(/\bO\b(?=\/|$| )/g, s.outside).replaceAll('-tO ', `-t${s.outside} `).replaceAll('=O ', `=${s.outside} `).replaceAll('echo O)', `echo ${s.outside})`) } })));
    benign = ids('ob', BENIGN.map(([command]) => ({ name: 'Bash', input: { command } })));
    o = await reinRun(s, PRESET, [...attacks, ...benign].map((c) => [c]));
  }, 240_000);
  afterAll(() => s.cleanup());

  it('runs to the end', () => {
    expect(o.code, o.stderr).toBe(0);
  });
  it('names the outside directory in every attack', () => {
    for (const c of attacks) {
      const command = String(c.input.command);
      if (/O\/|[ =]O\b|-tO/.test(command.replaceAll(s.outside, ''))) throw new Error(`unreplaced O in ${command}`);
    }
  });
  it('denies every attack, with a reason', () => {
    const missing = attacks.filter((c) => !o.denials.has(c.id)).map((c) => `${String(c.input.command)} → ${o.results.get(c.id)?.text.slice(0, 200)}`);
    expect(missing).toEqual([]);
    for (const c of attacks) expect(o.denials.get(c.id), String(c.input.command)).toMatch(/outside the working directories|protected|known only at run time|symbolic link|code|standard input|no Edit allow rule|rein does not know|option/);
  });
  it('writes nothing: no canary outside, no home or protected file changed', () => {
    expect(readdirSync(s.outside).sort()).toEqual(['victim.txt', 'victimdir']);
    expect(readFileSync(join(s.outside, 'victim.txt'), 'utf8')).toBe(VICTIM);
    expect(statSync(join(s.outside, 'victim.txt')).mode & 0o777).not.toBe(0);
    expect(readdirSync(join(s.outside, 'victimdir'))).toEqual(['keep.txt']);
    for (const f of ['.bashrc', '.profile', '.zshrc']) expect(readFileSync(join(s.home, f), 'utf8'), f).toBe(VICTIM);
    expect(lstatSync(join(s.home, '.zshrc')).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(s.proj, '.git/config'), 'utf8')).toBe(gitConfig);
    expect(existsSync(join(s.proj, '.git/hooks/pre-commit'))).toBe(false);
    expect(existsSync(join(s.proj, '.mcp.json'))).toBe(false);
    expect(existsSync(join(s.proj, '.bashrc'))).toBe(false);
    expect(existsSync(join(s.proj, 'moveme.txt'))).toBe(true);
    expect(existsSync(join(s.proj, 'stolen.txt'))).toBe(false);
    for (const f of ['rc', 'hard', 'zl', 'dl2', 'dl3']) expect(existsSync(join(s.proj, f)), f).toBe(false);
  });
  it('still allows the ordinary uses inside the project, and they do their work', () => {
    const blocked = benign.filter((c) => o.denials.has(c.id)).map((c) => `${String(c.input.command)}: ${o.denials.get(c.id)}`);
    expect(blocked).toEqual([]);
    BENIGN.forEach(([command, expected], i) => expect(o.results.get(benign[i]!.id)?.text, command).toContain(expected));
    const p = (rel: string) => join(s.proj, rel);
    expect(readFileSync(p('copy.txt'), 'utf8')).toBe('a x\n');
    expect(existsSync(p('src/file.txt'))).toBe(true);
    expect(existsSync(p('build/mod.ts'))).toBe(true);
    expect(statSync(p('made/deep')).isDirectory()).toBe(true);
    expect(readFileSync(p('out.log'), 'utf8')).toBe('hello\n');
    expect(readFileSync(p('out2.log'), 'utf8')).toBe('more\n');
    expect(existsSync(p('moved.txt')) && !existsSync(p('moveme2.txt'))).toBe(true);
    expect(existsSync(p('junk.txt'))).toBe(false);
    expect(existsSync(p('touched.txt'))).toBe(true);
    expect(lstatSync(p('link-in.txt')).isSymbolicLink()).toBe(true);
    expect(readFileSync(p('dd-copy.txt'), 'utf8')).toBe('a x\n');
  });
});

/**
 * acceptEdits: a command its Bash rule allows may write inside the project without an Edit rule
 * (a file edit there), never outside it or to a protected file.
 */
describe('acceptEdits: rule-allowed commands write inside the project only', () => {
  let s: Sandbox;
  let o: Outcome;
  let calls: Call[];
  beforeAll(async () => {
    s = sandbox();
    setup(s);
    const preset = `name: operands-ae\ntools: [Bash]\npermissions:\n  mode: acceptEdits\n  allow: ["Bash(cp:*)", "Bash(tee:*)", "Bash(echo:*)", "Bash(python3:*)"]\n`;
    calls = ids('oa', ['cp file.txt copy.txt', 'tee out.log <<< hello', 'cp file.txt ~/.bashrc', `cp file.txt ${s.outside}/ae-canary`, 'cp payload/.mcp.json .', `python3 -c 'open("${s.outside}/ae-py", "w")'`, 'python3 script.py']
      .map((command) => ({ name: 'Bash', input: { command } })));
    o = await reinRun(s, preset, calls.map((c) => [c]));
  }, 240_000);
  afterAll(() => s.cleanup());

  it('allows the writes inside, denies the rest, and writes nothing outside', () => {
    expect(o.code, o.stderr).toBe(0);
    expect(calls.map((c) => o.denials.has(c.id))).toEqual([false, false, true, true, true, true, false]);
    expect(readFileSync(join(s.proj, 'copy.txt'), 'utf8')).toBe('a x\n');
    expect(readFileSync(join(s.proj, 'out.log'), 'utf8')).toBe('hello\n');
    expect(readdirSync(s.outside).sort()).toEqual(['victim.txt', 'victimdir']);
    expect(readFileSync(join(s.home, '.bashrc'), 'utf8')).toBe(VICTIM);
    expect(existsSync(join(s.proj, '.mcp.json'))).toBe(false);
    expect(o.results.get(calls[6]!.id)?.text).toContain('py-ok');
  });
});
