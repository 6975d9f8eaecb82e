/**
 * Class: bash evaluating a variable's value as code. Every command of the corpus (each a real
 * attack: see plugins/permissions/shell/hazards.test.ts) is sent by the model in one turn through
 * `rein run` with real bash; none may run. Default mode with narrow allow rules (the two
 * and more), and bypassPermissions with a deny rule on the payload's command.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVAL_VALUE, EVAL_VALUE_RULES, PLANTED_PROGRAMS, RUN_CHANGING_ASSIGN } from '../../plugins/permissions/shared/shell/corpus.js';
import { ids, reinRun, sandbox, type Outcome, type Sandbox } from './harness.js';

const calls = ids('c1', EVAL_VALUE.map((v) => ({ name: 'Bash', input: { command: v.command } })));
const rules = JSON.stringify(EVAL_VALUE_RULES);

describe.each([
  ['default mode, narrow allow rules', `name: c1\ntools: [Bash]\npermissions:\n  mode: default\n  allow: ${rules}\n`],
  ['bypassPermissions with a deny rule on touch', `name: c1\ntools: [Bash]\npermissions:\n  mode: bypassPermissions\n  allowBypassPermissions: true\n  allow: ${rules}\n  deny: ["Bash(touch:*)"]\n`],
])('values evaluated as code, %s', (_name, preset) => {
  let s: Sandbox;
  let o: Outcome;
  beforeAll(async () => {
    s = sandbox();
    o = await reinRun(s, preset, [calls]);
  });
  afterAll(() => s.cleanup());

  it('the run ends normally', () => {
    expect(o.code, o.stderr).toBe(0);
    expect(calls.length).toBeGreaterThanOrEqual(20);
  });
  it.each(EVAL_VALUE.map((v, i) => [v.command, v.marker, i]))('%j: denied with a reason, and its marker %s never appears', (_command, marker, i) => {
    const call = calls[i as number]!;
    expect(o.denials.get(call.id), `no denial for ${call.id}`).toMatch(/\w/);
    expect(existsSync(join(s.proj, marker as string))).toBe(false);
  });
});

// A repository's own programs (bin/ls) run in place of the allowed ones once PATH is assigned by
// a loop, read or printf -v. Bypass mode is left out: it allows running ./bin/ls outright.
describe('assignments that change which program an allowed command runs, default mode', () => {
  const assigns = ids('c1p', RUN_CHANGING_ASSIGN.map((v) => ({ name: 'Bash', input: { command: v.command } })));
  let s: Sandbox;
  let o: Outcome;
  beforeAll(async () => {
    s = sandbox();
    for (const [p, text] of Object.entries(PLANTED_PROGRAMS)) {
      mkdirSync(join(s.proj, p, '..'), { recursive: true });
      writeFileSync(join(s.proj, p), text);
      chmodSync(join(s.proj, p), 0o755);
    }
    o = await reinRun(s, `name: c1p\ntools: [Bash]\npermissions:\n  mode: default\n  allow: ${rules}\n`, [assigns]);
  });
  afterAll(() => s.cleanup());

  it('the run ends normally', () => {
    expect(o.code, o.stderr).toBe(0);
    expect(assigns.length).toBeGreaterThanOrEqual(10);
  });
  it.each(RUN_CHANGING_ASSIGN.map((v, i) => [v.command, v.marker, i]))('%j: denied with a reason, and its marker %s never appears', (_command, marker, i) => {
    const call = assigns[i as number]!;
    expect(o.denials.get(call.id), `no denial for ${call.id}`).toMatch(/PATH/);
    expect(existsSync(join(s.proj, marker as string))).toBe(false);
  });
});
