/**
 * `rein run` (and `rein -p`): builds an agent from the preset and flags, runs the prompt, prints it
 * with the `printer` plugin, and returns the exit code (see cli/main.ts). With
 * `--input-format stream-json` it reads user messages and control requests from stdin instead and
 * runs one turn per message (cli/stream-json/).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createAgent, type AgentOptions } from '../../agent/agent.js';
import { InputError } from '../../kernel/errors.js';
import { isInputError, printInputError } from './errors.js';
import { flagPlan, type ClaudeFlagValues, type FlagPlan } from './claude-flags.js';
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
 * The prompt: the words after the flags, joined with spaces (as `claude -p` takes them). With none,
 * or `-`, it is read from stdin; one trailing newline (what `echo` and editors add) is dropped.
 */
export function readPrompt(words: string[]): string {
  let prompt = words.join(' ');
  if (prompt === '-' || (!prompt && !process.stdin.isTTY)) prompt = readFileSync(0, 'utf8').replace(/\r?\n$/, '');
  if (!prompt.trim()) throw new InputError('no prompt: pass it after the flags (rein -p "fix the test"), or on stdin');
  return prompt;
}

export async function runCommand(words: string[], f: RunFlags): Promise<number> {
  const cwd = resolve(f.cwd ?? process.cwd());
  let agent;
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
      return await runStreamJson(options, f);
    }
    const prompt = readPrompt(words);
    agent = await createAgent(options);
    if (agent.client.kind !== 'api') process.stderr.write(`rein: ${agent.client.notice}\n`);
    const controller = new AbortController();
    const onSigint = () => controller.abort();
    process.once('SIGINT', onSigint);
    try {
      const run = agent.run(prompt, { signal: controller.signal });
      for await (const _ of run) { /* the printer plugin prints */ }
      const result = await run.result;
      if (result.terminalReason === 'aborted' && controller.signal.aborted) return EXIT.INTERRUPTED;
      return result.terminalReason === 'end_turn' ? EXIT.OK : EXIT.RUN_ERROR;
    } finally {
      process.off('SIGINT', onSigint);
    }
  } catch (err) {
    if (isInputError(err)) {
      printInputError(err);
      return EXIT.BAD_INPUT;
    }
    throw err;
  } finally {
    await agent?.close();
  }
}
