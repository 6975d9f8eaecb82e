/**
 * `rein bench` (the built command) as a person types it: writing the JSON report to stdout with
 * `--json -`, the same preset given twice, a model name rein has no prices for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

  it('the same preset given twice is refused before any replay, naming both', async () => {
    writeFileSync(join(tmp.dir, 'p.yaml'), 'name: p\nextends: minimal\n');
    for (const twice of [['minimal', 'minimal'], ['./p.yaml', 'p.yaml']]) {
      const r = await bench(twice.flatMap((p) => ['--preset', p]));
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--preset ${twice[1]}: the same preset as --preset ${twice[0]}`);
      expect(r.stdout).toBe('');
    }
  });

  it('two preset files of one name and one file name in two folders get rows of their own', async () => {
    for (const d of ['a', 'b']) { mkdirSync(join(tmp.dir, d), { recursive: true }); writeFileSync(join(tmp.dir, d, 'x.yaml'), 'name: x\nextends: minimal\n'); }
    const r = await bench(['--preset', 'a/x.yaml', '--preset', 'b/x.yaml', '--json', 'two.json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(tmp.dir, 'two.json'), 'utf8')) as { presets: string[]; totals: Record<string, unknown> };
    expect(report.presets).toEqual(['x (a/x.yaml)', 'x (b/x.yaml)']);
    expect(Object.keys(report.totals)).toEqual(report.presets);
  });

  it('--model with a name rein has no prices for is refused before any replay, with the names it knows', async () => {
    const r = await bench(['--preset', 'minimal', '--model', 'claude-nope-9']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--model claude-nope-9: rein has no prices for this model');
    expect(r.stderr).toContain('claude-sonnet-4-5');
    expect(r.stdout).toBe('');
    // A dated id of a known model is fine.
    const ok = await bench(['--preset', 'minimal', '--model', 'claude-haiku-4-5-20251001']);
    expect(ok.code, ok.stderr).toBe(0);
  });
});
