/**
 * Class: a file a Read deny rule covers, read under another name. A hard link is the same file
 * (same inode) with a second name that no name-based rule matches, and symbolic-link resolution
 * does not see it. Read, Grep walking the project and Bash input redirections under
 * `Bash(cat:*)` must be denied for every link to a covered file (a literal rule, a one-directory
 * pattern, a directory rule and an unanchored pattern), through `rein run` with real files; no
 * secret may reach the model. A hard-linked file no rule covers still reads.
 */
import { linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allText, ids, reinRun, sandbox, type Outcome, type Sandbox } from './harness.js';

const SECRETS: Record<string, string> = {
  '.env': 'SECRET_ONE=hunter2',
  '.env.local': 'SECRET_TWO=swordfish',
  'secrets/key': 'SECRET_THREE=opensesame',
  'deep/a/server.pem': 'SECRET_FOUR=letmein',
};
/** link name → the covered file it is a hard link to. */
const LINKS: Record<string, string> = {
  'notes.txt': '.env',
  'sub/b.txt': '.env.local',
  'k.txt': 'secrets/key',
  'sub/cert.txt': 'deep/a/server.pem',
};

describe('hard links to files a Read deny rule covers, default mode', () => {
  let s: Sandbox;
  let o: Outcome;
  const reads = ids('hl', Object.keys(LINKS).map((file_path) => ({ name: 'Read', input: { file_path } })));
  const cats = ids('hlc', Object.keys(LINKS).map((f) => ({ name: 'Bash', input: { command: `cat < ${f}` } })));
  const grep = ids('hlg', [{ name: 'Grep', input: { pattern: 'SECRET_', output_mode: 'content' } }, { name: 'Grep', input: { pattern: 'SECRET_', path: 'sub', output_mode: 'content' } }]);
  const benign = ids('hlb', [{ name: 'Read', input: { file_path: 'plain-link.txt' } }]);
  beforeAll(async () => {
    s = sandbox();
    for (const d of ['secrets', 'deep/a', 'sub']) mkdirSync(join(s.proj, d), { recursive: true });
    for (const [f, text] of Object.entries(SECRETS)) writeFileSync(join(s.proj, f), `${text}\n`);
    for (const [link, target] of Object.entries(LINKS)) linkSync(join(s.proj, target), join(s.proj, link));
    writeFileSync(join(s.proj, 'plain.txt'), 'nothing secret here\n');
    linkSync(join(s.proj, 'plain.txt'), join(s.proj, 'plain-link.txt'));
    const preset = 'name: hl\ntools: [Read, Grep, Bash]\npermissions:\n  mode: default\n  allow: ["Bash(cat:*)"]\n  deny: ["Read(./.env)", "Read(./.env.*)", "Read(./secrets)", "Read(*.pem)"]\n';
    o = await reinRun(s, preset, [[...reads, ...cats, ...grep, ...benign]]);
  });
  afterAll(() => s.cleanup());

  it('denies reading each link, naming the file it is', () => {
    expect(o.code, o.stderr).toBe(0);
    for (const c of [...reads, ...cats]) {
      const target = LINKS[String(c.input.file_path ?? String(c.input.command).slice(6))]!;
      expect(o.denials.get(c.id), JSON.stringify(c.input)).toContain(`the same file as ${join(s.proj, target)}`);
    }
  });
  it('leaves the links out of a Grep walk, and no secret reaches the model', () => {
    for (const c of grep) expect(o.results.get(c.id)?.text).toMatch(/not searched: the permission rules deny reading/);
    const text = allText(o);
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret.split('=')[1]);
  });
  it('still reads a hard-linked file no rule covers', () => {
    expect(o.denials.has(benign[0]!.id)).toBe(false);
    expect(o.results.get(benign[0]!.id)?.text).toContain('nothing secret here');
  });
});
