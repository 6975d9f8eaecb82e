/**
 * Bad input that used to crash or hang, through the built command: a scenario alias bomb, `--sim`
 * at a directory or a FIFO, a plugin whose non-guard tap throws (the run ends `plugin_error`
 * naming the plugin and the hook), a hook matcher that `rein preset validate` must reject as
 * `rein run` does, `--preset` at a FIFO, and a preset over the size limit.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../testing/support.js';
import { entries, PLUGIN_IMPORTS, rein, terminals, transcripts, write } from './support.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  tmp = tempDir('rein-bad-input-');
  env = { REIN_HOME: join(tmp.dir, 'home') };
});
afterEach(() => tmp.cleanup());

const run = (args: string[]) => rein(['run', ...args, '--no-layers'], { cwd: tmp.dir, env, timeoutMs: 30_000 });
/** stderr without the simulator's one-line notice. */
const errLines = (stderr: string) => stderr.trim().split('\n').filter((l) => l && !/running against the embedded simulator/.test(l));

describe('--sim', () => {
  it('a scenario with an alias bomb: file:line:column, exit 2', async () => {
    write(tmp.dir, {
      's.yaml': [
        'a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]',
        'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
        'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
        'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
        'turns: [{ reply: [{ text: "hi" }] }]',
        '',
      ].join('\n'),
    });
    const r = await run(['hi', '--sim', 's.yaml', '--preset', 'minimal']);
    expect(r.code).toBe(2);
    expect(errLines(r.stderr)).toEqual([`rein: ${join(tmp.dir, 's.yaml')}:2:8: YAML: aliases expand to too many nodes (more than 100); an alias bomb? Write the values out instead`]);
  });

  it('a directory: exit 2, one line', async () => {
    mkdirSync(join(tmp.dir, 'scenarios'));
    const r = await run(['hi', '--sim', 'scenarios', '--preset', 'minimal']);
    expect(r.code).toBe(2);
    expect(errLines(r.stderr)).toEqual([`rein: scenario file scenarios is a directory (${join(tmp.dir, 'scenarios')}); --sim takes a scenario YAML file`]);
  });

  it('a FIFO: exit 2 without waiting for a writer', async () => {
    execFileSync('mkfifo', [join(tmp.dir, 'pipe')]);
    const r = await run(['hi', '--sim', 'pipe', '--preset', 'minimal']);
    expect(r.code).toBe(2);
    expect(errLines(r.stderr)).toEqual([`rein: scenario file pipe is not a regular file (${join(tmp.dir, 'pipe')}); --sim takes a scenario YAML file`]);
  });
});

describe('a plugin whose tap throws', () => {
  const plugin = (hook: string, how: string) => `${PLUGIN_IMPORTS}
export default definePlugin({
  name: 'fragile',
  apply(kernel) {
    kernel.hooks.${hook}.${how}('fragile', () => { throw new Error('it broke'); });
  },
});
`;
  it.each([
    ['sessionStart', 'tapPromise'],
    ['turnStart', 'tap'],
    ['context', 'tapPromise'],
    ['toolDefinitions', 'tap'],
    ['request', 'tap'],
    ['response', 'tapPromise'],
    ['event', 'tap'],
  ])('in %s: the run ends plugin_error naming the plugin and the hook; the answer so far is kept', async (hook, how) => {
    write(tmp.dir, {
      'fragile.mjs': plugin(hook, how),
      'p.yaml': 'extends: minimal\nplugins:\n  ./fragile.mjs: {}\n',
      's.yaml': 'turns:\n  - reply: [{ text: "hello" }]\n',
    });
    const r = await run(['hi', '--sim', 's.yaml', '--preset', './p.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`rein: plugin_error: plugin "fragile" failed in its ${hook} tap: it broke`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    expect(terminals(file!)).toEqual(['plugin_error']);
    expect(entries(file!).at(-1)!.transition.detail).toBe(`plugin "fragile" failed in its ${hook} tap: it broke`);
  });

  it.each([
    ['turnEnd', 'tapPromise', 'the run ends as it was ending'],
    ['runEnd', 'tapPromise', 'the run\'s result stands'],
    ['sessionEnd', 'tap', 'the session was closed'],
  ])('in %s, once the run has ended: a warning naming the plugin and the hook; the answer and exit 0 stand', async (hook, how, outcome) => {
    write(tmp.dir, {
      'fragile.mjs': plugin(hook, how),
      'p.yaml': 'extends: minimal\nplugins:\n  ./fragile.mjs: {}\n',
      's.yaml': 'turns:\n  - reply: [{ text: "hello" }]\n',
    });
    const r = await run(['hi', '--sim', 's.yaml', '--preset', './p.yaml']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('hello\n');
    expect(errLines(r.stderr).filter((l) => l.startsWith('rein: warn:'))).toEqual([`rein: warn: plugin "fragile" failed in its ${hook} tap: it broke (${outcome})`]);
    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    expect(terminals(file!)).toEqual(['end_turn']);
  });

  it('in postToolUseFailure: a warning naming the plugin; the failed call\'s error goes to the model and the run goes on', async () => {
    write(tmp.dir, {
      'fragile.mjs': plugin('postToolUseFailure', 'tapPromise'),
      'p.yaml': 'extends: minimal\nplugins:\n  ./fragile.mjs: {}\n',
      's.yaml': 'turns:\n  - reply: [{ tool_use: { name: Read, input: { file_path: missing.txt } } }]\n  - reply: [{ text: "no such file" }]\n',
    });
    const r = await run(['hi', '--sim', 's.yaml', '--preset', './p.yaml']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('no such file\n');
    expect(errLines(r.stderr).filter((l) => l.startsWith('rein: warn:'))).toEqual(['rein: warn: plugin "fragile" failed in its postToolUseFailure tap: it broke (the call\'s error result stands)']);
  });

  it('in a guard hook (permission): the call is denied, the run goes on', async () => {
    write(tmp.dir, {
      'fragile.mjs': plugin('permission', 'tapPromise'),
      'p.yaml': 'extends: minimal\nplugins:\n  ./fragile.mjs: {}\n',
      's.yaml': 'turns:\n  - reply: [{ tool_use: { name: Read, input: { file_path: p.yaml } } }]\n  - reply: [{ text: "could not read it" }]\n',
    });
    const r = await run(['hi', '--sim', 's.yaml', '--preset', './p.yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('could not read it\n');
    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    const result = entries(file!).find((e) => e.type === 'message' && e.message.content[0]?.type === 'tool_result')!;
    expect(result.message.content[0].content[0].text).toBe('Permission check failed: it broke');
  });
});

describe('rein preset validate rejects what rein run rejects', () => {
  it.each([
    ['an unterminated group', 'Bash('],
    ['a lone quantifier', '*Write'],
    ['a bad escape range', '[z-a]'],
  ])('a hook matcher with %s: both name file:line:column; validate exits 2', async (_what, matcher) => {
    write(tmp.dir, {
      'hk.yaml': `extends: minimal\nhooks:\n  PreToolUse:\n    - matcher: "${matcher}"\n      hooks: [{ type: command, command: "true" }]\n`,
    });
    const v = await rein(['preset', 'validate', 'hk.yaml'], { cwd: tmp.dir, env });
    expect(v.code).toBe(2);
    expect(v.stdout + v.stderr).toMatch(new RegExp(`hk\\.yaml:4:\\d+: .*matcher.*not a valid regular expression`));
    const r = await run(['hi', '--preset', './hk.yaml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/hk\.yaml:4:\d+: .*matcher.*not a valid regular expression/);
  });
});

describe('rein preset validate rejects what a plugin refuses when it loads', () => {
  it.each([
    ['plan mode switching to bypassPermissions without the opt-in', 'extends: minimal\npermissions: { mode: plan }\nplugins:\n  permissions/plan: { afterApproval: bypassPermissions }\n',
      /^p\.yaml:4:38: plugins\.permissions\/plan\.afterApproval: bypassPermissions needs the explicit opt-in `permissions\.allowBypassPermissions: true` in the preset \(plugin permissions\/plan\)$/m],
    ['a system-prompt section whose file does not exist', 'extends: minimal\nplugins:\n  system-prompt:\n    sections: [{ name: x, file: ./nope.md, kind: static }]\n',
      /^p\.yaml:4:33: plugins\.system-prompt\.sections\.0\.file: section "x": file .*nope\.md does not exist \(plugin system-prompt\)$/m],
  ])('%s: the same line from validate and from run', async (_what, preset, line) => {
    write(tmp.dir, { 'p.yaml': preset });
    const v = await rein(['preset', 'validate', 'p.yaml'], { cwd: tmp.dir, env });
    expect(v.code).toBe(2);
    expect(v.stdout).toMatch(line);
    const r = await run(['hi', '--preset', './p.yaml']);
    expect(r.code).toBe(2);
    expect(r.stderr.replace(/^rein: /gm, '')).toMatch(line);
  });
});

describe('--preset', () => {
  it('a FIFO: exit 2 without waiting for a writer', async () => {
    execFileSync('mkfifo', [join(tmp.dir, 'agent.yaml')]);
    const r = await run(['hi', '--preset', './agent.yaml']);
    expect(r.code).toBe(2);
    expect(errLines(r.stderr)).toEqual([expect.stringMatching(/agent\.yaml: cannot read the preset: it is a FIFO \(named pipe\), not a regular file$/)]);
  });

  it('an extends: that names a FIFO: exit 2 at the line that names it', async () => {
    execFileSync('mkfifo', [join(tmp.dir, 'base.yaml')]);
    write(tmp.dir, { 'p.yaml': 'name: x\nextends: ./base.yaml\n' });
    const r = await run(['hi', '--preset', './p.yaml']);
    expect(r.code).toBe(2);
    expect(errLines(r.stderr)).toEqual([expect.stringMatching(/p\.yaml:2:\d+: extends: cannot read "\.\/base\.yaml": it is a FIFO \(named pipe\), not a regular file/)]);
  });

  it('a preset over 1 MiB is refused at once, saying the limit', async () => {
    writeFileSync(join(tmp.dir, 'big.yaml'), `name: big\nsystem: { append: "${'x'.repeat(1024 * 1024)}" }\n`);
    const r = await run(['hi', '--preset', './big.yaml']);
    expect(r.code).toBe(2);
    expect(errLines(r.stderr)).toEqual([expect.stringMatching(/big\.yaml: cannot read the preset: it is \d+ bytes, and a preset file may be at most 1048576 bytes \(1 MiB\)$/)]);
  });
});
