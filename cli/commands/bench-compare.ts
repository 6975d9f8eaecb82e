/**
 * `rein bench compare --agent claude-code|opencode|pi|rein`: runs the agent headless against rein's
 * simulator on a scripted scenario, captures its requests and prints their accounting beside
 * rein's presets on the same scenario.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import Table from 'cli-table3';
import { isInputError, printInputError } from './errors.js';
import type { CompareRun } from '../../bench/compare/compare.js';
import type { AgentName } from '../../bench/compare/agents.js';

/** Renders the comparison as a text table. */
export function compareTable(runs: readonly CompareRun[]): string {
  const t = new Table({ head: ['run', 'requests', 'bytes sent', 'prompt tok', 'cache read', 'cache write', 'uncached', 'output', 'cost $', 'cache eff.'], style: { head: [], border: [] } });
  for (const r of runs) {
    const s = r.summary;
    const prompt = s.input + s.cacheRead + s.cacheWrite5m + s.cacheWrite1h;
    t.push([r.label, String(s.requests), String(r.bytes), String(prompt), String(s.cacheRead), String(s.cacheWrite5m + s.cacheWrite1h), String(s.input), String(s.output), s.costUsd.toFixed(4), s.requests ? s.cacheEfficiency.toFixed(3) : '–']);
  }
  const errors = runs.filter((r) => r.error).map((r) => `- ${r.label}: ${r.error}`);
  return [t.toString(), ...errors].join('\n');
}

export async function compareCommand(opts: { agent: AgentName; scenario?: string; preset?: string[]; bin?: string; model: string; json?: string }): Promise<number> {
  try {
    const { runCompare } = await import('../../bench/compare/compare.js');
    let scenario;
    if (opts.scenario) {
      const { loadScenario } = await import('../../simulator/scenario.js');
      scenario = loadScenario(resolve(opts.scenario));
    }
    const runs = await runCompare({ agent: opts.agent, presets: opts.preset ?? ['minimal'], model: opts.model, cwd: process.cwd(), ...(scenario ? { scenario } : {}), ...(opts.bin ? { bin: opts.bin } : {}) });
    process.stdout.write(compareTable(runs) + '\n');
    if (opts.json) {
      const file = resolve(opts.json);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, JSON.stringify(runs, null, 2) + '\n');
    }
    return runs[0]?.error ? 1 : 0;
  } catch (err) {
    if (isInputError(err)) { printInputError(err); return 2; }
    throw err;
  }
}
