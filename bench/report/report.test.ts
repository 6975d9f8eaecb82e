import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBench } from '../run.js';
import { renderHtml } from './html.js';
import type { BenchReport } from './model.js';
import { renderTable } from './table.js';

const plugin = fileURLToPath(new URL('../replay/fixtures/prefix-stable.ts', import.meta.url));
let dir: string;
let report: BenchReport;
let browser: Browser;

/** Debian's chromium, headless, with everything that could reach the network switched off. */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-report-test-'));
  await writeFile(join(dir, 'stable.yaml'), `name: stable\nmodel: { provider: anthropic, name: claude-sonnet-4-5 }\nsystem: { sections: [ { name: role, text: ${JSON.stringify('Be brief. '.repeat(1500))} } ] }\nplugins:\n  ${JSON.stringify(plugin)}: {}\n`);
  await writeFile(join(dir, 'bare.yaml'), 'name: bare\nmodel: { provider: anthropic, name: claude-sonnet-4-5 }\n');
  // A recorded session of the scenario format, with a manual compaction and an idle gap.
  await writeFile(join(dir, 'scenario.yaml'), [
    'scenario: two-turns',
    'steps:',
    '  - prompt: Read src/app/main.ts and fix parseHeader',
    '    reply: [ { text: Reading. }, { tool_use: { name: Read, input: { file_path: src/app/main.ts } } } ]',
    '    results: [ "export function parseHeader(x) { return x }" ]',
    '  - reply: [ { text: Fixed. } ]',
    '  - prompt: Now run the tests',
    '    gap: 900',
    '    reply: [ { text: Running. }, { tool_use: { name: Bash, input: { command: npm test } } } ]',
    '    results: [ { text: "1 failed", is_error: true } ]',
    '  - reply: [ { text: One test fails. } ]',
    '',
  ].join('\n'));
  report = await runBench({ workloads: ['gen:turns=24,prompts=3,seed=9', join(dir, 'scenario.yaml')], presets: [join(dir, 'stable.yaml'), join(dir, 'bare.yaml')], cwd: dir, jobs: 1 });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await rm(dir, { recursive: true, force: true });
});

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
