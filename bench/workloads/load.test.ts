import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkloads } from './load.js';
import { planBench } from '../run.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/mini-swe-agent.traj.json', import.meta.url));

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'rein-load-')); });
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

describe('loadWorkloads', () => {
  it('follows symbolic links to sessions and folders, and names a link that leads nowhere', async () => {
    const root = join(dir, 'links');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(join(elsewhere, 'sub'), { recursive: true });
    cpSync(FIXTURE, join(elsewhere, 'sub', 'b.traj.json'));
    mkdirSync(root);
    symlinkSync(FIXTURE, join(root, 'a.traj.json'));
    symlinkSync(join(elsewhere, 'sub'), join(root, 'linked-folder'));
    symlinkSync(root, join(root, 'loop-to-self'));
    symlinkSync(join(dir, 'missing.jsonl'), join(root, 'dangling.jsonl'));
    const r = await loadWorkloads(root);
    expect(r.workloads.map((w) => w.path)).toEqual([join(root, 'a.traj.json'), join(root, 'linked-folder', 'b.traj.json')]);
    expect(r.skippedFiles).toEqual([{ path: join(root, 'dangling.jsonl'), reason: 'cannot read it: it does not exist (a symbolic link to a missing file?)' }]);
  });
});

describe('a benchmark with nothing to replay', () => {
  it('stops with each file and why it was not replayed, instead of an empty report', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    await expect(planBench({ workloads: [empty], presets: ['minimal'], cwd: dir })).rejects.toMatchObject({ name: 'InputError', message: `no session to replay in ${empty} (no files found)` });
    const junk = join(dir, 'junk');
    mkdirSync(junk);
    writeFileSync(join(junk, 'notes.jsonl'), 'garbage\n{"a":\n');
    writeFileSync(join(junk, 'README.md'), '# sessions\n');
    await expect(planBench({ workloads: [junk], presets: ['minimal'], cwd: dir })).rejects.toMatchObject({
      name: 'InputError',
      message: [`no session to replay in ${junk}; not replayed:`, `${join(junk, 'README.md')}: documentation, not a session`, `${join(junk, 'notes.jsonl')}: not a session format rein reads`].join('\n'),
    });
  });
});
