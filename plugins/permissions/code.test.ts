/**
 * The files a command hook runs (shared/code.ts hookScriptPaths), read with the shell parser from
 * real commands against real files in a temp project.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide, testKernel } from '../../testing/permissions.js';
import permissions from './index.js';
import acceptEdits from './acceptEdits/index.js';
import { hookScriptPaths } from './shared/code.js';

let proj: string;
const scripts = (command: string) => {
  const paths = hookScriptPaths(command, proj, join(proj, 'home'));
  return Array.isArray(paths) ? paths.map((p) => relative(proj, p)).sort() : paths;
};

beforeAll(() => {
  proj = realpathSync(mkdtempSync(join(tmpdir(), 'rein-hook-code-')));
  for (const f of ['scripts/check.sh', 'scripts/guard.sh', 'tools/hook.mjs', 'sub/inner.sh', 'filter.jq', 'conf/lint.js']) {
    mkdirSync(dirname(join(proj, f)), { recursive: true });
    writeFileSync(join(proj, f), '\n');
  }
});
afterAll(() => rmSync(proj, { recursive: true, force: true }));

describe('the files a hook command runs', () => {
  it('a script as the command, as an interpreter\'s operand, behind wrappers and in sh -c', () => {
    expect(scripts('./scripts/check.sh')).toEqual(['scripts/check.sh']);
    expect(scripts('bash scripts/guard.sh --strict')).toEqual(['scripts/guard.sh']);
    expect(scripts('node tools/hook.mjs')).toEqual(['tools/hook.mjs']);
    expect(scripts('timeout 5 env A=1 node tools/hook.mjs | jq -f filter.jq')).toEqual(['filter.jq', 'tools/hook.mjs']);
    expect(scripts('sh -c "bash scripts/guard.sh"')).toEqual(['scripts/guard.sh']);
    expect(scripts('node --config=conf/lint.js')).toEqual(['conf/lint.js']);
  });
  it('a path through the project-directory variables, and after a literal cd', () => {
    expect(scripts('"$CLAUDE_PROJECT_DIR"/scripts/check.sh')).toEqual(['scripts/check.sh']);
    expect(scripts('bash ${REIN_PROJECT_DIR}/scripts/guard.sh')).toEqual(['scripts/guard.sh']);
    expect(scripts('cd sub && ./inner.sh')).toEqual(['sub/inner.sh']);
  });
  it('a word with a slash counts before its file exists; other words only when they name a file', () => {
    expect(scripts('./scripts/not-yet.sh')).toEqual(['scripts/not-yet.sh']);
    expect(scripts('bash scripts/not-yet.sh hello not-yet.sh')).toEqual(['scripts/not-yet.sh']);
    expect(scripts('grep -rq x scripts/ conf')).toEqual([]);
    expect(scripts('jq -n 1')).toEqual([]);
    expect(scripts('bash "$SCRIPT"')).toEqual([]);
  });
  it('a command the parser rejects is unreadable, so the guard can protect the whole folder', () => {
    expect(scripts('if [ (')).toEqual({ unreadable: expect.stringMatching(/./) });
  });
});

describe('the permission context built from them', () => {
  const kernel = (preset: Record<string, unknown>) => testKernel({ cwd: proj, presetDir: proj, preset: { permissions: { mode: 'acceptEdits' }, ...preset }, plugins: [{ plugin: permissions }, { plugin: acceptEdits }] });

  it('in acceptEdits, a hook script and a plugin file ask, naming why; another file is written', async () => {
    const k = await kernel({
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'bash scripts/guard.sh' }] }] },
      codeFiles: [{ path: join(proj, 'conf/lint.js'), why: 'plugin ./conf/lint.js named in agent.yaml' }],
    });
    expect(await decide(k, 'Write', { file_path: 'scripts/guard.sh', content: '' })).toMatchObject({ behavior: 'ask', reason: expect.stringMatching(/scripts\/guard\.sh is code rein runs \(run by the PreToolUse hook `bash scripts\/guard\.sh`\)/) });
    expect(await decide(k, 'Edit', { file_path: 'conf/lint.js', old_string: 'a', new_string: 'b' })).toMatchObject({ behavior: 'ask', reason: expect.stringMatching(/conf\/lint\.js is code rein runs \(plugin \.\/conf\/lint\.js named in agent\.yaml\)/) });
    expect(await decide(k, 'Write', { file_path: 'filter.jq', content: '' })).toMatchObject({ behavior: 'allow' });
  });
  it('a hook command rein cannot read protects the whole folder it runs in (fails closed)', async () => {
    const k = await kernel({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'if [ (' }] }] } });
    expect(await decide(k, 'Write', { file_path: 'filter.jq', content: '' })).toMatchObject({ behavior: 'ask', reason: expect.stringMatching(/filter\.jq is in the folder where the Stop hook `if \[ \(` runs, and rein cannot read that command/) });
  });
  it('a codeFiles entry it cannot read stops the permission plugin from loading', async () => {
    await expect(kernel({ codeFiles: [{ path: 42 }] })).rejects.toThrow(/codeFiles: expected a list of \{ path, why \} entries/);
  });
});
