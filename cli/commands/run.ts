/**
 * `rein run`: builds an agent from the preset and flags, runs one prompt, prints it with the
 * `printer` plugin, and returns the exit code (see cli/main.ts).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createAgent, type Agent } from '../../agent/agent.js';
import type { Kernel } from '../../kernel/kernel.js';
import { BUILTIN_PLUGINS } from '../../agent/plugins.js';
import { InputError } from '../../kernel/errors.js';
import { isInputError, printInputError } from './errors.js';
import { EXIT } from '../main.js';

export interface RunFlags {
  prompt?: string;
  /** Unset: `default`, or the resumed session's preset. */
  preset?: string;
  outputFormat: 'text' | 'json' | 'stream-json';
  maxTurns?: number;
  maxBudgetUsd?: number;
  model?: string;
  fallbackModel?: string;
  permissionMode?: string;
  permissionPromptTool?: string;
  resume?: string;
  continue?: boolean;
  sim?: string;
  cwd?: string;
  layers: boolean;
  includePartialMessages?: boolean;
  verbose?: boolean;
}

/** Command-line flags as a preset layer (the highest one). */
export function flagOverrides(f: RunFlags): Record<string, unknown> {
  const o: Record<string, any> = {};
  if (f.model || f.fallbackModel) o.model = { ...(f.model ? { name: f.model } : {}), ...(f.fallbackModel ? { fallbackModel: f.fallbackModel } : {}) };
  if (f.maxTurns || f.maxBudgetUsd) o.limits = { ...(f.maxTurns ? { maxTurns: f.maxTurns } : {}), ...(f.maxBudgetUsd ? { maxBudgetUsd: f.maxBudgetUsd } : {}) };
  if (f.permissionMode) o.permissions = { mode: f.permissionMode };
  if (f.permissionPromptTool) o.plugins = { 'permissions/prompt-tool': { tool: f.permissionPromptTool } };
  return o;
}

function readPrompt(words: string[], f: RunFlags): string {
  let prompt = f.prompt ?? words.join(' ');
  if (prompt === '-' || (!prompt && !process.stdin.isTTY)) prompt = readFileSync(0, 'utf8');
  if (!prompt.trim()) throw new InputError('no prompt: pass it as an argument, with -p, or on stdin ("-")');
  return prompt;
}

export async function runCommand(words: string[], f: RunFlags): Promise<number> {
  const cwd = resolve(f.cwd ?? process.cwd());
  let agent: Agent | undefined;
  // From the start, so a signal while the agent is being built also ends quietly (nothing ran).
  const stop = interruptions(() => agent?.kernel);
  try {
    const prompt = readPrompt(words, f);
    const printer = await BUILTIN_PLUGINS.printer!();
    agent = await createAgent({
      preset: f.preset,
      cwd,
      layers: f.layers,
      overrides: flagOverrides(f),
      sim: f.sim,
      resume: f.resume,
      continue: f.continue,
      plugins: [{ plugin: printer, options: { format: f.outputFormat, includePartialMessages: !!f.includePartialMessages, verbose: !!f.verbose } }],
    });
    if (agent.client.kind !== 'api') process.stderr.write(`rein: ${agent.client.notice}\n`);
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
    stop.remove();
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
function interruptions(kernel: () => Kernel | undefined): { signal: AbortSignal; readonly received: StopSignal | undefined; remove(): void } {
  const controller = new AbortController();
  let received: StopSignal | undefined;
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
    // The run is over: a signal from now until the process exits only sets the exit code.
    remove: () => {
      for (const [sig, fn] of handlers) {
        process.off(sig, fn);
        process.once(sig, () => process.exit(SIGNAL_EXIT[sig]));
      }
    },
  };
}
