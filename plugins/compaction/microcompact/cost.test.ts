import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { CacheCostModel, cacheCostModel } from '../../../lib/index.js';
import { createSimulator } from '../../../simulator/index.js';
import { httpClient, plannedResponder, runPrompt, strategyKernel, writeLines, type PlannedTurn } from '../../../testing/strategy.js';
import { useTestEnv } from '../../../testing/index.js';
import microcompact, { type MicrocompactRecord } from './index.js';

const env = useTestEnv({ prefix: 'rein-mc-cost-' });
let dir: string;
let home: string;
beforeEach(() => {
  dir = env.dir;
  home = env.home;
});

/** A cost model that expects the session to go on for `remaining` more requests. */
class Expecting extends CacheCostModel {
  constructor(private readonly remaining: number) { super(); }
  override expectedRemainingRequests(): number { return this.remaining; }
}

async function session(remaining: number | undefined) {
  for (const f of ['a', 'b', 'c']) writeLines(dir, `${f}.txt`, 400, f);
  const turns: PlannedTurn[] = ['a', 'b', 'c'].map((f) => [{ type: 'tool_use', name: 'Read', input: { file_path: `${f}.txt` } }]);
  const simulator = createSimulator({ responder: plannedResponder([...turns, [{ type: 'text', text: 'Done.' }]]) });
  const { client } = await httpClient(simulator, join(home, `r-${remaining}.jsonl`));
  const kernel = await strategyKernel({ cwd: dir, client, plugins: [{ plugin: microcompact, options: { trigger: 'cost', keepRecent: 1, countTrigger: 2 } }] });
  if (remaining !== undefined) cacheCostModel(kernel).model = new Expecting(remaining);
  try {
    await runPrompt(kernel, 'Read the three files.');
    return kernel.transcript.pluginData<MicrocompactRecord>('compaction/microcompact');
  } finally {
    await kernel.close();
  }
}

describe('microcompact trigger: cost', () => {
  it('clears when the cost model expects the saving over the rest of the session to beat the re-write, and records the figures', async () => {
    const records = await session(200);
    expect(records.length).toBeGreaterThan(0);
    const r = records[0]!;
    expect(r.reason).toBe('cost');
    expect(r.predicted!.netUsd).toBeGreaterThan(0);
    expect(r.predicted!.netUsd).toBeCloseTo(r.predicted!.savingUsd - r.predicted!.costUsd, 12);
  });

  it('keeps the results when the session is expected to end soon: the re-write would cost more', async () => {
    expect(await session(1)).toEqual([]);
    expect(await session(0)).toEqual([]);
  });
});
