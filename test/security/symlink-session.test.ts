/**
 * Class: writes that escape through symbolic links, variants the first corpus
 * (symlink-writes.test.ts) does not try:
 * - a link made by an EARLIER call of the same session (`ln -s` under an allowed `Bash(ln:*)`),
 *   then Write, Edit and a Bash redirection through it, in a later turn;
 * - a link inside a project directory pointing at `~/.ssh`;
 * - paths through `/proc/self/cwd/..` in Bash redirections and file tools;
 * - protected names spelled so a case-insensitive or Unicode-normalising volume reads them as the
 *   protected name: code points HFS+ ignores (U+200C…), compatibility forms (`ſ` for `s`, the
 *   fullwidth dot), Windows 8.3 short names (`GIT~1`), trailing dots and spaces;
 * - a parent directory swapped for a link to outside by a real background process, over and over,
 *   while the calls write into it (the write must never follow a link it did not check).
 * Nothing may land outside the project or in a protected file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ids, reinRun, sandbox, type Call, type Outcome, type Sandbox } from './harness.js';

const PRESET = (mode: string, extra = '') => `name: c2b\ntools: [Write, Edit, Bash]\npermissions:\n  mode: ${mode}\n  allowBypassPermissions: true\n  allow: ["Bash(ln:*)", "Bash(echo:*)"${extra}]\n`;

const writes = (prefix: string, paths: string[]) => ids(prefix, paths.flatMap((p) => [
  { name: 'Write', input: { file_path: p, content: 'planted' } },
  { name: 'Edit', input: { file_path: p, old_string: '', new_string: 'planted' } },
  { name: 'Bash', input: { command: `echo planted > '${p}'` } },
]));

/** Every file under `dir`, relative. */
function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), join(rel, e.name));
      else out.push(join(rel, e.name));
    }
  };
  walk(dir, '');
  return out.sort();
}

describe.each([
  ['acceptEdits', PRESET('acceptEdits')],
  ['default with Edit(./**)', PRESET('default', ', "Edit(./**)", "Write(./**)"')],
])('links made by an earlier call, links to ~/.ssh, /proc paths, %s', (_mode, preset) => {
  let s: Sandbox;
  let o: Outcome;
  let made: Call[];
  let attacks: Call[];
  beforeAll(async () => {
    s = sandbox();
    mkdirSync(join(s.home, '.ssh'));
    writeFileSync(join(s.home, '.ssh/known_hosts'), 'kept\n');
    mkdirSync(join(s.proj, 'config'));
    // A link inside a directory the project owns, pointing at ~/.ssh.
    const { symlinkSync } = await import('node:fs');
    symlinkSync(join(s.home, '.ssh'), join(s.proj, 'config/keys'));
    made = ids('ln', [
      { name: 'Bash', input: { command: `ln -s ${s.outside} etc` } },
      { name: 'Bash', input: { command: `ln -s ${s.home}/.ssh sshdir` } },
      { name: 'Bash', input: { command: 'ln -s ../outside/later.txt later.txt' } },
    ]);
    attacks = writes('l2', ['etc/passwd', 'sshdir/authorized_keys', 'later.txt', 'config/keys/authorized_keys', '/proc/self/cwd/../outside/p1.txt', '/proc/self/cwd/../../root-escape.txt', `/proc/self/root${s.outside}/p2.txt`, 'etc/../outside-climb.txt']);
    o = await reinRun(s, preset, [made, attacks]);
  });
  afterAll(() => s.cleanup());

  it('made the links in the first turn', () => {
    expect(o.code, o.stderr).toBe(0);
    for (const c of made) expect(o.denials.has(c.id), String(c.input.command)).toBe(false);
    expect(existsSync(join(s.proj, 'etc'))).toBe(true);
  });
  it('denies every write through them, with a reason', () => {
    const missing = attacks.filter((c) => !o.denials.has(c.id)).map((c) => `${c.name} ${JSON.stringify(c.input)}: ${o.results.get(c.id)?.text}`);
    expect(missing).toEqual([]);
  });
  it('writes nothing outside the project', () => {
    expect(files(s.outside)).toEqual([]);
    expect(files(s.home)).toEqual(['.ssh/known_hosts']);
    expect(existsSync(join(s.root, 'root-escape.txt'))).toBe(false);
  });
});

/** Spellings of protected names that a case-insensitive or normalising volume reads as the name. */
const SPELLINGS = [
  '.g\u200cit/config', '.gi\u200dt/hooks/pre-commit', '\ufeff.git/config', '.claude\u200b/settings.json', '.c\u206alaude/settings.json',
  '.vſcode/tasks.json', '\uff0egit/config', '.\uff27\uff29\uff34/config', '.cl\u0041ude/settings.json',
  'GIT~1/config', 'CLAUDE~1/settings.json', 'VSCODE~1/tasks.json',
  '.claude./settings.json', '.claude /settings.json', '.mcp.json.', '.mcp.json ', '.bashrc..', '.gitmodules ',
];

describe.each(['acceptEdits', 'bypassPermissions'])('protected names in Unicode, short-name and trailing-character spellings, %s', (mode) => {
  let s: Sandbox;
  let o: Outcome;
  let calls: Call[];
  beforeAll(async () => {
    s = sandbox();
    calls = ids('u2', SPELLINGS.flatMap((p) => [
      { name: 'Write', input: { file_path: p, content: 'planted' } },
      { name: 'Bash', input: { command: `echo planted > '${p}'` } },
    ]));
    o = await reinRun(s, PRESET(mode), [calls]);
  });
  afterAll(() => s.cleanup());

  it('asks for every one, naming the protection', () => {
    expect(o.code, o.stderr).toBe(0);
    const missing = calls.filter((c) => !o.denials.has(c.id)).map((c) => `${c.name} ${JSON.stringify(c.input)}`);
    expect(missing).toEqual([]);
    for (const c of calls) expect(o.denials.get(c.id)).toMatch(/protected/);
  });
  it('creates nothing', () => {
    expect(files(s.proj).filter((f) => f !== 'agent.yaml' && f !== 'scenario.yaml')).toEqual([]);
  });
});

describe('a parent directory swapped for a link by a real background process, acceptEdits', () => {
  let s: Sandbox;
  let o: Outcome;
  let swapper: ChildProcess;
  const N = 40;
  beforeAll(async () => {
    s = sandbox();
    mkdirSync(join(s.proj, 'd'));
    // Swaps proj/d between the real directory and a link to outside, as fast as it can.
    // Its own process group, so the mv, ln and rm it runs die with it (an orphaned mv could still
    // rename inside the sandbox while it is removed).
    swapper = spawn('bash', ['-c', 'while :; do mv d d.real 2>/dev/null && ln -s ../outside d; rm -f d; mv d.real d 2>/dev/null; done'], { cwd: s.proj, stdio: 'ignore', detached: true });
    const calls = ids('race', Array.from({ length: N }, (_, i) => ({ name: 'Write', input: { file_path: `d/f${i}.txt`, content: 'planted' } })));
    o = await reinRun(s, PRESET('acceptEdits'), calls.map((c) => [c]));
  });
  afterAll(async () => {
    const exited = new Promise((r) => swapper.once('exit', r));
    process.kill(-swapper.pid!, 'SIGKILL');
    await exited;
    s.cleanup();
  });

  it('ran every call while the swapper was running, and none wrote outside', () => {
    expect(o.code, o.stderr).toBe(0);
    expect(swapper.exitCode).toBe(null);
    expect(o.results.size).toBe(N);
    expect(files(s.outside)).toEqual([]);
  });
});
