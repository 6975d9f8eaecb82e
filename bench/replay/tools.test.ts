import { describe, expect, it } from 'vitest';
import { runCalls, textOf, toolKernel, use, useTestEnv } from '../../testing/index.js';
import bash from '../../plugins/tools/bash/index.js';
import read from '../../plugins/tools/read/index.js';
import type { Workload } from '../workloads/types.js';
import { installRecordedTools, RECORDED_TOOL_DESCRIPTION } from './tools.js';

const env = useTestEnv({ prefix: 'rein-replay-tools-' });

/** One recorded step calling `calls` (name, id, recorded output). */
function recording(calls: [string, string, string][]): Pick<Workload, 'steps'> {
  return {
    steps: [{
      index: 0, at: 0, model: 'claude-sonnet-4-5', stopReason: 'tool_use',
      reply: calls.map(([name, id]) => ({ type: 'tool_use', id, name, input: { path: 'x' } })),
      toolResults: calls.map(([name, id, text]) => ({ toolUseId: id, toolName: name, content: [{ type: 'text', text }], isError: false })),
    }],
  } as Pick<Workload, 'steps'>;
}

describe('recorded-result tools', () => {
  it("a tool another client spells in lower case is cut where the preset's own tool of that name cuts; an unknown one at the default", async () => {
    const kernel = await toolKernel({ cwd: env.dir, plugins: [{ plugin: read }, { plugin: bash }] });
    try {
      const big = (c: string) => `${c}${'x'.repeat(59_999)}`;
      const w = recording([['read', 'toolu_read', big('R')], ['bash', 'toolu_bash', big('B').slice(0, 40_000)], ['lookup', 'toolu_lookup', big('L')]]);
      const added = installRecordedTools(kernel, w);
      expect(added).toEqual(['read', 'bash', 'lookup']);
      expect(kernel.tools.get('lookup')!.description).toBe(RECORDED_TOOL_DESCRIPTION);
      const out = await runCalls(kernel, [use('read', { path: 'x' }, 'toolu_read'), use('bash', { path: 'x' }, 'toolu_bash'), use('lookup', { path: 'x' }, 'toolu_lookup')]);
      const [r, b, l] = out.results.map((x) => textOf(x));
      // Read limits itself by lines, never by characters: the 60,000-character result goes in whole.
      expect(r).toHaveLength(60_000);
      // Bash keeps 30,000 characters: the 40,000 are saved to a file and a preview stays.
      expect(b).toMatch(/^<persisted-output>\nOutput too large/);
      // A tool rein does not have: the kernel's default limit, 50,000 characters.
      expect(l).toMatch(/^<persisted-output>\nOutput too large/);
    } finally {
      await kernel.close();
    }
  });

  it('a mimic sends every recorded result as it was recorded, whatever its size', async () => {
    const kernel = await toolKernel({ cwd: env.dir, plugins: [{ plugin: bash }] });
    try {
      const w = recording([['bash', 'toolu_b', 'y'.repeat(40_000)], ['lookup', 'toolu_l', 'z'.repeat(60_000)]]);
      installRecordedTools(kernel, w, { asRecorded: true });
      const out = await runCalls(kernel, [use('bash', { path: 'x' }, 'toolu_b'), use('lookup', { path: 'x' }, 'toolu_l')]);
      expect(out.results.map((x) => textOf(x).length)).toEqual([40_000, 60_000]);
    } finally {
      await kernel.close();
    }
  });
});
