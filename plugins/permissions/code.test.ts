/**
 * The files a command hook runs (shared/code.ts hookScriptPaths), read with the shell parser from
 * real commands against real files in a temp project.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookScriptPaths } from './shared/code.js';

let proj: string;
const scripts = (command: string) => hookScriptPaths(command, proj, join(proj, 'home')).map((p) => relative(proj, p)).sort();

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
  it('a command word with a slash counts before its file exists; other words only when they name a file', () => {
    expect(scripts('./scripts/not-yet.sh')).toEqual(['scripts/not-yet.sh']);
    expect(scripts('echo scripts/not-yet.sh hello')).toEqual([]);
    expect(scripts('jq -n 1')).toEqual([]);
    expect(scripts('bash "$SCRIPT"')).toEqual([]);
    expect(scripts('if [ (')).toEqual([]);
  });
});
