/**
 * The `hooks` setting, in Claude Code's settings.json format plus a per-hook `onFailure`:
 *
 *   hooks:
 *     PreToolUse:
 *       - matcher: "Write|Edit"
 *         hooks: [{ type: command, command: "./check.sh", timeout: 30, onFailure: block }]
 */
import { z } from 'zod';
import { SHELL_HOOK_EVENTS, type ShellHookEvent } from '../shared/config.js';

export { SHELL_HOOK_EVENTS, GUARD_EVENTS, DEFAULT_HOOK_TIMEOUT_S, SESSION_END_TIMEOUT_S, compileMatcher, type ShellHookEvent } from '../shared/config.js';

export const commandHookSchema = z.object({
  type: z.literal('command'),
  /** Run with `bash -c` in the working directory; the event arrives as JSON on stdin. */
  command: z.string().min(1),
  /** Seconds before the hook's process group is killed. */
  timeout: z.number().positive().optional(),
  /** What a crash or timeout means: `block` (the default for guard events) or `continue`. */
  onFailure: z.enum(['block', 'continue']).optional(),
}).strict();

export const matcherGroupSchema = z.object({
  /** Which calls (tool name), sources or triggers the hooks run for: `Write|Edit`, a regular expression, or empty for all. */
  matcher: z.string().optional(),
  hooks: z.array(commandHookSchema).min(1),
}).strict();

export const shellHooksOptions = z.object(
  Object.fromEntries(SHELL_HOOK_EVENTS.map((e) => [e, z.array(matcherGroupSchema).optional()])) as Record<ShellHookEvent, z.ZodOptional<z.ZodArray<typeof matcherGroupSchema>>>,
).strict();

export type CommandHook = z.output<typeof commandHookSchema>;
export type ShellHooksConfig = z.output<typeof shellHooksOptions>;
