import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import permissions from '../index.js';
import { decide, testKernel } from '../../../testing/permissions.js';
import plan, { EXIT_PLAN_MODE, PLAN_MODE_SECTION } from './index.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'rein-plan-'));

describe('plan mode', () => {
  it('allows reads, denies everything else with a pointer to ExitPlanMode, and tells the model', async () => {
    const k = await testKernel({ cwd: tmp(), preset: { permissions: { allow: ['Bash(npm install:*)', 'Write'] } }, plugins: [{ plugin: permissions }, { plugin: plan }] });
    expect(k.tools.has(EXIT_PLAN_MODE)).toBe(true);
    // Allow rules do not let changes through while planning.
    expect(await decide(k, 'Bash', { command: 'npm install' })).toMatchObject({ behavior: 'deny', source: 'permissions/plan' });
    expect(await decide(k, 'Read', { file_path: 'a.ts' })).toMatchObject({ behavior: 'allow' });
    const w = await decide(k, 'Write', { file_path: 'a.ts', content: '' });
    expect(w).toMatchObject({ behavior: 'deny', source: 'permissions/plan' });
    expect(w?.behavior === 'deny' && w.message).toMatch(/ExitPlanMode/);
    expect(await decide(k, 'Bash', { command: 'ls' })).toMatchObject({ behavior: 'deny' });
    const sections = await k.hooks.systemPrompt.promise([], k.runContext());
    expect(sections.map((s) => s.text)).toContain(PLAN_MODE_SECTION);
  });

  it('ExitPlanMode asks for approval; once approved, the afterApproval mode decides', async () => {
    const cwd = tmp();
    const k = await testKernel({ cwd, plugins: [{ plugin: permissions }, { plugin: plan, options: { afterApproval: 'acceptEdits' } }] });
    expect(await decide(k, EXIT_PLAN_MODE, { plan: '1. edit a.ts' })).toMatchObject({ behavior: 'ask', reason: 'the plan needs approval' });
    const out = await k.tools.get(EXIT_PLAN_MODE)!.call({ plan: '1. edit a.ts' }, k.toolContext('t', k.runContext()));
    expect(String(out)).toMatch(/approved/);
    expect(await decide(k, 'Write', { file_path: 'a.ts', content: '' })).toMatchObject({ behavior: 'allow', source: 'permissions/acceptEdits' });
    expect((await k.hooks.systemPrompt.promise([], k.runContext())).map((s) => s.text)).not.toContain(PLAN_MODE_SECTION);
  });

  it('onExit: allow approves the plan without a host', async () => {
    const k = await testKernel({ cwd: tmp(), plugins: [{ plugin: permissions }, { plugin: plan, options: { onExit: 'allow' } }] });
    expect(await decide(k, EXIT_PLAN_MODE, { plan: 'x' })).toMatchObject({ behavior: 'allow' });
  });

  it('afterApproval: bypassPermissions needs the opt-in', async () => {
    await expect(testKernel({ cwd: tmp(), plugins: [{ plugin: permissions }, { plugin: plan, options: { afterApproval: 'bypassPermissions' } }] })).rejects.toThrow(/allowBypassPermissions/);
  });
});
