/**
 * `rein bench`: replays workloads (real sessions, scripted scenarios, generated ones) through one or
 * more presets and reports what each strategy costs. `rein bench compare --agent X` runs an agent
 * CLI against `rein sim serve` on a scripted scenario and scores its requests the same way.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { InputError } from '../../kernel/errors.js';
import { reinRoot } from '../../agent/preset/paths.js';
import { isInputError, printInputError } from './errors.js';

/** Exit codes (cli/main.ts EXIT). */
const OK = 0;
/** Some replay failed: its row in the report says why, and so does stderr. */
const RUN_FAILED = 1;
const BAD_INPUT = 2;

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function positiveInt(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${flag} must be a positive integer.`);
  return n;
}

async function writeOut(path: string, text: string): Promise<string> {
  const file = resolve(path);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
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
}

/** `rein bench`. Returns the exit code. */
export async function benchCommand(flags: BenchFlags): Promise<number> {
  const cwd = process.cwd();
  try {
    if (!flags.workload?.length) throw new InputError('rein bench needs --workload FILE|DIR|gen:SPEC (repeatable)');
    if (!flags.preset?.length) throw new InputError('rein bench needs --preset FILE|NAME (repeatable; several make a strategy matrix)');
    if (flags.html) {
      // Before the replay, which can take minutes.
      const missing = missingChartPackages();
      if (missing.length) throw chartPackagesError(missing);
    }
    const { runBench } = await import('../../bench/run.js');
    const { renderTable } = await import('../../bench/report/table.js');
    const progress = flags.progress !== false && process.stderr.isTTY ? await progressBar() : undefined;
    let report;
    try {
      report = await runBench({
        workloads: flags.workload, presets: flags.preset, cwd,
        ...(flags.model ? { model: flags.model } : {}),
        ...(flags.jobs ? { jobs: flags.jobs } : {}),
        ...(progress ? { onProgress: progress.update } : {}),
      });
    } catch (err) {
      const e = err as Error;
      if (/^workload not found|^generator spec|^not a generator spec/.test(e.message)) throw new InputError(e.message);
      throw err;
    } finally {
      progress?.stop();
    }
    process.stdout.write(renderTable(report, { color: process.stdout.isTTY === true }) + '\n');
    if (flags.json) process.stderr.write(`rein: JSON report written to ${await writeOut(flags.json, JSON.stringify(report, null, 2) + '\n')}\n`);
    if (flags.html) {
      const { renderHtml } = await import('../../bench/report/html.js');
      process.stderr.write(`rein: HTML report written to ${await writeOut(flags.html, await renderHtml(report))}\n`);
    }
    const failures = report.workloads.flatMap((w) => w.runs.filter((r) => r.error).map((r) => `rein: ${w.name} × ${r.preset} failed: ${r.error}`));
    if (failures.length) process.stderr.write(failures.join('\n') + '\n');
    return failures.length ? RUN_FAILED : OK;
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
    // With the program's (cli/main.ts): options after `compare` are compare's, not `rein bench`'s
    // options of the same names (--preset, --model, --json).
    .enablePositionalOptions()
    .description('Replay sessions (Claude Code, pi, SWE-agent, OpenHands, scenarios, gen:SPEC) through presets and report cost, caching and compaction.')
    .option('-w, --workload <file|dir|gen:spec>', 'a session file, a directory of them, or a generator spec such as gen:turns=200,results=2000 (repeatable)', collect)
    .option('-p, --preset <file|name>', 'a preset file or built-in name (repeatable: a strategy matrix)', collect)
    .option('--json <file>', 'write the full report as JSON')
    .option('--html <file>', 'write a self-contained HTML report with charts')
    .option('--model <name>', 'send this model instead of each recording\'s own')
    .option('-j, --jobs <n>', 'worker threads (default: one per core, at most one per workload)', (v) => positiveInt(v, '--jobs'))
    .option('--no-progress', 'no progress bar on stderr')
    .action(async (opts: BenchFlags) => {
      process.exitCode = await benchCommand(opts);
    });

  bench
    .command('compare')
    .description('Run an agent CLI headless against `rein sim serve` on a scripted scenario, capture its requests and score them beside rein\'s presets.')
    .addOption(new Option('--agent <name>', 'the agent to run').choices(['claude-code', 'opencode', 'pi', 'rein']).makeOptionMandatory())
    .option('--scenario <file>', 'simulator scenario the agent plays (default: the built-in read-then-list script in its tool names)')
    .option('--rein-scenario <file>', 'scenario rein\'s presets play, when their tool names differ from the agent\'s (default: --scenario, else the built-in script)')
    .option('-p, --preset <file|name>', 'rein presets to score beside it (repeatable; default: "default", what rein run uses)', collect)
    .option('--bin <path>', 'the agent executable (default: found on PATH)')
    .option('--model <name>', 'model the agent and every preset are asked to use', 'claude-sonnet-4-5')
    .option('--json <file>', 'write the comparison as JSON')
    .action(async (opts) => {
      const { compareCommand } = await import('./bench-compare.js');
      process.exitCode = await compareCommand(opts);
    });
}
