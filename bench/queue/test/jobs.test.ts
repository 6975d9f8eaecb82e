/**
 * What travels in a replay job: the workload's bytes and hash, the resolved preset and its hash,
 * and the job's key. A worker's replay of a job gives the same result as the local replay.
 */
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, tempDir } from '../../../testing/support.js';
import { loadBenchPreset, replayWorkload } from '../../replay/replay.js';
import { loadWorkloads } from '../../workloads/load.js';
import { toRun } from '../../run.js';
import { decodeWorkload, encodeWorkload, presetFromSpec, presetSpec, replayJobId } from '../jobs.js';

async function workload(spec: string) {
  return (await loadWorkloads(spec)).workloads[0]!;
}

describe('replay jobs', () => {
  it('a workload travels as gzip JSON keyed by its content; where it was read from is not part of it', async () => {
    const w = await workload('gen:turns=6,seed=3');
    const e = encodeWorkload(w);
    expect(e.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(decodeWorkload(e.bytes)).toEqual(JSON.parse(JSON.stringify(w)));
    expect(encodeWorkload({ ...w, path: '/somewhere/else.jsonl' }).hash).toBe(e.hash);
    expect(encodeWorkload(await workload('gen:turns=6,seed=4')).hash).not.toBe(e.hash);
  });

  it('a preset is keyed by what changes a replay: its merged content, the plugin files it names, the model', async () => {
    const tmp = tempDir('rein-jobs-');
    try {
      const a = presetSpec(await loadBenchPreset('default'), {});
      expect(presetSpec(await loadBenchPreset('default'), {}).hash).toBe(a.hash);
      expect(presetSpec(await loadBenchPreset('minimal'), {}).hash).not.toBe(a.hash);
      expect(presetSpec(await loadBenchPreset('default'), { model: 'claude-haiku-4-5' }).hash).not.toBe(a.hash);
      // A plugin file: editing it changes the key.
      const plugin = join(tmp.dir, 'p.ts');
      const zod = pathToFileURL(join(REPO, 'node_modules/zod/index.js')).href;
      const source = (body: string) => `export default { name: 'p', options: (await import('${zod}')).z.object({}), apply() { ${body} } };\n`;
      writeFileSync(plugin, source(''));
      writeFileSync(join(tmp.dir, 'with.yaml'), 'extends: default\nplugins:\n  ./p.ts: {}\n');
      const before = presetSpec(await loadBenchPreset(join(tmp.dir, 'with.yaml')), {});
      writeFileSync(plugin, source('/* changed */'));
      const after = presetSpec(await loadBenchPreset(join(tmp.dir, 'with.yaml')), {});
      expect(after.hash).not.toBe(before.hash);
      expect(before.origins.at(-1)).toBe(`${join(tmp.dir, 'with.yaml')}:3:3`);
    } finally {
      tmp.cleanup();
    }
  });

  it('job ids carry both hashes and the version, without the ":" BullMQ reserves', () => {
    const id = replayJobId('a'.repeat(64), 'b'.repeat(64), '0.1.0');
    expect(id).toBe(`replay-${'a'.repeat(20)}-${'b'.repeat(20)}-0.1.0`);
    expect(id).not.toContain(':');
  });

  it('a worker replaying the job (decoded workload, preset loaded from its spec) gets the local replay\'s row', async () => {
    const w = await workload('gen:turns=12,results=2500,seed=5');
    for (const name of ['default', 'minimal']) {
      const local = await loadBenchPreset(name);
      const spec = JSON.parse(JSON.stringify(presetSpec(local, {}))) as ReturnType<typeof presetSpec>;
      const remote = await presetFromSpec(spec);
      expect(remote.plugins.map((p) => p.origin)).toEqual(local.plugins.map((p) => p.origin));
      const untimed = (r: Awaited<ReturnType<typeof replayWorkload>>) => { const { durationMs: _d, ...rest } = toRun(r, name); return rest; };
      const there = untimed(await replayWorkload(decodeWorkload(encodeWorkload(w).bytes), remote));
      expect(there).toEqual(untimed(await replayWorkload(w, local)));
      expect(there.requests.length).toBe(12);
    }
  });
});
