/**
 * `rein bench -j 1` and `-j 2` run their replays the same way (each in a worker thread that starts
 * cold), say so on stderr, and give the same table; a single replay runs in the process itself.
 * The built command, as users run it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../testing/support.js';

const tmp = tempDir('rein-bench-threads-');
afterAll(() => tmp.cleanup());
const bench = (extra: string[]) => runCli(['bench', '-w', 'gen:turns=6,seed=1', '-w', 'gen:turns=6,seed=2', '--preset', 'minimal', ...extra], { cwd: tmp.dir, env: { REIN_HOME: `${tmp.dir}/home` } });

describe('rein bench -j', () => {
  it('-j 1 and -j 2 both replay in cold worker threads, say how, and print the same table', async () => {
    const [one, two] = await Promise.all([bench(['-j', '1']), bench(['-j', '2'])]);
    expect(one.code, one.stderr).toBe(0);
    expect(two.code, two.stderr).toBe(0);
    expect(one.stderr).toContain('rein: 2 replays in 1 worker thread, each started cold');
    expect(two.stderr).toContain('rein: 2 replays in 2 worker threads, each started cold');
    expect(one.stdout).toBe(two.stdout);
  });

  it('one replay runs in the process; --no-progress leaves the line out', async () => {
    const single = await runCli(['bench', '-w', 'gen:turns=6,seed=1', '--preset', 'minimal'], { cwd: tmp.dir, env: { REIN_HOME: `${tmp.dir}/home` } });
    expect(single.stderr).toContain('rein: 1 replay in this process');
    const quiet = await bench(['-j', '1', '--no-progress']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toContain('worker thread');
  });
});
