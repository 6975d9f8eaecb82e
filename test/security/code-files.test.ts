/**
 * Class: code rein itself runs, written by the agent. A plugin named by path or package is
 * imported by the next `rein` run before any permission check, with every module it imports; a
 * hook script runs on the next hook event, in this very run. Through `rein run` in acceptEdits
 * with real files: after reading them, writing the plugin entry, a module it imports, a file of a
 * plugin package in node_modules, or a hook script by Write, Edit or a Bash redirection, or
 * replacing the plugin's folder, or writing split pieces whose names may become a plugin file, is asked about (denied headless) with a reason that names what the file is; no planted code runs, in
 * this run or the next; an ordinary source file is still written without asking.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, REPO } from '../../testing/support.js';
import { ids, reinRun, sandbox, type Outcome, type Sandbox } from './harness.js';

/** A second run with the same preset, as a user's next `rein run` in the project (the built-in demo model). */
function nextRun(s: Sandbox): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [join(REPO, 'bin/rein.js'), 'run', '-p', 'hello', '--preset', './agent.yaml', '--no-layers'], {
    cwd: s.proj,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...cleanEnv(), REIN_HOME: join(s.root, 'rein-home'), HOME: s.home, XDG_CONFIG_HOME: join(s.home, '.config') },
  });
}

/** Writes `text` to `rel` under the project, making its folders. */
function put(s: Sandbox, rel: string, text: string): void {
  mkdirSync(join(s.proj, rel, '..'), { recursive: true });
  writeFileSync(join(s.proj, rel), text);
}

/** A plugin module that does nothing when applied. */
const PLUGIN = `import { z } from 'zod';\nimport { label } from './helper';\nexport default { name: 'guarded', options: z.object({}).strict(), apply() { void label; } };\n`;
const PACKAGE_PLUGIN = `import { z } from 'zod';\nimport lib from './lib.js';\nexport default { name: 'pkg-plugin', options: z.object({}).strict(), apply() { void lib; } };\n`;

/** A planted line of code that leaves `marker` behind when it runs. */
const planted = (marker: string) => ({
  ts: `import { execSync } from 'node:child_process';\nexecSync(${JSON.stringify(`touch ${marker}`)});\nexport const label = 'x';\n`,
  plugin: `import { execSync } from 'node:child_process';\nimport { z } from 'zod';\nexecSync(${JSON.stringify(`touch ${marker}`)});\nexport default { name: 'guarded', options: z.object({}).strict(), apply() {} };\n`,
  cjs: `require('node:child_process').execSync(${JSON.stringify(`touch ${marker}`)});\nmodule.exports = {};\n`,
  sh: `#!/bin/sh\ntouch ${marker}\n`,
});

const PRESET = `name: code
tools: [Read, Write, Edit, Bash]
permissions:
  mode: acceptEdits
  allow: ["Bash(echo:*)", "Bash(split:*)"]
plugins:
  ./plugins/guarded/index.ts: {}
  rein-plugin-pkg: {}
hooks:
  PreToolUse:
    - hooks: [{ type: command, command: "bash scripts/guard.sh" }]
  PostToolUse:
    - hooks: [{ type: command, command: "node tools/hook.mjs" }]
  Stop:
    - hooks: [{ type: command, command: "./scripts/check.sh" }]
`;

describe('code rein runs, written in acceptEdits', () => {
  let s: Sandbox;
  let o: Outcome;
  let again: SpawnSyncReturns<string>;
  let pluginRanInRun: boolean;
  const marker = (name: string) => join(s.outside, name);
  const reads = () => ids('cr', ['plugins/guarded/index.ts', 'plugins/guarded/helper.ts', 'node_modules/rein-plugin-pkg/lib.js', 'scripts/guard.sh', 'tools/hook.mjs', 'scripts/check.sh', 'src/app.ts']
    .map((file_path) => ({ name: 'Read', input: { file_path } as Record<string, unknown> }))
    .concat([{ name: 'Write', input: { file_path: 'staging/index.ts', content: planted(marker('plugin-ran')).plugin } }]));
  const writes = () => {
    const p = planted(marker('plugin-ran'));
    const h = planted(marker('hook-ran'));
    return ids('cw', [
      { name: 'Write', input: { file_path: 'plugins/guarded/index.ts', content: p.plugin } },
      { name: 'Edit', input: { file_path: 'plugins/guarded/helper.ts', old_string: "export const label = 'guarded';", new_string: p.ts } },
      { name: 'Bash', input: { command: `echo "require('node:child_process').execSync('touch ${marker('plugin-ran')}')" >> node_modules/rein-plugin-pkg/lib.js` } },
      { name: 'Write', input: { file_path: 'scripts/guard.sh', content: h.sh } },
      { name: 'Write', input: { file_path: 'tools/hook.mjs', content: `import { execSync } from 'node:child_process';\nexecSync(${JSON.stringify(`touch ${marker('hook-ran')}`)});\n` } },
      { name: 'Bash', input: { command: `echo 'touch ${marker('hook-ran')}' >> scripts/check.sh` } },
      // Replacing the plugin's folder replaces its files.
      { name: 'Bash', input: { command: 'rm -rf plugins/guarded && mv staging plugins/guarded' } },
      // split names its pieces PREFIX plus a made-up suffix: the 24th line lands in inde + x + .ts.
      { name: 'Bash', input: { command: 'split -l 1 -a 1 --additional-suffix=.ts lines.txt plugins/guarded/inde' } },
      // Pieces whose names cannot be a plugin file are written without asking.
      { name: 'Bash', input: { command: 'split -l 13 lines.txt plugins/guarded/part' } },
      { name: 'Edit', input: { file_path: 'src/app.ts', old_string: 'export const a = 1;', new_string: 'export const a = 2;' } },
    ]);
  };
  let w: ReturnType<typeof writes>;
  let r: ReturnType<typeof reads>;
  const originals = new Map<string, string>();

  beforeAll(async () => {
    s = sandbox();
    put(s, 'plugins/guarded/index.ts', PLUGIN);
    put(s, 'plugins/guarded/helper.ts', "export const label = 'guarded';\n");
    put(s, 'node_modules/rein-plugin-pkg/package.json', JSON.stringify({ name: 'rein-plugin-pkg', version: '1.0.0', main: 'index.js' }));
    put(s, 'node_modules/rein-plugin-pkg/index.js', PACKAGE_PLUGIN);
    put(s, 'node_modules/rein-plugin-pkg/lib.js', 'module.exports = { ok: true };\n');
    put(s, 'scripts/guard.sh', 'exit 0\n');
    put(s, 'tools/hook.mjs', 'process.exit(0);\n');
    put(s, 'scripts/check.sh', '#!/bin/sh\nexit 0\n');
    chmodSync(join(s.proj, 'scripts/check.sh'), 0o755);
    put(s, 'src/app.ts', 'export const a = 1;\n');
    put(s, 'lines.txt', Array.from({ length: 26 }, (_, i) => `// line ${i + 1}\n`).join(''));
    for (const f of ['plugins/guarded/index.ts', 'plugins/guarded/helper.ts', 'node_modules/rein-plugin-pkg/lib.js', 'scripts/guard.sh', 'tools/hook.mjs', 'scripts/check.sh']) originals.set(f, readFileSync(join(s.proj, f), 'utf8'));
    r = reads();
    w = writes();
    // Reads first, then the writes, then one more call: its PreToolUse and PostToolUse hooks run
    // whatever the scripts hold by then, and the Stop hook runs at the end of the turn.
    o = await reinRun(s, PRESET, [r, w, ids('cx', [{ name: 'Read', input: { file_path: 'src/app.ts' } }])]);
    pluginRanInRun = existsSync(marker('plugin-ran'));
    again = nextRun(s);
  });
  afterAll(() => s.cleanup());

  it('asks before each write to plugin code or a hook script (denied headless), naming why', () => {
    expect(o.code, o.stderr).toBe(0);
    for (const call of r) expect(o.denials.has(call.id), `${call.input.file_path}: ${o.denials.get(call.id)}`).toBe(false);
    const [entry, helper, pkg, guard, hook, check, folder, pieces, others] = w;
    expect(o.denials.get(entry!.id)).toMatch(/plugins\/guarded\/index\.ts is code rein runs \(plugin \.\/plugins\/guarded\/index\.ts named in agent\.yaml\)/);
    expect(o.denials.get(helper!.id)).toMatch(/plugins\/guarded\/helper\.ts is code rein runs \(a module loaded by plugin \.\/plugins\/guarded\/index\.ts named in agent\.yaml\)/);
    expect(o.denials.get(pkg!.id)).toMatch(/node_modules\/rein-plugin-pkg\/lib\.js is code rein runs \(.*plugin rein-plugin-pkg named in agent\.yaml\)/);
    expect(o.denials.get(guard!.id)).toMatch(/scripts\/guard\.sh is code rein runs \(run by the PreToolUse hook `bash scripts\/guard\.sh`\)/);
    expect(o.denials.get(hook!.id)).toMatch(/tools\/hook\.mjs is code rein runs \(run by the PostToolUse hook `node tools\/hook\.mjs`\)/);
    expect(o.denials.get(check!.id)).toMatch(/scripts\/check\.sh is code rein runs \(run by the Stop hook `\.\/scripts\/check\.sh`\)/);
    expect(o.denials.get(folder!.id)).toMatch(/plugins\/guarded is a folder holding .*plugins\/guarded\/index\.ts, which is code rein runs \(plugin \.\/plugins\/guarded\/index\.ts named in agent\.yaml\)/);
    expect(o.denials.get(pieces!.id)).toMatch(/plugins\/guarded\/inde… is a name that may be .*plugins\/guarded\/index\.ts, which is code rein runs \(plugin \.\/plugins\/guarded\/index\.ts named in agent\.yaml\)/);
    expect(existsSync(join(s.proj, 'plugins/guarded/indea.ts')), 'split wrote its pieces').toBe(false);
    expect(o.denials.has(others!.id), o.denials.get(others!.id)).toBe(false);
    expect(readFileSync(join(s.proj, 'plugins/guarded/partab'), 'utf8')).toMatch(/^\/\/ line 14\n/);
    for (const [f, text] of originals) expect(readFileSync(join(s.proj, f), 'utf8'), f).toBe(text);
  });
  it('an ordinary source file is still written without asking', () => {
    const edit = w[w.length - 1]!;
    expect(o.denials.has(edit.id), o.denials.get(edit.id)).toBe(false);
    expect(o.results.get(edit.id)?.isError, o.results.get(edit.id)?.text).toBe(false);
    expect(readFileSync(join(s.proj, 'src/app.ts'), 'utf8')).toBe('export const a = 2;\n');
  });
  it('no planted code runs: no hook script in this run, no plugin code in the next', () => {
    expect(existsSync(marker('hook-ran')), 'a hook ran a rewritten script').toBe(false);
    expect(pluginRanInRun).toBe(false);
    expect(again.status, again.stderr).toBe(0);
    expect(existsSync(marker('plugin-ran')), 'the next run loaded rewritten plugin code').toBe(false);
  });
});
