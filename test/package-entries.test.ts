/**
 * The package's documented entries, imported as a project that installed rein would import them:
 * `rein`, `rein/preset`, `rein/simulator` and `rein/testing` resolve through package.json `exports`
 * to the built files (dist/, which `npm run build` writes) and have the documented functions.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, REPO, useTestEnv } from '../testing/index.js';

const env = useTestEnv({ prefix: 'rein-entries-' });

describe('package entries', () => {
  it('rein, rein/preset, rein/simulator and rein/testing import from an installed package', () => {
    mkdirSync(join(env.dir, 'node_modules'));
    symlinkSync(REPO, join(env.dir, 'node_modules', 'rein'));
    writeFileSync(join(env.dir, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(join(env.dir, 'probe.js'), `
const entries = {
  rein: ['createAgent', 'definePlugin', 'defineTool', 'createKernelState', 'tokenCounter', 'ModelRequestError', 'expectCacheDrop'],
  'rein/preset': ['loadPreset', 'validatePresetFile', 'PresetError'],
  'rein/simulator': ['createSimulator', 'startSimServer', 'loadScenario'],
  'rein/testing': ['useTestEnv', 'serveScenario', 'simKernel', 'toolKernel', 'callTool', 'collect'],
};
const out = {};
for (const [name, fns] of Object.entries(entries)) {
  const m = await import(name);
  out[name] = fns.filter((f) => typeof m[f] !== 'function');
}
console.log(JSON.stringify(out));
`);
    const r = spawnSync(process.execPath, ['probe.js'], { cwd: env.dir, env: cleanEnv(), encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ rein: [], 'rein/preset': [], 'rein/simulator': [], 'rein/testing': [] });
  });
});
