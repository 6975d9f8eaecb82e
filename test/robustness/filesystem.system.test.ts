/**
 * A full disk and a read-only file system under the session transcript, through the built
 * `rein run`: a 32 KiB tmpfs (ENOSPC) and a read-only bind mount (EROFS). Mounting needs root,
 * which `.ci/run` has; hence the system suite.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../testing/support.js';
import { BASH_PRESET, entries, OVERFLOW_SCENARIO, projectDir, rein, transcripts, write } from './support.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let mounts: string[] = [];
beforeEach(() => {
  tmp = tempDir('rein-fs-system-');
  env = { REIN_HOME: join(tmp.dir, 'home') };
  mkdirSync(env.REIN_HOME!);
});
afterEach(() => {
  for (const m of mounts.reverse()) execFileSync('umount', [m]);
  mounts = [];
  tmp.cleanup();
});

function mount(args: string[], target: string): void {
  execFileSync('mount', [...args, target]);
  mounts.push(target);
}

const otherLines = (stderr: string) => stderr.trim().split('\n').filter((l) => !/running against the embedded simulator/.test(l));

describe('the file system says no', () => {
  it('ENOSPC (a full tmpfs): one line naming the file and the reason, exit 74, no tool after it; it resumes once there is room', async () => {
    mount(['-t', 'tmpfs', '-o', 'size=32k', 'tmpfs'], env.REIN_HOME!);
    write(tmp.dir, { 'p.yaml': BASH_PRESET, 's.yaml': OVERFLOW_SCENARIO });
    const r = await rein(['run', 'go', '--sim', 's.yaml', '--preset', './p.yaml', '--no-layers'], { cwd: tmp.dir, env });
    expect(r.code).toBe(74);
    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    expect(otherLines(r.stderr)).toEqual([`rein: cannot write the session transcript ${file}: no space left on the device (ENOSPC)`]);
    expect(readFileSync(join(tmp.dir, 'side.txt'), 'utf8')).toBe('one\n');
    expect(() => entries(file!)).not.toThrow();

    // The cut-off line was taken back, so the small entries of a resume fit.
    const again = await rein(['run', 'go on', '--sim', 's.yaml', '--resume', file!, '--no-layers'], { cwd: tmp.dir, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('done\n');
  });

  it('EROFS (a read-only bind mount): resuming says so with exit 74 and runs nothing; a new session too', async () => {
    write(tmp.dir, { 'p.yaml': BASH_PRESET, 's.yaml': 'turns:\n  - reply: [{ tool_use: { name: Bash, input: { command: "echo one >> side.txt" } } }]\n  - reply: [{ text: "first" }]\n  - reply: [{ tool_use: { name: Bash, input: { command: "echo two >> side.txt" } } }]\n  - reply: [{ text: "never" }]\n' });
    const first = await rein(['run', 'go', '--sim', 's.yaml', '--preset', './p.yaml', '--no-layers'], { cwd: tmp.dir, env });
    expect(first.code).toBe(0);
    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    const dir = projectDir(env.REIN_HOME!, tmp.dir);
    mount(['--bind', dir], dir);
    execFileSync('mount', ['-o', 'remount,bind,ro', dir]);
    const before = readFileSync(file!, 'utf8');

    const r = await rein(['run', 'go on', '--sim', 's.yaml', '--resume', file!, '--no-layers'], { cwd: tmp.dir, env });
    expect(r.code).toBe(74);
    expect(otherLines(r.stderr)).toEqual([`rein: cannot write the session transcript ${file}: the file system is read-only (EROFS)`]);
    expect(readFileSync(join(tmp.dir, 'side.txt'), 'utf8')).toBe('one\n');
    expect(readFileSync(file!, 'utf8')).toBe(before);

    const fresh = await rein(['run', 'go', '--sim', 's.yaml', '--preset', './p.yaml', '--no-layers'], { cwd: tmp.dir, env });
    expect(fresh.code).toBe(74);
    expect(otherLines(fresh.stderr)).toEqual([expect.stringMatching(new RegExp(`^rein: cannot write the session transcript ${dir}/[0-9a-f-]+\\.jsonl: the file system is read-only \\(EROFS\\)$`))]);
    expect(readFileSync(join(tmp.dir, 'side.txt'), 'utf8')).toBe('one\n');
  });
});
