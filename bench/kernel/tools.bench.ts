/**
 * Tool benchmarks on a 10,000-file tree (100 folders × 100 files of 40 lines, one ignored folder):
 * Grep (ripgrep backend and JS backend) against running `rg` itself, Glob against `find`, Read of a
 * 2,000-line file against reading it with fs; and the orchestration overhead per tool call, tool
 * time excluded: a no-op tool through `runToolCalls` (validation, permission and tool hooks, result
 * finalisation, events) against calling the same function directly.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Bench, BenchOptions } from 'tinybench';
import { z } from 'zod';
import type { Kernel } from '../../kernel/kernel.js';
import { createKernel } from '../../agent/kernel.js';
import { runToolCalls } from '../../kernel/loop/tools.js';
import type { ModelClient } from '../../kernel/model/client.js';
import { definePlugin } from '../../kernel/plugin.js';
import { defineTool } from '../../kernel/tool.js';
import type { ToolUseBlock } from '../../kernel/types.js';
import readPlugin from '../../plugins/tools/read/index.js';
import globPlugin from '../../plugins/tools/glob/index.js';
import grepPlugin from '../../plugins/tools/grep/index.js';
import toolConcurrency from '../../plugins/tool-concurrency/index.js';
import { findRipgrep } from '../../plugins/tools/grep/ripgrep.js';
import { benchTempDir } from './harness.js';

export const options: BenchOptions = { time: 1_000, iterations: 10, warmupIterations: 2 };

const client: ModelClient = {
  kind: 'simulator', baseURL: 'http://127.0.0.1:9',
  async send() { throw new Error('no model in tool benchmarks'); },
  async countTokens() { return 0; },
  async close() {},
};

/** Writes the tree; returns its root. */
export function makeTree(): string {
  const root = benchTempDir('rein-bench-tree-');
  writeFileSync(join(root, '.gitignore'), 'd099/\n');
  for (let d = 0; d < 100; d++) {
    const dir = join(root, `d${String(d).padStart(3, '0')}`);
    mkdirSync(dir);
    for (let f = 0; f < 100; f++) {
      const lines = Array.from({ length: 40 }, (_, i) => (i === 17 && f % 10 === 0 ? `  // TODO: handle case ${d}-${f}` : `  const value${i} = compute(${d}, ${f}, ${i});`));
      writeFileSync(join(dir, `f${f}.${f % 2 ? 'ts' : 'js'}`), `export function fn${f}() {\n${lines.join('\n')}\n}\n`);
    }
  }
  writeFileSync(join(root, 'big.txt'), Array.from({ length: 5_000 }, (_, i) => `line ${i} of a long file with some text in it`).join('\n'));
  return root;
}

let seq = 0;
const call = (name: string, input: Record<string, unknown>): ToolUseBlock => ({ type: 'tool_use', id: `toolu_b${++seq}`, name, input });

export async function run(bench: Bench): Promise<void> {
  const root = makeTree();
  process.env.REIN_HOME ??= benchTempDir('rein-bench-home-');
  const noop = defineTool({ name: 'Noop', description: 'does nothing', inputSchema: z.strictObject({ n: z.number() }), isReadOnly: () => true, isConcurrencySafe: () => true, call: async () => 'ok' });
  const kernelFor = (grepBackend: 'ripgrep' | 'js'): Promise<Kernel> => createKernel({
    preset: { name: 'bench' }, cwd: root, client,
    plugins: [{ plugin: readPlugin }, { plugin: globPlugin }, { plugin: grepPlugin, options: { backend: grepBackend } }, { plugin: definePlugin({ name: 'noop', apply: (k) => k.tools.register(noop) }) }, { plugin: toolConcurrency }],
  });
  const k = await kernelFor('ripgrep');
  const kJs = await kernelFor('js');
  const ctx = k.runContext();
  const rg = findRipgrep();
  const one = async (kernel: Kernel, name: string, input: Record<string, unknown>) => {
    const out = await runToolCalls(kernel, [call(name, input)], kernel.runContext());
    if (out.results[0]!.is_error) throw new Error(JSON.stringify(out.results[0]!.content));
  };

  // Orchestration overhead (the first task is this file's baseline).
  const toolCtx = k.toolContext('toolu_direct', ctx);
  bench.add('orchestration: no-op tool called directly', async () => { await noop.call({ n: 1 }, toolCtx); });
  bench.add('orchestration: 1 no-op call through runToolCalls', async () => { await runToolCalls(k, [call('Noop', { n: 1 })], ctx); });
  bench.add('orchestration: 10 no-op calls in one parallel batch', async () => {
    await runToolCalls(k, Array.from({ length: 10 }, (_, i) => call('Noop', { n: i })), ctx);
  });

  // Grep: files containing TODO, and the matching lines.
  if (rg) {
    bench.add('grep files: rg -l (reference)', () => { execFileSync(rg, ['-l', '--hidden', '--no-require-git', 'TODO', '.'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }); });
    bench.add('grep files: Grep tool, ripgrep backend', () => one(k, 'Grep', { pattern: 'TODO' }));
  }
  bench.add('grep files: Grep tool, JS backend', () => one(kJs, 'Grep', { pattern: 'TODO' }));
  if (rg) {
    bench.add('grep content: rg -n (reference)', () => { execFileSync(rg, ['-n', '--hidden', '--no-require-git', '--sort', 'path', 'TODO', '.'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }); });
    bench.add('grep content: Grep tool, ripgrep backend', () => one(k, 'Grep', { pattern: 'TODO', output_mode: 'content', head_limit: 0 }));
  }
  bench.add('grep content: Grep tool, JS backend', () => one(kJs, 'Grep', { pattern: 'TODO', output_mode: 'content', head_limit: 0 }));

  // Glob: every .ts file, and one folder's files.
  bench.add('glob **/*.ts: find (reference)', () => { execFileSync('find', [root, '-name', '*.ts', '-type', 'f']); });
  bench.add('glob **/*.ts: Glob tool', () => one(k, 'Glob', { pattern: '**/*.ts' }));
  bench.add('glob d042/*.js: find (reference)', () => { execFileSync('find', [join(root, 'd042'), '-maxdepth', '1', '-name', '*.js', '-type', 'f']); });
  bench.add('glob d042/*.js: Glob tool', () => one(k, 'Glob', { pattern: 'd042/*.js' }));

  // Read: the first 2,000 lines of a 5,000-line file.
  bench.add('read 2,000 lines: fs.readFileSync + split (reference)', () => { readFileSync(join(root, 'big.txt'), 'utf8').split('\n').slice(0, 2000).map((l, i) => `${i + 1}\t${l}`).join('\n'); });
  bench.add('read 2,000 lines: Read tool', () => one(k, 'Read', { file_path: join(root, 'big.txt') }));
  bench.add('read 40-line file: Read tool', () => one(k, 'Read', { file_path: join(root, 'd000', 'f1.ts') }));
}
