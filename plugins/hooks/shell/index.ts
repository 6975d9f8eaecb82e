/**
 * `hooks/shell`: Claude Code compatible shell hooks. Each configured command runs as a real process
 * (`bash -c`) with the event as JSON on stdin; its exit code and JSON answer feed back into rein's
 * hooks as `plugins/hooks/shared/claude-hooks.ts` describes.
 */
import { definePlugin } from '../../../kernel/index.js';
import { ClaudeHooks, type HookRunner } from '../shared/claude-hooks.js';
import { shellHooksOptions, type CommandHook } from './config.js';
import { interpret } from './outcome.js';
import { runHookProcess } from './run.js';

const short = (command: string) => (command.length > 80 ? `${command.slice(0, 77)}...` : command);

/** Runs a command hook in the working directory with the preset's `env` and `CLAUDE_PROJECT_DIR`. */
function commandRunner(preset: Record<string, unknown>): HookRunner<CommandHook> {
  return {
    label: (hook) => `\`${short(hook.command)}\``,
    key: (hook) => hook.command,
    async run(hook, input, { event, timeoutMs, ctx }) {
      const env = { ...process.env, ...(preset.env as Record<string, string> | undefined), CLAUDE_PROJECT_DIR: ctx.cwd, REIN_PROJECT_DIR: ctx.cwd };
      const r = await runHookProcess(hook.command, JSON.stringify(input), { cwd: ctx.cwd, env, timeoutMs, signal: event === 'SessionEnd' ? undefined : ctx.signal });
      return interpret(r, timeoutMs / 1000);
    },
  };
}

export default definePlugin({
  name: 'hooks/shell',
  description: 'Claude Code compatible shell hooks: commands run on lifecycle events, JSON on stdin, exit 2 blocks.',
  options: shellHooksOptions,
  apply(kernel, options) {
    new ClaudeHooks(kernel, options, commandRunner(kernel.preset), 'hooks/shell').install();
  },
});

export { SHELL_HOOK_EVENTS, GUARD_EVENTS, DEFAULT_HOOK_TIMEOUT_S, SESSION_END_TIMEOUT_S, shellHooksOptions } from './config.js';
