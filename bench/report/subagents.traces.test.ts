/**
 * A recorded Claude Code session that used subagents (Harbor's `auth_token_race_condition` run: the
 * main session file and its `agent-*.jsonl` subagent transcripts) replayed by `rein bench`: each
 * subagent's requests are attributed to the child, not to the agent that started it, and the report
 * (JSON, text and HTML) puts each child's cache reads beside its parent's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDED, type BenchReport } from './model.js';
import { runBench } from '../run.js';
import { renderTable } from './table.js';
import { renderHtml } from './html.js';

const SESSIONS = fileURLToPath(new URL('../../../shared/traces/claude-code-harbor__xdotli-harbor-datagen/auth_token_race_condition/agent/sessions/projects/-workspace/', import.meta.url));
const MAIN = 'c6eb83c9-dba7-4416-ab11-093a0df9a392';
let dir: string;
let report: BenchReport;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-bench-subagents-'));
  report = await runBench({ workloads: [SESSIONS], presets: ['minimal'], cwd: dir, jobs: 1 });
}, 300_000);
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

describe('a recorded session with subagents, replayed by rein bench', () => {
  it('attributes each subagent\'s requests to the child and lists it beside its parent', () => {
    const main = report.workloads.find((w) => !w.sidechain)!;
    expect(main.name).toContain(MAIN);
    const children = report.workloads.filter((w) => w.sidechain && w.steps > 0);
    expect(children.length).toBeGreaterThan(0);
    for (const c of children) {
      expect(c.parent).toBe(main.name);
      for (const r of c.runs) {
        // Every request of the child's runs is the child's own: as many as it recorded, sent as a subagent.
        expect(r.summary.requests).toBe(c.steps);
        expect(r.requests.every((q) => q.source === 'subagent')).toBe(true);
      }
    }
    // The parent's runs hold none of the children's requests.
    for (const r of main.runs) {
      expect(r.summary.requests).toBe(main.steps);
      expect(r.requests.every((q) => q.source !== 'subagent')).toBe(true);
    }
    const rows = report.subagents!;
    expect(rows.map((a) => a.child).sort()).toEqual(children.map((c) => c.name).sort());
    for (const a of rows) {
      expect(a.parent).toBe(main.name);
      expect(a.runs.map((r) => r.preset)).toEqual([RECORDED, 'minimal']);
      const child = children.find((c) => c.name === a.child)!;
      for (const r of a.runs) {
        expect(r.childCacheRead).toBe(child.runs.find((x) => x.preset === r.preset)!.summary.cacheRead);
        expect(r.parentCacheRead).toBe(main.runs.find((x) => x.preset === r.preset)!.summary.cacheRead);
        expect(r.childPrompt).toBeGreaterThan(0);
      }
    }
  });

  it('shows the children\'s cache reads beside the parent\'s in the text and the HTML', async () => {
    const text = renderTable(report);
    expect(text).toContain('Subagents (their own requests; cache-read tokens, child beside parent):');
    const html = await renderHtml(report);
    expect(html).toContain('<h2 id="subagents">Subagents</h2>');
    for (const a of report.subagents!) expect(html).toContain(`<tr data-subagent="${a.child}">`);
  });
});
