/**
 * Classes: what a shell command runs or writes depends on state the command text sets up, and the
 * checks must judge that state, not the text alone. Each call goes through `rein run` with real
 * bash, real files and a canary (a marker file, or a file outside the project) that must never
 * appear.
 *
 * 1. Commands hidden in shell state: an alias (`alias ls='touch x'` with expand_aliases), a hashed
 *    command name (`hash -p /usr/bin/touch ls`) and history re-execution (`history -s …; fc -s`)
 *    make an allowed command name run another program.
 * 2. The shell's directory: after a `cd` (in the same command, or in an earlier call, which
 *    carries over) a relative redirection target is a file somewhere else: `cd .git` then
 *    `> config` writes `.git/config`.
 * 3. Redirection targets bash expands: a pattern (`> .mcp.js?n` writes `.mcp.json`, `< .en[v]`
 *    reads `.env`) and tilde prefixes other than `~/` (`~-` is `$OLDPWD`, `~user` a home).
 * 4. Here-documents bash ends on another line than the parser: what the parser takes for inert
 *    text after `<<'EOF'` runs as commands in bash.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allText, ids, reinRun, sandbox, type Call, type Outcome, type Sandbox } from './harness.js';

const deniedWithReason = (o: Outcome, calls: Call[]) => calls.filter((c) => !/\w/.test(o.denials.get(c.id) ?? '')).map((c) => `${JSON.stringify(c.input)}: ${o.results.get(c.id)?.text}`);

/** Class 1: each command's marker must never appear. */
const HIDDEN: { command: string; marker: string }[] = [
  { command: "shopt -s expand_aliases\nalias ls='touch m01'\nls", marker: 'm01' },
  { command: "shopt -s expand_aliases; alias ls='echo ok; touch m02'\nls", marker: 'm02' },
  { command: 'shopt -s expand_aliases\nalias e="touch m03"\ne', marker: 'm03' },
  { command: "shopt -s expand_aliases\nalias ls=\"$(echo touch m04)\"\nls", marker: 'm04' },
  { command: "shopt -s expand_aliases\nalias -p ls='touch m05'\nls", marker: 'm05' },
  { command: "shopt -s expand_aliases\nalias ls='ls' cat='touch m06'\ncat", marker: 'm06' },
  { command: 'hash -p /usr/bin/touch ls; ls m07', marker: 'm07' },
  { command: 'hash -lp /usr/bin/touch ls; ls m08', marker: 'm08' },
  { command: 'hash -p"/usr/bin/touch" ls\nls m09', marker: 'm09' },
  { command: "history -s 'touch m10'; fc -s", marker: 'm10' },
  { command: "history -s 'touch m11'; fc -e -", marker: 'm11' },
  { command: "history -s 'touch m12'; fc -s touch", marker: 'm12' },
  { command: "set -o history; history -s 'touch m13'; fc -e : ; fc -s", marker: 'm13' },
];
const HIDDEN_RULES = JSON.stringify(['Bash(ls:*)', 'Bash(echo:*)', 'Bash(cat:*)', 'Bash(shopt:*)', 'Bash(alias:*)', 'Bash(hash:*)', 'Bash(history:*)', 'Bash(set:*)', 'Bash(fc:*)']);

describe('commands hidden in aliases, hashed names and the history, default mode', () => {
  const calls = ids('st1', HIDDEN.map((h) => ({ name: 'Bash', input: { command: h.command } })));
  let s: Sandbox;
  let o: Outcome;
  beforeAll(async () => {
    s = sandbox();
    o = await reinRun(s, `name: st1\ntools: [Bash]\npermissions:\n  mode: default\n  allow: ${HIDDEN_RULES}\n`, [calls]);
  });
  afterAll(() => s.cleanup());

  it('denies every one with a reason, and no marker appears', () => {
    expect(o.code, o.stderr).toBe(0);
    expect(deniedWithReason(o, calls)).toEqual([]);
    expect(HIDDEN.filter((h) => existsSync(join(s.proj, h.marker))).map((h) => h.command)).toEqual([]);
  });
  it('names the command an alias defines', () => {
    expect(o.denials.get(calls[0]!.id)).toMatch(/touch m01/);
  });
  it('still runs what the rules cover: an alias to an allowed command, hash -r, fc -l', async () => {
    const ok = ids('st1ok', ["shopt -s expand_aliases\nalias ls='ls -a'\nls", 'hash -r', 'fc -l'].map((command) => ({ name: 'Bash', input: { command } })));
    const o2 = await reinRun(s, `name: st1\ntools: [Bash]\npermissions:\n  mode: default\n  allow: ${HIDDEN_RULES}\n`, [ok]);
    expect([...o2.denials.keys()]).toEqual([]);
    expect(o2.results.get(ok[0]!.id)?.text).toMatch(/scenario\.yaml/);
  });
});

describe('a deny rule sees the commands an alias defines, bypassPermissions', () => {
  let s: Sandbox;
  let o: Outcome;
  const calls = ids('st1d', [{ name: 'Bash', input: { command: "shopt -s expand_aliases\nalias ls='touch m20'\nls" } }]);
  beforeAll(async () => {
    s = sandbox();
    o = await reinRun(s, 'name: st1d\ntools: [Bash]\npermissions:\n  mode: bypassPermissions\n  allowBypassPermissions: true\n  deny: ["Bash(touch:*)"]\n', [calls]);
  });
  afterAll(() => s.cleanup());
  it('denies it by the rule', () => {
    expect(o.denials.get(calls[0]!.id)).toMatch(/Bash\(touch:\*\)/);
    expect(existsSync(join(s.proj, 'm20'))).toBe(false);
  });
});

/** Class 2: every write must be denied and land nowhere. `outside` files are relative to the sandbox's `outside`. */
describe.each([
  ['default mode with Edit(./**)', 'default', '"Edit(./**)", "Write(./**)"'],
  ['acceptEdits (which runs touch inside the project)', 'acceptEdits', '"Bash(true)"'],
])('relative paths after a cd, %s', (_name, mode, extra) => {
  let s: Sandbox;
  let o: Outcome;
  let same: Call[];
  let later: Call[];
  let gitLater: Call[];
  beforeAll(async () => {
    s = sandbox();
    mkdirSync(join(s.proj, '.git'));
    writeFileSync(join(s.proj, '.git/config'), '[core]\n');
    mkdirSync(join(s.proj, 'sub'));
    const bash = (command: string) => ({ name: 'Bash', input: { command } });
    same = ids('st2a', [
      bash('cd .git && echo "[core] fsmonitor = touch m30" > config'),
      bash('cd ../outside && echo planted > a.txt'),
      bash('(cd ../outside; echo planted > b.txt)'),
      bash('pushd ../outside >/dev/null && echo planted > c.txt'),
      bash('cd sub; cd ../../outside; echo planted >> d.txt'),
      bash('f() { cd ../outside; }; f; echo planted > e.txt'),
      bash('cd ../outside && touch f.txt'),
      bash('cd -P ../outside && echo planted 1<> g.txt'),
    ]);
    // One call changes directory; later calls write relative paths there.
    const cdOutside = ids('st2b', [bash('cd ../outside')]);
    later = ids('st2c', [bash('echo planted > h.txt'), bash('touch i.txt'), bash('echo planted >> ./j.txt')]);
    const cdGit = ids('st2d', [bash(`cd ${join(s.proj, '.git')}`)]);
    gitLater = ids('st2e', [bash('echo "[core] fsmonitor = touch m31" > config'), bash('touch hooks-pre-commit')]);
    const preset = `name: st2\ntools: [Bash]\npermissions:\n  mode: ${mode}\n  allow: ["Bash(cd:*)", "Bash(pushd:*)", "Bash(echo:*)", "Bash(f)", ${extra}]\n`;
    o = await reinRun(s, preset, [same, cdOutside, later, cdGit, gitLater]);
  });
  afterAll(() => s.cleanup());

  it('denies each write in the same command as the cd, with a reason', () => {
    expect(o.code, o.stderr).toBe(0);
    expect(deniedWithReason(o, same)).toEqual([]);
    for (const c of same) expect(o.denials.get(c.id)).toMatch(/after a cd|no allow rule|not understood|outside|known only at run time/);
  });
  it('judges a later call where the shell really is: outside, then in .git', () => {
    expect(deniedWithReason(o, later)).toEqual([]);
    // touch's operand is a write like a redirection's target: judged where the shell is.
    for (const c of later) expect(o.denials.get(c.id)).toMatch(/outside the working directories/);
    expect(deniedWithReason(o, gitLater)).toEqual([]);
    for (const c of gitLater) expect(o.denials.get(c.id)).toMatch(/protected directory \(\.git\/\)/);
  });
  it('writes nothing outside and leaves .git/config alone', () => {
    for (const f of ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt', 'f.txt', 'g.txt', 'h.txt', 'i.txt', 'j.txt']) expect(existsSync(join(s.outside, f)), f).toBe(false);
    expect(readFileSync(join(s.proj, '.git/config'), 'utf8')).toBe('[core]\n');
    expect(existsSync(join(s.proj, '.git/hooks-pre-commit'))).toBe(false);
  });
});

describe('patterns and tilde prefixes in redirection targets', () => {
  let s: Sandbox;
  let o: Outcome;
  let writes: Call[];
  let reads: Call[];
  const MCP = '{"mcpServers":{}}\n';
  beforeAll(async () => {
    s = sandbox();
    writeFileSync(join(s.proj, '.mcp.json'), MCP);
    writeFileSync(join(s.proj, '.env'), 'SECRET=hunter2\n');
    const bash = (command: string) => ({ name: 'Bash', input: { command } });
    const planted = `'{"mcpServers":{"x":{"command":"touch"}}}'`;
    writes = ids('st3w', [
      bash(`echo ${planted} > .mcp.js?n`),
      bash(`echo ${planted} > .mcp.js[o]n`),
      bash(`echo ${planted} > .mcp.*`),
      bash(`echo ${planted} >> .mc?.json`),
      bash(`echo ${planted} > ./.mcp.jso[!x]`),
      bash('echo planted > ~-/k.txt'),
      bash('echo planted > ~-'),
      bash(`echo planted > ~${userInfo().username}/rein-tilde-probe.txt`),
      bash('echo planted > ~+/../outside/l.txt'),
      bash('echo planted > x=~-/m.txt'),
    ]);
    reads = ids('st3r', ['cat < .en?', 'cat < .e*', 'cat < .[e]nv', 'cat < ./.env*', 'cat 0< .en?', 'cat < ~-/../proj/.env'].map(bash));
    const preset = 'name: st3\ntools: [Bash]\npermissions:\n  mode: default\n  allow: ["Bash(echo:*)", "Bash(cat:*)", "Edit(./**)"]\n  deny: ["Read(./.env)"]\n';
    // `~-` is $OLDPWD: bash takes it from the environment.
    o = await reinRun(s, preset, [[...writes, ...reads]], { env: { OLDPWD: s.outside } });
  });
  afterAll(() => s.cleanup());

  it('denies every write, with a reason, and changes nothing', () => {
    expect(o.code, o.stderr).toBe(0);
    expect(deniedWithReason(o, writes)).toEqual([]);
    for (const c of writes) expect(o.denials.get(c.id)).toMatch(/known only at run time|outside/);
    expect(readFileSync(join(s.proj, '.mcp.json'), 'utf8')).toBe(MCP);
    for (const f of ['k.txt', 'l.txt', 'm.txt']) expect(existsSync(join(s.outside, f)), f).toBe(false);
  });
  it('denies every read of a file a Read deny rule covers, and the secret never reaches the model', () => {
    expect(deniedWithReason(o, reads)).toEqual([]);
    expect(allText(o)).not.toContain('hunter2');
  });
});

/** Class 4: the parser reads the `touch` line as here-document text; bash runs it. */
const HEREDOCS: { command: string; marker: string }[] = [
  { command: 'cat <<EOF\nE\\\nOF\ntouch m40\nEOF', marker: 'm40' },
  { command: 'echo <<EOF\nxx\nE\\\nO\\\nF\ntouch m41\nEOF', marker: 'm41' },
  { command: "echo $(cat <<'EOF'\nx\nEOF)\ntouch m42\nEOF\n)", marker: 'm42' },
  { command: "echo \"$(cat <<'EOF'\nx\nEOF)\"\ntouch m43\nEOF\n)\"", marker: 'm43' },
  { command: "echo <<$'E\\x4fF'\nEOF\ntouch m44\nE\\x4fF", marker: 'm44' },
  { command: 'echo <<EOF\r\nx\r\nEOF\r\ntouch m45\r\nEOF', marker: 'm45\r' },
  { command: "cat <<'EOF'\nEOF\r\ntouch m46\nEOF", marker: 'm46' },
  { command: "cat <<-'EOF'\n\t EOF\ntouch m47\nEOF", marker: 'm47' },
  { command: "cat <<''\n\ntouch m48\n", marker: 'm48' },
  { command: 'cat <<"E"\\O"F"\nEOF\ntouch m49\nEO', marker: 'm49' },
];

describe('here-documents whose end bash and the parser may see differently, default mode', () => {
  const calls = ids('st4', HEREDOCS.map((h) => ({ name: 'Bash', input: { command: h.command } })));
  let s: Sandbox;
  let o: Outcome;
  beforeAll(async () => {
    s = sandbox();
    o = await reinRun(s, 'name: st4\ntools: [Bash]\npermissions:\n  mode: default\n  allow: ["Bash(echo:*)", "Bash(cat:*)"]\n', [calls]);
  });
  afterAll(() => s.cleanup());

  it('denies every one with a reason, and no marker appears', () => {
    expect(o.code, o.stderr).toBe(0);
    expect(deniedWithReason(o, calls)).toEqual([]);
    expect(HEREDOCS.filter((h) => existsSync(join(s.proj, h.marker))).map((h) => h.command)).toEqual([]);
  });
  it('still runs an ordinary here-document', async () => {
    const ok = ids('st4ok', [{ name: 'Bash', input: { command: "cat <<'EOF'\nthe end of file: EOF marks it\n$(not run)\nEOF" } }]);
    const o2 = await reinRun(s, 'name: st4\ntools: [Bash]\npermissions:\n  mode: default\n  allow: ["Bash(cat:*)"]\n', [ok]);
    expect([...o2.denials.keys()]).toEqual([]);
    expect(o2.results.get(ok[0]!.id)?.text).toContain('$(not run)');
  });
});
