/**
 * The build runs when its inputs changed, not on every `npm install` (scripts/build.mjs, run by
 * `prepare`), and the packed package.json has no script a consumer's npm would list or run
 * (scripts/pack-manifest.mjs, run by `prepack` / `postpack`). Both run here on a small project
 * laid out like this repository: real tsc, and a bundle step that writes its output.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, REPO, tempDir } from '../testing/support.js';

let tmp: ReturnType<typeof tempDir>;
let root: string;

beforeAll(() => {
  tmp = tempDir('rein-build-');
  root = join(tmp.dir, 'project');
  mkdirSync(join(root, 'scripts'), { recursive: true });
  mkdirSync(join(root, 'kernel'));
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'presets'));
  cpSync(join(REPO, 'scripts/build.mjs'), join(root, 'scripts/build.mjs'));
  cpSync(join(REPO, 'scripts/pack-manifest.mjs'), join(root, 'scripts/pack-manifest.mjs'));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  // Each run of the bundle step leaves a line in bundle-runs.log.
  writeFileSync(join(root, 'scripts/bundle.mjs'), "import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync('dist/bundle', { recursive: true });\nwriteFileSync('dist/bundle/rein.cjs', 'built');\nappendFileSync('bundle-runs.log', 'x');\n");
  writeFileSync(join(root, 'bin/rein.js'), '');
  writeFileSync(join(root, '.gitignore'), 'dist/\nbundle-runs.log\n');
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'rein', version: '0.0.0', type: 'module', scripts: { build: 'node scripts/build.mjs', prepare: 'node scripts/build.mjs --if-changed', prepack: 'x', postpack: 'y', test: 'vitest run' } }, null, 2));
  writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, types: [] } }));
  writeFileSync(join(root, 'tsconfig.build.json'), JSON.stringify({ extends: './tsconfig.json', compilerOptions: { outDir: 'dist', rootDir: '.' }, include: ['kernel'] }));
  writeFileSync(join(root, 'kernel/index.ts'), 'export const answer: number = 42;\n');
}, 30_000);
afterAll(() => tmp.cleanup());

const build = (...args: string[]) => execFileSync(process.execPath, ['scripts/build.mjs', ...args], { cwd: root, encoding: 'utf8' });
const bundleRuns = () => readFileSync(join(root, 'bundle-runs.log'), 'utf8').length;

describe('scripts/build.mjs --if-changed', () => {
  // tsc runs twice in all: each run costs seconds.
  it('builds what is missing, then nothing while the inputs stay the same', () => {
    writeFileSync(join(root, 'kernel/old.ts'), 'export const old = 1;\n');
    expect(build('--if-changed')).toMatch(/rein build: library built in .*\nrein build: bundle built in /);
    expect(readFileSync(join(root, 'dist/kernel/index.js'), 'utf8')).toContain('42');
    const compiled = statSync(join(root, 'dist/kernel/index.js')).mtimeMs;
    expect(build('--if-changed')).toBe('rein build: up to date\n');
    // Ignored files are no input.
    mkdirSync(join(root, 'dist/extra'), { recursive: true });
    expect(build('--if-changed')).toBe('rein build: up to date\n');
    expect(statSync(join(root, 'dist/kernel/index.js')).mtimeMs).toBe(compiled);
    expect(bundleRuns()).toBe(1);
  }, 60_000);

  it('a change to the bundle step rebuilds only the bundle', () => {
    writeFileSync(join(root, 'scripts/bundle.mjs'), `${readFileSync(join(root, 'scripts/bundle.mjs'), 'utf8')}// changed\n`);
    expect(build('--if-changed')).toMatch(/^rein build: bundle built in [\d.]+ s\n$/);
    expect(bundleRuns()).toBe(2);
  }, 60_000);

  it('a changed source rebuilds both, and a deleted one leaves no compiled file behind', () => {
    writeFileSync(join(root, 'kernel/index.ts'), 'export const answer: number = 43;\n');
    rmSync(join(root, 'kernel/old.ts'));
    expect(build('--if-changed')).toMatch(/library built .*\n.*bundle built/);
    expect(readFileSync(join(root, 'dist/kernel/index.js'), 'utf8')).toContain('43');
    expect(existsSync(join(root, 'dist/kernel/old.js'))).toBe(false);
    expect(bundleRuns()).toBe(3);
  }, 60_000);
});

describe('scripts/pack-manifest.mjs', () => {
  it('strips the scripts that build a clone from the packed manifest, and puts the clone\'s back', () => {
    const before = readFileSync(join(root, 'package.json'), 'utf8');
    execFileSync(process.execPath, ['scripts/pack-manifest.mjs', 'strip'], { cwd: root });
    const packed = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(packed.scripts).toEqual({ build: 'node scripts/build.mjs', test: 'vitest run' });
    execFileSync(process.execPath, ['scripts/pack-manifest.mjs', 'restore'], { cwd: root });
    expect(readFileSync(join(root, 'package.json'), 'utf8')).toBe(before);
  });

  it('a pack that fails (npm pack --pack-destination a missing folder) still puts the clone\'s package.json back', async () => {
    // The repository's own prepack and postpack, run by a real npm.
    const scripts = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).scripts as Record<string, string>;
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    writeFileSync(join(root, 'package.json'), JSON.stringify({ ...pkg, scripts: { ...pkg.scripts, prepack: scripts.prepack, postpack: scripts.postpack } }, null, 2));
    const before = readFileSync(join(root, 'package.json'), 'utf8');
    const pack = (dest: string) => spawnSync('npm', ['pack', '--pack-destination', dest], { cwd: root, encoding: 'utf8', env: cleanEnv() });
    const failed = pack(join(tmp.dir, 'missing'));
    expect(failed.status, failed.stderr).not.toBe(0);
    expect(failed.stderr).toContain(join(tmp.dir, 'missing'));
    // npm has exited without running postpack; the watcher strip started puts the manifest back.
    for (let i = 0; i < 100 && readFileSync(join(root, 'package.json'), 'utf8') !== before; i++) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(join(root, 'package.json'), 'utf8')).toBe(before);
    expect(existsSync(join(root, '.package.json.prepack'))).toBe(false);
    // A pack that succeeds: the tarball's manifest is stripped, the clone's is back, no watcher is left.
    mkdirSync(join(tmp.dir, 'out'));
    const ok = pack(join(tmp.dir, 'out'));
    expect(ok.status, ok.stderr).toBe(0);
    expect(readFileSync(join(root, 'package.json'), 'utf8')).toBe(before);
    const packed = JSON.parse(execFileSync('tar', ['-xzOf', join(tmp.dir, 'out', 'rein-0.0.0.tgz'), 'package/package.json'], { encoding: 'utf8' }));
    expect(packed.scripts).toEqual({ build: 'node scripts/build.mjs', test: 'vitest run' });
    const watchers = () => readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
      // (An ended one may stay a zombie where nothing collects orphans: its command line is empty.)
      try { return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(`${join(root, 'scripts/pack-manifest.mjs')}\0watch`); } catch { return false; }
    });
    for (let i = 0; i < 100 && watchers().length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(watchers()).toEqual([]);
  }, 60_000);

  it('the repository\'s package.json builds on prepare and strips on prepack', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
    expect(pkg.scripts.prepare).toBe('node scripts/build.mjs --if-changed');
    expect(pkg.scripts.prepack).toMatch(/node scripts\/pack-manifest\.mjs strip$/);
    expect(pkg.scripts.postpack).toBe('node scripts/pack-manifest.mjs restore');
  });
});
