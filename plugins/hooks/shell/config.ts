/**
 * The `hooks` setting, in Claude Code's settings.json format plus a per-hook `onFailure`. Three
 * hook types: `command` (a shell command), `http` (POST the event to a URL) and `prompt` (a small
 * model decides):
 *
 *   hooks:
 *     PreToolUse:
 *       - matcher: "Write|Edit"
 *         hooks: [{ type: command, command: "./check.sh", timeout: 30, onFailure: block }]
 *       - matcher: Bash
 *         hooks: [{ type: http, url: "http://127.0.0.1:8080/check", headers: { Authorization: "Bearer $TOKEN" }, allowedEnvVars: [TOKEN] }]
 */
import { z } from 'zod';
import { compileMatcher, GUARD_EVENTS, SHELL_HOOK_EVENT_DOCS, SHELL_HOOK_EVENTS, type ShellHookEvent } from '../shared/config.js';

export { SHELL_HOOK_EVENTS, SHELL_HOOK_EVENT_DOCS, GUARD_EVENTS, DEFAULT_HOOK_TIMEOUT_S, SESSION_END_TIMEOUT_S, compileMatcher, type ShellHookEvent } from '../shared/config.js';

export const commandHookSchema = z.object({
  type: z.literal('command').register(z.globalRegistry, { description: 'A shell command.' }),
  /** Run with `bash -c` in the working directory; the event arrives as JSON on stdin. */
  command: z.string().min(1).register(z.globalRegistry, { description: 'Run with `bash -c` in the working directory, the event as JSON on stdin: exit 0 with JSON on stdout answers, exit 2 blocks with stderr.' }),
  /** Seconds before the hook's process group is killed. */
  timeout: z.number().positive().optional().register(z.globalRegistry, { description: 'Seconds before the hook\'s process group is killed (default 600; SessionEnd: 1.5).' }),
  /**
   * For guard events: `block` fails closed on a crash, a timeout or any exit code but 0 and 2;
   * `continue` lets the call run whatever happens (exit 2 still blocks). Unset: a crash or
   * timeout blocks, another exit code does not (Claude Code's protocol).
   */
  onFailure: z.enum(['block', 'continue']).optional().register(z.globalRegistry, { description: 'For guard events (PreToolUse, PermissionRequest, UserPromptSubmit): `block` fails closed on a crash, a timeout or any exit code but 0 and 2; `continue` lets the call run (exit 2 still blocks); unset, a crash or timeout blocks and another exit code does not.' }),
}).strict();

/** Claude Code's fields that rein reads but that change nothing in a headless run (spinner text). */
const uiFields = { statusMessage: z.string().optional().register(z.globalRegistry, { description: 'Spinner text in Claude Code; unused by rein.' }) };

/** Default timeout of `http` and `prompt` hooks, seconds (rein's choice: they answer over the network). */
export const DEFAULT_REMOTE_HOOK_TIMEOUT_S = 30;

export const httpHookSchema = z.object({
  type: z.literal('http').register(z.globalRegistry, { description: 'POST the event to a URL.' }),
  /** POSTed the event JSON; the response body is the hook's answer (as a command hook's stdout). */
  url: z.string().regex(/^https?:\/\/\S+$/, 'expected an http:// or https:// URL').register(z.globalRegistry, { description: 'POSTed the event JSON; a 2xx response\'s body is the hook\'s answer (as a command hook\'s stdout).' }),
  /** Seconds before the request is abandoned (default 30). */
  timeout: z.number().positive().optional().register(z.globalRegistry, { description: 'Seconds before the request is abandoned (default 30; SessionEnd: 1.5).' }),
  /** Request headers; `$NAME` / `${NAME}` in a value is replaced by that environment variable when `allowedEnvVars` lists it. */
  headers: z.record(z.string(), z.string()).optional().register(z.globalRegistry, { description: 'Request headers; `$NAME` or `${NAME}` in a value is replaced by that environment variable when allowedEnvVars lists it.' }),
  /** Environment variables headers may use (anything else is refused at load, so no secret leaks by accident). */
  allowedEnvVars: z.array(z.string().min(1)).optional().register(z.globalRegistry, { description: 'Environment variables the headers may use; any other is refused when the preset loads.' }),
  onFailure: z.enum(['block', 'continue']).optional().register(z.globalRegistry, { description: 'What a timeout, a connection error or a non-2xx status means: `block` (the default for guard events) or `continue`.' }),
  ...uiFields,
}).strict();

export const promptHookSchema = z.object({
  type: z.literal('prompt').register(z.globalRegistry, { description: 'A small model decides, in a side request.' }),
  /** What the model is asked; `$ARGUMENTS` is replaced by the event JSON (appended when absent). */
  prompt: z.string().min(1).register(z.globalRegistry, { description: 'What the model is asked; `$ARGUMENTS` is replaced by the event JSON (appended when absent); it answers allow, deny or ask.' }),
  /** Model of the side request (default: a small fast model, PROMPT_HOOK_MODEL). */
  model: z.string().min(1).optional().register(z.globalRegistry, { description: 'Model of the side request (default claude-haiku-4-5).' }),
  /** Seconds before the request is abandoned (default 30). */
  timeout: z.number().positive().optional().register(z.globalRegistry, { description: 'Seconds before the request is abandoned (default 30; SessionEnd: 1.5).' }),
  onFailure: z.enum(['block', 'continue']).optional().register(z.globalRegistry, { description: 'What an unreadable answer, an API error or a timeout means: `block` (the default for guard events) or `continue`.' }),
  ...uiFields,
}).strict();

/** Any hook of a matcher group, told apart by `type`. */
export const hookSchema = z.discriminatedUnion('type', [commandHookSchema, httpHookSchema, promptHookSchema]);

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
  }).register(z.globalRegistry, { description: 'Which calls (tool name), sources or triggers the hooks run for: names such as `Write|Edit`, a regular expression, or empty for all.' }),
  hooks: z.array(hookSchema).min(1).register(z.globalRegistry, { description: 'The hooks to run, each of type command, http or prompt.' }),
}).strict();

export const shellHooksOptions = z.object(
  Object.fromEntries(SHELL_HOOK_EVENTS.map((e) => [e, z.array(matcherGroupSchema).optional().register(z.globalRegistry, { description: SHELL_HOOK_EVENT_DOCS[e] })])) as Record<ShellHookEvent, z.ZodOptional<z.ZodArray<typeof matcherGroupSchema>>>,
).strict();

export type CommandHook = z.output<typeof commandHookSchema>;
export type HttpHook = z.output<typeof httpHookSchema>;
export type PromptHook = z.output<typeof promptHookSchema>;
export type AnyHook = z.output<typeof hookSchema>;

/** What identifies a hook for de-duplication and in messages: its command, URL or prompt. */
export function hookLabel(h: AnyHook): string {
  return h.type === 'command' ? h.command : h.type === 'http' ? h.url : `prompt: ${h.prompt}`;
}
export type ShellHooksConfig = z.output<typeof shellHooksOptions>;

/** How a guard hook's failures end, as `rein hooks` reports it. */
export interface GuardFailure {
  event: ShellHookEvent;
  matcher: string;
  /** The command, the URL of an http hook, or `prompt: …` for a prompt hook. */
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
        // http and prompt hooks have no exit codes: any failure of theirs blocks unless `continue`.
        const fails = h.onFailure === 'continue' ? 'open' : h.onFailure === 'block' || h.type !== 'command' ? 'closed' : 'open on exit codes';
        out.push({ event, matcher: g.matcher ?? '', command: hookLabel(h), fails });
      }
    }
  }
  return out;
}
