/**
 * What `rein bench` (the built command) says about input it cannot replay: a workload folder with
 * no session stops with exit 2 and every file's reason; a file that is not a session, beside one
 * that is, is named in the table with why; a truncated session's malformed line is named by number.
 * And what the table's `vs rec.` holds besides a strategy: the replay's own error, measured by a
 * client mimic when one ran, said to be unmeasured when none did.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchReport } from './model.js';
import { fmtRecall } from './recall.js';
import { join } from 'node:path';
import { tempDir } from '../../testing/support.js';
import { rein, reinDone } from '../../queue/test/harness.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => { tmp = tempDir('rein-bench-skipped-'); });
afterAll(() => tmp?.cleanup());

const usage = { input: 10, output: 20, cacheRead: 0, cacheWrite: 3000, totalTokens: 3030 };
/** A two-request pi session whose last line was cut off mid-write. */
const TRUNCATED_PI = [
  { type: 'session', id: 's1', timestamp: '2025-12-17T19:39:21.535Z', cwd: '/proj', provider: 'anthropic', modelId: 'claude-sonnet-4-5', thinkingLevel: 'off' },
  { type: 'message', timestamp: '2025-12-17T19:39:21.000Z', message: { role: 'user', content: [{ type: 'text', text: 'List the files' }], timestamp: 1766000361000 } },
  { type: 'message', timestamp: '2025-12-17T19:39:22.000Z', message: { role: 'assistant', content: [{ type: 'toolCall', id: 'toolu_1', name: 'bash', arguments: { command: 'ls' } }], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage, stopReason: 'toolUse', timestamp: 1766000362000 } },
  { type: 'message', timestamp: '2025-12-17T19:39:23.000Z', message: { role: 'toolResult', toolCallId: 'toolu_1', toolName: 'bash', content: [{ type: 'text', text: 'a.ts\nb.ts' }], isError: false, timestamp: 1766000363000 } },
  { type: 'message', timestamp: '2025-12-17T19:39:24.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'Two files: a.ts and b.ts.' }], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage: { ...usage, cacheRead: 3000, cacheWrite: 40 }, stopReason: 'stop', timestamp: 1766000364000 } },
].map((e) => JSON.stringify(e)).join('\n') + '\n{"type":"message","timestamp":"2025-12-17T19:40:00.000Z","message":{"role":"user","content":[{"type":"text","text":"now rea';

describe('rein bench on input it cannot replay', () => {
  it('a folder with no session: exit 2, each file named with why, no report', async () => {
    const dir = join(tmp.dir, 'nothing');
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.jsonl'), 'garbage\n{"a":\n');
    const r = await reinDone(['bench', '-w', dir, '--preset', 'minimal', '--no-progress'], { cwd: tmp.dir, env: { REIN_HOME: join(tmp.dir, 'home') } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`rein: no session to replay in ${dir}; not replayed:\nrein: ${join(dir, 'notes.jsonl')}: not a session format rein reads\n`);
  });

  it('names a file that is not a session and the malformed line of a truncated one in the table', async () => {
    const dir = join(tmp.dir, 'mixed');
    mkdirSync(dir);
    writeFileSync(join(dir, 'cut.jsonl'), TRUNCATED_PI);
    writeFileSync(join(dir, 'notes.jsonl'), 'garbage\n');
    const r = await reinDone(['bench', '-w', dir, '--preset', 'minimal', '--no-progress'], { cwd: tmp.dir, env: { REIN_HOME: join(tmp.dir, 'home') } });
    expect(r.code, r.stderr).toBe(0);
    const text = r.stdout.replace(/\n {2}/g, ' ');
    expect(text).toContain('- cut: 6 lines, 2 requests, 1 lines not replayed (1 malformed: line 6)');
    expect(text).toContain(`- not replayed: ${join(dir, 'notes.jsonl')}: not a session format rein reads`);
  });

  it('says vs rec. includes the replay\'s own error: unmeasured without a mimic, the fidelity ratio with one', async () => {
    const dir = join(tmp.dir, 'vs-rec');
    mkdirSync(dir);
    writeFileSync(join(dir, 'cut.jsonl'), TRUNCATED_PI);
    const alone = await reinDone(['bench', '-w', dir, '--preset', 'minimal', '--no-progress'], { cwd: tmp.dir, env: { REIN_HOME: join(tmp.dir, 'home') } });
    expect(alone.code, alone.stderr).toBe(0);
    expect(alone.stdout.replace(/\n/g, ' ')).toContain('vs rec.: ÷ what the provider billed the recorded clients. It includes the replay\'s own error, not measured in this run');
    const mimic = fileURLToPath(new URL('../presets/pi-like.yaml', import.meta.url));
    const both = await reinDone(['bench', '-w', dir, '--preset', 'minimal', '--preset', mimic, '--no-progress', '--json', 'vs.json'], { cwd: tmp.dir, env: { REIN_HOME: join(tmp.dir, 'home') } });
    expect(both.code, both.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(tmp.dir, 'vs.json'), 'utf8')) as BenchReport;
    expect(report.fidelity!.aggregate.workloads).toBe(1);
    expect(both.stdout.replace(/\n/g, ' ')).toContain(`It includes the replay's own error: mimic ÷ recorded = ${report.fidelity!.aggregate.ratio.toFixed(3)} over the 1 recording a mimic replayed (fidelity table)`);
  });

  it('shows recall to a tenth of a point, rounded down, so a preset that lost a fact never reads 100%', () => {
    expect(fmtRecall(0.9977)).toBe('99.7%');
    expect(fmtRecall(0.99999)).toBe('99.9%');
    expect(fmtRecall(0.9925)).toBe('99.2%');
    expect(fmtRecall(1)).toBe('100.0%');
    expect(fmtRecall(null)).toBe('–');
  });

  it('--json or --html that cannot be written stops before the replay, naming the flag, not after it', async () => {
    const dir = join(tmp.dir, 'out-check');
    mkdirSync(join(dir, 'a-folder'), { recursive: true });
    writeFileSync(join(dir, 'a-file'), 'x');
    writeFileSync(join(dir, 'cut.jsonl'), TRUNCATED_PI);
    const run = (flag: string, out: string) => reinDone(['bench', '-w', join(dir, 'cut.jsonl'), '--preset', 'minimal', '--no-progress', flag, out], { cwd: dir, env: { REIN_HOME: join(tmp.dir, 'home') } });
    const folder = await run('--json', 'a-folder');
    expect([folder.code, folder.stdout, folder.stderr]).toEqual([2, '', "rein: --json a-folder: a folder; give the report's file name\n"]);
    const under = await run('--html', 'a-file/report.html');
    expect([under.code, under.stdout, under.stderr]).toEqual([2, '', 'rein: --html a-file/report.html: cannot write the report there: a part of the path is a file, not a folder\n']);
    // A missing folder is made, as before.
    const fresh = await run('--json', 'new/dir/report.json');
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'new/dir/report.json'), 'utf8')).workloads).toHaveLength(1);
  });

  it('--json or --html under /proc, under a file, or in a folder that cannot be written: exit 2 at once, naming the path and why', async () => {
    const dir = join(tmp.dir, 'out-refused');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a-file'), 'x');
    writeFileSync(join(dir, 'cut.jsonl'), TRUNCATED_PI);
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o555);
    // Root writes through the mode bits; an immutable folder refuses root too (chattr(1)).
    if (process.getuid?.() === 0) execFileSync('chattr', ['+i', locked]);
    const run = async (flag: string, out: string) => {
      const p = rein(['bench', '-w', join(dir, 'cut.jsonl'), '--preset', 'minimal', '--no-progress', flag, out], { cwd: dir, env: { REIN_HOME: join(tmp.dir, 'home') } });
      // Node's recursive mkdir spins forever under /proc: end the process rather than leave it spinning.
      const timer = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
      const { code } = await p.exited;
      clearTimeout(timer);
      return [code, p.stdout(), p.stderr()];
    };
    try {
      expect(await run('--html', '/proc/x/y.html')).toEqual([2, '', 'rein: --html /proc/x/y.html: cannot write the report there: the file system does not allow a new folder (at /proc/x)\n']);
      expect(await run('--json', '/proc/x/y.json')).toEqual([2, '', 'rein: --json /proc/x/y.json: cannot write the report there: the file system does not allow a new folder (at /proc/x)\n']);
      expect(await run('--json', 'a-file/deeper/report.json')).toEqual([2, '', 'rein: --json a-file/deeper/report.json: cannot write the report there: a part of the path is a file, not a folder\n']);
      expect(await run('--json', 'locked/report.json')).toEqual([2, '', 'rein: --json locked/report.json: cannot write the report there: permission denied\n']);
      expect(await run('--html', 'locked/new/report.html')).toEqual([2, '', `rein: --html locked/new/report.html: cannot write the report there: permission denied (at ${join(locked, 'new')})\n`]);
      // The check leaves nothing behind.
      expect(readdirSync(locked)).toEqual([]);
    } finally {
      if (process.getuid?.() === 0) execFileSync('chattr', ['-i', locked]);
    }
  });
});
