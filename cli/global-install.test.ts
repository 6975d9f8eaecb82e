/**
 * rein as `npm install -g` lays it out (the packed package under <prefix>/lib/node_modules/rein,
 * its command linked from <prefix>/bin), run from a project that has no node_modules: a plugin
 * written as the README shows imports `rein` and `zod`, and gets the rein that loads it and its zod.
 *
 * The package is the real `npm pack` output. Its dependencies are the repository's own
 * node_modules, linked in one by one (an install from the registry is what
 * scripts/check-package.sh does).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, REPO, tempDir } from '../testing/support.js';

let tmp: ReturnType<typeof tempDir>;
let tarballFile: string;

/**
 * The repository's packages linked into `dir` one by one, without the optional chart packages (a
 * registry install of rein does not add them either); `replace` puts other folders in their place.
 */
function linkDependencies(dir: string, replace: Record<string, string> = {}, omit: string[] = []): void {
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(join(REPO, 'node_modules'))) {
    if (name.startsWith('.') || name === 'vega' || name === 'vega-lite' || omit.includes(name)) continue;
    symlinkSync(replace[name] ?? join(REPO, 'node_modules', name), join(dir, name));
  }
}
let prefix: string;
let project: string;

/** The README's plugin example, exactly as written there. */
function readmePlugin(): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const block = /```ts\n(\/\/ word-count\.ts\n[\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('README.md has no ```ts block starting with // word-count.ts');
  return block[1]!;
}

beforeAll(() => {
  tmp = tempDir('rein-global-');
  prefix = join(tmp.dir, 'prefix');
  const pkgDir = join(prefix, 'lib/node_modules/rein');
  mkdirSync(pkgDir, { recursive: true });
  mkdirSync(join(prefix, 'bin'));
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp.dir], { cwd: REPO, encoding: 'utf8', env: cleanEnv() });
  const tarball = join(tmp.dir, (JSON.parse(out) as { filename: string }[])[0]!.filename);
  execFileSync('tar', ['xzf', tarball, '-C', pkgDir, '--strip-components=1']);
  linkDependencies(join(pkgDir, 'node_modules'));
  tarballFile = tarball;
  symlinkSync('../lib/node_modules/rein/bin/rein.js', join(prefix, 'bin/rein'));

  // A project of the user's: no package.json, no node_modules, the plugin beside its preset.
  project = join(tmp.dir, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  writeFileSync(join(project, 'word-count.ts'), readmePlugin());
  writeFileSync(join(project, 'notes.txt'), 'one two\nthree\nfour five six\n');
  writeFileSync(join(project, 'my-agent.yaml'), 'extends: minimal\nplugins: { ./word-count.ts: { unit: lines } }\n');
  writeFileSync(join(project, 'scenario.yaml'), [
    'turns:',
    '  - reply:',
    '      - tool_use: { name: WordCount, input: { file_path: notes.txt } }',
    '  - reply:',
    '      - text: counted',
    '',
  ].join('\n'));
}, 60_000);
afterAll(() => tmp.cleanup());

const rein = (args: string[]) => spawnSync('rein', args, {
  cwd: project,
  env: { ...cleanEnv(), PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, REIN_HOME: join(tmp.dir, 'home') },
  encoding: 'utf8',
  timeout: 60_000,
});

describe('a global install', () => {
  it('ships no source maps, and no file points at one', () => {
    const files = (function list(dir: string): string[] {
      return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.name === 'node_modules' ? [] : e.isDirectory() ? list(join(dir, e.name)) : [join(dir, e.name)]));
    })(join(prefix, 'lib/node_modules/rein'));
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => /\.[cm]?js$/.test(f) && /^\/\/# sourceMappingURL=/m.test(readFileSync(f, 'utf8')))).toEqual([]);
  });

  it('loads the README\'s plugin from a project without node_modules: `rein` and `zod` are the global copy\'s', () => {
    const r = rein(['run', 'How many lines has notes.txt?', '--preset', './my-agent.yaml', '--sim', 'scenario.yaml', '--output-format', 'stream-json', '--no-layers']);
    expect(r.stderr).not.toMatch(/Cannot find module/);
    expect(r.status).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const result = events.flatMap((e) => (e.type === 'user' ? e.message.content : [])).find((b: { type: string }) => b.type === 'tool_result');
    // unit: lines, so 3 lines and a trailing newline: the README's count is text.split('\n').length.
    expect(result).toMatchObject({ content: [{ type: 'text', text: '4' }] });
    expect(result.is_error).toBeFalsy();
    expect(events.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'counted' });
  });

  it('installed in a project whose zod is zod 3, rein says it needs zod 4 when it loads', () => {
    // zod 3 as published: the v3 API that the zod package keeps under zod/v3 (no network here).
    const zod3 = join(tmp.dir, 'zod3');
    mkdirSync(zod3);
    writeFileSync(join(zod3, 'package.json'), JSON.stringify({ name: 'zod', version: '3.25.76', main: 'index.cjs' }));
    writeFileSync(join(zod3, 'index.cjs'), `module.exports = require(${JSON.stringify(join(REPO, 'node_modules/zod/v3/index.cjs'))});\n`);
    const app = join(tmp.dir, 'app');
    linkDependencies(join(app, 'node_modules'), { zod: zod3 });
    mkdirSync(join(app, 'node_modules/rein'));
    execFileSync('tar', ['xzf', tarballFile, '-C', join(app, 'node_modules/rein'), '--strip-components=1']);
    writeFileSync(join(app, 'package.json'), '{ "name": "app", "type": "module" }\n');
    writeFileSync(join(app, 'agent.js'), "import { createAgent } from 'rein';\nconsole.log(typeof createAgent);\n");
    const r = spawnSync(process.execPath, ['agent.js'], { cwd: app, env: cleanEnv(), encoding: 'utf8', timeout: 60_000 });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("Error: rein needs zod 4 (its peer dependency zod@^4.2), but the zod it loaded is zod 3: install zod 4 where rein is installed (npm install zod@^4)");
    expect(r.stderr).not.toMatch(/reading 'def'/);
  });

  it('rein, rein/preset, rein/simulator and rein/testing import from a plain .mjs in a project without vitest', () => {
    // vitest is an optional peer dependency: a project that installed rein alone has none.
    const app = join(tmp.dir, 'plain');
    linkDependencies(join(app, 'node_modules'), {}, ['vitest', '@vitest']);
    mkdirSync(join(app, 'node_modules/rein'));
    execFileSync('tar', ['xzf', tarballFile, '-C', join(app, 'node_modules/rein'), '--strip-components=1']);
    writeFileSync(join(app, 'probe.mjs'), [
      "import { createAgent } from 'rein';",
      "import { loadPreset } from 'rein/preset';",
      "import { createSimulator } from 'rein/simulator';",
      "import { runCli, tempDir, useTestEnv } from 'rein/testing';",
      'console.log([createAgent, loadPreset, createSimulator, runCli, tempDir].map((f) => typeof f).join(" "));',
      'try { useTestEnv(); } catch (err) { console.log(err.message); }',
      '',
    ].join('\n'));
    const r = spawnSync(process.execPath, ['probe.mjs'], { cwd: app, env: cleanEnv(), encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      'function function function function function',
      'useTestEnv registers vitest hooks, and vitest is not installed here: npm install --save-dev vitest (or make a temp folder with tempDir(), which needs no test runner)',
      '',
    ]);
  });

  it('says which packages `rein bench --html` needs and how to install them, before replaying anything', () => {
    const r = rein(['bench', '--workload', 'gen:turns=2', '--preset', 'minimal', '--html', 'out.html']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^rein: --html draws its charts with vega and vega-lite, which are not installed with rein .*`npm install vega@\^5\.\d+\.\d+ vega-lite@\^5\.\d+\.\d+` in your project, or `npm install -g vega@/);
    expect(r.stdout).toBe('');
  });
});
