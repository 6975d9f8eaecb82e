import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from './html.js';
import type { BenchReport } from './model.js';
import { launchChromium } from './test/chromium.js';
import { buildReport } from './test/fixture.js';

let dir: string;
let report: BenchReport;
let cleanup: () => Promise<void>;
let browser: Browser;

beforeAll(async () => {
  ({ dir, report, cleanup } = await buildReport());
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await cleanup?.();
});

describe('bench report in a browser', () => {
  it('renders a self-contained HTML page whose SVG charts draw in headless Chromium', async () => {
    const html = await renderHtml(report);
    expect(html).not.toMatch(/<script|https?:\/\/(?!vega\.github\.io\/schema|www\.w3\.org)/);
    const file = join(dir, 'report.html');
    await writeFile(file, html);
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(`file://${file}`);
    const charts = await page.$$eval('figure.chart', (figs) => figs.map((f) => {
      const svg = f.querySelector('svg');
      const box = svg?.getBoundingClientRect();
      return { kind: f.getAttribute('data-chart'), paths: svg ? svg.querySelectorAll('path').length : 0, width: box?.width ?? 0, height: box?.height ?? 0, text: svg?.textContent ?? '' };
    }));
    // Overview, then tokens and cost for the generated workload; the 4-request scenario is tiny:
    // folded into the table at the end, without charts.
    expect(charts.map((c) => c.kind)).toEqual(['overview', 'tokens', 'cost']);
    const toc = await page.$$eval('nav a', (as) => as.map((a) => a.getAttribute('href')));
    expect(toc).toEqual(['#summary', '#w-gen_turns_24_prompts_3_seed_9', '#tiny']);
    for (const href of toc) expect(await page.$(href!)).not.toBeNull();
    for (const c of charts) {
      expect(c.paths).toBeGreaterThan(3);
      expect(c.width).toBeGreaterThan(200);
      expect(c.height).toBeGreaterThan(100);
    }
    expect(charts[1]!.text).toContain('cache read');
    expect(charts[2]!.text).toContain('stable');
    expect(requests.every((u) => u.startsWith('file://'))).toBe(true);
    await page.close();
    expect((await readFile(file, 'utf8')).length).toBeGreaterThan(10_000);
  });
});
