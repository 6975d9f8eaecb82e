/**
 * The `rein` command. Thin: it parses flags (commander), then hands off to a command module that is
 * imported only when that command runs, so `rein --version` and `rein --help` stay fast.
 *
 * Exit codes:
 *   0    the run ended with `end_turn` (or the command succeeded)
 *   1    the run ended with any other terminal reason (max_turns, model_error, plugin_error, ...)
 *   2    bad input: an invalid preset, flag, scenario or session (also a session another rein
 *        process is running); nothing was run
 *   70   an internal error (a bug in rein): one line on stderr, the stack with REIN_DEBUG=1
 *   74   the session transcript cannot be written (full disk, read-only file system); nothing
 *        ran after the last entry that was written
 *   129  interrupted by SIGHUP, 130 by SIGINT, 143 by SIGTERM (128 + the signal's number): the
 *        run ended `aborted`, its SessionEnd hooks ran; a second signal exits at once, still
 *        recording `aborted`
 *   141  stdout was closed by its reader (`rein run ... | head`); what ran is in the transcript
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { reinRoot } from '../agent/preset/paths.js';
import { mark } from '../kernel/trace.js';
import { config as zodConfig } from 'zod';

export const EXIT = Object.freeze({
  OK: 0, RUN_ERROR: 1, BAD_INPUT: 2, INTERNAL: 70, SESSION_WRITE: 74,
  SIGHUP: 129, INTERRUPTED: 130, SIGTERM: 143, STDOUT_CLOSED: 141,
});

/** rein's version, from the package.json found above this module (from source, dist/ or the bundle). */
function version(): string {
  try {
    return (JSON.parse(readFileSync(join(reinRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

export function buildProgram(): Command {
  const program = new Command('rein')
    .description('A headless agent kernel: runs the Messages API tool-use loop from a YAML preset.')
    .version(version(), '-V, --version')
    .showHelpAfterError()
    .exitOverride()
    // A subcommand's options are its own, wherever a parent has one of the same name
    // (`rein bench compare --preset x --json f`; `bench` has --preset and --json too).
    .enablePositionalOptions();

  program
    .command('run')
    .description('Run an agent on a prompt until it ends its turn. Without ANTHROPIC_API_KEY it runs against the embedded simulator.')
    .argument('[prompt...]', 'the prompt (or use -p; "-" reads it from stdin)')
    .option('-p, --prompt <text>', 'the prompt')
    .option('--preset <file|name>', 'preset file or built-in name (default: "default" beneath the config layers, or the resumed session\'s preset)')
    .addOption(new Option('--output-format <format>', 'how to print the run').choices(['text', 'json', 'stream-json']).default('text'))
    .option('--max-turns <n>', 'stop after this many model requests', (v) => positiveInt(v, '--max-turns'))
    .option('--max-budget-usd <usd>', 'stop once the run has cost this much', (v) => positiveNumber(v, '--max-budget-usd'))
    .option('--model <name>', 'model name (overrides the preset)')
    .option('--fallback-model <name>', 'model to switch to after repeated overload errors')
    .addOption(new Option('--permission-mode <mode>', 'permission mode (overrides the preset)').choices(['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions', 'auto']))
    .option('--permission-prompt-tool <name>', 'an MCP tool that answers permission asks')
    .option('--resume <id>', 'resume a session by id (or transcript path)')
    .option('-c, --continue', 'resume the newest session in this directory')
    .option('--sim <scenario>', 'run against the embedded simulator with this scenario file')
    .option('--cwd <dir>', 'working directory (default: the current one)')
    .option('--no-layers', 'ignore user, project and local config layers; use the preset alone')
    .option('--include-partial-messages', 'stream-json: also print each server-sent event')
    .option('-v, --verbose', 'text: print tool calls and notices to stderr')
    .action(async (words: string[], opts) => {
      const { runCommand } = await import('./commands/run.js');
      process.exitCode = await runCommand(words, opts);
    });

  program
    .command('hooks')
    .description('Print every hook with the plugins tapped into it, in order, with stages.')
    .option('--preset <file|name>', 'preset file or built-in name (default: "default" beneath the config layers, as for rein run)')
    .option('--cwd <dir>', 'working directory')
    .option('--no-layers', 'ignore user, project and local config layers')
    .option('--json', 'print JSON')
    .action(async (opts) => {
      const { hooksCommand } = await import('./commands/hooks.js');
      process.exitCode = await hooksCommand(opts);
    });

  const sim = program.command('sim').description('rein\'s offline Messages API simulator.');
  sim
    .command('serve')
    .description('Serve the simulator on 127.0.0.1 (SSE and JSON /v1/messages, /v1/messages/count_tokens).')
    .option('--port <n>', 'port (0 picks a free one)', (v) => nonNegativeInt(v, '--port'), 0)
    .option('--scenario <file>', 'scenario YAML (default: echo the last user message)')
    .option('--log <file>', 'append every request body to this JSONL file')
    .action(async (opts) => {
      const { simServeCommand } = await import('./commands/sim.js');
      process.exitCode = await simServeCommand(opts);
    });

  return program;
}

function positiveInt(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`${flag} must be a positive integer.`);
  return n;
}
function nonNegativeInt(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${flag} must be a non-negative integer.`);
  return n;
}
function positiveNumber(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${flag} must be a positive number.`);
  return n;
}

/**
 * Registers the commands whose modules live beside this one (preset, cache, bench, batch, worker). Only the command
 * being run (or all of them, for help) is imported, to keep start-up light. The imports are written
 * out literally so the bundler can see them.
 */
async function registerExtras(program: Command, argv: string[]): Promise<void> {
  const first = argv.find((a) => !a.startsWith('-'));
  // All of them when no command, `help`, or a word that is no command (its error lists them all).
  const known = ['run', 'hooks', 'sim', 'preset', 'cache', 'bench', 'batch', 'worker'];
  const want = (name: string) => first === undefined || first === name || first === 'help' || !known.includes(first);
  if (want('preset')) (await import('./commands/preset.js')).registerPresetCommands(program);
  if (want('cache')) (await import('./commands/cache.js')).registerCacheCommands(program);
  if (want('bench')) (await import('./commands/bench.js')).registerBenchCommands(program);
  if (want('batch')) (await import('./commands/batch.js')).registerBatchCommand(program);
  if (want('worker')) (await import('./commands/worker.js')).registerWorkerCommand(program);
}

/** Runs the command line; sets process.exitCode. */
export async function main(argv: string[]): Promise<void> {
  mark('cli main');
  // zod compiles a fast parser (new Function) for each object schema on its first parse. A command
  // parses each plugin's options once, so compiling costs more than it saves: ~8 ms of a cold
  // `rein run` (bench/kernel/startup.bench.ts). Only the command sets this; the library leaves
  // zod's global configuration alone.
  zodConfig({ jitless: true });
  // A reader that stops early (`| head`, `| jq` failing) closes the pipe: stop quietly, as a process
  // killed by SIGPIPE would (128 + 13), instead of crashing on the unhandled write error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(EXIT.STDOUT_CLOSED);
  });
  const program = buildProgram();
  await registerExtras(program, argv);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    const e = err as { code?: string; exitCode?: number; message?: string };
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') {
      process.exitCode = EXIT.OK;
      return;
    }
    if (e.code?.startsWith('commander.')) {
      process.exitCode = EXIT.BAD_INPUT;
      return;
    }
    throw err;
  }
}
