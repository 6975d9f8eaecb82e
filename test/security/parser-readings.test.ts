/**
 * Class: text bash reads differently from the parser rein judges it with, under narrow allow rules
 * (`Bash(ls:*)`, `Bash(echo:*)`, `Bash(find:*)`, `Bash(sed -n:*)`, ...), mode default, headless:
 * - a long option with an optional value (`xargs --replace`, `--eof`, `--max-lines`) takes no
 *   next word, so `xargs --replace sh ls` runs `sh ls` (the script `./ls`), not `ls`;
 * - a `find -exec` command ends at `+` only right after `{}`, so in
 *   `-exec sed -n 1p + -e '1e …' {} ;` the `-e` script goes to sed;
 * - a brace expression spanning quoted parts (`{-e,'1e …'}`) is several words, one an option;
 * - in a double-quoted `${x-'…'}` (or one in a here-document body), bash expands the
 *   single-quoted text as double-quoted;
 * - an extended pattern in `[[ x == @(…) ]]` is plain text to the parser, code to bash.
 * Each attack, run by bash itself, creates its marker (checked first); through `rein run` each
 * must be denied with a reason and no marker may appear. The everyday commands under the same
 * rules stay allowed and run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ids, reinRun, sandbox, type Outcome, type Sandbox } from './harness.js';

const RULES = ['ls:*', 'echo:*', 'find:*', 'grep:*', 'sed -n:*', 'git status:*', 'cat:*'];
const PRESET = `name: readings\ntools: [Bash]\npermissions:\n  mode: default\n  allow: [${[...RULES.map((r) => `Bash(${r})`), 'Bash(npm test)'].map((r) => JSON.stringify(r)).join(', ')}]\n`;

/** [command, marker it creates in the working directory when bash runs it]. */
const ATTACKS: [string, string][] = [
  // optional-value options of xargs (./ls is a script the project holds; it creates the file named by its argument)
  ['echo m01 | xargs --replace sh ls {}', 'm01'],
  ['echo m02 | xargs --eof sh ls', 'm02'],
  ['echo m03 | xargs --max-lines sh ls', 'm03'],
  // find -exec: `+` not after `{}` is an argument
  ["find cmds.txt -exec sed -n 1p + -e '1e touch m04' {} \\;", 'm04'],
  ["find cmds.txt -exec sed -n 1p + --expression='1e touch m05' {} +", 'm05'],
  // brace expansion across quotes
  ["sed -n 1p {-e,'1e touch m06'} cmds.txt", 'm06'],
  ["sed -n 1p ''{-e,\"1e touch m07\"} cmds.txt", 'm07'],
  // single quotes inside a double-quoted ${…}
  ["echo \"${x-'$(touch m08)'}\"", 'm08'],
  ["echo \"${x:-'$(touch m09)'}\"", 'm09'],
  ["echo \"${x:='`touch m10`'}\"", 'm10'],
  ["echo \"${x-$'$(touch m11)'}\"", 'm11'],
  ["echo \"${x-${y-'$(touch m12)'}}\"", 'm12'],
  ["x=1; echo \"${x:+'$(touch m13)'}\"", 'm13'],
  // the same in a here-document body, which bash reads as double-quoted text
  ["cat <<EOF\n${x-'$(touch m14)'}\nEOF", 'm14'],
  ["cat <<EOF\n${x:-'`touch m15`'}\nEOF", 'm15'],
  // an extended pattern in [[ == ]]: the parser keeps it as text, bash runs what is inside
  ['[[ x == @(a|$(touch m16)) ]]; ls', 'm16'],
  ['[[ x == +(`touch m17`) ]] || ls', 'm17'],
];

/** Everyday commands the rules must still allow (and bash runs without error). */
const BENIGN = [
  'git status', 'ls -la src', 'grep -rn foo .', 'npm test', 'echo "${HOME-~}" "${x:-default}"', "echo \"${x-'plain'}\"",
  'ls src/{a,b}.ts', "find src -name '*.ts' -exec grep -n foo {} +", "find src -exec grep -c foo {} \\;", 'sed -n 1,2p src/a.ts',
  'echo a b | xargs --replace echo {}', '[[ a.ts == @(*.ts|*.js) ]] && ls src', 'cat <<EOF\n${HOME:-none} and $((1 + 2))\nEOF',
];

function fixture(dir: string): void {
  writeFileSync(join(dir, 'ls'), '#!/bin/sh\ntouch "$1"\n');
  writeFileSync(join(dir, 'cmds.txt'), 'first line\n');
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src/a.ts'), 'const foo = 1;\n');
  writeFileSync(join(dir, 'src/b.ts'), 'const bar = 2;\n');
  writeFileSync(join(dir, 'package.json'), '{"name":"p","scripts":{"test":"echo tests pass"}}\n');
  spawnSync('git', ['init', '-q'], { cwd: dir });
}

describe('the attacks run when bash itself runs them', () => {
  it.each(ATTACKS)('%j creates %s', (command, marker) => {
    const dir = mkdtempSync(join(tmpdir(), 'rein-readings-bash-'));
    try {
      fixture(dir);
      spawnSync('bash', ['-c', command], { cwd: dir, input: '', timeout: 10_000 });
      expect(existsSync(join(dir, marker))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bash readings the parser does not share, through rein run', () => {
  const attacks = ids('rd', ATTACKS.map(([command]) => ({ name: 'Bash', input: { command } })));
  const benign = ids('rb', BENIGN.map((command) => ({ name: 'Bash', input: { command } })));
  let s: Sandbox;
  let o: Outcome;
  beforeAll(async () => {
    s = sandbox();
    fixture(s.proj);
    o = await reinRun(s, PRESET, [[...attacks, ...benign]]);
  });
  afterAll(() => s.cleanup());

  it('the run ends normally', () => {
    expect(o.code, o.stderr).toBe(0);
  });
  it.each(ATTACKS.map(([command, marker], i) => [command, marker, i] as const))('%j is denied with a reason and %s never appears', (_command, marker, i) => {
    expect(o.denials.get(attacks[i]!.id), `no denial for ${attacks[i]!.id}`).toMatch(/\w/);
    expect(existsSync(join(s.proj, marker))).toBe(false);
  });
  it.each(BENIGN.map((command, i) => [command, i] as const))('%j stays allowed and runs', (_command, i) => {
    const id = benign[i]!.id;
    expect(o.denials.get(id)).toBeUndefined();
    expect(o.results.get(id)?.isError, o.results.get(id)?.text).toBe(false);
  });
});
