/**
 * Class: writes that follow symbolic links out of the working directory or into protected files.
 * A cloned repository can hold links whose target does not exist yet (dangling), chains of links,
 * links to directories and links whose `..` climbs from the target. Every write through them
 * (Write, Edit creating a file, Bash redirections under `Bash(echo:*)`), in acceptEdits,
 * bypassPermissions and default mode with `Edit(./**)`, must be denied, and nothing may appear at
 * any link's target.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ids, reinRun, sandbox, type Call, type Outcome, type Sandbox } from './harness.js';

/** Links planted in the project, and where each leads (made absolute against the sandbox). */
function plant(s: Sandbox): { link: string; target: string }[] {
  mkdirSync(join(s.proj, '.git/hooks'), { recursive: true });
  mkdirSync(join(s.proj, 'sub'), { recursive: true });
  const links: [string, string, string][] = [
    // link (in proj), what it points to (as written in the link), where that is
    ['notes.txt', '../outside/planted.txt', join(s.outside, 'planted.txt')],
    ['draft.md', '.reinrc.yaml', join(s.proj, '.reinrc.yaml')],
    ['chain1.txt', 'chain2.txt', join(s.outside, 'chained.txt')],
    ['chain2.txt', '../outside/chained.txt', join(s.outside, 'chained.txt')],
    ['abs.txt', join(s.outside, 'abs.txt'), join(s.outside, 'abs.txt')],
    ['home.txt', join(s.home, '.bashrc'), join(s.home, '.bashrc')],
    ['hook.sh', '.git/hooks/pre-commit', join(s.proj, '.git/hooks/pre-commit')],
    ['settings.json', '.vscode/settings.json', join(s.proj, '.vscode/settings.json')],
    ['servers.json', '.mcp.json', join(s.proj, '.mcp.json')],
    ['config.yaml', 'rein.config.yaml', join(s.proj, 'rein.config.yaml')],
    ['up.txt', './sub/../../outside/up.txt', join(s.outside, 'up.txt')],
    ['profile', `${s.home}/.profile`, join(s.home, '.profile')],
    ['agentlink.yaml', 'agent.yaml', join(s.proj, 'agent.yaml')],
  ];
  for (const [link, to] of links) symlinkSync(to, join(s.proj, link));
  // Links to directories: a file written below one lands where it points.
  symlinkSync('../outside', join(s.proj, 'outdir'));
  symlinkSync('../outside/made', join(s.proj, 'newdir'));
  mkdirSync(join(s.outside, 'deep'));
  symlinkSync(join(s.outside, 'deep'), join(s.proj, 'sub/deeplink'));
  return [
    ...links.filter(([l]) => l !== 'chain2.txt').map(([link, , target]) => ({ link, target })),
    { link: 'outdir/new.txt', target: join(s.outside, 'new.txt') },
    { link: 'newdir/new.txt', target: join(s.outside, 'made/new.txt') },
    { link: 'sub/deeplink/../escaped.txt', target: join(s.outside, 'escaped.txt') },
    { link: 'outdir/../escaped2.txt', target: join(s.root, 'escaped2.txt') },
  ];
}

function callsFor(targets: { link: string }[]): Call[] {
  return ids('c2', targets.flatMap(({ link }) => [
    { name: 'Write', input: { file_path: link, content: 'planted by Write' } },
    { name: 'Edit', input: { file_path: link, old_string: '', new_string: 'planted by Edit' } },
    { name: 'Bash', input: { command: `echo planted > ${link}` } },
    { name: 'Bash', input: { command: `echo planted >> '${link}'` } },
  ]));
}

const PRESET = (mode: string, extra = '') => `name: c2\ntools: [Write, Edit, Bash]\npermissions:\n  mode: ${mode}\n  allowBypassPermissions: true\n  allow: ["Bash(echo:*)"${extra}]\n`;

describe.each([
  ['acceptEdits', PRESET('acceptEdits')],
  ['bypassPermissions', PRESET('bypassPermissions')],
  ['default with Edit(./**)', PRESET('default', ', "Edit(./**)", "Write(./**)"')],
])('writes through symlinks, %s', (_mode, preset) => {
  let s: Sandbox;
  let targets: { link: string; target: string }[];
  let calls: Call[];
  let o: Outcome;
  beforeAll(async () => {
    s = sandbox();
    targets = plant(s);
    calls = callsFor(targets);
    o = await reinRun(s, preset, [calls]);
  });
  afterAll(() => s.cleanup());

  it('has more than 10 link targets and runs to the end', () => {
    expect(targets.length).toBeGreaterThan(10);
    expect(o.code, o.stderr).toBe(0);
  });
  it('denies every write through a link, with a reason', () => {
    const missing = calls.filter((c) => !o.denials.has(c.id)).map((c) => `${c.name} ${JSON.stringify(c.input)}: ${o.results.get(c.id)?.text}`);
    expect(missing).toEqual([]);
    for (const c of calls) expect(o.denials.get(c.id)).toMatch(/outside the working directories|protected|rein configuration/);
  });
  it('leaves nothing at any target, and the preset file (reached through a link) as it was', () => {
    const written = targets.filter((t) => !t.target.endsWith('agent.yaml') && existsSync(t.target)).map((t) => t.target);
    expect(written).toEqual([]);
    expect(readFileSync(join(s.proj, 'agent.yaml'), 'utf8')).toBe(preset);
  });
});

/**
 * The same files reached by other spellings: another case or trailing dots and spaces (which
 * case-insensitive volumes and Windows read as the protected name), and paths through /proc that
 * lead out of the project (`/proc/self/root/…`, `/proc/self/cwd/../…`). acceptEdits must ask for
 * every one, and nothing may be created.
 */
describe('protected and outside paths in other spellings, acceptEdits', () => {
  let s: Sandbox;
  let o: Outcome;
  let calls: Call[];
  let outside: string[];
  const spellings = ['.GIT/config', '.Git/hooks/pre-commit', '.ReinRC.yaml', 'REIN.config.json', '.git./config', '.git /config', '.VSCode/tasks.json', '.MCP.json', '.git:stream/x', '.Claude/settings.json', 'sub/.GitConfig', 'self/.IDEA/x.xml'];
  beforeAll(async () => {
    s = sandbox();
    mkdirSync(join(s.proj, 'sub'));
    symlinkSync('.', join(s.proj, 'self'));
    outside = [`/proc/self/root${s.outside}/p1.txt`, '/proc/self/cwd/../outside/p2.txt', `/proc/thread-self/root${s.outside}/p3.txt`, `/proc/self/root${s.home}/.bashrc`];
    calls = ids('c2s', [...spellings, ...outside].flatMap((p) => [
      { name: 'Write', input: { file_path: p, content: 'planted' } },
      { name: 'Edit', input: { file_path: p, old_string: '', new_string: 'planted' } },
    ]));
    o = await reinRun(s, PRESET('acceptEdits'), [calls]);
  });
  afterAll(() => s.cleanup());

  it('asks for every one, with a reason', () => {
    expect(spellings.length + outside.length).toBeGreaterThanOrEqual(10);
    expect(o.code, o.stderr).toBe(0);
    const missing = calls.filter((c) => !o.denials.has(c.id)).map((c) => `${c.name} ${JSON.stringify(c.input)}: ${o.results.get(c.id)?.text}`);
    expect(missing).toEqual([]);
    for (const c of calls) expect(o.denials.get(c.id)).toMatch(/outside the working directories|protected|rein configuration/);
  });
  it('names a path through /proc/self/cwd/.. as written and where it leads, not as /proc/self/…', () => {
    const asked = calls.filter((c) => c.input.file_path === '/proc/self/cwd/../outside/p2.txt');
    expect(asked).toHaveLength(2);
    for (const c of asked) {
      expect(o.denials.get(c.id)).toContain(`/proc/self/cwd/../outside/p2.txt, which leads to ${join(s.outside, 'p2.txt')}, is outside the working directories (${s.proj}`);
      expect(o.denials.get(c.id)).not.toContain('/proc/self/outside');
    }
  });
  it('creates nothing', () => {
    for (const p of spellings) expect(existsSync(join(s.proj, p)), p).toBe(false);
    for (const f of ['p1.txt', 'p2.txt', 'p3.txt']) expect(existsSync(join(s.outside, f))).toBe(false);
    expect(existsSync(join(s.home, '.bashrc'))).toBe(false);
  });
});
