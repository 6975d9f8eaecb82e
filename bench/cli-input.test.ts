/**
 * `rein bench` (the built command) as a person types it: writing the JSON report to stdout with
 * `--json -`, the same preset given twice, a model name rein has no prices for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../testing/support.js';
import { reinDone } from '../queue/test/harness.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => { tmp = tempDir('rein-bench-cli-'); });
afterAll(() => tmp?.cleanup());

const bench = (args: string[]) => reinDone(['bench', '-w', 'gen:turns=3,seed=2', '--no-progress', '-j', '1', ...args], { cwd: tmp.dir, env: { REIN_HOME: join(tmp.dir, 'home') } });

describe('rein bench input', () => {
  it('--json - writes the JSON report to stdout, and the table to stderr', async () => {
    const r = await bench(['--preset', 'minimal', '--json', '-']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { presets: string[] };
    expect(report.presets).toEqual(['minimal']);
    expect(r.stderr).toContain('Totals on 1 workload');
    expect(existsSync(join(tmp.dir, '-'))).toBe(false);
  });
});
