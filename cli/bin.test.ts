/**
 * The published command: bin/rein.js running the bundle that `npm install` builds (dist/bundle/).
 * The other CLI tests run the sources; this one checks what users actually execute.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, REPO, tempDir } from '../kernel/test/support.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => { tmp = tempDir('rein-bin-'); });
afterEach(() => tmp.cleanup());

const bin = join(REPO, 'bin/rein.js');
const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: tmp.dir, env: { ...cleanEnv(), REIN_HOME: join(tmp.dir, 'home') }, encoding: 'utf8', timeout: 60_000 });

describe('bin/rein.js', () => {
  it('is built by npm install (dist/bundle/main.js exists)', () => {
    expect(existsSync(join(REPO, 'dist/bundle/main.js'))).toBe(true);
  });

  it('prints the version without loading the bundle', () => {
    const r = run(['--version']);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version);
  });

  it('offers every command from the bundle', () => {
    const r = run(['--help']);
    for (const c of ['run', 'hooks', 'sim', 'preset', 'cache', 'bench']) expect(r.stdout).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
  });

  it('runs the README\'s first command: the demo with the default preset, config layers included', () => {
    writeFileSync(join(tmp.dir, 'README.md'), '# A project\n\nIt does things.\n');
    const r = run(['run', '--preset', 'default', 'What is in this directory?']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('running the built-in demo against the embedded simulator');
    expect(r.stdout).toContain('README.md');
    expect(r.stderr).toMatch(/rein: tokens: input \d+, cache write \d+ .*cache read \d+, output \d+/);
    expect(r.stderr).toMatch(/cache-read share of input [1-9]\d*\.\d%/);
  });

  it('prints a preset with origins, and the hook table with tapable class names', () => {
    const p = run(['preset', 'print', '--origins', join(REPO, 'presets/readonly.yaml')]);
    expect(p.status).toBe(0);
    expect(p.stdout).toMatch(/^name: readonly # preset .*presets\/readonly\.yaml:\d+$/m);
    const h = run(['hooks']);
    expect(h.status).toBe(0);
    expect(h.stdout).toMatch(/^sessionStart {2}\(AsyncSeriesHook\)$/m);
    expect(h.stdout).toMatch(/^toolDefinitions {2}\(SyncWaterfallHook\)$/m);
  });

  it('runs the built-in demo on a directory with the default preset and reports usage', () => {
    writeFileSync(join(tmp.dir, 'README.md'), '# A project\n\nIt does things.\n');
    const r = run(['run', 'What is in this directory?', '--no-layers', '--output-format', 'json']);
    expect(r.stderr).toContain('running the built-in demo against the embedded simulator');
    expect(r.status).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ subtype: 'success', terminal_reason: 'end_turn', num_turns: 3 });
    expect(result.result).toContain('README.md');
    expect(result.usage.cache_read_input_tokens).toBeGreaterThan(0);
  });
});
