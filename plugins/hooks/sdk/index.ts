/**
 * `hooks/sdk`: hooks registered by the program driving rein (the Claude Agent SDK's `hooks`
 * option). The program names a callback id per handler in its `initialize` control request; when
 * the event fires rein sends a `hook_callback` request with the event's JSON input and acts on the
 * JSON answer exactly as for a shell hook's (`plugins/hooks/shared/claude-hooks.ts`). A callback
 * that fails, times out or answers something unreadable blocks guard events (PreToolUse,
 * PermissionRequest, UserPromptSubmit) unless its matcher says `onFailure: continue`.
 */
import { z } from 'zod';
import { definePlugin } from '../../../kernel/index.js';
import { ClaudeHooks, type HookRunner } from '../shared/claude-hooks.js';
import { SHELL_HOOK_EVENTS, type ShellHookEvent } from '../shared/config.js';
import { parseHookJson } from '../shared/outcome.js';

/** Asks the host to run callback `callbackId`; resolves with its JSON answer, rejects when it fails. */
export type HookCallbackCaller = (callbackId: string, input: Record<string, unknown>, toolUseId: string | undefined, signal: AbortSignal) => Promise<unknown>;

const callbackHook = z.strictObject({
  type: z.literal('callback'),
  /** The id the host chose for this callback (`hookCallbackIds` in `initialize`). */
  id: z.string().min(1),
  /** Seconds before the callback is given up on. */
  timeout: z.number().positive().optional(),
  onFailure: z.enum(['block', 'continue']).optional(),
});
type CallbackHook = z.output<typeof callbackHook>;

const group = z.strictObject({ matcher: z.string().optional(), hooks: z.array(callbackHook).min(1) });

export const sdkHooksOptions = z.strictObject({
  /** Event → matcher groups of callbacks. */
  hooks: z.strictObject(Object.fromEntries(SHELL_HOOK_EVENTS.map((e) => [e, z.array(group).optional()])) as Record<ShellHookEvent, z.ZodOptional<z.ZodArray<typeof group>>>),
  /** Sends `hook_callback` to the host. */
  call: z.custom<HookCallbackCaller>((v) => typeof v === 'function', { message: 'expected a function' }),
});

function callbackRunner(call: HookCallbackCaller): HookRunner<CallbackHook> {
  return {
    label: (hook) => `callback ${hook.id}`,
    key: (hook) => hook.id,
    async run(hook, input, { timeoutMs, ctx, toolUseId }) {
      const controller = new AbortController();
      const onAbort = () => controller.abort();
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      let timer: NodeJS.Timeout | undefined;
      try {
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => { controller.abort(); reject(new Error(`the callback did not answer within ${timeoutMs / 1000} s`)); }, timeoutMs);
        });
        const answer = await Promise.race([call(hook.id, input, toolUseId, controller.signal), timeout]);
        // `{ async: true }`: the host goes on with it in the background; no decision now.
        if (answer === undefined || answer === null || (typeof answer === 'object' && (answer as { async?: unknown }).async === true)) return { kind: 'ok', stdout: '' };
        return parseHookJson(answer);
      } catch (err) {
        return { kind: 'failure', message: `the callback failed: ${(err as Error).message}` };
      } finally {
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', onAbort);
      }
    },
  };
}

export default definePlugin({
  name: 'hooks/sdk',
  description: 'Hooks the driving program registered (Agent SDK hooks), answered over the control protocol.',
  options: sdkHooksOptions,
  apply(kernel, options) {
    new ClaudeHooks(kernel, options.hooks, callbackRunner(options.call), 'hooks/sdk').install();
  },
});
