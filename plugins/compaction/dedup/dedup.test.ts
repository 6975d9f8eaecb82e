import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSimulator } from '../../../simulator/index.js';
import { httpClient, loggedRequests, plannedResponder, runPrompt, strategyKernel, type PlannedTurn } from '../../../testing/strategy.js';
import { useTestEnv } from '../../../testing/index.js';
import dedup, { dedupStats, referenceText, type DedupRecord } from './index.js';

const env = useTestEnv({ prefix: 'rein-dedup-' });
let dir: string;
let home: string;
beforeEach(() => {
  dir = env.dir;
  home = env.home;
});

const read = (file: string): PlannedTurn => [{ type: 'tool_use', name: 'Read', input: { file_path: file } }];

/** Runs the planned reads and returns the tool_result texts of the last request, in order. */
async function session(turns: PlannedTurn[], setup?: (k: Awaited<ReturnType<typeof strategyKernel>>) => void) {
  const simulator = createSimulator({ responder: plannedResponder([...turns, [{ type: 'text', text: 'Done.' }]]) });
  const log = join(home, `requests-${Math.random().toString(36).slice(2)}.jsonl`);
  const { client } = await httpClient(simulator, log);
  const kernel = await strategyKernel({ cwd: dir, client, plugins: [{ plugin: dedup }] });
  setup?.(kernel);
  try {
    await runPrompt(kernel, 'Look at the files.');
    const last = loggedRequests(log).at(-1)!.body;
    const results = last.messages.flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : [])).filter((b: { type: string }) => b.type === 'tool_result');
    return { results: results.map((b: { tool_use_id: string; content: unknown }) => ({ id: b.tool_use_id, text: typeof b.content === 'string' ? b.content : (b.content as { text: string }[]).map((c) => c.text).join('\n') })), kernel, records: kernel.transcript.pluginData<DedupRecord>('compaction/dedup') };
  } finally {
    await kernel.close();
  }
}

/** A file whose numbered Read output is about `bytes` long. */
function file(name: string, bytes: number): void {
  const lines = Math.max(1, Math.round(bytes / 48));
  writeFileSync(join(dir, name), Array.from({ length: lines }, (_, i) => `line ${String(i).padStart(5, '0')} of ${name} ${'x'.repeat(20)}`).join('\n'));
}

describe('compaction/dedup', () => {
  it('replaces a second identical 1,000-byte result with a reference to the first, which stays as sent', async () => {
    file('a.txt', 1_000);
    const { results, records, kernel } = await session([read('a.txt'), read('a.txt')]);
    expect(results).toHaveLength(2);
    expect(results[0]!.text).toContain('line 00000 of a.txt');
    expect(results[0]!.text).not.toContain('identical');
    expect(results[1]!.text).toBe(referenceText('Read', results[0]!.id));
    expect(records).toMatchObject([{ toolUseId: results[1]!.id, sameAs: results[0]!.id, toolName: 'Read' }]);
    const original = Buffer.byteLength(results[0]!.text);
    expect(records[0]!.originalBytes).toBe(original);
    expect(records[0]!.savedBytes).toBe(original - Buffer.byteLength(results[1]!.text));
    expect(dedupStats(kernel)).toEqual({ hits: 1, savedBytes: records[0]!.savedBytes });
  });

  it('never replaces a 100-byte or a 60,000-byte result, nor a different one', async () => {
    file('small.txt', 100);
    file('big.txt', 60_000);
    file('b.txt', 1_000);
    file('c.txt', 1_000);
    const { results, records } = await session([read('small.txt'), read('small.txt'), read('big.txt'), read('big.txt'), read('b.txt'), read('c.txt')]);
    expect(Buffer.byteLength(results[0]!.text)).toBeLessThan(256);
    expect(Buffer.byteLength(results[2]!.text)).toBeGreaterThan(50_000);
    expect(results[1]!.text).toBe(results[0]!.text);
    expect(results[3]!.text).toBe(results[2]!.text);
    expect(results[5]!.text).toContain('of c.txt');
    expect(records).toEqual([]);
  });

  it('forgets earlier results after a compaction, which may have removed them', async () => {
    file('a.txt', 1_000);
    let compacted = 0;
    const { records, results } = await session([read('a.txt'), read('a.txt')], (kernel) => {
      // A compaction between the two reads: announced just before the second read's result goes in.
      let n = 0;
      kernel.hooks.postToolUse.tapPromise({ name: 'test/compact', stage: -1 }, async (post, ctx) => {
        if (n++ === 1) {
          await kernel.hooks.postCompact.promise({ trigger: 'manual', result: { strategy: 'test' } } as never, ctx);
          compacted++;
        }
        return post;
      });
    });
    expect(compacted).toBe(1);
    expect(results[1]!.text).toBe(results[0]!.text);
    expect(records).toEqual([]);
  });
});
