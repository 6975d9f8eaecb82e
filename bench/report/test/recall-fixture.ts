/**
 * A recording whose later replies use what early tool results showed: twelve files read one by one,
 * each defining a function, then an answer that names every function. Replayed through a preset that
 * keeps everything, one that clears old tool results, and rein's default.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBench } from '../../run.js';
import type { BenchReport } from '../model.js';

/** Files the recording reads. */
export const FILES = 12;

/** The scenario text. */
export function recallScenario(): string {
  const names = Array.from({ length: FILES }, (_, i) => `computeShard${i}Total`);
  const lines = ['scenario: read-then-use', 'steps:', '  - prompt: Find where the shard totals are computed', `    reply: [ { text: Looking. }, { tool_use: { name: Read, input: { file_path: src/shard0.ts } } } ]`];
  lines.push(`    results: [ ${JSON.stringify(`export function ${names[0]}(rows) {\n  return rows.length * 17;\n}\n`)} ]`);
  for (let i = 1; i < FILES; i++) {
    lines.push(`  - reply: [ { tool_use: { name: Read, input: { file_path: src/shard${i}.ts } } } ]`);
    lines.push(`    results: [ ${JSON.stringify(`export function ${names[i]}(rows) {\n  return rows.length * ${i + 17};\n}\n${'// padding line\n'.repeat(40)}`)} ]`);
  }
  lines.push(`  - reply: [ { text: ${JSON.stringify(`The totals are computed by ${names.join(', ')}.`)} } ]`);
  return lines.join('\n') + '\n';
}

export async function buildRecallReport(): Promise<{ dir: string; report: BenchReport; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'rein-recall-report-'));
  await writeFile(join(dir, 'read-then-use.yaml'), recallScenario());
  const presets = fileURLToPath(new URL('../../presets/', import.meta.url));
  const report = await runBench({ workloads: [join(dir, 'read-then-use.yaml')], presets: [join(presets, 'no-compaction.yaml'), join(presets, 'aggressive-microcompact.yaml'), 'default'], cwd: dir, jobs: 1 });
  return { dir, report, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
