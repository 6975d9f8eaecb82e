import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { impliedPlugins, policyPlugins } from './plugins.js';
import permissions from '../plugins/permissions/index.js';
import defaultMode from '../plugins/permissions/default/index.js';
import { decide, testKernel } from '../testing/permissions.js';

describe('plugins a preset implies', () => {
  it('always the rules engine, the mode plugin and sanitize; the classifier for auto; shell hooks when configured', () => {
    expect(policyPlugins({}).map(([n]) => n)).toEqual(['permissions', 'permissions/default', 'sanitize']);
    expect(policyPlugins({ permissions: { mode: 'plan' } }).map(([n]) => n)).toEqual(['permissions', 'permissions/plan', 'sanitize']);
    const auto = policyPlugins({ permissions: { mode: 'auto' }, autoMode: { soft_deny: ['x'] } });
    expect(auto[1]).toEqual(['classifier', { soft_deny: ['x'] }, 'permissions.mode', { key: 'autoMode' }]);
    expect(policyPlugins({ hooks: { PreToolUse: [] } }).map(([n]) => n)).not.toContain('hooks/shell');
    const hooks = { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] };
    expect(policyPlugins({ hooks }).at(-1)).toEqual(['hooks/shell', hooks, 'hooks', { key: 'hooks' }]);
    expect(impliedPlugins({ permissions: { mode: 'dontAsk' } }).map((p) => p.name)).toContain('permissions/dontAsk');
  });

  it('protects the preset files the loader names', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'rein-implied-'));
    writeFileSync(join(cwd, 'agent.yaml'), 'name: x\n');
    const k = await testKernel({ cwd, presetDir: cwd, preset: { files: [join(cwd, 'agent.yaml')] }, plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
    expect(await decide(k, 'Write', { file_path: 'agent.yaml', content: '' })).toMatchObject({ behavior: 'ask', reason: expect.stringMatching(/agent.yaml is protected/) });
  });
});
