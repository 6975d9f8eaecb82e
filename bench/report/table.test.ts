/**
 * Names in the text report's narrow columns: `rein bench` (the built command) on two generated
 * workloads and two preset files whose names differ only at their end shows every name whole,
 * wrapped over lines, and the JSON report keeps the names as they are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, tempDir } from '../../testing/support.js';
import { reinDone } from '../../queue/test/harness.js';
import { MAX_WIDTH, wrapName } from './table.js';
import { fitColumns } from './columns.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => { tmp = tempDir('rein-table-names-'); });
afterAll(() => tmp?.cleanup());

/** The first column of each row of the table that follows the line starting with `title`, its lines joined. */
function firstColumn(text: string, title: string): string[] {
  const lines = text.split('\n');
  const rows: string[] = [];
  let cur: string[] = [];
  for (const line of lines.slice(lines.findIndex((l) => l.startsWith(title)) + 1)) {
    if (line.startsWith('│')) cur.push(line.split('│')[1]!.trim());
    else if (cur.length) { rows.push(cur.join('')); cur = []; }
    if (line.startsWith('└')) break;
  }
  return rows;
}

/** Writes a pi session of 8 requests (7 bash calls, then an answer), each with `usage`, to `name` in the temp dir. */
function writePiSession(name: string, usage: Record<string, number>): void {
  const at = (i: number) => new Date(Date.UTC(2025, 11, 17, 19, 0, i)).toISOString();
  const lines: unknown[] = [{ type: 'session', id: 's1', timestamp: at(0), cwd: '/proj', provider: 'anthropic', modelId: 'claude-sonnet-4-5', thinkingLevel: 'off' },
    { type: 'message', timestamp: at(1), message: { role: 'user', content: [{ type: 'text', text: 'Count the files' }], timestamp: 0 } }];
  for (let i = 0; i < 8; i++) {
    const last = i === 7;
    lines.push({ type: 'message', timestamp: at(2 + 2 * i), message: { role: 'assistant', content: last ? [{ type: 'text', text: 'Done.' }] : [{ type: 'toolCall', id: `toolu_${i}`, name: 'bash', arguments: { command: `ls dir${i}` } }], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage, stopReason: last ? 'stop' : 'toolUse', timestamp: 0 } });
    if (!last) lines.push({ type: 'message', timestamp: at(3 + 2 * i), message: { role: 'toolResult', toolCallId: `toolu_${i}`, toolName: 'bash', content: [{ type: 'text', text: `file${i}.ts` }], isError: false, timestamp: 0 } });
  }
  writeFileSync(join(tmp.dir, name), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
}

describe('names in the text report', () => {
  it('wrapName keeps every character, breaking after punctuation when it can', () => {
    expect(wrapName('gen:turns=40,results=3000,seed=3', 26)).toBe('gen:turns=40,results=3000,\nseed=3');
    expect(wrapName('short', 26)).toBe('short');
    expect(wrapName('abcdefghijklmnopqrstuvwxyz', 10)).toBe('abcdefghij\nklmnopqrst\nuvwxyz');
    for (const name of ['gen:turns=40,results=3000,seed=3', './presets/long-name-variant-b.yaml', 'x'.repeat(70)]) {
      const wrapped = wrapName(name, 11);
      for (const line of wrapped.split('\n')) expect(line.length).toBeLessThanOrEqual(11);
      expect(wrapped.replace(/\n/g, '')).toBe(name);
    }
  });

  it('fitColumns wraps multi-word headers at their spaces, never cuts them, when the width is tight', () => {
    const head = ['preset', 'cost $', 'peak ctx', 'compactions'];
    const rows = [['a-rather-long-preset-name', '12.34', '178k', '2 + 3 edits']];
    const wide = fitColumns(head, rows, { maxWidth: 100, minName: 10, maxName: 30 });
    expect(wide.head).toEqual(head);
    const tight = fitColumns(head, rows, { maxWidth: 44, minName: 10, maxName: 30 });
    expect(tight.head).toEqual(['preset', 'cost\n$', 'peak\nctx', 'compactions']);
    expect(tight.colWidths.reduce((a, b) => a + b, 0) + head.length + 1).toBeLessThanOrEqual(44);
    expect(tight.rows[0]![0]!.replace(/\n/g, '')).toBe('a-rather-long-preset-name');
  });

  it('rein bench: workloads and presets that differ only at their end are told apart in the table; the JSON keeps their names', async () => {
    for (const v of ['a', 'b']) writeFileSync(join(tmp.dir, `long-preset-name-variant-${v}.yaml`), 'extends: minimal\n');
    const workloads = ['gen:turns=8,results=3000,seed=31', 'gen:turns=8,results=3000,seed=32'];
    const r = await reinDone(['bench', ...workloads.flatMap((w) => ['-w', w]), '--preset', './long-preset-name-variant-a.yaml', '--preset', './long-preset-name-variant-b.yaml', '--no-progress', '-j', '1', '--json', 'names.json'], { cwd: tmp.dir, env: { REIN_HOME: join(tmp.dir, 'home') } });
    expect(r.code, r.stderr).toBe(0);
    expect(firstColumn(r.stdout, 'Cost per workload')).toEqual(['workload', ...workloads]);
    const presets = firstColumn(r.stdout, 'Totals on');
    expect(presets.slice(1)).toEqual(['minimal (long-preset-name-variant-a.yaml)', 'minimal (long-preset-name-variant-b.yaml)']);
    for (const line of r.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(MAX_WIDTH);
    const json = JSON.parse(readFileSync(join(tmp.dir, 'names.json'), 'utf8')) as { presets: string[]; workloads: { name: string }[] };
    expect(json.workloads.map((w) => w.name)).toEqual(workloads);
    expect(json.presets).toEqual(presets.slice(1));
  });

  it('a cost and its ratio that do not fit one cell go on two lines, never cut short', async () => {
    // A pi session of 8 requests whose recorded usage is one uncached token each: any replay costs
    // thousands of times the recording, a ratio wider than the cell beside its cost.
    writePiSession('cheap.jsonl', { input: 1, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 1 });
    const r = await reinDone(['bench', '-w', 'cheap.jsonl', '--preset', 'minimal', '--no-progress', '--json', 'cheap.json'], { cwd: tmp.dir, env: { REIN_HOME: join(tmp.dir, 'home') } });
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(readFileSync(join(tmp.dir, 'cheap.json'), 'utf8')) as { workloads: { runs: { preset: string; summary: { costUsd: number } }[] }[] };
    const [rec, min] = ['recorded', 'minimal'].map((p) => json.workloads[0]!.runs.find((x) => x.preset === p)!.summary.costUsd);
    const cost = min!.toFixed(2);
    const x = `×${(min! / rec!).toFixed(2)}`;
    expect(cost.length + 1 + x.length).toBeGreaterThan(11);
    const table = r.stdout.slice(r.stdout.indexOf('Cost per workload'));
    const cells = table.split('\n').filter((l) => l.startsWith('│')).map((l) => l.split('│')[3]!.trim());
    expect(cells).toEqual(['minimal', cost, x]);
    expect(table).not.toContain('…');
  });

  it('with the recording client\'s mimic in the run, a workload\'s ratios are to that mimic, not to the recording (whose gap includes the replay\'s own error)', async () => {
    // The recorded usage is far from what any replay counts, so ratios to the recording would all
    // be large; to the mimic, a preset's ratio is its strategy's difference on the same replay.
    writePiSession('mimicked.jsonl', { input: 1, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 1 });
    const piLike = join(REPO, 'bench/presets/pi-like.yaml');
    const r = await reinDone(['bench', '-w', 'mimicked.jsonl', '--preset', 'minimal', '--preset', piLike, '--no-progress', '--json', 'mimicked.json'], { cwd: tmp.dir, env: { REIN_HOME: join(tmp.dir, 'home') } });
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(readFileSync(join(tmp.dir, 'mimicked.json'), 'utf8')) as { presets: string[]; workloads: { runs: { preset: string; summary: { costUsd: number } }[] }[] };
    const label = json.presets.find((p) => p.startsWith('pi-like'))!;
    const [min, mimic] = ['minimal', label].map((p) => json.workloads[0]!.runs.find((x) => x.preset === p)!.summary.costUsd);
    const table = r.stdout.slice(r.stdout.indexOf('Cost per workload'));
    expect(table.split('\n').slice(0, 2).join(' ')).toMatch(/^Cost per workload, \$ \(× the cost of the workload's own-client mimic on the same replay/);
    const row = table.split('\n').find((l) => l.startsWith('│ mimicked'))!.split('│').map((c) => c.trim());
    expect(row.slice(2, 5)).toEqual([expect.stringMatching(/^\d+\.\d\d$/), `${min!.toFixed(2)} ×${(min! / mimic!).toFixed(2)}`, `${mimic!.toFixed(2)} mimic`]);
  });

  it('no table cuts a header short: every header reads whole (wrapped over lines where needed) within the width', async () => {
    writePiSession('headers.jsonl', { input: 900, output: 40, cacheRead: 3000, cacheWrite: 200, totalTokens: 4140 });
    const piLike = join(REPO, 'bench/presets/pi-like.yaml');
    const r = await reinDone(['bench', '-w', 'headers.jsonl', '--preset', 'default', '--preset', piLike, '--no-progress', '-j', '1'], { cwd: tmp.dir, env: { REIN_HOME: join(tmp.dir, 'home') } });
    expect(r.code, r.stderr).toBe(0);
    const tables = headerRows(r.stdout);
    // Totals, fidelity and cost per workload at least.
    expect(tables.length).toBeGreaterThanOrEqual(3);
    for (const head of tables) for (const cell of head) expect(cell).not.toContain('…');
    expect(tables[0]).toEqual(['preset', 'req', 'cost $', 'vs rec.', 'read %', 'eff.', 'breaks', 'compactions', 'peak ctx']);
    for (const line of r.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(MAX_WIDTH);
  });
});

/** The header cells of each table in `text`, a cell's lines joined by a space. */
function headerRows(text: string): string[][] {
  const out: string[][] = [];
  let head: string[][] | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('┌')) { head = []; continue; }
    if (!head) continue;
    if (line.startsWith('├') || line.startsWith('└')) {
      out.push(head[0]!.map((_, i) => head!.map((l) => l[i]!).filter(Boolean).join(' ')));
      head = undefined;
      continue;
    }
    head.push(line.split('│').slice(1, -1).map((c) => c.trim()));
  }
  return out;
}
