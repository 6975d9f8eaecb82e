/**
 * The kernel's own work per turn with the `default` preset's plugins loaded (system prompt, memory
 * files, tool-result budget, microcompact, cache breakpoints, break detector, the tools, the
 * permission plugins), on a 200-message and a 20,000-message history: an instant model client and
 * no tool calls take the model and the tools out; automatic compaction is off so the history keeps
 * its size. Each task runs one turn on the same kernel, so the history grows by two messages a turn
 * (it is set back to its starting size every 400 messages, outside the timing) and what the plugins
 * keep from turn to turn is used as in a real session. Target: the 20,000-message turn ≤ 2× the
 * 200-message one.
 *
 * With REIN_BENCH_BASE set, the same tasks run on that checkout too (its modules loaded from its own
 * folder); the tasks run in 5 rounds, so both checkouts' samples are taken under the same load.
 */
import { existsSync} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Bench } from 'tinybench';
import type { Kernel, KernelOptions } from '../../kernel/kernel.js';
import type { Message } from '../../kernel/types.js';
import { checkouts, benchTempDir } from './harness.js';
import { instantClient } from './loop.bench.js';
import type { BenchContext } from './run.js';

export const rounds = 5;
export const options = { time: 400, iterations: 20, warmupIterations: 3 };

/**
 * A history of `n` messages of small tool turns (a short text and a Read, a one-line result): at
 * 20,000 messages it still fits the context window (about 8 estimated tokens a message), so every
 * measured turn sends its request. (The 2 KB-result history of loop.bench.ts is over the window
 * long before 20,000 messages, and the kernel then ends the turn with `blocking_limit` unsent.)
 */
export function smallTurns(n: number): Message[] {
  const out: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Read the notes until you are done.' }] }];
  for (let i = 1; i < n; i++) {
    out.push(i % 2 === 1
      ? { role: 'assistant', content: [{ type: 'text', text: `Step ${i}.` }, { type: 'tool_use', id: `toolu_${i}`, name: 'Read', input: { file_path: 'n.txt' } }] }
      : { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i - 1}`, content: [{ type: 'text', text: 'one' }] }] });
  }
  return out;
}

/** Messages a task adds before its history is set back. */
const REGROW = 400;

export interface Modules {
  createKernel: (o: KernelOptions) => Promise<Kernel>;
  loadPreset: (o: { preset: string; cwd: string; layers: boolean }) => Promise<{ preset: Record<string, unknown>; baseDir: string; plugins: { plugin: { name: string }; options: unknown; origin?: string }[] }>;
}

export async function modulesOf(root: string): Promise<Modules> {
  // rein's createKernel (with lib/'s services) is agent/kernel.ts; a tree before lib/ had it in kernel/.
  const kernelFile = existsSync(join(root, 'agent/kernel.ts')) ? 'agent/kernel.ts' : 'kernel/kernel.ts';
  const kernel = await import(pathToFileURL(join(root, kernelFile)).href) as { createKernel: Modules['createKernel'] };
  const preset = await import(pathToFileURL(join(root, 'agent/preset/index.ts')).href) as { loadPreset: Modules['loadPreset'] };
  return { createKernel: kernel.createKernel, loadPreset: preset.loadPreset };
}

/** A kernel with the default preset's plugins (automatic compaction off) and the instant client. */
export async function defaultKernel(m: Modules, messages: Message[]): Promise<Kernel> {
  const dir = benchTempDir('rein-bench-overhead-');
  const loaded = await m.loadPreset({ preset: 'default', cwd: dir, layers: false });
  const plugins = loaded.plugins.map((p) => ({
    plugin: p.plugin, origin: p.origin,
    options: p.plugin.name === 'compaction/auto' ? { ...(p.options as object), enabled: false } : p.options,
  }));
  const kernel = await m.createKernel({
    preset: { ...loaded.preset, session: { dir: join(dir, 'sessions') }, limits: {} } as KernelOptions['preset'],
    presetDir: loaded.baseDir, cwd: dir, client: instantClient, plugins: plugins as KernelOptions['plugins'],
  });
  kernel.messages = messages;
  return kernel;
}

export async function run(bench: Bench, ctx: BenchContext): Promise<void> {
  for (const n of [200, 20_000]) {
    const base = smallTurns(n);
    for (const arm of checkouts(ctx)) {
      const m = await modulesOf(arm.root);
      const kernel = await defaultKernel(m, base.slice());
      // The first turn on a new history sees it whole; the measured ones see what it adds. A turn
      // that does not reach the model measures nothing: the bench stops.
      const first = await kernel.run({ prompt: 'continue' }).result;
      if (first.terminalReason !== 'end_turn') throw new Error(`overhead bench: a turn on ${n} messages ended with ${first.terminalReason}, not end_turn`);
      bench.add(`kernel per turn, default preset, ${n.toLocaleString('en-US')} messages${arm.suffix}`, async () => {
        const r = await kernel.run({ prompt: 'continue' }).result;
        if (r.terminalReason !== 'end_turn') throw new Error(`overhead bench: a turn ended with ${r.terminalReason}`);
      }, {
        beforeEach: async () => {
          if (kernel.messages.length < n + REGROW) return;
          kernel.messages = base.slice();
          await kernel.run({ prompt: 'continue' }).result;
        },
      });
    }
  }
}
