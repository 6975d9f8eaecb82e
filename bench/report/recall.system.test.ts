import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from './html.js';
import type { BenchReport } from './model.js';
import { launchChromium } from './test/chromium.js';
import { buildRecallReport } from './test/recall-fixture.js';

let dir: string;
let report: BenchReport;
let cleanup: () => Promise<void>;
let browser: Browser;

beforeAll(async () => {
  ({ dir, report, cleanup } = await buildRecallReport());
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await cleanup?.();
});

describe('cost/recall chart in a browser', () => {
  it('draws one point per preset, the Pareto front, and recall over the run', async () => {
    const file = join(dir, 'report.html');
    await writeFile(file, await renderHtml(report));
    const page = await browser.newPage();
    await page.goto(`file://${file}`);
    const chart = await page.$eval('figure[data-chart="cost-recall"] svg', (svg) => {
      const box = svg.getBoundingClientRect();
      // Vega draws symbols as paths in a group per mark; the front line is a path with a dash.
      const symbols = svg.querySelectorAll('g.mark-symbol path').length;
      const dashed = [...svg.querySelectorAll('g.mark-line path')].filter((p) => p.getAttribute('stroke-dasharray')).length;
      return { width: box.width, height: box.height, symbols, dashed, text: svg.textContent ?? '' };
    });
    expect(chart.width).toBeGreaterThan(300);
    expect(chart.height).toBeGreaterThan(200);
    // Three presets, three points (legend symbols come on top).
    expect(chart.symbols).toBeGreaterThanOrEqual(3);
    expect(chart.dashed).toBe(1);
    for (const p of ['no-compaction', 'aggressive-microcompact', 'default', 'on the Pareto front']) expect(chart.text).toContain(p);
    const lines = await page.$$eval('figure[data-chart="recall"] svg g.mark-line path', (ps) => ps.length);
    expect(lines).toBeGreaterThanOrEqual(1);
    expect(await page.$('#recall')).not.toBeNull();
    await page.close();
  });
});
