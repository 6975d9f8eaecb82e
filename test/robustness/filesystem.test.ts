/**
 * A transcript the file system stops accepting, through the built `rein run`: the run ends with
 * `rein: cannot write the session transcript <path>: <reason>` and exit 74, no tool runs after the
 * write that failed, the file keeps whole entries only, and the session resumes once writes work.
 *
 * The refusal here is the kernel's file size limit (`ulimit -f`, with SIGXFSZ ignored so the write
 * fails with EFBIG instead of killing the process): it needs no privileges. A full disk (ENOSPC, a
 * tiny tmpfs) and a read-only file system (EROFS, a read-only bind mount) need root and are in
 * filesystem.system.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../testing/support.js';
import { BASH_PRESET, entries, OVERFLOW_SCENARIO, rein, terminals, transcripts, write } from './support.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  tmp = tempDir('rein-fs-');
  env = { REIN_HOME: join(tmp.dir, 'home') };
});
afterEach(() => tmp.cleanup());

describe('the transcript stops accepting writes', () => {
  it('EFBIG (a file size limit): one line naming the file and the reason, exit 74, no tool after it, and the session resumes', async () => {
    write(tmp.dir, { 'p.yaml': BASH_PRESET, 's.yaml': OVERFLOW_SCENARIO });
    const r = await rein(['run', 'go', '--sim', 's.yaml', '--preset', './p.yaml', '--no-layers'], { cwd: tmp.dir, env, shell: "ulimit -f 24; trap '' XFSZ" });
    expect(r.code).toBe(74);
    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    const lines = r.stderr.trim().split('\n').filter((l) => !/running against the embedded simulator/.test(l));
    expect(lines).toEqual([`rein: cannot write the session transcript ${file}: the file would exceed the largest size allowed (ulimit -f) (EFBIG)`]);
    expect(readFileSync(join(tmp.dir, 'side.txt'), 'utf8')).toBe('one\n');
    // Whole entries only: the cut-off line was taken back.
    const text = readFileSync(file!, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(() => entries(file!)).not.toThrow();

    const again = await rein(['run', 'go on', '--sim', 's.yaml', '--resume', file!, '--no-layers'], { cwd: tmp.dir, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('done\n');
    expect(terminals(file!)).toEqual(['end_turn']);
    expect(readFileSync(join(tmp.dir, 'side.txt'), 'utf8')).toBe('one\n');
  });
});
