/**
 * Classes: Glob listing outside the working directory through its pattern (`../outside/*`, an
 * absolute pattern, `../../**`), and Grep reading, while walking a directory, files a Read deny
 * rule covers (`.env` under the default preset's `Read(./.env)`). Through `rein run`, real files.
 * A secret name or value must never reach the model; every call is denied, or its result says
 * which files were left out and why.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allText, ids, reinRun, sandbox, type Call, type Outcome, type Sandbox } from './harness.js';

function plantOutside(s: Sandbox): void {
  mkdirSync(join(s.outside, 'deep/x'), { recursive: true });
  mkdirSync(join(s.outside, 'priv'), { recursive: true });
  writeFileSync(join(s.outside, 'secret-alpha.txt'), 'x');
  writeFileSync(join(s.outside, 'deep/x/secret-beta.txt'), 'x');
  writeFileSync(join(s.outside, 'priv/secret-gamma.txt'), 'x');
  mkdirSync(join(s.proj, 'src'));
  writeFileSync(join(s.proj, 'src/a.ts'), 'x');
  symlinkSync('../outside', join(s.proj, 'linkdir'));
}

const globCalls = (s: Sandbox): Call[] => ids('c3', [
  { pattern: '../outside/*' },
  { pattern: `${s.outside}/*` },
  { pattern: '../../**/secret-*' },
  { pattern: '../outside/**/*.txt' },
  { pattern: './../outside/*' },
  { pattern: 'src/../../outside/*' },
  { pattern: 'outside/*', path: '..' },
  { pattern: '*', path: '../outside' },
  { pattern: '**/secret-*', path: s.root },
  { pattern: 'linkdir/*' },
  { pattern: '*', path: 'linkdir' },
  { pattern: '**/*', path: 'linkdir/deep' },
  { pattern: `${s.root}/**/secret-*` },
].map((input) => ({ name: 'Glob', input })));

describe('Glob cannot list outside the working directory through its pattern', () => {
  let s: Sandbox;
  let calls: Call[];
  let o: Outcome;
  beforeAll(async () => {
    s = sandbox();
    plantOutside(s);
    calls = globCalls(s);
    o = await reinRun(s, 'name: c3\ntools: [Glob]\npermissions: { mode: default }\n', [calls]);
  });
  afterAll(() => s.cleanup());

  it('has more than 10 patterns, and no secret name reaches the model', () => {
    expect(calls.length).toBeGreaterThan(10);
    expect(o.code, o.stderr).toBe(0);
    expect(allText(o)).not.toMatch(/secret-/);
  });
  it('denies each with a reason naming the real directory', () => {
    for (const c of calls) expect(o.denials.get(c.id), JSON.stringify(c.input)).toMatch(/outside the working directories/);
  });
});

describe('a Read deny rule on a directory holds for Glob, also where outside reads are allowed', () => {
  let s: Sandbox;
  let o: Outcome;
  let calls: Call[];
  beforeAll(async () => {
    s = sandbox();
    plantOutside(s);
    calls = ids('c3d', [
      { pattern: '../outside/priv/*' },
      { pattern: '*', path: '../outside/priv' },
      { pattern: '**/*', path: '../outside' },
      { pattern: '../outside/**/*' },
      { pattern: 'linkdir/priv/*' },
      { pattern: '**/secret-gamma*', path: s.root },
    ].map((input) => ({ name: 'Glob', input })));
    const preset = `name: c3d\ntools: [Glob]\npermissions:\n  mode: default\n  additionalDirectories: ["${s.outside}", "${s.root}"]\n  deny: ["Read(/${s.outside}/priv/**)"]\n`;
    o = await reinRun(s, preset, [calls]);
  });
  afterAll(() => s.cleanup());

  it('the denied directory\'s files never reach the model, and each call says why', () => {
    expect(o.code, o.stderr).toBe(0);
    expect(allText(o)).not.toMatch(/secret-gamma/);
    for (const c of calls) {
      const why = o.denials.get(c.id) ?? o.results.get(c.id)?.text ?? '';
      expect(why, JSON.stringify(c.input)).toMatch(/deny rule Read\(|deny reading/);
    }
  });
  it('what the rule does not cover is still listed', () => {
    expect(o.results.get(calls[2]!.id)?.text).toMatch(/secret-alpha/);
  });
});

const SECRET = 's3cr3t-value-from-dotenv';

function plantEnv(s: Sandbox): void {
  writeFileSync(join(s.proj, '.env'), `API_TOKEN=${SECRET}\n`);
  writeFileSync(join(s.proj, '.env.local'), `OTHER=${SECRET}-local\n`);
  writeFileSync(join(s.proj, 'app.ts'), 'const token = process.env.API_TOKEN;\n');
  mkdirSync(join(s.proj, 'sub'));
  writeFileSync(join(s.proj, 'sub/readme.md'), 'nothing here\n');
  symlinkSync('.env', join(s.proj, 'envlink'));
}

const grepCalls = (s: Sandbox): Call[] => ids('c4', [
  { name: 'Grep', input: { pattern: 's3cr3t' } },
  { name: 'Grep', input: { pattern: 's3cr3t', output_mode: 'content' } },
  { name: 'Grep', input: { pattern: 's3cr3t', output_mode: 'count' } },
  { name: 'Grep', input: { pattern: 'API_TOKEN', output_mode: 'content', '-C': 3 } },
  { name: 'Grep', input: { pattern: '.', output_mode: 'content', head_limit: 0 } },
  { name: 'Grep', input: { pattern: 's3cr3t', glob: '.env*', output_mode: 'content' } },
  { name: 'Grep', input: { pattern: 'S3CR3T', '-i': true, output_mode: 'content' } },
  { name: 'Grep', input: { pattern: 'TOKEN=[\\s\\S]*', multiline: true, output_mode: 'content' } },
  { name: 'Grep', input: { pattern: 's3cr3t', path: 'sub/..', output_mode: 'content' } },
  { name: 'Grep', input: { pattern: 's3cr3t', path: s.proj, output_mode: 'content' } },
  { name: 'Grep', input: { pattern: 's3cr3t', path: '.env' } },
  { name: 'Grep', input: { pattern: 's3cr3t', path: 'envlink', output_mode: 'content' } },
  { name: 'Read', input: { file_path: 'envlink' } },
  { name: 'Glob', input: { pattern: '.env*' } },
]);

describe.each(['default', 'acceptEdits', 'bypassPermissions', 'dontAsk', 'plan'])('Grep obeys the default preset\'s Read(./.env) while walking, mode %s', (mode) => {
  let s: Sandbox;
  let calls: Call[];
  let o: Outcome;
  beforeAll(async () => {
    s = sandbox();
    plantEnv(s);
    calls = grepCalls(s);
    // The default preset's own deny rules, its tools, the given mode. Dedup off: each call's own
    // result is checked, not a reference to an identical earlier one.
    o = await reinRun(s, `name: c4\nextends: default\ntools: [Grep, Read, Glob]\npermissions:\n  mode: ${mode}\n  allowBypassPermissions: true\nplugins:\n  compaction/dedup: false\n`, [calls]);
  });
  afterAll(() => s.cleanup());

  it('no secret reaches the model', () => {
    expect(o.code, o.stderr).toBe(0);
    expect(calls.length).toBeGreaterThanOrEqual(10);
    expect(allText(o)).not.toContain(SECRET);
  });
  it('every call is denied or says which files it left out and why', () => {
    for (const c of calls) {
      const why = o.denials.get(c.id) ?? o.results.get(c.id)?.text ?? '';
      expect(why, JSON.stringify(c.input)).toMatch(/deny rule Read\(\.\/\.env|deny reading/);
    }
  });
  it('other files are still searched', () => {
    expect(o.results.get(calls[3]!.id)?.text).toContain('app.ts');
  });
});
