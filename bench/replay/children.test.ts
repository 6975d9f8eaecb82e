/**
 * Live children in `rein bench` (the built command): the scripted fork-siblings workload starts
 * three children on the replay's own simulator. Through the fork preset each fork's first request
 * reads at least 95% of the parent's prefix from the cache and the three first requests are
 * identical but for the directive; through the default preset (named children, fresh
 * conversations) the same children read none of it. The figure is in the stdout table, the JSON
 * report and the HTML page.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../../testing/support.js';
import type { BenchReport } from '../report/model.js';
import { loadScenario } from '../workloads/scenario.js';

const ROOT = resolve(import.meta.dirname, '../..');
const WORKLOAD = join(ROOT, 'bench/workloads/scripted/fork-siblings.yaml');
const FORK_PRESET = join(ROOT, 'bench/presets/fork.yaml');

let tmp: ReturnType<typeof tempDir>;
let stdout: string;
let report: BenchReport;
let html: string;

beforeAll(async () => {
  tmp = tempDir('rein-bench-children-');
  const r = await runCli(['bench', '-w', WORKLOAD, '--preset', FORK_PRESET, '--preset', 'default', '--no-progress', '-j', '1', '--no-recall', '--json', 'r.json', '--html', 'r.html'], { cwd: tmp.dir, env: { HOME: join(tmp.dir, 'home') }, timeoutMs: 120_000 });
  expect(r.stderr).not.toMatch(/error/i);
  expect(r.code).toBe(0);
  stdout = r.stdout;
  report = JSON.parse(readFileSync(join(tmp.dir, 'r.json'), 'utf8')) as BenchReport;
  html = readFileSync(join(tmp.dir, 'r.html'), 'utf8');
}, 150_000);
afterAll(() => tmp.cleanup());

describe('live children in rein bench', () => {
  it('forks read >= 95% of the parent\'s prefix on their first request, siblings identical but for the directive', () => {
    const fork = report.workloads[0]!.runs.find((r) => r.preset === 'fork')!;
    expect(fork.children!.map((c) => c.name)).toEqual(['Slowest module', 'Owner of module 3', 'Count notes']);
    for (const c of fork.children!) {
      expect(c.fork).toBe(true);
      expect(c.parentPrefix).toBeGreaterThan(5_000);
      expect(c.first.cacheRead / c.parentPrefix).toBeGreaterThanOrEqual(0.95);
      expect(c.siblingsIdentical).toBe(true);
    }
    // Each child is answered with its own steps: the second one searched, then reported.
    expect(fork.children!.map((c) => c.requests.length)).toEqual([1, 2, 1]);
    expect(fork.children!.flatMap((c) => c.requests).some((q) => q.synthetic)).toBe(false);
    // The parent's own three requests, the children's apart.
    expect(fork.requests.map((q) => q.source)).toEqual(['main_loop', 'main_loop', 'main_loop']);
  });

  it('named children (fresh conversations) read none of the parent\'s prefix on the same simulator', () => {
    const plain = report.workloads[0]!.runs.find((r) => r.preset === 'default')!;
    for (const c of plain.children!) {
      expect(c.fork).toBe(false);
      expect(c.first.cacheRead).toBe(0);
    }
  });

  it('shows each child beside its parent in the table and the HTML page', () => {
    const rows = report.subagents!.filter((a) => a.parent === 'fork-siblings');
    expect(rows.map((a) => a.child)).toEqual(['fork-siblings/Slowest module', 'fork-siblings/Owner of module 3', 'fork-siblings/Count notes']);
    const text = stdout.replace(/\s+/g, ' ');
    expect(text).toMatch(/fork-siblings\/Slowest module \(of fork-siblings\) × fork: child [\d.]+k of [\d.]+k read from cache, parent [\d.]+k of [\d.]+k; fork's first request read [\d.]+k of the parent's [\d.]+k-token prefix \((9[5-9]|100)\.\d%\); siblings' first requests identical but for the directive/);
    expect(text).toMatch(/fork-siblings\/Count notes \(of fork-siblings\) × default: .*child's first request read 0 of the parent's/);
    const cells = [...html.matchAll(/<tr data-subagent="fork-siblings\/[^"]+"><td>[^<]+<\/td><td>fork-siblings<\/td><td>(\w+)<\/td>.*?<td data-first-request>([^<]+)<\/td><\/tr>/g)].map((m) => [m[1], m[2]]);
    expect(cells).toHaveLength(6);
    for (const [preset, cell] of cells) expect(cell).toMatch(preset === 'fork' ? /^fork's first request read .*\((9[5-9]|100)\.\d%\); siblings' first requests identical/ : /^child's first request read 0 /);
  });
});

describe('children in a bench scenario file', () => {
  it('gives each Task call its child\'s steps, and refuses more children than Task calls', async () => {
    const w = await loadScenario(WORKLOAD);
    expect(w.children!.map((c) => [c.toolUseId, c.steps.length])).toEqual([['toolu_fork_a', 1], ['toolu_fork_b', 2], ['toolu_fork_c', 1]]);
    expect(w.children![1]!.steps[0]!.toolResults[0]!.content).toEqual([{ type: 'text', text: 'note 3: the build of module 3 takes 5 minutes; owner team-3' }]);
    const bad = join(tmp.dir, 'bad.yaml');
    writeFileSync(bad, 'scenario: bad\nsteps:\n  - prompt: go\n    reply: [{ tool_use: { name: Task, input: { prompt: x } } }]\n    children: [[{ reply: [{ text: a }] }], [{ reply: [{ text: b }] }]]\n');
    await expect(loadScenario(bad)).rejects.toThrow(`${bad}: steps.0.children: 2 children for 1 Task calls`);
  });
});
