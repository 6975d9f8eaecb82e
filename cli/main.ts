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
 *        recording `aborted`. `rein batch`, `rein bench --queue` and `rein worker` stop cleanly
 *        at the first signal and exit 130 / 143 at once at a second (commands/signals.ts)
 *   141  stdout (or stderr) was closed by its reader (`rein run ... | head`); what ran is in the transcript
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { addClaudeFlags } from './commands/claude-flags.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { reinRoot } from '../agent/preset/paths.js';
import { mark } from '../lib/node/trace.js';
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
    .version(version(), '-V, --version', 'output the version number (`rein -v` alone too)')
    .configureOutput({ outputError: (str, write) => write(str.startsWith('error: ') ? `rein: ${str.slice(7)}` : str) })
    .showHelpAfterError()
    .exitOverride()
    // A subcommand's options are its own, wherever a parent has one of the same name
    // (`rein bench compare --preset x --json f`; `bench` has --preset and --json too).
    .enablePositionalOptions();

  const run = program
    .command('run')
    .description('Run an agent on a prompt until it ends its turn (Claude Code\'s `claude -p` flags work here; `rein -p "..."` is the same). Without ANTHROPIC_API_KEY it runs against the embedded simulator.')
    .argument('[prompt...]', 'the prompt (several words are joined; none or "-" reads it from stdin)')
    .option('--preset <file|name>', 'preset file or built-in name (default: "default" beneath the config layers, or the resumed session\'s preset)')
    .option('--sim <scenario>', 'run against the embedded simulator with this scenario file')
    .option('--cwd <dir>', 'working directory (default: the current one)')
    .option('--no-layers', 'ignore user, project and local config layers; use the preset alone');
  addClaudeFlags(run)
    .addOption(new Option('-v').hideHelp()) // the short form of --verbose
    .action(async (words: string[], opts) => {
      if (opts.v) opts.verbose = true;
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
    .option('--scenario <file>', 'scenario YAML (default: answer with the last user text that is not a <system-reminder>, as typed)')
    .option('--log <file>', 'append every request body to this JSONL file')
    .action(async (opts) => {
      const { simServeCommand } = await import('./commands/sim.js');
      process.exitCode = await simServeCommand(opts);
    });

  return program;
}

function nonNegativeInt(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${flag} must be a non-negative integer.`);
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
  const want = (name: string) => first === undefined || first === name || first === 'help' || !COMMANDS.includes(first);
  if (want('preset')) (await import('./commands/preset.js')).registerPresetCommands(program);
  if (want('cache')) (await import('./commands/cache.js')).registerCacheCommands(program);
  if (want('bench')) (await import('./commands/bench.js')).registerBenchCommands(program);
  if (want('batch')) (await import('./commands/batch.js')).registerBatchCommand(program);
  if (want('worker')) (await import('./commands/worker.js')).registerWorkerCommand(program);
}

/**
 * A command's bad flag or argument gets one line and where to look (`rein: see rein run --help`),
 * not the whole help. The program itself keeps the full help after an unknown command: it lists
 * the commands.
 */
function seeHelpAfterErrors(cmd: Command, path = 'rein'): void {
  for (const sub of cmd.commands) {
    const name = `${path} ${sub.name()}`;
    sub.showHelpAfterError(`rein: see ${name} --help`);
    seeHelpAfterErrors(sub, name);
  }
}

/** True when the command line starts with a flag of `rein run` rather than a command (`rein -p hi`). */
function startsWithRunFlag(argv: readonly string[]): boolean {
  const first = argv[0];
  if (!first || !first.startsWith('-')) return false;
  return !['-V', '--version', '-h', '--help'].includes(first);
}

/** The commands `rein` has; a first word that is none of them is no command. */
const COMMANDS = ['run', 'hooks', 'sim', 'preset', 'cache', 'bench', 'batch', 'worker', 'help'];

/**
 * True for `rein "fix the test" -p` (`claude "query" -p`: Claude Code takes the prompt before
 * `-p` too): the first word is no command and `-p` / `--print` comes later, before any `--`.
 */
function printAfterPrompt(argv: readonly string[]): boolean {
  const first = argv[0];
  if (first === undefined || first.startsWith('-') || COMMANDS.includes(first)) return false;
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '-p' || a === '--print');
}

/** `text` as one word for a POSIX shell (single quotes). */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Claude Code's own commands (`claude mcp list`, `claude config get`, ...; https://code.claude.com/docs/en/cli-reference),
 * which rein does not have, with what to use instead: a script that runs one gets that, not a
 * suggestion to send the words to the model.
 */
const CLAUDE_SUBCOMMANDS: Readonly<Record<string, string>> = Object.freeze({
  mcp: 'MCP servers come from --mcp-config, the project\'s .mcp.json (when a settings file approves it) and the preset\'s mcpServers; `rein -p --output-format stream-json` lists them with their status in its init line',
  config: 'rein reads Claude Code\'s settings files as they are; `rein preset print --origins` shows every value and where it came from',
  doctor: '`rein preset validate FILE` checks a preset, and `rein preset print --origins` shows what a run gets',
  update: 'rein is an npm package: npm install -g rein@latest',
  install: 'rein is an npm package: npm install -g rein',
  'setup-token': 'rein reads ANTHROPIC_API_KEY, or ANTHROPIC_AUTH_TOKEN for a gateway',
  plugin: 'rein plugins are listed in the preset (`plugins:`); `rein hooks` shows what each taps',
  agents: 'subagents are presets (`subagents:`) or .claude/agents/*.md files',
});

/**
 * `rein -p` with the words before the first flag as the prompt and the flags after it as they were
 * (`rein "fix it" --model opus` → `rein -p 'fix it' --model opus`).
 */
function promptHint(argv: readonly string[]): string {
  const i = argv.findIndex((a) => a.startsWith('-'));
  const words = i === -1 ? argv : argv.slice(0, i);
  const flags = i === -1 ? [] : argv.slice(i).map((a) => (/^[\w./:=,@+-]+$/.test(a) ? a : shellQuote(a)));
  return ['rein -p', shellQuote(words.join(' ')), ...flags].join(' ');
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
  // The same for stderr (`rein -p ... 2>&1 | head -1` closes both): a reader that went away is not a
  // crash with Node's stack trace (which could not be read anyway) and exit 1.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      process.exit(EXIT.STDOUT_CLOSED);
    });
  }
  // `rein` alone: what it can do, on stderr (stdout stays for a command's output).
  if (argv.length === 0) {
    const program = buildProgram();
    await registerExtras(program, argv);
    process.stderr.write(program.helpInformation());
    process.exitCode = EXIT.OK;
    return;
  }
  // `rein -v` alone is the version, as `claude -v` is Claude Code's; beside a prompt, `-v` stays
  // `rein run`'s short form of --verbose.
  if (argv.length === 1 && argv[0] === '-v') argv = ['--version'];
  // `rein -p "..."` and `rein --output-format json -p ...`: Claude Code's habit, the same as `rein run`.
  if (startsWithRunFlag(argv) || printAfterPrompt(argv)) argv = ['run', ...argv];
  const program = buildProgram();
  await registerExtras(program, argv);
  seeHelpAfterErrors(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    const e = err as { code?: string; exitCode?: number; message?: string };
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') {
      process.exitCode = EXIT.OK;
      return;
    }
    if (e.code?.startsWith('commander.')) {
      // `claude "fix the test"` is Claude Code's interactive habit; rein is headless: say how to run it.
      if (e.code === 'commander.unknownCommand') {
        const claude = CLAUDE_SUBCOMMANDS[argv[0]!];
        process.stderr.write(claude ? `rein: \`claude ${argv[0]}\` is a Claude Code command that rein does not have: ${claude}\n` : `rein: to run it as a prompt: ${promptHint(argv)}\n`);
      }
      process.exitCode = EXIT.BAD_INPUT;
      return;
    }
    // Any command, not only `rein run`: bad input is one line and exit 2; anything else is a bug in
    // rein, one line and exit 70 (REIN_DEBUG=1 prints the stack), never Node's raw stack trace.
    const { isInputError, printInputError } = await import('./commands/errors.js');
    if (isInputError(err)) {
      printInputError(err);
      process.exitCode = EXIT.BAD_INPUT;
      return;
    }
    const x = err as Error | undefined;
    process.stderr.write(`rein: internal error: ${x?.message ?? String(err)}${process.env.REIN_DEBUG ? `\n${x?.stack ?? ''}` : ' (REIN_DEBUG=1 prints the stack trace)'}\n`);
    process.exitCode = EXIT.INTERNAL;
  }
}
