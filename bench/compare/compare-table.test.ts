/**
 * The text table of `rein bench compare`, from a real comparison (rein as the agent, on the
 * simulator): at most 100 columns, with every header whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCompare } from './compare.js';
import { tempDir } from '../../testing/support.js';
import { compareTable } from '../../cli/commands/bench-compare.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => { tmp = tempDir('rein-compare-table-'); });
afterAll(() => tmp?.cleanup());

describe('compareTable', () => {
  it('fits 100 columns and cuts no header, with a long preset path in the first column', async () => {
    const runs = await runCompare({ agent: 'rein', presets: ['minimal', 'default'], model: 'claude-sonnet-4-6', cwd: tmp.dir });
    runs.push({ ...runs[1]!, label: 'bench/presets/a-rather-long-preset-file-name.yaml' });
    const text = compareTable(runs);
    for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
    const lines = text.split('\n');
    const head = lines.slice(1, lines.findIndex((l) => l.startsWith('├'))).map((l) => l.split('│').slice(1, -1).map((c) => c.trim()));
    const cells = head[0]!.map((_, i) => head.map((l) => l[i]!).filter(Boolean).join(' '));
    expect(cells.join('|')).not.toContain('…');
    expect(cells).toContain('cache read');
    expect(cells).toContain('sim. cost $');
    // The long label is whole, over lines.
    const body = lines.slice(lines.findIndex((l) => l.startsWith('├')));
    const last = body.slice(body.findLastIndex((l) => l.startsWith('├')) + 1).filter((l) => l.startsWith('│')).map((l) => l.split('│')[1]!.trim()).join('');
    expect(last).toBe('bench/presets/a-rather-long-preset-file-name.yaml');
  });
});
