/**
 * `tools/bash`: registers the `Bash` tool (see tool.ts and README.md) and, with background shells
 * on (the default), `BashOutput` and `KillShell` (shell-tools.ts, background.ts).
 *
 *   postToolUse    a background shell that ended is announced after the next tool result
 *   stop           ... or, when the model ends its turn first, by one more turn
 *   postCompact    the next request lists the shells still running
 *   context        (stage NOTIFICATIONS) adds that list at the tail of the history
 *   runEnd         running shells are killed, unless `background.keepRunning`
 */
import { z } from 'zod';
import { CONTEXT_STAGE, definePlugin, type Kernel, type Message } from '../../../kernel/index.js';
import { DEFAULT_BACKGROUND_MAX_OUTPUT_BYTES, shellsOf, type Shell } from './background.js';
import { createBashOutputTool, createKillShellTool } from './shell-tools.js';
import { createBashTool, DEFAULT_BASH_TIMEOUT_MS, MAX_BASH_TIMEOUT_MS, nextBashCwd, shellState } from './tool.js';
import { descriptionStyle } from '../shared/schema.js';

export { bashCwd, bashTool, createBashTool, BASH_MAX_OUTPUT_CHARS, DEFAULT_BASH_TIMEOUT_MS, MAX_BASH_TIMEOUT_MS } from './tool.js';
export { isReadOnlyCommand } from './read-only.js';
export { shellsOf, DEFAULT_BACKGROUND_MAX_OUTPUT_BYTES, type Shell, type ShellStatus } from './background.js';

export const bashOptions = z.strictObject({
  /** The tool description: `full` (default) or `condensed` (same contract, fewer words). */
  description: descriptionStyle,
  /** Timeout of a call that gives none, ms (default 120,000; at most 600,000). */
  defaultTimeoutMs: z.number().int().positive().max(MAX_BASH_TIMEOUT_MS).default(DEFAULT_BASH_TIMEOUT_MS).register(z.globalRegistry, { description: 'Timeout of a Bash call that gives none, ms (Claude Code: 120,000; at most 600,000).' }),
  /** Environment variables set for every command. */
  env: z.record(z.string(), z.string()).default({}).register(z.globalRegistry, { description: 'Environment variables set for every command.' }),
  /** Background shells: Bash's `run_in_background`, with the BashOutput and KillShell tools. */
  background: z.strictObject({
    /** Offer them (default true). */
    enabled: z.boolean().default(true).register(z.globalRegistry, { description: 'Offer background shells.' }),
    /** Leave running shells alone when the run ends, and when rein exits (default false: their process groups are killed). */
    keepRunning: z.boolean().default(false).register(z.globalRegistry, { description: 'Leave running background shells alone when the run ends and when rein exits; off, their process groups are killed.' }),
    /** Most bytes kept per stream of one shell; past it the file is emptied and the reader told (default 32 MiB). */
    maxOutputBytes: z.number().int().positive().default(DEFAULT_BACKGROUND_MAX_OUTPUT_BYTES).register(z.globalRegistry, { description: 'Most bytes kept per output stream of one background shell; past it the file is emptied and the reader told (rein\'s choice: 32 MiB).' }),
  }).default({ enabled: true, keepRunning: false, maxOutputBytes: DEFAULT_BACKGROUND_MAX_OUTPUT_BYTES }).register(z.globalRegistry, { description: 'Background shells: Bash\'s `run_in_background`, with the BashOutput and KillShell tools.' }),
});

const short = (command: string) => (command.length > 120 ? `${command.slice(0, 117)}...` : command);

/** How a shell ended, in Claude Code's task-notification layout. */
export function endNotification(s: Shell): string {
  const how = s.status === 'completed' ? 'completed (exit code 0)'
    : s.status === 'failed' ? `failed with exit code ${s.exitCode}`
      : `was killed${s.killedBecause ? ` (${s.killedBecause})` : ''}`;
  return `<task-notification>\n<task-id>${s.id}</task-id>\n<status>${s.status}</status>\n<summary>Background command "${short(s.command)}" ${how}. Read its output with BashOutput.</summary>\n</task-notification>`;
}

/** The shells still running, for the model after a compaction (their ids are no longer in its context). */
export function runningList(shells: Shell[], now = Date.now()): string {
  const lines = shells.map((s) => `- ${s.id}: \`${short(s.command)}\`${s.description ? ` (${s.description})` : ''}, running for ${Math.max(0, Math.round((now - s.startedAt) / 1000))} s`);
  return `Background shells still running (read them with BashOutput, stop them with KillShell):\n${lines.join('\n')}`;
}

function installBackground(kernel: Kernel, o: z.output<typeof bashOptions>['background']): void {
  const shells = shellsOf(kernel, { keepRunning: o.keepRunning, maxOutputBytes: o.maxOutputBytes });
  kernel.tools.register(createBashOutputTool(), 'tools/bash');
  kernel.tools.register(createKillShellTool(), 'tools/bash');
  const h = kernel.hooks;
  const ended = () => shells.takeUnreported().map(endNotification);
  h.postToolUse.tap('tools/bash', (r, ctx) => {
    // A child agent's call forwarded to these hooks: its results are no place for this session's news.
    if (ctx.agent) return r;
    const notes = ended();
    return notes.length ? { ...r, additionalContext: [...r.additionalContext, ...notes] } : r;
  });
  h.stop.tap('tools/bash', () => {
    const notes = ended();
    return notes.length ? { action: 'block' as const, reason: notes.join('\n') } : undefined;
  });
  h.postCompact.tap('tools/bash', () => { shells.listAfterCompaction = true; });
  h.context.tap({ name: 'tools/bash', stage: CONTEXT_STAGE.NOTIFICATIONS }, (state) => {
    if (!shells.listAfterCompaction) return state;
    shells.listAfterCompaction = false;
    const running = shells.running();
    if (!running.length) return state;
    const note: Message = { role: 'user', content: [{ type: 'text', text: runningList(running) }], meta: { meta: true, source: 'tools/bash', at: Date.now() } };
    return { ...state, messages: [...state.messages, note] };
  });
  if (!o.keepRunning) {
    h.runEnd.tapPromise('tools/bash', () => shells.killAll('the run ended'));
    kernel.onClose(() => shells.killAll('rein closed the session'));
  }
}

export default definePlugin({
  name: 'tools/bash',
  description: 'The Bash tool: a real bash, persistent working directory, process-group timeouts, large output saved to the session; background shells with BashOutput and KillShell.',
  options: bashOptions,
  apply(kernel, options) {
    kernel.tools.register(createBashTool({ ...options, background: options.background.enabled }), 'tools/bash');
    // Permission checks resolve a command's relative paths where it will really run.
    shellState(kernel).cwd = () => nextBashCwd(kernel);
    if (options.background.enabled) installBackground(kernel, options.background);
  },
});
