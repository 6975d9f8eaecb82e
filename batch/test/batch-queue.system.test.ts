/**
 * `rein batch --queue` against a real redis-server with two real `rein worker` processes: the
 * tasks' result lines equal those of the local run, except for timing and the session ids.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../testing/support.js';
import { reinDone, startRedis, startWorker, stop, type Proc, type RedisServer } from '../../queue/test/harness.js';

let tmp: ReturnType<typeof tempDir>;
let redis: RedisServer;
const workers: Proc[] = [];
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  tmp = tempDir('rein-batch-queue-');
  env = { REIN_HOME: join(tmp.dir, 'home') };
  redis = await startRedis(tmp.dir);
  for (const name of ['a', 'b']) mkdirSync(join(tmp.dir, name));
  writeFileSync(join(tmp.dir, 'a', 'README.md'), '# a\n');
  writeFileSync(join(tmp.dir, 'b', 'notes.txt'), 'b\n');
  workers.push(await startWorker(redis.url, { cwd: tmp.dir, name: 'worker-a', env }), await startWorker(redis.url, { cwd: tmp.dir, name: 'worker-b', env }));
});
afterAll(async () => {
  for (const w of workers) await stop(w, 2_000);
  await redis?.stop();
  tmp?.cleanup();
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
    writeFileSync(join(tmp.dir, 'tasks.jsonl'), [
      '{"id": "a", "prompt": "What is here?", "cwd": "a", "check": "test -f README.md"}',
      '{"id": "b", "prompt": "What is here?", "cwd": "b", "check": "test -f README.md"}',
      '{"id": "c", "prompt": "Nothing here", "check": "exit 7"}',
      '{"id": "d", "prompt": "Anything", "cwd": "nowhere"}',
    ].join('\n') + '\n');
    const local = await reinDone(['batch', 'tasks.jsonl', '--preset', 'minimal', '--no-progress'], { cwd: tmp.dir, env });
    const queued = await reinDone(['batch', 'tasks.jsonl', '--preset', 'minimal', '--queue', redis.url], { cwd: tmp.dir, env });
    expect(local.code).toBe(1);
    expect(queued.code, queued.stderr).toBe(1);
    expect(lines(queued.stdout)).toEqual(lines(local.stdout));
    expect(lines(queued.stdout)).toHaveLength(4);
    expect(queued.stderr).toMatch(/^rein: batch [0-9a-f]{8}: 4 tasks on queue rein-\S+ at redis:\/\/127\.0\.0\.1:\d+$/m);
    expect(queued.stderr).toMatch(/^rein: tasks: 4\/4 done, 0 running, 3 failed; 2 workers$/m);
    // Both workers took tasks.
    for (const w of workers) expect(w.stderr()).toMatch(/rein worker: done /);
  });
});
