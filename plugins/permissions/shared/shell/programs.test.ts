/**
 * The sed, awk and jq script checks (programs.ts) against the programs themselves:
 * - GNU sed's `--sandbox` rejects every `e`, `r`, `R`, `w`, `W` command and `s` flag `e`/`w` at
 *   compile time, so it is an oracle: for random scripts built from the characters that decide how
 *   sed splits commands (delimiters, brackets, escapes, newlines, braces), every script rein calls
 *   harmless must compile in sandbox mode. (rein may ask about more; it may never miss one.)
 * - fixed awk and jq programs, each run for real with a canary where it would run a command.
 * - the decisions for rg and npx prettier (not installed here, so judged without running).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import permissions from '../../index.js';
import defaultMode from '../../default/index.js';
import { decide, testKernel } from '../../../../testing/permissions.js';
import { awkProgramRisk, INTERPRETERS, jqProgramRisk, sedScriptRisk } from './programs.js';

const dir = mkdtempSync(join(tmpdir(), 'rein-programs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** True when GNU sed refuses the script in sandbox mode for an e/r/w command. */
function sandboxRejects(script: string): boolean {
  const r = spawnSync('sed', ['--sandbox', '-n', script], { input: 'a/b\n', encoding: 'utf8', cwd: dir, timeout: 5_000 });
  return /e\/r\/w commands disabled/.test(r.stderr);
}

const FRAGMENTS = ['s', 'y', '/', '|', '[', ']', '^', ':', '\\', '\n', ';', '{', '}', '!', '$', '1', ',', '#', ' ', 'a', 'b', 'e', 'w', 'r', 'R', 'W', 'p', 'g', 'x', '.', '*', '[:alpha:]', '\\n', 'I', 'M', 'q'];

describe('sed scripts against GNU sed --sandbox', () => {
  it('every script rein calls harmless compiles in sandbox mode', () => {
    let harmless = 0;
    fc.assert(fc.property(fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 1, maxLength: 14 }), (parts) => {
      const script = parts.join('');
      if (sedScriptRisk(script) !== undefined) return true;
      harmless++;
      return !sandboxRejects(script);
    }), { numRuns: 3000, seed: 20261206 });
    expect(harmless).toBeGreaterThan(100);
  });
  it.each([
    's/[/]/x/;1e touch c', 's|x|y|e', 's/a/b/gw out', '1!G;$e date', 'W out', '$R f', "1{\ne x\n}", 's/a/b/;r f', 'y/a/b/;e x',
  ])('finds the command in %j, and sed --sandbox agrees', (script) => {
    expect(sedScriptRisk(script)).toBeDefined();
    expect(sandboxRejects(script)).toBe(true);
  });
  it.each(["1,20p", 's/a/b/g', 's/[0-9]/x/', 'y/abc/xyz/', '1d;$d', ':a;N;$!ba;s/\\n/ /g', '/x/{p;q}', 'a\\\nwrite here', '#e comment\np', 's,/,|,g'])('calls %j harmless', (script) => {
    expect(sedScriptRisk(script)).toBeUndefined();
    expect(sandboxRejects(script)).toBe(false);
  });
});

describe('awk and jq programs', () => {
  const awk = (program: string) => spawnSync('awk', [program], { input: 'a b\n', encoding: 'utf8', cwd: dir, timeout: 5_000 });
  it.each([
    'BEGIN{system("touch c1")}', 'BEGIN{"touch c2" | getline}', 'BEGIN{print "x" > "c3"}', 'BEGIN{print "touch c4" | "sh"}',
    '{print $1} END{printf "x" >> "c5"}', 'BEGIN { system ("touch c6") }',
  ])('finds %j, which really writes a file when awk runs it', (program) => {
    expect(awkProgramRisk(program)).toBeDefined();
    awk(program);
    expect(['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].some((c) => existsSync(join(dir, c)))).toBe(true);
    for (const c of ['c1', 'c2', 'c3', 'c4', 'c5', 'c6']) rmSync(join(dir, c), { force: true });
  });
  it.each(['{print $1}', '$2 > "a" {print $2}', '/x/ || /y/ {n++} END {print n+0}', 'NR==1', '{ if ($1 > 0) print $1 }'])('calls %j harmless', (program) => {
    expect(awkProgramRisk(program)).toBeUndefined();
    expect(awk(program).status).toBe(0);
  });
  it('jq: modules and data files are asked about, ordinary filters are not', () => {
    expect(jqProgramRisk('import "data" as $d; $d')).toBeDefined();
    expect(jqProgramRisk('include "lib"; .')).toBeDefined();
    for (const p of ['.', '.name', 'map(select(.a > 1))', '$__loc__', 'input_filename']) expect(jqProgramRisk(p)).toBeUndefined();
  });
});

describe('decisions for programs not installed here', () => {
  it('rg --pre and npx prettier plugins, config and --write are not covered by a rule tail', async () => {
    const cwd = mkdtempSync(join(dir, 'k-'));
    const k = await testKernel({ cwd, preset: { permissions: { mode: 'default', allow: ['Bash(rg:*)', 'Bash(npx prettier:*)'] } } as never, plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
    for (const command of ['rg --pre ./x.sh foo', 'rg --pre=./x.sh -z foo', 'rg --hostname-bin=./x.sh foo', 'npx prettier --plugin=./evil.mjs a.js', 'npx prettier --config evil.config.mjs a.js', 'npx prettier --write ../outside/a.js', 'npx prettier -w a.js', 'npx --yes prettier --plugin ./evil.mjs a.js']) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).not.toBe('allow');
    }
    for (const command of ['rg foo', 'rg -n foo src', 'npx prettier --check .', 'npx prettier a.js']) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).toBe('allow');
    }
  });
  it('rg and grep -r over a tree holding a file a Read deny rule covers ask; elsewhere they are allowed', async () => {
    const cwd = mkdtempSync(join(dir, 'k-'));
    writeFileSync(join(cwd, '.env'), 'SECRET=1\n');
    mkdirSync(join(cwd, 'src'));
    const k = await testKernel({ cwd, preset: { permissions: { mode: 'default', allow: ['Bash(rg:*)', 'Bash(grep:*)', 'Bash(dd:*)'], deny: ['Read(./.env)'] } } as never, plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
    for (const command of ['rg SECRET', 'rg SECRET .', 'rg -e SECRET', 'grep -r SECRET .', 'grep -rn SECRET', 'rg SECRET src ..', 'dd if=.env', 'dd if=.env of=/dev/stdout']) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).not.toBe('allow');
    }
    for (const command of ['rg SECRET src', 'grep -rn SECRET src', 'grep -n SECRET src/x.ts']) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).toBe('allow');
    }
  });
  it('exporting a variable that hands a program more options (TAR_OPTIONS, RIPGREP_CONFIG_PATH, MANOPT, LESS) is not covered by Bash(export:*)', async () => {
    const cwd = mkdtempSync(join(dir, 'k-'));
    const k = await testKernel({ cwd, preset: { permissions: { mode: 'default', allow: ['Bash(export:*)'] } } as never, plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
    for (const command of ['export POSIXLY_CORRECT=1', 'export SIMPLE_BACKUP_SUFFIX=n', 'export VERSION_CONTROL=simple', 'export TAR_OPTIONS=--to-command=./x', 'export RIPGREP_CONFIG_PATH=./rgrc', 'export MANOPT=-P./x', 'export LESS=-o/tmp/x', 'export LESSKEYIN=./keys', 'export AWKPATH=./lib']) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).not.toBe('allow');
    }
    expect((await decide(k, 'Bash', { command: 'export FOO=1' }))?.behavior).toBe('allow');
  });
});

describe('files written through operands (cp, mv, install, ln, rsync, tee, dd, truncate, touch, mkdir, rm, chmod)', () => {
  const RULES = ['cp', 'tee', 'ln', 'mv', 'install', 'dd', 'touch', 'mkdir', 'rsync', 'truncate', 'chmod', 'chown', 'chgrp', 'cat', 'echo', 'rm', 'unlink', 'find', 'xargs', 'env', 'timeout', 'nice', 'command', 'sudo'].map((r) => `Bash(${r}:*)`);
  const setup = async (extra: string[], mode: 'default' | 'acceptEdits' = 'default') => {
    const cwd = mkdtempSync(join(dir, 'ops-'));
    mkdirSync(join(cwd, 'src'));
    mkdirSync(join(cwd, 'payload'));
    writeFileSync(join(cwd, 'payload/.mcp.json'), '{}\n');
    writeFileSync(join(cwd, 'payload/rein.config.js'), '\n');
    writeFileSync(join(cwd, 'src/a.ts'), '\n');
    writeFileSync(join(cwd, '-t'), '\n');
    mkdirSync(join(cwd, '.git'));
    writeFileSync(join(cwd, '.git/config'), '\n');
    const plugin = mode === 'acceptEdits' ? (await import('../../acceptEdits/index.js')).default : defaultMode;
    const k = await testKernel({ cwd, preset: { permissions: { mode, allow: [...RULES, ...extra] } } as never, plugins: [{ plugin: permissions }, { plugin }] });
    return { cwd, k };
  };
  const WRITES_OUT = [
    'cp a ~/.bashrc', 'echo x | tee -a .git/config', 'tee -a .git/config <<< x', 'mv evil .mcp.json', 'dd if=a of=~/.profile', 'cp -t ~/.ssh x',
    'cp --target-directory=/etc x', 'cp --target=/etc x', 'cp -t/etc x', 'cp -rt /etc x', 'cp -Rt/etc x', 'install -D x ~/.zshrc', 'install -t ~/bin x', 'install -d ~/.config/x',
    'rsync x ~/.bashrc', 'rsync -a payload/ ~/', 'rsync src/a.ts host:/tmp/x', 'cp a -T ~/.bashrc', 'cp -- -x ~/.bashrc', 'cp a b ~/', 'cp payload/.mcp.json .', 'cp payload/.mcp.json src/',
    'cp -r payload newdir', 'cp -r payload/. .', 'cp -a payload/. src', 'mv payload/rein.config.js .', 'mv ~/.bashrc x', 'ln -sf x ~/.bashrc', 'ln -s /etc/passwd .git/config', 'ln -t ~ x',
    'truncate -s 0 ~/.bashrc', 'touch ~/x', 'mkdir -p ~/.ssh/x', 'chmod +x .git/hooks/pre-commit', 'chmod -R 777 ~', 'chmod --reference=a ~/.ssh', 'chown -R me ~/x', 'rm -rf ~',
    'rm ~/.bashrc', 'unlink .git/index', 'rm .g?t/config', 'rm -f ~/.bash*', 'env cp a ~/.bashrc', 'timeout 5 cp a ~/.bashrc', 'nice -n 5 tee ~/.profile', 'command cp a ~/.bashrc',
    'find . -name a -exec cp {} ~/.bashrc \\;', 'find . -name a -exec cp {} . \\;', 'echo a | xargs cp -t src', 'echo a | xargs rm', 'cp $X y', 'cp x "$Y"', 'tee "$F"', 'cp a $(echo ~)/x',
    'cp * src', 'cp --frobnicate a b', 'cp a ~/.BASHRC', 'rm -rf .', 'rm -rf src/..', 'chmod -R 777 .', 'rm -r payload', 'ln -s ~/.bashrc rc && echo x >> rc', 'ln ~/.bashrc rc', 'ln -sf /etc/passwd x && cp a x', 'cp -l ~/.bashrc x',
    'cp -s ~/.bashrc x && touch x', 'ln -sf /etc/passwd .git/x', 'echo payload/.mcp.json | xargs -I{} cp {} .', 'echo a | xargs -I % cp % src/', 'echo a | xargs -i cp {} src/',
  ];
  it.each(WRITES_OUT)('%j is not allowed by its command rule, even with Edit(./**)', async (command) => {
    const { k } = await setup(['Edit(./**)']);
    expect((await decide(k, 'Bash', { command }))?.behavior, command).not.toBe('allow');
  });
  it('without an Edit allow rule, the rule naming the program covers its operands inside the project, as in Claude Code; a redirection or an option\'s file still asks', async () => {
    const { k } = await setup(['Bash(sed:*)', 'Bash(sort:*)']);
    for (const command of ['cp src/a.ts src/b.ts', 'tee out.log', 'mkdir -p build', 'touch x', 'rm src/a.ts', 'ln -s a b', 'cp src/a.ts src/', 'rm -f src/*.ts']) {
      const d = await decide(k, 'Bash', { command });
      expect(d?.behavior, command).toBe('allow');
      expect(d?.reason, command).toMatch(/writing inside the working directories/);
    }
    for (const command of ['echo x > out.txt', 'cp src/a.ts src/b.ts > log.txt', 'sed -i s/a/b/ src/a.ts', 'sort -o out.txt src/a.ts', 'tee out.log > copy.log']) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).toBe('ask');
    }
    for (const command of WRITES_OUT) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).not.toBe('allow');
    }
  });
  it('ordinary project work stays allowed with an Edit allow rule', async () => {
    const { k } = await setup(['Edit(./**)']);
    for (const command of [
      'cp src/a.ts src/b.ts', 'cp src/a.ts src/', 'cp -r src build', 'mkdir -p build', 'tee out.log <<< hi', 'echo x | tee -a out.log', 'mv src/a.ts src/c.ts', 'ln -s src/a.ts link.ts',
      'dd if=src/a.ts of=copy.ts', 'truncate -s 0 src/a.ts', 'touch src/a.ts', 'chmod +x src/a.ts', 'chmod -w src/a.ts', 'rm -rf build', 'rm -f src/*.ts', 'cp -t src src/a.ts',
      'install -m 644 src/a.ts build.ts', 'rsync -a src/ copy/', 'tee /dev/null', 'dd if=src/a.ts of=/dev/null', 'ln -s ../a.ts src/l.ts', 'ln -sr src/a.ts l2', 'ln -s /usr/bin/env env-link',
    ]) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).toBe('allow');
    }
  });
  it('acceptEdits lets a command its Bash rule allows write inside the project, never outside or to a protected file', async () => {
    const { k } = await setup([], 'acceptEdits');
    for (const command of ['cp src/a.ts src/b.ts', 'tee out.log <<< hi', 'mkdir -p build', 'echo x > out.txt', 'rm src/a.ts']) {
      expect(await decide(k, 'Bash', { command }), command).toMatchObject({ behavior: 'allow' });
    }
    for (const command of ['cp src/a.ts ~/x', 'cp payload/.mcp.json .', 'tee .git/config', 'cp $X y', 'curl -o x https://example.com']) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).not.toBe('allow');
    }
  });
  it('links are followed as the kernel follows them: `..` after a link, links a copy lands or follows, hard links, rsync --delete and remote paths', async () => {
    const { cwd, k } = await setup([]);
    const outside = mkdtempSync(join(dir, 'outside-'));
    mkdirSync(join(outside, 'sub'));
    symlinkSync(join(outside, 'sub'), join(cwd, 'dirlink'));
    mkdirSync(join(cwd, 'tree'));
    symlinkSync(outside, join(cwd, 'tree/out'));
    linkSync(join(cwd, '.git/config'), join(cwd, 'notes.txt'));
    for (const command of [
      // `dirlink/..` is `outside`, not the project: cp writes outside/a.ts, rm removes outside/*.
      'cp src/a.ts dirlink/..', 'cp -r src dirlink/..', 'rm -rf dirlink/../*', 'tee dirlink/../*',
      // A link a copy or move lands, written through later in the same command.
      'cp -P dirlink d2 && cp src/a.ts d2/x', 'cp -d dirlink d3; touch d3/x', 'cp -a tree t2 && cp src/a.ts t2/out/x', 'mv tree t3 && mkdir t3/out/x', 'mv dirlink d4 && tee d4/x',
      // Links inside a copied tree followed on purpose; chown -R -L follows them out of the tree.
      'cp -rL tree copy', 'cp -R --dereference tree copy', 'chown -RL me tree', 'chgrp -R -L g tree',
      // A hard link is the same file as .git/config.
      'tee -a notes.txt', 'cp src/a.ts notes.txt', 'dd if=src/a.ts of=notes.txt', 'chmod +x notes.txt',
      // rsync: --delete removes what the destination holds (.git/); remote names are the remote side's.
      'rsync -a --delete src/ .', 'rsync -a --delete-after src/ ./', 'rsync src/a.ts localhost:.bashrc', 'rsync -a h:evil/ .', "rsync h:'.m*' .", 'rsync --files-from=list payload/ .', 'rsync -aL tree/ copy',
    ]) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).not.toBe('allow');
    }
    for (const command of ['cp src/a.ts src/b.ts', 'mkdir -p build && cp src/a.ts build/', 'cp -r src build && rm -rf build', 'cp -r tree t4', 'rsync -a --delete src/ copy/', 'rsync src/a.ts ./host:x', 'cp src/a.ts dirlink2', 'cp src/a.ts x && cp x y']) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).toBe('allow');
    }
  });
  it('a backup suffix that makes a protected name, or one the environment chooses, asks; sudo -D and -i are not looked through; a recursive mode change reaches hard links', async () => {
    const { cwd, k } = await setup([]);
    writeFileSync(join(cwd, '.mcp.jso'), '{}\n');
    writeFileSync(join(cwd, '.bashr'), '\n');
    mkdirSync(join(cwd, 'tree'));
    writeFileSync(join(cwd, 'tree/.mcp.jso'), '{}\n');
    mkdirSync(join(cwd, 'copy'));
    writeFileSync(join(cwd, 'copy/.mcp.jso'), '{}\n');
    for (const command of [
      'cp -b -S n src/a.ts .mcp.jso', 'cp -bSn src/a.ts .mcp.jso', 'cp --suffix=c src/a.ts .bashr', 'cp --backup --suf=n src/a.ts .mcp.jso', 'mv -b -S c src/a.ts .bashr',
      'ln -f -b -S n src/a.ts .mcp.jso', 'install -b -S n src/a.ts .mcp.jso', 'cp -rb -S n tree/. copy', 'cp -b src/a.ts x', 'cp -b -S /../../x src/a.ts y',
      'sudo -D .git tee config', 'sudo --chdir=.git tee config', 'sudo -i tee .bashrc',
    ]) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).not.toBe('allow');
    }
    // A hard link inside a tree a recursive mode change walks: `chmod -R +x src` would make the hook run.
    mkdirSync(join(cwd, '.git/hooks'));
    writeFileSync(join(cwd, '.git/hooks/pre-commit'), '\n');
    mkdirSync(join(cwd, 'lib/deep'), { recursive: true });
    linkSync(join(cwd, '.git/hooks/pre-commit'), join(cwd, 'lib/deep/h'));
    for (const command of ['chmod -R +x lib', 'chown -R me lib', 'chgrp -R g lib/']) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).not.toBe('allow');
    }
    for (const command of ['cp -b -S .bak src/a.ts x', 'cp --suffix=.orig src/a.ts src/a.ts.new', 'chmod -R +x src', 'rm -rf lib']) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).toBe('allow');
    }
  });
  it('an Edit deny rule covers what a copy or a recursive removal writes', async () => {
    const { k: k2 } = await (async () => {
      const c = mkdtempSync(join(dir, 'ops-deny-'));
      mkdirSync(join(c, 'secrets'));
      writeFileSync(join(c, 'a'), '\n');
      return { k: await testKernel({ cwd: c, preset: { permissions: { mode: 'default', allow: [...RULES, 'Edit(./**)'], deny: ['Edit(./secrets/**)'] } } as never, plugins: [{ plugin: permissions }, { plugin: defaultMode }] }) };
    })();
    for (const command of ['cp a secrets/', 'cp a secrets', 'rm -rf secrets', 'tee secrets/x', 'mv a secrets']) {
      expect((await decide(k2, 'Bash', { command }))?.behavior, command).toBe('deny');
    }
  });
});

describe('script interpreters: programs on the command line are code a rule tail does not cover', () => {
  const kernelWith = async (allow: string[]) => testKernel({ cwd: mkdtempSync(join(dir, 'interp-')), preset: { permissions: { mode: 'default', allow: [...allow, 'Edit(./**)'] } } as never, plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
  // Every option the table calls code or risky, for each interpreter, in each spelling.
  const cases: { tool: string; command: string }[] = [];
  for (const [tool, spec] of Object.entries(INTERPRETERS)) {
    const bin = tool === 'python' ? 'python3' : tool;
    for (const [c, kind] of Object.entries(spec.short)) {
      if (kind === 'code' || kind === 'codeEnd') cases.push({ tool: bin, command: `${bin} -${c} 'x = 1'` });
      if (kind === 'risky') cases.push({ tool: bin, command: `${bin} -${c} mod script` });
      if (kind === 'riskyFlag' || kind === 'riskyRest') cases.push({ tool: bin, command: `${bin} -${c} script` });
    }
    for (const [l, kind] of Object.entries(spec.long)) {
      if (kind === 'code' || kind === 'codeEnd') cases.push({ tool: bin, command: `${bin} --${l}='x = 1'` });
      if (kind === 'risky') cases.push({ tool: bin, command: `${bin} --${l}=mod script` });
      if (kind === 'riskyFlag') cases.push({ tool: bin, command: `${bin} --${l} script` });
    }
  }
  it.each(cases.map((c) => [c.command, c.tool]))('%j is not allowed by Bash(%s:*)', async (command, tool) => {
    expect((await decide(await kernelWith([`Bash(${tool}:*)`]), 'Bash', { command }))?.behavior).not.toBe('allow');
  });
  it.each(cases.map((c) => [c.command]))('%j is allowed by a rule that writes it out', async (command) => {
    expect((await decide(await kernelWith([`Bash(${command})`]), 'Bash', { command }))?.behavior).toBe('allow');
  });
  it('inline scripts, in-place edits, modules and standard input ask under the narrow rule', async () => {
    const k = await kernelWith(['Bash(perl:*)', 'Bash(perl -e:*)', 'Bash(perl -pi -e:*)', 'Bash(ruby:*)', 'Bash(python3:*)', 'Bash(python3 -c:*)', 'Bash(node:*)', 'Bash(php:*)', 'Bash(lua:*)', 'Bash(python3.12:*)', 'Bash(nodejs:*)']);
    for (const command of [
      `perl -e 'system("touch x")'`, `perl -E 'say 1'`, `perl -pi -e 's/a/b/' f`, `perl -ne 'print' f`, `perl -e'print 1'`, 'perl -MPOSIX -e1', `perl -M'5;system("id")' script.pl`,
      'perl -x script.pl', 'perl -I. script.pl', 'perl', 'perl -', 'echo "system q(id)" | perl', `ruby -e 'puts 1'`, 'ruby -rjson script.rb', `ruby -i.bak -pe 'x' f`,
      `python3 -c 'import os'`, `python3 -c'import os'`, `python3 -Ic 'import os'`, 'python3', 'python3 -', 'python3 /dev/stdin', 'python3 -i script.py', "python3 <<'EOF'\nimport os\nEOF",
      `python3.12 -c 'x'`, `node -e 'x'`, `node -pe 'x'`, 'node --eval=x', 'node -r ./hook.js app.js', 'node --inspect=0.0.0.0 app.js', 'node', `nodejs -e 'x'`,
      `php -r 'echo 1;'`, 'php -d auto_prepend_file=x.php app.php', `lua -e 'x'`, 'lua -l mod app.lua', 'python3 $SCRIPT', 'env python3 -c x', 'timeout 5 perl -e 1',
    ]) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).not.toBe('allow');
    }
  });
  it('running a script file stays allowed, its own arguments included', async () => {
    const k = await kernelWith(['Bash(perl:*)', 'Bash(ruby:*)', 'Bash(python3:*)', 'Bash(node:*)', 'Bash(php:*)', 'Bash(lua:*)']);
    for (const command of [
      'python3 script.py', 'python3 -u script.py --out x -c y', 'python3 -m pytest -x', 'python3 --version', 'python3 -V', 'perl script.pl -e x', 'perl -w script.pl',
      'ruby script.rb', 'node app.js', 'node --max-old-space-size=100 app.js -e x', 'node --test', 'node -v', 'php app.php', 'lua app.lua', 'python3 script.py "$@"',
    ]) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).toBe('allow');
    }
  });
  it('perl -i and ruby -i write their files: outside the project or a protected file asks even under a rule that names the script', async () => {
    const k = await kernelWith([`Bash(perl -pi -e 's/a/b/':*)`, `Bash(ruby -i -pe 'x':*)`]);
    expect((await decide(k, 'Bash', { command: `perl -pi -e 's/a/b/' f.txt` }))?.behavior).toBe('allow');
    for (const command of [`perl -pi -e 's/a/b/' ~/.bashrc`, `perl -pi -e 's/a/b/' .git/config`, `ruby -i -pe 'x' ~/.profile`]) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).toBe('ask');
    }
  });
});
