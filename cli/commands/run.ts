/**
 * `rein run`: builds an agent from the preset and flags, runs one prompt, prints it with the
 * `printer` plugin, and returns the exit code (see cli/main.ts).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createAgent } from '../../agent/agent.js';
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
  let agent;
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
