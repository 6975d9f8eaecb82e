/**
 * The report both report test files look at: two workloads (a generated one, and a scenario
 * recording with an idle gap) replayed through two presets (a stable cached prefix, and none).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBench } from '../../run.js';
import type { BenchReport } from '../model.js';

const plugin = fileURLToPath(new URL('../../replay/fixtures/prefix-stable.ts', import.meta.url));

/** Writes the presets and the scenario into a temp directory and replays them; `cleanup()` removes it. */
export async function buildReport(): Promise<{ dir: string; report: BenchReport; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'rein-report-test-'));
  await writeFile(join(dir, 'stable.yaml'), `name: stable\nmodel: { provider: anthropic, name: claude-sonnet-4-5 }\nsystem: { sections: [ { name: role, text: ${JSON.stringify('Be brief. '.repeat(1500))} } ] }\nplugins:\n  ${JSON.stringify(plugin)}: {}\n`);
  await writeFile(join(dir, 'bare.yaml'), 'name: bare\nmodel: { provider: anthropic, name: claude-sonnet-4-5 }\n');
  // A recorded session of the scenario format, with a manual compaction and an idle gap.
  await writeFile(join(dir, 'scenario.yaml'), [
    'scenario: two-turns',
    'steps:',
    '  - prompt: Read src/app/main.ts and fix parseHeader',
    '    reply: [ { text: Reading. }, { tool_use: { name: Read, input: { file_path: src/app/main.ts } } } ]',
    '    results: [ "export function parseHeader(x) { return x }" ]',
    '  - reply: [ { text: Fixed. } ]',
    '  - prompt: Now run the tests',
    '    gap: 900',
    '    reply: [ { text: Running. }, { tool_use: { name: Bash, input: { command: npm test } } } ]',
    '    results: [ { text: "1 failed", is_error: true } ]',
    '  - reply: [ { text: One test fails. } ]',
    '',
  ].join('\n'));
  const report = await runBench({ workloads: ['gen:turns=24,prompts=3,seed=9', join(dir, 'scenario.yaml')], presets: [join(dir, 'stable.yaml'), join(dir, 'bare.yaml')], cwd: dir, jobs: 1 });
  return { dir, report, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
