/**
 * Kernel micro-benchmarks: hook dispatch (a waterfall hook with 0, 10 and 100 taps), request build
 * for 10, 100 and 1,000-message histories, transcript append, preset load, and the kernel's own
 * overhead per turn on a 200-message history with the model taken out (an instant model client;
 * target < 1 ms median), bare and with the `default` preset's plugins loaded (what `rein run` users
 * pay: system prompt, memory files, compaction, cache breakpoints, the break detector, tools).
 */
import { join } from 'node:path';
import type { Bench } from 'tinybench';
import { createHooks } from '../../kernel/hooks.js';
import type { Kernel, KernelPreset } from '../../kernel/kernel.js';
import { createKernel } from '../../agent/kernel.js';
import { buildRequest } from '../../kernel/loop/request.js';
import type { ModelClient } from '../../kernel/model/client.js';
import { loadPreset } from '../../agent/preset/index.js';
import { Transcript } from '../../lib/session/transcript.js';
import type { ApiMessage, Message, MessageRequest } from '../../kernel/types.js';
import { benchTempDir } from './harness.js';

/** A history of `n` messages shaped like a coding session: tool calls and results of ~2 KB. */
export function history(n: number): Message[] {
  const out: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Fix the failing tests in src/parser.ts.' }] }];
  for (let i = 1; i < n; i++) {
    out.push(i % 2 === 1
      ? { role: 'assistant', content: [{ type: 'text', text: `Step ${i}.` }, { type: 'tool_use', id: `toolu_${i}`, name: 'Read', input: { file_path: `src/f${i}.ts` } }] }
      : { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i - 1}`, content: [{ type: 'text', text: `line ${i}\n`.repeat(250) }] }] });
  }
  return out;
}

const REPLY: ApiMessage = {
  id: 'msg_bench', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Done.', citations: null }],
  stop_reason: 'end_turn', stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
} as unknown as ApiMessage;

/** A model client that answers at once: the turn's cost is the kernel's alone. */
export const instantClient: ModelClient = {
  kind: 'simulator', baseURL: 'bench:instant',
  async send() { return { message: REPLY }; },
  async countTokens() { return 0; },
  async close() {},
};

async function kernelWith(messages: Message[]): Promise<Kernel> {
  const dir = benchTempDir('rein-bench-kernel-');
  const kernel = await createKernel({ preset: { name: 'bench', model: { name: 'claude-sonnet-4-5' }, session: { dir } }, cwd: dir, client: instantClient, plugins: [] });
  kernel.messages = messages;
  return kernel;
}

export async function run(bench: Bench): Promise<void> {
  for (const taps of [0, 10, 100]) {
    const hooks = createHooks();
    for (let i = 0; i < taps; i++) hooks.request.tap(`t${i}`, (p) => p);
    const params = { model: 'claude-sonnet-4-5', max_tokens: 1, messages: [] } as unknown as MessageRequest;
    const ctx = {} as never;
    bench.add(`waterfall hook, ${taps} taps`, async () => { await hooks.request.promise(params, ctx); });
  }

  for (const n of [10, 100, 1000]) {
    const kernel = await kernelWith(history(n));
    const ctx = kernel.runContext();
    bench.add(`build request, ${n} messages`, async () => {
      await buildRequest(kernel, { messages: kernel.messages, model: 'claude-sonnet-4-5', maxTokens: 8000 }, ctx);
    });
  }

  const tdir = benchTempDir('rein-bench-transcript-');
  const transcript = Transcript.create({ cwd: tdir, model: 'claude-sonnet-4-5', root: tdir });
  const message = history(3)[2]!;
  bench.add('transcript append (2 KB tool result)', () => { transcript.append({ type: 'message', message }); });

  const pdir = benchTempDir('rein-bench-preset-');
  bench.add('preset load (minimal, no layers)', async () => { await loadPreset({ preset: 'minimal', cwd: pdir, layers: false }); });

  const base = history(200);
  const kernel = await kernelWith(base);
  bench.add('kernel overhead per turn, 200 messages (bare kernel, no plugins)', async () => {
    kernel.messages = base;
    await kernel.run({ prompt: 'continue' }).result;
  });

  // The same turn with every plugin of the `default` preset loaded, as `rein run` has them.
  const ddir = benchTempDir('rein-bench-default-');
  const loaded = await loadPreset({ preset: 'default', cwd: ddir, layers: false });
  const withDefault = await createKernel({
    preset: { ...(loaded.preset as KernelPreset), session: { dir: join(ddir, 'sessions') } },
    presetDir: loaded.baseDir, cwd: ddir, client: instantClient,
    plugins: loaded.plugins.map((p) => ({ plugin: p.plugin, options: p.options, origin: p.origin })),
  });
  bench.add('kernel overhead per turn, 200 messages, default preset plugins', async () => {
    withDefault.messages = base;
    await withDefault.run({ prompt: 'continue' }).result;
  });
}
