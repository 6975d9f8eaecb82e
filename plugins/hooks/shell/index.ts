/**
 * `hooks/shell`: Claude Code compatible hooks of three types. A `command` hook runs as a real
 * process (`bash -c`, started through the kernel's `spawn` hook so a sandbox can wrap it) with the
 * event as JSON on stdin; an `http` hook POSTs the event to a URL; a `prompt` hook asks a small
 * model. Their answers feed back into rein's hooks as `plugins/hooks/shared/claude-hooks.ts`
 * describes.
 */
import { definePlugin, PluginError, type Kernel } from '../../../kernel/index.js';
import { ClaudeHooks, type HookRunner } from '../shared/claude-hooks.js';
import { DEFAULT_REMOTE_HOOK_TIMEOUT_S, hookLabel, shellHooksOptions, type AnyHook, type ShellHookEvent, type ShellHooksConfig } from './config.js';
import { checkHttpHook, runHttpHook } from './http.js';
import { interpret } from './outcome.js';
import { runPromptHook } from './prompt.js';
import { runHookProcess } from './run.js';
import { subprocessEnv } from '../../../lib/index.js';

/** Events whose hooks may not be `http` (Claude Code: a headless start must not wait on the network). */
const NO_HTTP_EVENTS: ReadonlySet<ShellHookEvent> = new Set(['SessionStart']);

const short = (command: string) => (command.length > 80 ? `${command.slice(0, 77)}...` : command);

/** Refuses, at load, http hooks where they are not allowed and headers naming variables not allowed. */
function checkHooks(config: ShellHooksConfig): void {
  for (const [event, groups] of Object.entries(config) as [ShellHookEvent, ShellHooksConfig[ShellHookEvent]][]) {
    (groups ?? []).forEach((g, i) => g.hooks.forEach((h, j) => {
      if (h.type !== 'http') return;
      if (NO_HTTP_EVENTS.has(event)) throw new PluginError('hooks/shell', `hooks.${event}[${i}].hooks[${j}]: ${event} hooks cannot be of type http; use a command hook`);
      checkHttpHook(h, `hooks.${event}[${i}].hooks[${j}]`);
    }));
  }
}

/**
 * Runs a hook of any type. Command hooks run in the working directory with the preset's `env` and
 * `CLAUDE_PROJECT_DIR`; http headers expand only the variables the hook allows.
 */
function shellRunner(kernel: Kernel): HookRunner<AnyHook> {
  return {
    label: (hook) => `\`${short(hookLabel(hook))}\``,
    key: (hook) => hookLabel(hook),
    defaultTimeoutS: (hook) => (hook.type === 'command' ? undefined : DEFAULT_REMOTE_HOOK_TIMEOUT_S),
    async run(hook, input, { event, timeoutMs, ctx }) {
      const json = JSON.stringify(input);
      const signal = event === 'SessionEnd' ? undefined : ctx.signal;
      // http headers expand only the variables the hook lists, from rein's own environment (rein
      // sends the request; no child process sees it).
      if (hook.type === 'http') return runHttpHook(hook, json, { env: { ...process.env, ...(kernel.preset.env as Record<string, string> | undefined) }, timeoutS: timeoutMs / 1000, signal });
      if (hook.type === 'prompt') return runPromptHook(kernel, hook, event, json, ctx, timeoutMs / 1000);
      // rein's environment as the kernel gives it to child processes (credentials removed when the
      // preset asks), the preset's `env`, then the hook's own variables.
      const env = subprocessEnv(kernel, { kind: 'hook', name: event }, { CLAUDE_PROJECT_DIR: ctx.cwd, REIN_PROJECT_DIR: ctx.cwd });
      // Through the spawn hook, so a sandbox that covers hooks wraps this one (a refusal fails the hook).
      let launch;
      try {
        launch = await kernel.hooks.spawn.promise({ purpose: 'hook', file: 'bash', args: ['-c', hook.command], cwd: ctx.cwd, env, cleanup: [] }, ctx);
      } catch (err) {
        return { kind: 'failure', message: `the hook could not be started: ${(err as Error).message}` };
      }
      const r = await runHookProcess(launch, json, { timeoutMs, signal });
      for (const fn of launch.cleanup) await Promise.resolve().then(fn).catch(() => undefined);
      return interpret(r, timeoutMs / 1000);
    },
  };
}

export default definePlugin({
  name: 'hooks/shell',
  description: 'Claude Code compatible shell hooks: commands run on lifecycle events, JSON on stdin, exit 2 blocks.',
  options: shellHooksOptions,
  apply(kernel, options) {
    checkHooks(options);
    new ClaudeHooks(kernel, options, shellRunner(kernel), 'hooks/shell').install();
  },
});

export { SHELL_HOOK_EVENTS, GUARD_EVENTS, DEFAULT_HOOK_TIMEOUT_S, SESSION_END_TIMEOUT_S, shellHooksOptions, guardFailures } from './config.js';
