/**
 * `rein bench`: replays workloads (real sessions, scripted scenarios, generated ones) through one or
 * more presets and reports what each strategy costs. `rein bench compare --agent X` runs an agent
 * CLI against `rein sim serve` on a scripted scenario and scores its requests the same way.
 */
import { readFileSync, rmSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { InputError } from '../../lib/errors.js';
import { makeDirs } from '../../lib/fs/make-dirs.js';
import { queueCommand, type QueueTarget } from '../../queue/connection.js';
import { reinRoot } from '../../agent/preset/paths.js';
import { isInputError, printInputError } from './errors.js';
import { positiveInt } from './options.js';
import { checkOutputs } from './report-path.js';
import { onStopSignals, SIGNAL_EXIT, type StopHandle } from './signals.js';

/** Exit codes (cli/main.ts EXIT). */
const OK = 0;
/** Some replay failed: its row in the report says why, and so does stderr. */
const RUN_FAILED = 1;
const BAD_INPUT = 2;

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * Writes a report to `path` under another name (`<file>.partial`, listed in `partial` meanwhile, so
 * a stop can remove it) and renames it when whole: a stop midway leaves no file that reads as a
 * complete report. Makes the missing folders. Returns the file's absolute path.
 */
async function writeWhole(path: string, partial: Set<string>, write: (part: string) => Promise<void>): Promise<string> {
  const file = resolve(path);
  const part = `${file}.partial`;
  partial.add(part);
  await makeDirs(dirname(file));
  await write(part);
  await rename(part, file);
  partial.delete(part);
  return file;
}

/** The packages that draw `--html` charts: optional peer dependencies, not installed with rein. */
export const CHART_PACKAGES = ['vega', 'vega-lite'] as const;

/**
 * The chart packages that cannot be found from `fromDir` (default: rein's own folder, so a project
 * install finds them in the project, a global one among the global packages), with the version
 * range rein's package.json asks for.
 */
export function missingChartPackages(fromDir = reinRoot()): string[] {
  const req = createRequire(join(fromDir, 'package.json'));
  let peers: Record<string, string> = {};
  try {
    peers = (JSON.parse(readFileSync(join(reinRoot(), 'package.json'), 'utf8')) as { peerDependencies?: Record<string, string> }).peerDependencies ?? {};
  } catch {
    // Without the manifest the names alone still say what to install.
  }
  return CHART_PACKAGES.filter((name) => {
    try {
      req.resolve(name);
      return false;
    } catch {
      return true;
    }
  }).map((name) => (peers[name] ? `${name}@${peers[name]}` : name));
}

/** The error for `--html` without its chart packages: what to install, and where. */
export function chartPackagesError(missing: readonly string[]): InputError {
  const list = missing.join(' ');
  return new InputError(`--html draws its charts with ${CHART_PACKAGES.join(' and ')}, which are not installed with rein (they are only needed for this report); install them where rein is: \`npm install ${list}\` in your project, or \`npm install -g ${list}\` beside a global rein`);
}

interface BenchFlags {
  workload?: string[];
  preset?: string[];
  json?: string;
  html?: string;
  model?: string;
  jobs?: number;
  progress?: boolean;
  /** false (`--no-recall`): skip the recall and re-fetch accounting. */
  recall?: boolean;
  /** `redis://HOST:PORT`: replay on the workers serving this queue. */
  queue?: string;
  /** false (`--no-wait`): only submit, print the benchmark's id. */
  wait?: boolean;
}

type BenchReport = import('../../bench/report/model.js').BenchReport;

/** `rein bench`. Returns the exit code. */
export async function benchCommand(flags: BenchFlags): Promise<number> {
  const cwd = process.cwd();
  try {
    if (!flags.workload?.length) throw new InputError('rein bench needs --workload FILE|DIR|gen:SPEC (repeatable)');
    if (!flags.preset?.length) throw new InputError('rein bench needs --preset FILE|NAME (repeatable; several make a strategy matrix)');
    if (flags.model) await checkModel(flags.model);
    if (flags.html) {
      // Before the replay, which can take minutes.
      const missing = missingChartPackages();
      if (missing.length) throw chartPackagesError(missing);
    }
    // (--no-wait writes nothing: it is refused below with --json or --html.)
    if (!(flags.queue && flags.wait === false)) await checkOutputs(flags);
    if (flags.queue) {
      if (flags.wait === false && (flags.json || flags.html)) throw new InputError('--no-wait: nothing is written now; `rein bench collect ID --json FILE --html FILE` writes the report');
      if (flags.jobs) throw new InputError('--jobs sets local worker threads; with --queue each worker sets its own (rein worker --concurrency N)');
      const report = await queueBench(flags, cwd);
      return typeof report === 'number' ? report : report ? await writeReport(report, flags) : OK;
    }
    if (flags.wait === false) throw new InputError('--no-wait needs --queue (a local run has nothing to wait for)');
    const { runBench } = await import('../../bench/run.js');
    const { replayDir } = await import('../../bench/replay/replay.js');
    // Every replay's folder is made in this run's folder, so a stop removes them all at once, also
    // those of worker threads that end without cleaning up.
    const runDir = await replayDir();
    // Report files being written, under a name that says so until they are whole, and the
    // reports already whole (writeReport).
    const partial = new Set<string>();
    const written: WrittenReports = new Map();
    let progress: Awaited<ReturnType<typeof progressBar>> | undefined;
    // A first SIGINT or SIGTERM stops the run: the replays are thrown away (a report of part of
    // them would rank presets on different work), so nothing is written and nothing is left behind.
    // A stop while the reports are being written keeps those already whole and says which.
    const stop = onStopSignals((signal) => {
      progress?.stop();
      rmSync(runDir, { recursive: true, force: true });
      for (const f of partial) rmSync(f, { force: true });
      process.stderr.write(`rein: ${signal}: stopped; ${reportsSaid(flags, written)}\n`);
      process.exit(SIGNAL_EXIT[signal]);
    });
    try {
      progress = flags.progress !== false && process.stderr.isTTY ? await progressBar() : undefined;
      let report;
      try {
        report = await runBench({
          workloads: flags.workload, presets: flags.preset, cwd, tmpDir: runDir,
          ...(flags.model ? { model: flags.model } : {}),
          ...(flags.jobs ? { jobs: flags.jobs } : {}),
          single: 'thread',
          ...(flags.recall === false ? { recall: false } : {}),
          ...(progress ? { onProgress: progress.update } : {}),
          // Said before the table, so timings from different -j are read knowing how each ran.
          onStart: (replays, threads) => {
            if (flags.progress !== false) process.stderr.write(`rein: ${replays} replay${replays === 1 ? '' : 's'} ${threads ? `in ${threads} worker thread${threads === 1 ? '' : 's'}, each started cold (it loads rein before its first replay)` : 'in this process'}\n`);
          },
        });
      } catch (err) {
        throw workloadInputError(err);
      } finally {
        progress?.stop();
      }
      return await writeReport(report, flags, partial, written);
    } finally {
      stop.dispose();
      rmSync(runDir, { recursive: true, force: true });
    }
  } catch (err) {
    if (isInputError(err)) { printInputError(err); return BAD_INPUT; }
    throw err;
  }
}

/**
 * Refuses a `--model` the price table (lib/pricing.ts) does not know: its cost would be priced as
 * Sonnet's without a word. Matching is by prefix, so dated ids of known models pass.
 */
async function checkModel(model: string): Promise<void> {
  const { priceFor, PRICE_TABLE } = await import('../../lib/pricing.js');
  if (priceFor(model).known) return;
  throw new InputError(`--model ${model}: rein has no prices for this model (lib/pricing.ts), so every cost would be a guess; known: ${PRICE_TABLE.map((e) => e.prefix).sort().join(', ')} (and their dated ids)`);
}

/** A workload that cannot be read is bad input (exit 2), as for a local run. */
function workloadInputError(err: unknown): unknown {
  const e = err as Error;
  return /^workload not found|^generator spec|^not a generator spec/.test(e?.message ?? '') ? new InputError(e.message) : err;
}

/** The reports written whole so far, by kind, with where they went (a file's absolute path, or `stdout`). */
type WrittenReports = Map<'JSON' | 'HTML', string>;

/**
 * Which of the reports `flags` ask for were written, for the line a stop prints: `no report
 * written` when none was, else each report's fate (`JSON report written to /abs/out.json; HTML
 * report not written`).
 */
function reportsSaid(flags: { json?: string; html?: string }, written: WrittenReports): string {
  if (written.size === 0) return 'no report written';
  const asked = (['JSON', 'HTML'] as const).filter((kind) => (kind === 'JSON' ? flags.json : flags.html) !== undefined);
  return asked.map((kind) => (written.has(kind) ? `${kind} report written to ${written.get(kind)}` : `${kind} report not written`)).join('; ');
}

/**
 * Prints the table and writes the JSON and HTML reports; returns the exit code. A report written
 * to `-` goes to stdout, and the table to stderr then, so stdout holds the report alone. `partial`
 * gets each report file while it is being written (under its `.partial` name) and `written` each
 * report once whole, so a stop can remove the one and name the other.
 */
async function writeReport(report: BenchReport, flags: { json?: string; html?: string }, partial = new Set<string>(), written: WrittenReports = new Map()): Promise<number> {
  const { renderTable } = await import('../../bench/report/table.js');
  const toStdout = flags.json === '-' || flags.html === '-';
  const tableOut = toStdout ? process.stderr : process.stdout;
  tableOut.write(renderTable(report, { color: tableOut.isTTY === true }) + '\n');
  if (flags.json) {
    // Written piece by piece: a long replay's report is tens of MB of JSON (json-file.ts).
    const { writeJsonFile, writeJsonStream } = await import('../../bench/report/json-file.js');
    if (flags.json === '-') {
      await writeJsonStream(process.stdout, report);
      written.set('JSON', 'stdout');
    } else {
      const file = await writeWhole(flags.json, partial, (part) => writeJsonFile(part, report));
      written.set('JSON', file);
      process.stderr.write(`rein: JSON report written to ${file}\n`);
    }
  }
  if (flags.html) {
    const { renderHtml } = await import('../../bench/report/html.js');
    const html = await renderHtml(report);
    if (flags.html === '-') {
      process.stdout.write(html.endsWith('\n') ? html : `${html}\n`);
      written.set('HTML', 'stdout');
    } else {
      const file = await writeWhole(flags.html, partial, (part) => writeFile(part, html));
      written.set('HTML', file);
      process.stderr.write(`rein: HTML report written to ${file}\n`);
    }
  }
  const failures = report.workloads.flatMap((w) => w.runs.filter((r) => r.error).map((r) => `rein: ${w.name} × ${r.preset} failed: ${r.error}`));
  if (failures.length) process.stderr.write(failures.join('\n') + '\n');
  return failures.length ? RUN_FAILED : OK;
}

/**
 * Waits for a submitted benchmark's jobs, with progress on stderr, and assembles the report; or,
 * once `stop` has a signal, says how to collect the report later and returns the exit code of
 * that signal (the jobs stay on the queue and the workers go on: nothing is lost).
 */
async function awaitReport(q: import('../../queue/jobs.js').OpenQueue, runId: string, manifest: import('../../bench/queue/jobs.js').BenchManifest, workloads: readonly import('../../bench/workloads/types.js').Workload[], progressOn: boolean, stop: StopHandle): Promise<BenchReport | number> {
  const { awaitBench } = await import('../../bench/queue/submit.js');
  const { queueProgress, withWorkerHint, stillWaiting } = await import('./queue-progress.js');
  const progress = await queueProgress('replays', progressOn);
  try {
    return await awaitBench(q, manifest, workloads, {
      onProgress: withWorkerHint(progress.update, q),
      signal: stop.aborted,
      onError: await stillWaiting(q),
    });
  } catch (err) {
    if (!stop.signal) throw err;
    progress.stop();
    process.stderr.write(`rein: ${stop.signal}: stopped waiting; the replays go on on the queue's workers, and ${queueCommand(q.target, `rein bench collect ${runId}`)} writes the report\n`);
    return SIGNAL_EXIT[stop.signal];
  } finally {
    progress.stop();
  }
}

/** A second SIGINT / SIGTERM while waiting on the queue: leave at once, saying what is where. */
function forcedStop(runId: () => string | undefined, target: QueueTarget): (signal: string) => void {
  return (signal) => {
    const id = runId();
    process.stderr.write(`\nrein: ${signal} again: stopping now${id ? `; ${queueCommand(target, `rein bench collect ${id}`)} writes the report` : '; the replay jobs already added stay on the queue, and submitting the same benchmark again reuses them'}\n`);
  };
}

/**
 * `rein bench --queue URL`: submits the replays and, unless --no-wait, waits and returns the
 * report. A first SIGINT / SIGTERM lets the submission finish (so its id and manifest exist), then
 * stops waiting and returns SIGNAL_EXIT; a second one exits at once.
 */
async function queueBench(flags: BenchFlags, cwd: string): Promise<BenchReport | number | undefined> {
  const { planBench } = await import('../../bench/run.js');
  const { submitBench } = await import('../../bench/queue/submit.js');
  let runId: string | undefined;
  const { parseQueueUrl } = await import('../../queue/connection.js');
  const stop = onStopSignals(() => {}, forcedStop(() => runId, parseQueueUrl(flags.queue!)));
  try {
    let plan;
    try {
      plan = await planBench({ workloads: flags.workload!, presets: flags.preset!, cwd });
    } catch (err) {
      throw workloadInputError(err);
    }
    if (stop.signal) {
      process.stderr.write(`rein: ${stop.signal}: stopped before anything was submitted\n`);
      return SIGNAL_EXIT[stop.signal];
    }
    const { withQueue } = await import('./queue-progress.js');
    return await withQueue(flags.queue!, async (q) => {
      const s = await submitBench(plan, q, flags.model ? { model: flags.model } : {});
      runId = s.runId;
      const jobs = new Set(s.manifest.jobs).size;
      const already = [s.reused ? `${s.reused} already done` : '', s.retried ? `${s.retried} failed before, tried again` : ''].filter(Boolean).join(', ');
      process.stderr.write(`rein: benchmark ${s.runId}: ${jobs} replay job${jobs === 1 ? '' : 's'} on queue ${q.queue.name} at ${q.target.shown}${already ? ` (${already})` : ''}\n`);
      process.stderr.write(`rein: ${queueCommand(q.target, `rein bench collect ${s.runId}`)} writes its report${flags.wait === false ? ' once the workers are done' : ' later too'}\n`);
      if (flags.wait === false) return stop.signal ? SIGNAL_EXIT[stop.signal] : undefined;
      return awaitReport(q, s.runId, s.manifest, plan.workloads, flags.progress !== false, stop);
    });
  } finally {
    stop.dispose();
  }
}

interface CollectFlags {
  queue: string;
  json?: string;
  html?: string;
  progress?: boolean;
}

/** `rein bench collect RUN --queue URL`: waits for a submitted benchmark's jobs and writes its report. Returns the exit code. */
export async function collectCommand(runId: string, flags: CollectFlags): Promise<number> {
  try {
    await checkOutputs(flags);
    const { readManifest, fetchWorkloads } = await import('../../bench/queue/submit.js');
    const { parseQueueUrl } = await import('../../queue/connection.js');
    const { withQueue } = await import('./queue-progress.js');
    const stop = onStopSignals(() => {}, forcedStop(() => runId, parseQueueUrl(flags.queue)));
    try {
      const report = await withQueue(flags.queue, async (q) => {
        const manifest = await readManifest(q, runId);
        return awaitReport(q, runId, manifest, await fetchWorkloads(q, manifest), flags.progress !== false, stop);
      });
      return typeof report === 'number' ? report : await writeReport(report, flags);
    } finally {
      stop.dispose();
    }
  } catch (err) {
    if (isInputError(err)) { printInputError(err); return BAD_INPUT; }
    throw err;
  }
}

async function progressBar(): Promise<{ update: (done: number, total: number, label: string) => void; stop: () => void }> {
  const { SingleBar, Presets } = await import('cli-progress');
  const bar = new SingleBar({ format: 'replaying [{bar}] {value}/{total} {label}', stream: process.stderr, hideCursor: true, clearOnComplete: true }, Presets.shades_classic);
  let started = false;
  return {
    update: (done, total, label) => {
      if (!started) { bar.start(total, 0, { label: '' }); started = true; }
      bar.update(done, { label });
    },
    stop: () => { if (started) bar.stop(); },
  };
}

/** Registers `rein bench` and `rein bench compare`. */
export function registerBenchCommands(program: Command): void {
  const bench = program
    .command('bench')
    // Options after a subcommand are the subcommand's (`rein bench collect --json F`, `rein bench
    // compare --preset x --json F`), though `rein bench` has options of the same names.
    .enablePositionalOptions()
    .description('Replay sessions (Claude Code, pi, SWE-agent, OpenHands, scenarios, gen:SPEC) through presets and report cost, caching and compaction.')
    .option('-w, --workload <file|dir|gen:spec>', 'a session file, a directory of them, or a generator spec such as gen:turns=200,results=2000 (repeatable)', collect)
    .option('--preset <file|name>', 'a preset file or built-in name (repeatable: a strategy matrix)', collect)
    .option('--json <file>', 'write the full report as JSON (- for stdout; the table then goes to stderr)')
    .option('--html <file>', 'write a self-contained HTML report with charts (- for stdout)')
    .option('--model <name>', 'send this model instead of each recording\'s own')
    .option('-j, --jobs <n>', 'worker threads (default: one per core, at most one per workload)', (v) => positiveInt(v, '--jobs'))
    .option('--no-progress', 'no progress bar on stderr')
    .option('--no-recall', 'skip the needed-later recall and re-fetch accounting (recall shows –, closed-loop cost = cost)')
    .option('--queue <redis-url>', 'replay on the workers serving this Redis queue (redis://HOST:PORT; start them with `rein worker --queue URL`)')
    .option('--no-wait', 'with --queue: submit the jobs, print the benchmark id and exit (`rein bench collect ID` writes the report)')
    .action(async (opts: BenchFlags) => {
      process.exitCode = await benchCommand(opts);
    });

  bench
    .command('collect')
    .description('Wait for a benchmark submitted with `rein bench --queue` and write its report, as the submitting run would have.')
    .argument('<id>', 'the benchmark id `rein bench --queue` printed')
    .requiredOption('--queue <redis-url>', 'the Redis queue it was submitted to (redis://HOST:PORT)')
    .option('--json <file>', 'write the full report as JSON (- for stdout; the table then goes to stderr)')
    .option('--html <file>', 'write a self-contained HTML report with charts (- for stdout)')
    .option('--no-progress', 'no progress on stderr')
    .action(async (id: string, opts: CollectFlags) => {
      process.exitCode = await collectCommand(id, opts);
    });

  bench
    .command('compare')
    .description('Run an agent CLI headless against `rein sim serve` on a scripted scenario, capture its requests and score them beside rein\'s presets.')
    .addOption(new Option('--agent <name>', 'the agent to run').choices(['claude-code', 'opencode', 'pi', 'rein']).makeOptionMandatory())
    .option('--scenario <file>', 'simulator scenario the agent plays (default: the built-in read-then-list script in its tool names)')
    .option('--rein-scenario <file>', 'scenario rein\'s presets play, when their tool names differ from the agent\'s (default: --scenario, else the built-in script)')
    .option('--preset <file|name>', 'rein presets to score beside it (repeatable; default: "default", what rein run uses)', collect)
    .option('--bin <path>', 'the agent executable (default: found on PATH)')
    .option('--model <name>', 'model the agent and every preset are asked to use', 'claude-sonnet-4-5')
    .option('--json <file>', 'write the comparison as JSON')
    .action(async (opts) => {
      const { compareCommand } = await import('./bench-compare.js');
      process.exitCode = await compareCommand(opts);
    });
}
