/**
 * What the bubblewrap sandbox adds to a trivial command: `Bash{command: "true"}` through the
 * kernel's tool pipeline with the `tools/bash` plugin alone (the baseline), and with
 * `sandbox/bubblewrap` loaded (default policy: no network, hidden home, credential paths masked).
 * Side by side in one run; the difference of the medians is the sandbox's cost per command.
 * Skipped with a message when bwrap is not installed.
 */
import type { Bench, BenchOptions } from 'tinybench';
import type { Kernel } from '../../kernel/kernel.js';
import { createKernel } from '../../agent/kernel.js';
import { runToolCalls } from '../../kernel/loop/tools.js';
import type { ModelClient } from '../../kernel/model/client.js';
import bashPlugin from '../../plugins/tools/bash/index.js';
import toolConcurrency from '../../plugins/tool-concurrency/index.js';
import sandboxPlugin, { bwrapUnavailable } from '../../plugins/sandbox/bubblewrap/index.js';
import { benchTempDir } from './harness.js';

export const options: BenchOptions = { time: 3_000, iterations: 50, warmupIterations: 5 };

const client: ModelClient = {
  kind: 'simulator', baseURL: 'http://127.0.0.1:9',
  async send() { throw new Error('no model in the sandbox benchmark'); },
  async countTokens() { return 0; },
  async close() {},
};

async function kernel(sandboxed: boolean): Promise<Kernel> {
  const cwd = benchTempDir('rein-bench-sandbox-');
  const k = await createKernel({
    preset: { name: 'bench' }, cwd, client,
    plugins: [{ plugin: bashPlugin }, { plugin: toolConcurrency }, ...(sandboxed ? [{ plugin: sandboxPlugin }] : [])],
  });
  k.hooks.permission.tap('bench', () => ({ behavior: 'allow' }));
  return k;
}

let seq = 0;
const call = (k: Kernel) => runToolCalls(k, [{ type: 'tool_use', id: `toolu_b${++seq}`, name: 'Bash', input: { command: 'true' } }], k.runContext());

export async function run(bench: Bench): Promise<void> {
  process.env.REIN_HOME ??= benchTempDir('rein-bench-home-');
  const plain = await kernel(false);
  bench.add('Bash `true`, no sandbox', async () => { await call(plain); });
  const why = bwrapUnavailable('bwrap');
  if (why) {
    console.log(`sandbox.bench: skipping the sandboxed task: ${why}`);
    return;
  }
  const boxed = await kernel(true);
  bench.add('Bash `true` in sandbox/bubblewrap', async () => { await call(boxed); });
}
