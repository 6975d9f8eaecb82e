/**
 * The published command: bin/rein.js running the bundle that `npm install` builds (dist/bundle/).
 * The other CLI tests run the sources; this one checks what users actually execute.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createSimulator } from '../simulator/simulator.js';
import { parseScenario } from '../simulator/scenario.js';
import { startSimServer } from '../simulator/server.js';
import { cleanEnv, REPO, tempDir } from '../testing/support.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => { tmp = tempDir('rein-bin-'); });
afterEach(() => tmp.cleanup());

const bin = join(REPO, 'bin/rein.js');

/** A copy of the built package (no code cache), so runs under other Node options leave the repository's dist/ alone. */
function copyPackage(pkg: string): string {
  mkdirSync(join(pkg, 'dist/bundle'), { recursive: true });
  cpSync(join(REPO, 'bin'), join(pkg, 'bin'), { recursive: true });
  cpSync(join(REPO, 'package.json'), join(pkg, 'package.json'));
  cpSync(join(REPO, 'dist/bundle/rein.cjs'), join(pkg, 'dist/bundle/rein.cjs'));
  symlinkSync(join(REPO, 'presets'), join(pkg, 'presets'));
  symlinkSync(join(REPO, 'node_modules'), join(pkg, 'node_modules'));
  return pkg;
}
const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: tmp.dir, env: { ...cleanEnv(), REIN_HOME: join(tmp.dir, 'home') }, encoding: 'utf8', timeout: 60_000 });

describe('bin/rein.js', () => {
  it('is built by npm install: the bundle and a code cache that V8 accepts', () => {
    expect(existsSync(join(REPO, 'dist/bundle/rein.cjs'))).toBe(true);
    const r = spawnSync(process.execPath, [bin, '--help'], { cwd: tmp.dir, env: { ...cleanEnv(), REIN_TRACE_STARTUP: '1' }, encoding: 'utf8' });
    expect(r.stderr).toMatch(/bundle compiled; code cache used/);
  });

  describe('a code cache that does not fit costs only speed: it is not used, the run works, and a fresh one is written at exit', () => {
    // A copy of the package, so the repository's own cache is not touched.
    let pkg: string;
    let cache: string;
    const go = (nodeArgs: string[] = [], extraEnv: NodeJS.ProcessEnv = {}) => spawnSync(process.execPath, [...nodeArgs, join(pkg, 'bin/rein.js'), 'run', 'hi', '--preset', 'minimal', '--no-layers', '--output-format', 'json'], { cwd: tmp.dir, env: { ...cleanEnv(), REIN_HOME: join(tmp.dir, 'home'), REIN_TRACE_STARTUP: '1', ...extraEnv }, encoding: 'utf8', timeout: 60_000 });
    const works = (r: ReturnType<typeof go>) => {
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ subtype: 'success' });
    };
    beforeEach(() => {
      pkg = copyPackage(join(tmp.dir, 'pkg'));
      cache = join(pkg, 'dist/bundle/rein.cjs.cache');
      const first = go();
      works(first);
      expect(first.stderr).toMatch(/code cache missing/);
      const second = go();
      works(second);
      expect(second.stderr).toMatch(/code cache used/);
    });

    it('garbage', () => {
      writeFileSync(cache, 'not a code cache');
      const r = go();
      works(r);
      expect(r.stderr).toMatch(/code cache missing/);
      expect(go().stderr).toMatch(/code cache used/);
    });

    it('damaged bytes under an intact header (V8 would crash on them)', () => {
      const bytes = readFileSync(cache);
      for (let i = bytes.length - 2000; i < bytes.length; i += 97) bytes[i] = bytes[i]! ^ 0xff;
      writeFileSync(cache, bytes);
      const r = go();
      works(r);
      expect(r.stderr).toMatch(/code cache missing/);
    });

    it('made by another Node release', () => {
      writeFileSync(cache, readFileSync(cache, 'latin1').replace(`"${process.version}"`, '"v20.0.0"'), 'latin1');
      const r = go();
      works(r);
      expect(r.stderr).toMatch(/code cache missing/);
    });

    it('made for another bundle of the same length', () => {
      const bundle = join(pkg, 'dist/bundle/rein.cjs');
      writeFileSync(bundle, readFileSync(bundle, 'latin1'), 'latin1');
      const r = go();
      works(r);
      expect(r.stderr).toMatch(/code cache missing/);
    });

    it('runs under other Node options keep a cache of their own instead of replacing the plain one', () => {
      const withOptions = { NODE_OPTIONS: '--max-old-space-size=1000' };
      expect(go([], withOptions).stderr).toMatch(/code cache missing/);
      expect(go([], withOptions).stderr).toMatch(/code cache used/);
      expect(go().stderr).toMatch(/code cache used/);
      expect(readdirSync(join(pkg, 'dist/bundle')).filter((f) => f.endsWith('.cache'))).toHaveLength(2);
    });

    it('with --enable-source-maps the bundle is loaded by Node\'s own loader (which applies source maps; it does not for a vm.Script)', () => {
      const r = go(['--enable-source-maps']);
      works(r);
      expect(r.stderr).not.toMatch(/code cache/);
    });
  });

  it('talks HTTPS from the bundle: trusts a server whose CA is in NODE_EXTRA_CA_CERTS, refuses it otherwise', async () => {
    // The simulator behind an HTTPS front with the test certificate (test/fixtures/tls/).
    const sim = await startSimServer({ simulator: createSimulator({ scenario: parseScenario('turns:\n  - reply: [{ text: "over TLS" }]\n') }), port: 0 });
    const certDir = join(REPO, 'test/fixtures/tls');
    const front = createHttpsServer({ key: readFileSync(join(certDir, 'localhost-test.key')), cert: readFileSync(join(certDir, 'localhost-test.crt')) }, (req, res) => {
      const up = httpRequest(`${sim.url}${req.url}`, { method: req.method, headers: req.headers }, (u) => { res.writeHead(u.statusCode!, u.headers); u.pipe(res); });
      req.pipe(up);
    });
    await new Promise<void>((done) => front.listen(0, '127.0.0.1', done));
    const go = (extraCerts: string, format = 'json') => new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const env = { ...cleanEnv(), REIN_HOME: join(tmp.dir, 'home'), REIN_MAX_RETRIES: '0', ANTHROPIC_BASE_URL: `https://127.0.0.1:${(front.address() as AddressInfo).port}`, NODE_EXTRA_CA_CERTS: extraCerts };
      const child = spawn(process.execPath, [bin, 'run', 'hi', '--preset', 'minimal', '--no-layers', '--output-format', format], { cwd: tmp.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => { stdout += d; });
      child.stderr.on('data', (d) => { stderr += d; });
      child.on('exit', (code) => done({ code, stdout, stderr }));
    });
    try {
      const trusted = await go(join(certDir, 'localhost-test.crt'));
      expect(trusted.code).toBe(0);
      expect(JSON.parse(trusted.stdout)).toMatchObject({ subtype: 'success', result: 'over TLS' });
      const untrusted = await go('/dev/null', 'text');
      expect(untrusted.code).toBe(1);
      expect(untrusted.stderr).toMatch(/^rein: model_error: cannot reach 127\.0\.0\.1:\d+: the TLS certificate was not accepted: self-signed certificate.* \([A-Z_]+\)$/m);
    } finally {
      front.close();
      await sim.close();
    }
  });

  it('stops quietly with 141 when its reader closes stdout (rein run ... | head)', async () => {
    const child = spawn(process.execPath, [bin, 'run', 'hi', '--no-layers', '--output-format', 'stream-json'], { cwd: tmp.dir, env: { ...cleanEnv(), REIN_HOME: join(tmp.dir, 'home') }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise((done) => child.on('exit', done));
    expect(code).toBe(141);
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
  });

  it('stops quietly with 141 when its reader closes stderr too (rein -p ... 2>&1 | head -1), not with a stack trace and 1', () => {
    const env = { ...cleanEnv(), REIN_HOME: join(tmp.dir, 'home') };
    // The run's first stderr line (the simulator notice) is all head reads; -v writes more after it.
    const both = spawnSync('bash', ['-c', '"$0" "$1" -p -v --no-layers hi 2>&1 | head -1 >/dev/null; echo "${PIPESTATUS[0]}"', process.execPath, bin], { cwd: tmp.dir, env, encoding: 'utf8', timeout: 60_000 });
    expect(both.stdout).toBe('141\n');
    // stderr alone to the reader that leaves, stdout to a file: the file has no stack trace either.
    const errOnly = spawnSync('bash', ['-c', '"$0" "$1" -p -v --no-layers hi 2>&1 >out.txt | head -1 >/dev/null; echo "${PIPESTATUS[0]}"', process.execPath, bin], { cwd: tmp.dir, env, encoding: 'utf8', timeout: 60_000 });
    expect(errOnly.stdout).toBe('141\n');
    expect(readFileSync(join(tmp.dir, 'out.txt'), 'utf8')).not.toMatch(/EPIPE|node:events|\n\s+at /);
  });

  it('loads packages kept outside the bundle: a TypeScript plugin through jiti', () => {
    const r = spawnSync(process.execPath, [bin, 'run', 'How many words are in poem.txt?', '--preset', './agent.yaml', '--sim', 'scenario.yaml', '--output-format', 'json', '--no-layers'], { cwd: join(REPO, 'examples/custom-tool'), env: { ...cleanEnv(), REIN_HOME: join(tmp.dir, 'home') }, encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('rein: running against the embedded simulator with scenario scenario.yaml\n');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ subtype: 'success', result: 'poem.txt has 14 words on 4 lines.' });
  });

  it('prints the version without loading the bundle, for --version, -V and -v alone (as `claude -v`)', () => {
    for (const flag of ['--version', '-V', '-v']) {
      const r = run([flag]);
      expect(r.status, flag).toBe(0);
      expect(r.stdout.trim(), flag).toBe(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version);
    }
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
    // Every figure of a simulated run says so.
    expect(r.stderr).toMatch(/rein: simulated tokens: input \d+, cache write \d+ .*cache read \d+, output \d+/);
    expect(r.stderr).toMatch(/cache-read share of input [1-9]\d*\.\d%, simulated cost \$\d+\.\d{4} at API prices \(nothing was billed\)/);
    expect(r.stdout).toMatch(/its token counts and cost are simulated, and nothing was billed/);
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
    expect(result).toMatchObject({ subtype: 'success', terminal_reason: 'completed', rein_terminal_reason: 'end_turn', num_turns: 3, simulated: true });
    expect(result.result).toContain('README.md');
    expect(result.usage.cache_read_input_tokens).toBeGreaterThan(0);
  });

  it('does no lazy work before its first request: no ICU data, no module through Node\'s require, no child_process (default preset)', () => {
    // A first Intl call loads ICU's locale data (~15 ms); a package the bundle leaves external, or
    // one that looks for another with require (fdir for picomatch), is a file read and compile;
    // node:child_process is only needed to start a process, and a run in a folder without git
    // starts none before its first request. Each belongs after the first request, on the path that
    // needs it.
    const pkg = copyPackage(join(tmp.dir, 'pkg'));
    const spy = join(tmp.dir, 'spy.cjs');
    writeFileSync(spy, [
      "const say = (what) => process.stderr.write('SPY ' + what + '\\n');",
      "const toLocale = Number.prototype.toLocaleString;",
      "Number.prototype.toLocaleString = function (...a) { say('Number#toLocaleString'); return toLocale.apply(this, a); };",
      "for (const k of ['NumberFormat', 'DateTimeFormat', 'Collator', 'PluralRules']) { const O = Intl[k]; Intl[k] = function (...a) { say('Intl.' + k); return new O(...a); }; }",
      "const Module = require('node:module');",
      "const load = Module._load;",
      "Module._load = function (request, parent, isMain) { if (!isMain && (!Module.isBuiltin(request) || /child_process/.test(request))) say('require ' + request); return load.apply(this, arguments); };",
    ].join('\n'));
    const r = spawnSync(process.execPath, ['-r', spy, join(pkg, 'bin/rein.js'), 'run', 'hi', '--preset', 'default', '--no-layers', '--output-format', 'json'], { cwd: tmp.dir, env: { ...cleanEnv(), REIN_HOME: join(tmp.dir, 'home'), REIN_TRACE_STARTUP: '1' }, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stderr.split('\n');
    const first = lines.findIndex((l) => /request 1 built/.test(l));
    expect(first).toBeGreaterThan(0);
    expect(lines.slice(0, first).filter((l) => l.startsWith('SPY '))).toEqual([]);
    // The spy works: the demo's answer formats numbers after the first request.
    expect(lines.slice(first).some((l) => l.startsWith('SPY '))).toBe(true);
  });
});
