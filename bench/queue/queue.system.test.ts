/**
 * `rein bench --queue` against a real redis-server, with real `rein worker` processes (the built
 * command): the report of a matrix replayed by two workers, one of them killed with SIGKILL in the
 * middle of a job, equals the report of the local run except its timing fields; a second
 * submission reuses every result; a replay that fails three times is in the report with its error.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO } from '../../testing/support.js';
import { queueFixture, rein, reinDone, stop, waitFor } from '../../queue/test/harness.js';

const fx = queueFixture('rein-queue-');

/** 4 workloads × 2 presets: 8 replay jobs. */
const MATRIX = ['-w', 'gen:turns=40,seed=1', '-w', 'gen:turns=40,seed=2', '-w', 'gen:turns=40,results=3000,seed=3', '-w', 'gen:turns=40,seed=4', '--preset', 'default', '--preset', 'minimal'];

/** The report without its timing fields (the wall time of each replay). */
function untimed(file: string): unknown {
  return JSON.parse(readFileSync(join(fx.dir, file), 'utf8'), (k, v: unknown) => (k === 'durationMs' ? undefined : v));
}

/** Short locks, so a killed worker's job goes to the other worker within seconds. */
const LOCK_MS = 1_500;

describe('rein bench --queue', () => {
  it('two workers, one killed with SIGKILL mid-job: the report is complete and equals the local run but for timing', async () => {
    const local = await reinDone(['bench', ...MATRIX, '--no-progress', '-j', '1', '--json', 'local.json'], { cwd: fx.dir, env: fx.env });
    expect(local.code, local.stderr).toBe(0);

    const a = await fx.startWorker({ name: 'worker-a', lockMs: LOCK_MS });
    const b = await fx.startWorker({ name: 'worker-b', lockMs: LOCK_MS });
    const submit = rein(['bench', '--queue', fx.redis.url, ...MATRIX, '--json', 'queue.json'], { cwd: fx.dir, env: fx.env });
    // Kill worker A as soon as it has taken a job: the job dies with it, unfinished.
    const [, label] = await waitFor(a, /start (.+)\n/);
    a.child.kill('SIGKILL');
    expect((await a.exited).signal).toBe('SIGKILL');
    expect(a.stderr()).not.toContain(`done ${label!}`);

    const { code } = await submit.exited;
    expect(code, submit.stderr()).toBe(0);
    expect(submit.stderr()).toMatch(/benchmark [0-9a-f]{16}: 8 replay jobs on queue rein-\S+ at redis:\/\/127\.0\.0\.1:\d+/);
    // Progress on the submitting terminal (plain lines when stderr is not a terminal).
    // (The worker count is read every few seconds: the first reading may come after the kill.)
    expect(submit.stderr()).toMatch(/^rein: replays: [0-7]\/8 done, [12] running, 0 failed; [12] workers?$/m);
    expect(submit.stderr()).toMatch(/^rein: replays: 8\/8 done, 0 running, 0 failed; [12] workers?$/m);
    // Worker B took the killed job over and finished it.
    expect(b.stderr()).toContain(`done ${label!}`);
    expect(untimed('queue.json')).toEqual(untimed('local.json'));
    // The table on stdout is the local run's too.
    expect(submit.stdout()).toBe(local.stdout);
  });

  it('a second submission of the same matrix reuses every result, with no worker running', async () => {
    for (const w of fx.procs.splice(0)) await stop(w);
    const again = await reinDone(['bench', '--queue', fx.redis.url, ...MATRIX, '--no-progress', '--json', 'again.json'], { cwd: fx.dir, env: fx.env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/8 replay jobs .*\(8 already done\)/);
    expect(untimed('again.json')).toEqual(untimed('local.json'));
  });

  it('a replay that fails three times is in the report with its error, as in a local run; `rein bench collect` writes the report', async () => {
    // A plugin that throws when the kernel applies it: every attempt fails the same way.
    const zod = pathToFileURL(join(REPO, 'node_modules/zod/index.js')).href;
    writeFileSync(join(fx.dir, 'boom.ts'), `export default { name: 'boom', options: (await import('${zod}')).z.object({}), apply() { throw new Error('boom at apply'); } };\n`);
    writeFileSync(join(fx.dir, 'boom.yaml'), 'extends: default\nplugins:\n  ./boom.ts: {}\n');
    const args = ['-w', 'gen:turns=5,seed=1', '--preset', './boom.yaml', '--preset', 'minimal', '--no-progress'];
    const local = await reinDone(['bench', ...args, '-j', '1', '--json', 'boom-local.json'], { cwd: fx.dir, env: fx.env });
    expect(local.code).toBe(1);

    const submitted = await reinDone(['bench', '--queue', fx.redis.url, ...args, '--no-wait'], { cwd: fx.dir, env: fx.env });
    expect(submitted.code, submitted.stderr).toBe(0);
    const id = /benchmark ([0-9a-f]{16})/.exec(submitted.stderr)![1]!;
    const w = await fx.startWorker({ name: 'worker-c', lockMs: LOCK_MS });
    const collected = await reinDone(['bench', 'collect', id, '--queue', fx.redis.url, '--no-progress', '--json', 'boom-queue.json'], { cwd: fx.dir, env: fx.env });
    expect(collected.code).toBe(1);
    expect(collected.stderr).toMatch(/^rein: gen:turns=5,seed=1 × default failed: plugin boom \(.*boom\.yaml:3:3\) failed to apply: boom at apply$/m);
    expect(w.stderr().match(/failed gen:turns=5,seed=1 × default \(attempt \d/g)).toHaveLength(3);
    expect(w.stderr()).toContain('(attempt 3, the last)');
    expect(untimed('boom-queue.json')).toEqual(untimed('boom-local.json'));
  });

  it('a benchmark id the queue does not have is bad input: one line, exit 2', async () => {
    const r = await reinDone(['bench', 'collect', '0123456789abcdef', '--queue', fx.redis.url], { cwd: fx.dir, env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^rein: no benchmark "0123456789abcdef" on redis:\/\/127\.0\.0\.1:\d+ .*\n$/);
  });
});
