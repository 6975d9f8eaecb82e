/**
 * `rein batch --queue` against a real redis-server with two real `rein worker` processes: the
 * tasks' result lines equal those of the local run, except for timing and the session ids; `rein
 * batch collect` prints the submitting run's lines, stderr and exit code again.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { queueFixture, reinDone, type Proc } from '../../queue/test/harness.js';

const fx = queueFixture('rein-batch-queue-');
const workers: Proc[] = [];

beforeAll(async () => {
  for (const name of ['a', 'b']) mkdirSync(join(fx.dir, name));
  writeFileSync(join(fx.dir, 'a', 'README.md'), '# a\n');
  writeFileSync(join(fx.dir, 'b', 'notes.txt'), 'b\n');
  workers.push(await fx.startWorker({ name: 'worker-a' }), await fx.startWorker({ name: 'worker-b' }));
});

/** Result lines in task order, without what differs from run to run. */
function lines(stdout: string): unknown[] {
  return stdout.trim().split('\n').map((l) => {
    const { duration_ms: _d, session_id: s, ...rest } = JSON.parse(l) as Record<string, unknown>;
    // A task that could not run has none.
    if (!rest.error) expect(s).toMatch(/^[0-9a-f-]{36}$/);
    return rest;
  }).sort((x, y) => (x as { line: number }).line - (y as { line: number }).line);
}

describe('rein batch --queue', () => {
  it('two workers run the tasks; the result lines equal the local run but for timing and session ids', async () => {
    writeFileSync(join(fx.dir, 'tasks.jsonl'), [
      '{"id": "a", "prompt": "What is here?", "cwd": "a", "check": "test -f README.md"}',
      '{"id": "b", "prompt": "What is here?", "cwd": "b", "check": "test -f README.md"}',
      '{"id": "c", "prompt": "Nothing here", "check": "exit 7"}',
      '{"id": "d", "prompt": "Anything", "cwd": "nowhere"}',
    ].join('\n') + '\n');
    const local = await reinDone(['batch', 'tasks.jsonl', '--preset', 'minimal', '--no-progress'], { cwd: fx.dir, env: fx.env });
    const queued = await reinDone(['batch', 'tasks.jsonl', '--preset', 'minimal', '--queue', fx.redis.url], { cwd: fx.dir, env: fx.env });
    expect(local.code).toBe(1);
    expect(queued.code, queued.stderr).toBe(1);
    expect(lines(queued.stdout)).toEqual(lines(local.stdout));
    expect(lines(queued.stdout)).toHaveLength(4);
    expect(queued.stderr).toMatch(/^rein: batch [0-9a-f]{8}: 4 tasks on queue rein-\S+ at redis:\/\/127\.0\.0\.1:\d+$/m);
    expect(queued.stderr).toMatch(/^rein: tasks: 4\/4 done, 0 running, 3 failed; 2 workers$/m);
    // Both workers took tasks.
    for (const w of workers) expect(w.stderr()).toMatch(/rein worker: done /);

    // Collected later (from the queue alone): the same lines, reasons on stderr and exit code.
    const id = /^rein: batch ([0-9a-f]{8}):/m.exec(queued.stderr)![1]!;
    expect(queued.stderr).toContain(`rein: \`rein batch collect ${id} --queue ${fx.redis.url}\` prints their result lines later too\n`);
    const collected = await reinDone(['batch', 'collect', id, '--queue', fx.redis.url, '--no-progress'], { cwd: fx.dir, env: fx.env });
    expect(collected.code, collected.stderr).toBe(1);
    const sorted = (out: string) => out.trim().split('\n').map((l) => JSON.parse(l) as { line: number }).sort((x, y) => x.line - y.line);
    expect(sorted(collected.stdout)).toEqual(sorted(queued.stdout));
    const reasons = (err: string) => err.split('\n').filter((l) => l.startsWith('rein: task ')).sort();
    expect(reasons(collected.stderr)).toEqual(reasons(queued.stderr));
    expect(reasons(collected.stderr)).toHaveLength(3);
  });
});
