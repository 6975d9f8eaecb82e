/**
 * Bash evaluating a value as code (hazards.ts): each corpus command is first shown to be a real
 * attack (run by bash, it creates its marker file), then shown not to be allowed by rein: asked in
 * default mode, and asked (so denied headless) even in bypassPermissions once a deny rule exists,
 * because a deny rule cannot see the command the value holds.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kernel } from '../../../../kernel/index.js';
import permissions from '../../index.js';
import bypass from '../../bypassPermissions/index.js';
import defaultMode from '../../default/index.js';
import { decide, testKernel } from '../../../../testing/permissions.js';
import { EVAL_VALUE, EVAL_VALUE_BENIGN, EVAL_VALUE_RULES, PLANTED_PROGRAMS, RUN_CHANGING_ASSIGN } from './corpus.js';
import { parseCommand } from './parse.js';

const scratch = mkdtempSync(join(tmpdir(), 'rein-hazards-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('values bash evaluates as code', () => {
  let plain: Kernel;
  let bypassing: Kernel;
  beforeAll(async () => {
    plain = await testKernel({ cwd: scratch, preset: { permissions: { allow: EVAL_VALUE_RULES } }, plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
    bypassing = await testKernel({
      cwd: scratch,
      preset: { permissions: { mode: 'bypassPermissions', allowBypassPermissions: true, allow: EVAL_VALUE_RULES, deny: ['Bash(touch:*)'] } },
      plugins: [{ plugin: permissions }, { plugin: bypass }],
    });
  });

  it('has more than 20 commands', () => {
    expect(EVAL_VALUE.length).toBeGreaterThan(20);
  });

  it.each(EVAL_VALUE.map((v) => [v.command, v.marker]))('%j runs code when bash runs it, and is not allowed', async (command, marker) => {
    const dir = mkdtempSync(join(scratch, 'live-'));
    // `${BASH_COMMAND@P}` recurses; a few seconds are enough for the marker to appear.
    spawnSync('bash', ['-c', command], { cwd: dir, timeout: 3_000 });
    expect(existsSync(join(dir, marker)), 'the corpus command is a real attack').toBe(true);

    const d = await decide(plain, 'Bash', { command });
    expect(d?.behavior).toBe('ask');
    expect(d?.reason).toMatch(/\w/);
    const b = await decide(bypassing, 'Bash', { command });
    expect(b?.behavior, JSON.stringify(b)).toBe('ask');
  });

  it.each(RUN_CHANGING_ASSIGN.map((v) => [v.command, v.marker]))('%j runs a planted program when bash runs it, and is not allowed', async (command, marker) => {
    const dir = mkdtempSync(join(scratch, 'planted-'));
    for (const [p, text] of Object.entries(PLANTED_PROGRAMS)) {
      mkdirSync(join(dir, p, '..'), { recursive: true });
      writeFileSync(join(dir, p), text);
      chmodSync(join(dir, p), 0o755);
    }
    spawnSync('bash', ['-c', command], { cwd: dir, timeout: 3_000, stdio: 'ignore' });
    expect(existsSync(join(dir, marker)), 'the corpus command is a real attack').toBe(true);
    const d = await decide(plain, 'Bash', { command });
    expect(d?.behavior, JSON.stringify(d)).toBe('ask');
    expect(d?.reason).toMatch(/PATH.*changes/);
  });

  it.each(EVAL_VALUE_BENIGN.map((c) => [c]))('%j evaluates nothing and is still allowed', async (command) => {
    expect((await decide(plain, 'Bash', { command }))?.behavior).toBe('allow');
  });

  it('keeps an assignment a later word can evaluate in the text rules match', () => {
    const p = parseCommand("TZ='a[$(id)]' ls");
    expect(p.ok && p.parts[0]!.allow).toBe("'TZ=a[$(id)]' ls");
    const q = parseCommand('TZ=UTC ls');
    expect(q.ok && q.parts[0]!.allow).toBe('ls');
  });

  it('says why: the construct and that it evaluates a value', async () => {
    const d = await decide(plain, 'Bash', { command: 'for X in y; do ls $((X)); done' });
    expect(d?.reason).toBe('no rule can allow "ls $((X))": arithmetic evaluates the values of the variables it names, and a subscript in a value runs (mode default)');
  });
});

describe('hidden commands and deny rules', () => {
  const rules = { mode: 'bypassPermissions', allowBypassPermissions: true, deny: ['Bash(rm:*)'] };
  const hidden = [
    '$(echo rm) -rf data',
    'eval "$CMD"',
    'bash -c "$SCRIPT"',
    "trap \"$X\" EXIT",
    'ls | xargs -I{} sh -c "{}"',
    "env -S 'rm -rf data' true",
    "eval 'eval \"eval \\\"eval rm\\\"\"'",
    "compgen -C 'rm -rf data' -- x",
    'enable -f ./evil.so rm',
  ];
  it.each(hidden.map((c) => [c]))('%j is asked about in bypassPermissions when a deny rule exists', async (command) => {
    const k = await testKernel({ cwd: scratch, preset: { permissions: rules }, plugins: [{ plugin: permissions }, { plugin: bypass }] });
    const d = await decide(k, 'Bash', { command });
    expect(d?.behavior, JSON.stringify(d)).toMatch(/^(ask|deny)$/);
  });
  it('without deny or ask rules for Bash, bypassPermissions runs them as before', async () => {
    const k = await testKernel({ cwd: scratch, preset: { permissions: { mode: 'bypassPermissions', allowBypassPermissions: true } }, plugins: [{ plugin: permissions }, { plugin: bypass }] });
    expect((await decide(k, 'Bash', { command: '$(echo ls) -la' }))?.behavior).toBe('allow');
  });
});
