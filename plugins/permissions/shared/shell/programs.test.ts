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
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import permissions from '../../index.js';
import defaultMode from '../../default/index.js';
import { decide, testKernel } from '../../../../testing/permissions.js';
import { awkProgramRisk, jqProgramRisk, sedScriptRisk } from './programs.js';

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
    const k = await testKernel({ cwd, preset: { permissions: { mode: 'default', allow: ['Bash(rg:*)', 'Bash(grep:*)'], deny: ['Read(./.env)'] } } as never, plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
    for (const command of ['rg SECRET', 'rg SECRET .', 'rg -e SECRET', 'grep -r SECRET .', 'grep -rn SECRET', 'rg SECRET src ..']) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).not.toBe('allow');
    }
    for (const command of ['rg SECRET src', 'grep -rn SECRET src', 'grep -n SECRET src/x.ts']) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).toBe('allow');
    }
  });
  it('exporting a variable that hands a program more options (TAR_OPTIONS, RIPGREP_CONFIG_PATH, MANOPT, LESS) is not covered by Bash(export:*)', async () => {
    const cwd = mkdtempSync(join(dir, 'k-'));
    const k = await testKernel({ cwd, preset: { permissions: { mode: 'default', allow: ['Bash(export:*)'] } } as never, plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
    for (const command of ['export TAR_OPTIONS=--to-command=./x', 'export RIPGREP_CONFIG_PATH=./rgrc', 'export MANOPT=-P./x', 'export LESS=-o/tmp/x', 'export LESSKEYIN=./keys', 'export AWKPATH=./lib']) {
      expect((await decide(k, 'Bash', { command }))?.behavior, command).not.toBe('allow');
    }
    expect((await decide(k, 'Bash', { command: 'export FOO=1' }))?.behavior).toBe('allow');
  });
});
