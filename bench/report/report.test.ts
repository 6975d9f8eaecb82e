import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from './html.js';
import type { BenchReport } from './model.js';
import { renderTable } from './table.js';
import { buildReport } from './test/fixture.js';

// The HTML page drawn in headless Chromium: report.system.test.ts (`npm run test:system`).
let report: BenchReport;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ report, cleanup } = await buildReport());
}, 60_000);

afterAll(() => cleanup?.());

describe('bench report', () => {
  it('has one run per workload and preset, in order, and totals per preset', () => {
    expect(report.presets).toEqual(['stable', 'bare']);
    expect(report.workloads.map((w) => w.name)).toEqual(['gen:turns=24,prompts=3,seed=9', 'two-turns']);
    for (const w of report.workloads) expect(w.runs.map((r) => r.preset)).toEqual(['stable', 'bare']);
    expect(Object.keys(report.totals)).toEqual(['stable', 'bare']);
    expect(report.totals.stable!.requests).toBe(24 + 4);
    expect(report.totals.stable!.cacheEfficiency).toBeGreaterThan(report.totals.bare!.cacheEfficiency);
    // The 900 s gap of the scenario is longer than the 5-minute TTL.
    const scen = report.workloads[1]!.runs[0]!;
    expect(scen.summary.breaks['idle > 5 min (TTL)']).toBe(1);
  });

  it('prints a table naming every workload and preset', () => {
    const text = renderTable(report);
    expect(text).toContain('two-turns');
    expect(text).toMatch(/│ stable\s+│/);
    expect(text).toMatch(/│ bare\s+│/);
    expect(text).toContain('Cache efficiency = ideal / actual input cost');
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
  });

  it('survives a JSON round trip', () => {
    const again = JSON.parse(JSON.stringify(report)) as BenchReport;
    expect(again.workloads[0]!.runs[0]!.requests).toHaveLength(24);
  });

  it('renders a self-contained HTML page: inline SVG charts, no script, nothing fetched', async () => {
    const html = await renderHtml(report);
    expect(html).not.toMatch(/<script|https?:\/\/(?!vega\.github\.io\/schema|www\.w3\.org)/);
    // Overview, then tokens and cost for the generated workload; the 4-request scenario is tiny:
    // folded into the table at the end, without charts.
    expect([...html.matchAll(/<figure class="chart" data-chart="(\w+)"/g)].map((m) => m[1])).toEqual(['overview', 'tokens', 'cost']);
    expect(html.match(/<svg/g)?.length).toBe(3);
    // A table of contents whose every link has its target on the page.
    const toc = [...(html.match(/<nav[\s\S]*?<\/nav>/)?.[0] ?? '').matchAll(/href="#([^"]+)"/g)].map((m) => m[1]);
    expect(toc).toEqual(['summary', 'w-gen_turns_24_prompts_3_seed_9', 'tiny']);
    for (const id of toc) expect(html).toContain(`id="${id}"`);
  });
});
