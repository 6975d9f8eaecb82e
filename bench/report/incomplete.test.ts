import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBench } from '../run.js';
import type { BenchReport } from './model.js';
import { renderTable } from './table.js';

let dir: string;
let report: BenchReport;
// 16 requests with ~70k-token results: the history passes the 200k window after a few of them.
const BIG = 'gen:turns=16,prompts=4,results=300000,seed=3';
const SMALL = 'gen:turns=6,prompts=2,results=2000,seed=4';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-incomplete-'));
  // No compaction and no clearing: the big session cannot fit.
  await writeFile(join(dir, 'keep-all.yaml'), 'name: keep-all\nextends: default\nplugins:\n  compaction/auto: false\n  compaction/microcompact: false\n');
  report = await runBench({ workloads: [BIG, SMALL], presets: [join(dir, 'keep-all.yaml'), 'default'], cwd: dir, jobs: 1 });
}, 120_000);
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

describe('a run that hits the context window', () => {
  it('is marked incomplete with the steps it lost and why', () => {
    const run = report.workloads[0]!.runs.find((r) => r.preset === 'keep-all')!;
    expect(run.incomplete!.steps).toBeGreaterThan(0);
    expect(Object.keys(run.incomplete!.reasons).join()).toMatch(/prompt_too_long|blocking_limit/);
    expect(run.incomplete!.firstSteps.length).toBeGreaterThan(0);
    expect(report.workloads[0]!.runs.find((r) => r.preset === 'default')!.incomplete).toBeUndefined();
  });

  it('stands apart: not in the totals, listed as unranked, totals only over workloads every preset completed', () => {
    expect(report.comparable.workloads).toEqual([SMALL]);
    expect(report.comparable.leftOut).toEqual([BIG]);
    expect(report.unranked).toEqual([expect.objectContaining({ workload: BIG, preset: 'keep-all', status: 'incomplete' })]);
    const small = report.workloads[1]!.runs.find((r) => r.preset === 'keep-all')!;
    expect(report.totals['keep-all']!.costUsd).toBeCloseTo(small.summary.costUsd, 10);
    expect(report.allRunTotals['keep-all']!.incomplete).toBe(1);
    const text = renderTable(report);
    expect(text).toMatch(/Not ranked[^\n]*\n- keep-all × gen:turns=16[^\n]*incomplete/);
    expect(text).toContain('1 left out');
  });

  it('is flagged in the JSON', () => {
    const again = JSON.parse(JSON.stringify(report)) as BenchReport;
    expect(again.unranked[0]!.detail).toMatch(/recorded steps? lost/);
  });
});
