/**
 * A preset option that never takes effect on the ranked workloads (a compaction threshold no
 * workload comes near) makes that preset cost what it would without it: `rein bench` (the built
 * command) says so per preset, with why, in the table, the JSON and the HTML report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../testing/support.js';
import { reinDone } from '../../queue/test/harness.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => { tmp = tempDir('rein-bench-idle-'); });
afterAll(() => tmp?.cleanup());

describe('strategies that never acted', () => {
  it('names, per preset, a compaction threshold no ranked workload reached, with the largest context and the threshold', async () => {
    writeFileSync(join(tmp.dir, 'late.yaml'), 'name: late-compaction\nextends: default\nplugins:\n  compaction/auto: { triggerTokens: 150000 }\n');
    writeFileSync(join(tmp.dir, 'early.yaml'), 'name: early-compaction\nextends: default\nplugins:\n  compaction/auto: { triggerTokens: 30000 }\n');
    const r = await reinDone(['bench', '-w', 'gen:turns=30,results=8000,seed=5', '--preset', './late.yaml', '--preset', './early.yaml', '--no-progress', '-j', '1', '--json', 'idle.json', '--html', 'idle.html'],
      { cwd: tmp.dir, env: { REIN_HOME: join(tmp.dir, 'home') } });
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(readFileSync(join(tmp.dir, 'idle.json'), 'utf8')) as { idleStrategies: Record<string, string[]>; totals: Record<string, { peakContext: number }>; workloads: { runs: { preset: string; compactions: { kind: string }[] }[] }[] };
    const peak = json.totals['late-compaction']!.peakContext;
    expect(peak).toBeGreaterThan(30_000);
    expect(peak).toBeLessThan(150_000);
    // The early threshold was reached, so only the late one is named.
    expect(json.workloads[0]!.runs.find((x) => x.preset === 'early-compaction')!.compactions.some((c) => c.kind === 'compaction')).toBe(true);
    const line = `compaction never triggered: largest context ${Math.round(peak / 1000)}k tokens < threshold 150k`;
    expect(json.idleStrategies['late-compaction']).toContain(line);
    expect(json.idleStrategies['early-compaction'] ?? []).not.toContainEqual(expect.stringMatching(/^compaction never triggered/));
    expect(r.stdout).toContain(`late-compaction: ${line}`);
    expect(r.stdout).not.toMatch(/early-compaction: compaction never triggered/);
    // The page escapes `<` as HTML does.
    expect(readFileSync(join(tmp.dir, 'idle.html'), 'utf8')).toContain(line.replace('<', '&lt;'));
  });
});
