/**
 * `rein run` (and `rein -p`): builds an agent from the preset and flags, runs the prompt, prints it
 * with the `printer` plugin, and returns the exit code (see cli/main.ts). With
 * `--input-format stream-json` it reads user messages and control requests from stdin instead and
 * runs one turn per message (cli/stream-json/).
 */
import { existsSync, fstatSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isatty } from 'node:tty';
import { mark } from '../../lib/node/trace.js';
import { dirname, join, resolve } from 'node:path';
import { createAgent, type Agent, type AgentOptions } from '../../agent/agent.js';
import type { Kernel } from '../../kernel/kernel.js';
import { InputError } from '../../lib/errors.js';
import { isInputError, printInputError } from './errors.js';
import { printClientNoticeOnStart } from './client-notice.js';
import { flagPlan, listTookPrompt, type ClaudeFlagValues, type FlagPlan } from './claude-flags.js';
import { EXIT } from '../main.js';

export interface RunFlags extends ClaudeFlagValues {
  /** Unset: `default`, or the resumed session's preset. */
  preset?: string;
  sim?: string;
  cwd?: string;
  layers: boolean;
}

/** A session id Claude Code accepts: a UUID. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The flags as createAgent options: the command-line preset layer, the settings files to read,
 * the session to resume or fork. Throws InputError for flags that do not go together.
 */
export function agentOptions(f: RunFlags, cwd: string): { options: AgentOptions; plan: FlagPlan } {
  const plan = flagPlan(f, cwd);
  if (f.sessionId !== undefined && !UUID.test(f.sessionId)) throw new InputError(`--session-id must be a UUID (got "${f.sessionId}")`);
  if (f.resume === true) throw new InputError('--resume needs a session id (or a transcript path); --continue resumes the newest session');
  if (f.sessionId && (f.resume || f.continue) && !f.forkSession) throw new InputError('--session-id with --resume or --continue needs --fork-session: a resumed session keeps its own id');
  if (f.forkSession && !f.resume && !f.continue) throw new InputError('--fork-session needs --resume ID or --continue');
  if (f.inputFormat === 'stream-json' && (f.outputFormat ?? 'text') !== 'stream-json') throw new InputError('--input-format stream-json needs --output-format stream-json');
  // The printer always runs; flags only choose its options.
  const plugins = ((plan.layer.plugins ??= {}) as Record<string, unknown>);
  plugins.printer ??= {};
  return {
    plan,
    options: {
      preset: f.preset,
      cwd,
      layers: f.layers,
      overrides: plan.layer,
      replace: plan.replace,
      claudeSettings: plan.settings,
      sim: f.sim,
      resume: typeof f.resume === 'string' ? f.resume : undefined,
      continue: f.continue,
      forkSession: f.forkSession,
      sessionId: f.sessionId,
    },
  };
}

/**
 * Most bytes read from stdin, for a prompt or for the context piped in with one: 10 MiB, the cap
 * `claude -p` puts on piped input. A larger input belongs in a file the prompt names.
 */
export const STDIN_MAX_BYTES = 10 * 1024 * 1024;

/**
 * How long a prompt given after the flags waits for the first byte of a piped stdin, ms. A caller
 * that starts rein with a pipe it never writes to or closes must not hang the run; 3 s is enough
 * for a command at the head of a pipeline to print its first line.
 */
export const STDIN_WAIT_MS = 3_000;

/**
 * The prompt: the words after the flags, joined with spaces (as `claude -p` takes them). With none,
 * or `-`, it is read from stdin; one trailing newline (what `echo` and editors add) is dropped.
 * With words and a piped stdin (`git diff | rein -p "review this"`), what stdin holds comes first,
 * then a blank line, then the words, as `claude -p` combines them; a pipe that gives nothing within
 * {@link STDIN_WAIT_MS} is left unread, with a line on stderr.
 * Throws InputError when there is no prompt, or stdin holds more than {@link STDIN_MAX_BYTES}.
 */
export async function readPrompt(words: string[], signal?: AbortSignal, cwd = process.cwd()): Promise<string> {
  let prompt = words.join(' ');
  if (prompt === '-' || (!prompt && !isatty(0))) {
    mark('reading the prompt from stdin');
    prompt = (await readStdin({ signal })).text.replace(/\r?\n$/, '');
  } else if (prompt && !isatty(0)) {
    mark('reading piped context from stdin');
    const piped = await readStdin({ signal, firstByteMs: STDIN_WAIT_MS });
    if (piped.timedOut) process.stderr.write(`rein: nothing arrived on stdin within ${STDIN_WAIT_MS / 1000} s; going on with the prompt alone (start rein with </dev/null to skip the wait)\n`);
    const context = piped.text.replace(/\r?\n$/, '');
    if (context.trim()) prompt = `${context}\n\n${prompt}`;
  }
  if (!prompt.trim()) {
    const took = listTookPrompt();
    throw new InputError(took ? `no prompt: ${took.hint}` : 'no prompt: pass it after the flags (rein -p "fix the test"), or on stdin');
  }
  const command = CLAUDE_COMMAND.exec(prompt.trim());
  const name = command?.[1] ?? command?.[2];
  if (name && !skillFolderNamed(name.slice(1), cwd)) throw new InputError(`${name} is a Claude Code command that rein does not run; sent as a prompt, the model would only read its name. ${COMMAND_INSTEAD[name] ?? ''}`.trimEnd());
  return prompt;
}

/**
 * Claude Code's built-in commands that act on the session itself rather than ask the model
 * (https://code.claude.com/docs/en/slash-commands). rein has none of them, so a prompt that is one
 * of them alone (the trimmed prompt, group 2) is refused instead of being sent to the model as text;
 * so is `/compact` followed by its instructions (group 1), the way `/compact` is written. Any other
 * text that starts with a command's name (`/memory leak in foo.ts`, `/help me with X`) is a prompt.
 * Commands that are prompts (`/init`, `/review`) and `/name` skills are not among them.
 */
const CLAUDE_COMMAND = /^(\/compact)(?:\s[\s\S]*)?$|^(\/(?:clear|cost|context|help|model|status|config|permissions|mcp|hooks|memory|resume|exit|login|logout|doctor))$/;

/**
 * Whether a skill folder `name` (with a SKILL.md) is where the skills plugin looks by default:
 * `.claude/skills` or `.agents/skills` in the working directory, a parent of it, or the home folder.
 * A prompt `/status` then invokes that skill, as a project's own command does in Claude Code,
 * rather than being refused as Claude Code's built-in.
 */
function skillFolderNamed(name: string, cwd: string): boolean {
  const dirs = [homedir()];
  for (let d = cwd; ; d = dirname(d)) {
    dirs.push(d);
    if (dirname(d) === d) break;
  }
  return dirs.some((d) => existsSync(join(d, '.claude/skills', name, 'SKILL.md')) || existsSync(join(d, '.agents/skills', name, 'SKILL.md')));
}

/** What to do instead, per command. */
const COMMAND_INSTEAD: Record<string, string> = {
  '/compact': 'rein compacts on its own as the context fills (the compaction/auto plugin; `triggerRatio` sets when); in a program, `agent.kernel.compact(instructions)` compacts now.',
  '/clear': 'a run without --continue or --resume starts a new session.',
  '/cost': 'the cost is in the result (`total_cost_usd` with --output-format json) and on stderr after a text run; `rein cache explain TRANSCRIPT` breaks it down.',
  '/context': '`rein cache explain TRANSCRIPT` shows what each request held and cost.',
  '/model': 'choose the model with --model.',
  '/resume': 'resume with --resume ID or --continue.',
  '/mcp': 'MCP servers come from --mcp-config, .mcp.json and the preset; the stream-json init line lists them with their status.',
  '/hooks': '`rein hooks` lists the hooks and what is tapped into them.',
};

/**
 * True when stdin is the null device (`</dev/null`, and what a parent that ignores the child's
 * stdin gives it), which holds nothing: then it is not read, which spares opening Node's stdin
 * stream at start-up. False wherever that cannot be told (no /dev/null: Windows).
 */
function stdinIsDevNull(): boolean {
  try {
    const stdin = fstatSync(0);
    return stdin.isCharacterDevice() && stdin.rdev === statSync('/dev/null').rdev;
  } catch {
    return false;
  }
}

/**
 * All of stdin as UTF-8 text, read from the stream rather than with a blocking read: a pipe whose
 * writer has not written yet (`slow_command | rein -p`) is non-blocking once Node opens it, where a
 * synchronous read fails with EAGAIN, and a blocked read would not let a signal through. Resolves
 * with what was read so far when `signal` aborts (the caller then stops), and with nothing and
 * `timedOut` when `firstByteMs` passes before the first byte or the end. Rejects with InputError
 * past {@link STDIN_MAX_BYTES}.
 */
function readStdin(opts: { signal?: AbortSignal; firstByteMs?: number }): Promise<{ text: string; timedOut: boolean }> {
  const { signal } = opts;
  if (stdinIsDevNull()) return Promise.resolve({ text: '', timedOut: false });
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let timer: NodeJS.Timeout | undefined;
    const stop = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      process.stdin.off('data', onData).off('end', done).off('error', onError);
      process.stdin.pause();
    };
    function done(): void {
      stop();
      resolvePromise({ text: Buffer.concat(chunks).toString('utf8'), timedOut: false });
    }
    function onData(c: Buffer): void {
      clearTimeout(timer);
      bytes += c.length;
      if (bytes > STDIN_MAX_BYTES) {
        stop();
        reject(new InputError(`stdin holds more than ${STDIN_MAX_BYTES / 1024 / 1024} MiB; write it to a file and name the file in the prompt`));
        return;
      }
      chunks.push(c);
    }
    function onError(err: Error): void { stop(); reject(err); }
    if (signal?.aborted) return done();
    signal?.addEventListener('abort', done);
    process.stdin.on('data', onData).once('end', done).once('error', onError);
    if (opts.firstByteMs !== undefined) {
      timer = setTimeout(() => { stop(); resolvePromise({ text: '', timedOut: true }); }, opts.firstByteMs);
    }
  });
}

export async function runCommand(words: string[], f: RunFlags): Promise<number> {
  const cwd = resolve(f.cwd ?? process.cwd());
  let agent: Agent | undefined;
  // From the start, so a signal while the agent is being built also ends quietly (nothing ran).
  const stop = interruptions(() => agent?.kernel);
  try {
    let options: AgentOptions;
    try {
      ({ options } = agentOptions(f, cwd));
    } catch (err) {
      if (!isInputError(err)) throw err;
      printInputError(err);
      process.stderr.write('rein: see rein run --help\n');
      return EXIT.BAD_INPUT;
    }
    if (f.inputFormat === 'stream-json') {
      if (words.length) throw new InputError('with --input-format stream-json the prompts come on stdin, not after the flags');
      const { runStreamJson } = await import('../stream-json/host.js');
      // The host handles signals itself (SIGINT interrupts the current turn, as the Agent SDK's
      // interrupt does; SIGTERM, how the SDK closes its child, ends the process).
      stop.remove();
      return await runStreamJson(options, f);
    }
    const prompt = await readPrompt(words, stop.signal, cwd);
    if (stop.received) return SIGNAL_EXIT[stop.received];
    agent = await createAgent(options);
    printClientNoticeOnStart(agent);
    if (stop.received) return SIGNAL_EXIT[stop.received];
    const run = agent.run(prompt, { signal: stop.signal });
    for await (const _ of run) { /* the printer plugin prints */ }
    const result = await run.result;
    if (result.terminalReason === 'aborted' && stop.received) return SIGNAL_EXIT[stop.received];
    return result.terminalReason === 'end_turn' ? EXIT.OK : EXIT.RUN_ERROR;
  } catch (err) {
    if (stop.received && !agent) return SIGNAL_EXIT[stop.received];
    if (isInputError(err)) {
      printInputError(err);
      return EXIT.BAD_INPUT;
    }
    if (err instanceof Error && err.name === 'TranscriptWriteError') {
      process.stderr.write(`rein: ${err.message}\n`);
      return EXIT.SESSION_WRITE;
    }
    // A bug in rein: one line, not a stack trace (REIN_DEBUG=1 shows it).
    const e = err as Error;
    process.stderr.write(`rein: internal error: ${e?.message ?? String(err)}${process.env.REIN_DEBUG ? `\n${e?.stack ?? ''}` : ' (REIN_DEBUG=1 prints the stack trace)'}\n`);
    return EXIT.INTERNAL;
  } finally {
    // Closed while the handlers are still there: a signal during close() is not Node's default
    // (death by the signal, with no exit code of rein's).
    await agent?.close().catch(() => undefined);
    stop.finish();
  }
}

/** Signals that stop a run as Ctrl-C does, and the exit code of each (128 + its number). */
const SIGNAL_EXIT = { SIGINT: EXIT.INTERRUPTED, SIGTERM: EXIT.SIGTERM, SIGHUP: EXIT.SIGHUP } as const;
type StopSignal = keyof typeof SIGNAL_EXIT;

/**
 * SIGINT, SIGTERM and SIGHUP abort the run: the loop ends it `aborted` (a running Bash command's
 * process group is killed, SessionEnd hooks run). A second one exits at once, recording `aborted`
 * first if the loop had not got there.
 */
function interruptions(kernel: () => Kernel | undefined): { signal: AbortSignal; readonly received: StopSignal | undefined; remove(): void; finish(): void } {
  const controller = new AbortController();
  let received: StopSignal | undefined;
  let removed = false;
  const on = (sig: StopSignal) => {
    if (!received) {
      received = sig;
      controller.abort(new Error(`interrupted by ${sig}`));
      return;
    }
    try {
      kernel()?.endNow('aborted', `interrupted by ${received}, then ${sig} again: exited at once`);
    } catch { /* the transcript refuses writes: nothing more can be recorded */ }
    process.exit(SIGNAL_EXIT[sig]);
  };
  const handlers = (Object.keys(SIGNAL_EXIT) as StopSignal[]).map((sig) => [sig, () => on(sig)] as const);
  for (const [sig, fn] of handlers) process.on(sig, fn);
  return {
    signal: controller.signal,
    get received() { return received; },
    // Handed over (the stream-json host handles signals itself): only this function's handlers go.
    remove: () => {
      if (removed) return;
      removed = true;
      for (const [sig, fn] of handlers) process.off(sig, fn);
    },
    // The run is over: a signal from now until the process exits only sets the exit code.
    finish: () => {
      if (removed) return;
      removed = true;
      for (const [sig, fn] of handlers) {
        process.off(sig, fn);
        process.once(sig, () => process.exit(SIGNAL_EXIT[sig]));
      }
    },
  };
}
