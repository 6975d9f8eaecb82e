/**
 * `rein bench compare --agent claude-code|opencode|pi|rein`: runs the agent headless against rein's
 * simulator on a scripted scenario, captures its requests and prints their accounting beside
 * rein's presets on the same scenario.
 */
import { writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import Table from 'cli-table3';
import { makeDirs } from '../../lib/fs/make-dirs.js';
import { fitColumns } from '../../bench/report/columns.js';
import { MAX_WIDTH, wrapLines } from '../../bench/report/table.js';
import { isInputError, printInputError } from './errors.js';
import { checkOutputs } from './report-path.js';
import type { CompareRun } from '../../bench/compare/compare.js';
import type { AgentName } from '../../bench/compare/agents.js';

/** What `rein bench compare` prints under its table: the figures are the simulator's. */
export const SIMULATED_NOTE = 'Tokens and cost are rein\'s simulator accounting for the requests each agent sent (published prompt-caching rules, API prices); nothing was billed.';

/** The failed requests of a run in one line: `2 failed (400 invalid_request_error: messages.1.role: ...)`. */
function failures(r: CompareRun): string | undefined {
  if (!r.failedRequests.length) return undefined;
  const kinds = [...new Set(r.failedRequests.map((f) => `${f.status} ${f.type}${f.message ? `: ${f.message}` : ''}`))];
  return `${r.failedRequests.length} request${r.failedRequests.length === 1 ? '' : 's'} failed (${kinds.join('; ')})`;
}

/** Renders the comparison as a text table, then each run's failures and the note on simulated figures. */
export function compareTable(runs: readonly CompareRun[]): string {
  const rows: string[][] = [];
  for (const r of runs) {
    const s = r.summary;
    const prompt = s.input + s.cacheRead + s.cacheWrite5m + s.cacheWrite1h;
    // A run that failed before its first request has no figures (a $0 row would read as the
    // cheapest); one that failed later is marked: its figures cover only what it sent.
    if (r.error && !s.requests && !r.failedRequests.length) {
      rows.push([r.label, '0', '0', '–', '–', '–', '–', '–', '–', 'failed', '–']);
      continue;
    }
    rows.push([r.label, String(s.requests), String(r.failedRequests.length), String(r.bytes), String(prompt), String(s.cacheRead), String(s.cacheWrite5m + s.cacheWrite1h), String(s.input), String(s.output), `${s.costUsd.toFixed(4)}${r.error ? '*' : ''}`, s.requests ? s.cacheEfficiency.toFixed(3) : '–']);
  }
  // Within MAX_WIDTH: headers wrap at their spaces, long labels over lines; `req.` is short for
  // requests (the legend under the table says so).
  const fit = fitColumns(['run', 'req.', 'failed', 'bytes sent', 'prompt tok', 'cache read', 'cache write', 'uncached', 'output', 'sim. cost $', 'cache eff.'], rows, { maxWidth: MAX_WIDTH, minName: 12, maxName: 30 });
  const t = new Table({ head: fit.head, colWidths: fit.colWidths, style: { head: [], border: [] } });
  for (const row of fit.rows) t.push(row);
  const problems = runs.flatMap((r) => [failures(r), r.error].filter(Boolean).map((p) => `- ${r.label}: ${p}`));
  const partial = runs.some((r) => r.error && (r.summary.requests || r.failedRequests.length)) ? ['* the run failed partway: its figures cover only the requests it sent'] : [];
  return wrapLines([t.toString(), 'req.: requests answered; failed: refused (4xx) or failed (5xx).', ...problems, ...partial, SIMULATED_NOTE].join('\n'));
}

export interface CompareFlags {
  agent: AgentName;
  scenario?: string;
  reinScenario?: string;
  preset?: string[];
  bin?: string;
  model: string;
  json?: string;
}

/** `rein bench compare`. Returns the exit code: 0, 1 when the agent failed or had requests refused, 2 for bad input. */
export async function compareCommand(opts: CompareFlags): Promise<number> {
  try {
    // Before the agent runs, which takes minutes: a path that cannot be written stops here.
    await checkOutputs({ json: opts.json });
    const { runCompare } = await import('../../bench/compare/compare.js');
    const { loadScenario } = await import('../../simulator/scenario.js');
    const scenario = opts.scenario ? loadScenario(resolve(opts.scenario)) : undefined;
    const reinScenario = opts.reinScenario ? loadScenario(resolve(opts.reinScenario)) : undefined;
    const runs = await runCompare({
      agent: opts.agent, model: opts.model, cwd: process.cwd(),
      ...(opts.preset?.length ? { presets: opts.preset } : {}),
      ...(scenario ? { scenario } : {}), ...(reinScenario ? { reinScenario } : {}), ...(opts.bin ? { bin: opts.bin } : {}),
    });
    // `--json -`: the JSON alone on stdout, the table on stderr (as `rein bench --json -`).
    (opts.json === '-' ? process.stderr : process.stdout).write(compareTable(runs) + '\n');
    if (opts.json === '-') {
      process.stdout.write(JSON.stringify({ simulated: true, runs }, null, 2) + '\n');
    } else if (opts.json) {
      const file = resolve(opts.json);
      await makeDirs(dirname(file));
      await writeFile(file, JSON.stringify({ simulated: true, runs }, null, 2) + '\n');
      process.stderr.write(`rein: JSON comparison written to ${file}\n`);
    }
    const agent = runs[0];
    return agent?.error || agent?.failedRequests.length ? 1 : 0;
  } catch (err) {
    if (isInputError(err)) { printInputError(err); return 2; }
    throw err;
  }
}
