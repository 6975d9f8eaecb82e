/**
 * Preset loading: a preset with 3 levels of `extends` (top → mid → base → the built-in `minimal`)
 * naming 10 plugins, loaded with all layers (project search included), merged, validated, and its
 * plugins resolved with their options checked.
 *
 * - warm: in this process, modules already imported (what a long-lived host pays per agent);
 * - cold process: a fresh `node` importing the built loader (dist/) and loading the preset, until
 *   `loadPreset` returns; once with plugins (importing every plugin module the preset implies) and
 *   once with `plugins: false` (the loader alone). `node -e 0` is the floor.
 *
 * The cold tasks need `npm run build` first and are skipped without dist/.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Bench } from 'tinybench';
import { loadPreset, validatePresetFile } from '../../agent/preset/index.js';
import { benchTempDir } from './harness.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The 10 plugins the benchmark preset names (built-ins, default options), spread over the 3 files. */
export const BENCH_PLUGINS = [
  ['compaction/auto', 'compaction/microcompact', 'compaction/snip'],
  ['cache/breakpoints', 'cache/break-detector', 'memory-files'],
  ['system-prompt', 'printer', 'compaction/context-edits', 'sanitize'],
] as const;

/** Writes the 3-level preset into a new project directory; returns the directory and the top file. */
export function writeBenchPreset(): { dir: string; top: string } {
  const dir = benchTempDir('rein-preset-bench-');
  mkdirSync(join(dir, '.git'));
  const plugins = (names: readonly string[]) => `plugins:\n${names.map((n) => `  ${n}: {}`).join('\n')}\n`;
  writeFileSync(join(dir, 'base.yaml'), `# yaml-language-server: $schema=${join(REPO, 'agent.schema.json')}\nextends: minimal\nmodel:\n  maxTokens: 16000\n  contextWindow: 200000\n${plugins(BENCH_PLUGINS[0])}`);
  writeFileSync(join(dir, 'mid.yaml'), `extends: ./base.yaml\npermissions:\n  allow: ["Bash(npm test:*)", "Bash(git status)", Read, Grep]\n  deny: ["Read(./.env)", "Bash(rm -rf:*)"]\nenv:\n  CI: "\${CI:-1}"\n${plugins(BENCH_PLUGINS[1])}`);
  writeFileSync(join(dir, 'top.yaml'), `extends: ./mid.yaml\nname: bench\ndescription: three levels of extends, ten plugins\ntools: [Read, Glob, Grep, Write, Edit, Bash]\nlimits: { maxTurns: 50, maxBudgetUsd: 2 }\n${plugins(BENCH_PLUGINS[2])}`);
  writeFileSync(join(dir, 'rein.config.yaml'), 'permissions:\n  deny: ["Edit(./.env)"]\n');
  return { dir, top: join(dir, 'top.yaml') };
}

function exit(args: string[], cwd: string): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`exit ${code}: node ${args.join(' ')}`))));
  });
}

/** Adds the preset-loading tasks to `bench`. */
export async function run(bench: Bench): Promise<void> {
  const { dir, top } = writeBenchPreset();
  const env = { HOME: dir };
  // Fail early (and loudly) if the preset does not load: a benchmark of an error path is no use.
  const first = await loadPreset({ preset: top, cwd: dir, homeDir: dir, env });
  if (first.plugins.length < 10) throw new Error(`preset bench: expected at least 10 plugins, got ${first.plugins.length}`);

  bench.add('preset: 3-level extends + 10 plugins, layers, warm', async () => {
    await loadPreset({ preset: top, cwd: dir, homeDir: dir, env });
  });
  bench.add('preset: same, loader only (plugins: false), warm', async () => {
    await loadPreset({ preset: top, cwd: dir, homeDir: dir, env, plugins: false });
  });
  bench.add('preset: validatePresetFile(top), warm', async () => {
    await validatePresetFile(top, { env, homeDir: dir });
  });

  const dist = join(REPO, 'dist/agent/preset/index.js');
  if (!existsSync(dist)) {
    console.warn('preset bench: dist/ is missing, cold-process tasks skipped; run `npm run build` first');
    return;
  }
  const script = join(dir, 'cold.mjs');
  writeFileSync(script, [
    `const { loadPreset } = await import(${JSON.stringify(pathToFileURL(dist).href)});`,
    'const r = await loadPreset({ preset: process.argv[2], cwd: process.cwd(), homeDir: process.cwd(), env: { HOME: process.cwd() }, plugins: process.argv[3] !== "loader-only" });',
    'if (!r.preset.name) process.exit(1);',
    '',
  ].join('\n'));
  bench.add('node -e 0 (floor)', () => exit(['-e', '0'], dir));
  bench.add('preset: same, cold process (import + load + plugins)', () => exit([script, top], dir));
  bench.add('preset: same, cold process, loader only', () => exit([script, top, 'loader-only'], dir));
}

/** tinybench options for this file: process spawns are slow, so a fixed number of iterations. */
export const options = { iterations: 30, time: 0, warmupIterations: 3 };
