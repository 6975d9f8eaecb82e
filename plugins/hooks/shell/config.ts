/**
 * The `hooks` setting, in Claude Code's settings.json format plus a per-hook `onFailure`:
 *
 *   hooks:
 *     PreToolUse:
 *       - matcher: "Write|Edit"
 *         hooks: [{ type: command, command: "./check.sh", timeout: 30, onFailure: block }]
 */
import { z } from 'zod';

/** Events rein runs shell hooks for (Claude Code's names). */
export const SHELL_HOOK_EVENTS = [
  'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest', 'UserPromptSubmit', 'Stop', 'SubagentStart',
  'SubagentStop', 'PreCompact', 'PostCompact', 'SessionStart', 'SessionEnd', 'Notification',
] as const;
export type ShellHookEvent = (typeof SHELL_HOOK_EVENTS)[number];

/**
 * Guard events: a hook that crashes or times out blocks what it guards unless it says
 * `onFailure: continue`; one that exits with a code other than 0 and 2 lets it through (Claude
 * Code's protocol) unless it says `onFailure: block`.
 */
export const GUARD_EVENTS: ReadonlySet<ShellHookEvent> = new Set(['PreToolUse', 'PermissionRequest', 'UserPromptSubmit']);

/** Default hook timeout, seconds (Claude Code's TOOL_HOOK_EXECUTION_TIMEOUT_MS = 10 min). */
export const DEFAULT_HOOK_TIMEOUT_S = 600;
/** Default SessionEnd hook timeout, seconds (Claude Code: 1,500 ms, so ending a run stays quick). */
export const SESSION_END_TIMEOUT_S = 1.5;

export const commandHookSchema = z.object({
  type: z.literal('command'),
  /** Run with `bash -c` in the working directory; the event arrives as JSON on stdin. */
  command: z.string().min(1),
  /** Seconds before the hook's process group is killed. */
  timeout: z.number().positive().optional(),
  /**
   * For guard events: `block` fails closed on a crash, a timeout or any exit code but 0 and 2;
   * `continue` lets the call run whatever happens (exit 2 still blocks). Unset: a crash or
   * timeout blocks, another exit code does not (Claude Code's protocol).
   */
  onFailure: z.enum(['block', 'continue']).optional(),
}).strict();

/** Why `matcher` does not compile, or undefined when it does. */
function matcherProblem(matcher: string): string | undefined {
  try {
    compileMatcher(matcher);
    return undefined;
  } catch (err) {
    return `not a valid regular expression: ${(err as Error).message}`;
  }
}

export const matcherGroupSchema = z.object({
  /**
   * Which calls (tool name), sources or triggers the hooks run for: `Write|Edit`, a regular
   * expression, or empty for all. Checked here, so `rein preset validate` rejects what a run would.
   */
  matcher: z.string().optional().superRefine((m, ctx) => {
    const problem = m === undefined ? undefined : matcherProblem(m);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  hooks: z.array(commandHookSchema).min(1),
}).strict();

export const shellHooksOptions = z.object(
  Object.fromEntries(SHELL_HOOK_EVENTS.map((e) => [e, z.array(matcherGroupSchema).optional()])) as Record<ShellHookEvent, z.ZodOptional<z.ZodArray<typeof matcherGroupSchema>>>,
).strict();

export type CommandHook = z.output<typeof commandHookSchema>;
export type ShellHooksConfig = z.output<typeof shellHooksOptions>;

/** A compiled matcher: Claude Code's rule is that only `[A-Za-z0-9_|]` means exact names, anything else a regular expression. */
export function compileMatcher(matcher: string | undefined): (value: string | undefined) => boolean {
  const m = (matcher ?? '').trim();
  if (m === '' || m === '*') return () => true;
  if (/^[A-Za-z0-9_|]+$/.test(m)) {
    const names = new Set(m.split('|').filter(Boolean));
    return (v) => v !== undefined && names.has(v);
  }
  const re = new RegExp(m); // throws SyntaxError for a bad pattern: reported when the plugin loads
  return (v) => v !== undefined && re.test(v);
}

/** How a guard hook's failures end, as `rein hooks` reports it. */
export interface GuardFailure {
  event: ShellHookEvent;
  matcher: string;
  command: string;
  /** `closed`: every failure blocks; `open on exit codes`: a crash blocks, exit 1 (say) lets the call run; `open`: nothing but exit 2 blocks. */
  fails: 'closed' | 'open on exit codes' | 'open';
}

/** Every hook of a guard event and how its failures end. */
export function guardFailures(config: ShellHooksConfig): GuardFailure[] {
  const out: GuardFailure[] = [];
  for (const event of SHELL_HOOK_EVENTS) {
    if (!GUARD_EVENTS.has(event)) continue;
    for (const g of config[event] ?? []) {
      for (const h of g.hooks) {
        out.push({ event, matcher: g.matcher ?? '', command: h.command, fails: h.onFailure === 'block' ? 'closed' : h.onFailure === 'continue' ? 'open' : 'open on exit codes' });
      }
    }
  }
  return out;
}
