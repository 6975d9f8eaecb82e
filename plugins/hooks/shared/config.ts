/**
 * What every Claude Code style hook handler shares, whatever runs it (a shell command, a callback
 * of the program driving rein): the event names, which events fail closed, the default timeouts,
 * and how a matcher selects the calls a hook runs for.
 */

/** Events rein runs hooks for (Claude Code's names). */
export const SHELL_HOOK_EVENTS = [
  'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest', 'UserPromptSubmit', 'Stop', 'SubagentStart',
  'SubagentStop', 'PreCompact', 'PostCompact', 'SessionStart', 'SessionEnd', 'Notification',
] as const;
export type ShellHookEvent = (typeof SHELL_HOOK_EVENTS)[number];

/**
 * When each event's hooks run and what their answer can do, one sentence each: the description of
 * the event's key in agent.schema.json (the preset's `hooks` and the hooks/shell plugin's options).
 */
export const SHELL_HOOK_EVENT_DOCS: Readonly<Record<ShellHookEvent, string>> = {
  PreToolUse: 'Hooks run before a tool call (matcher: the tool name), after deny and ask rules: they may deny, ask or allow it, rewrite its input, add context or stop the run.',
  PostToolUse: 'Hooks run after a tool call succeeds (matcher: the tool name): exit 2 or `decision: block` tells the model the reason; they may add context or stop the run.',
  PostToolUseFailure: 'Hooks run after a tool call fails (matcher: the tool name): exit 2 or `decision: block` tells the model the reason; they may add context or stop the run.',
  PermissionRequest: 'Hooks run when a call needs permission (matcher: the tool name), before the host is asked: they may allow or deny it.',
  UserPromptSubmit: 'Hooks run when a prompt is submitted: they may block it, or add context with stdout or `additionalContext`.',
  Stop: 'Hooks run when the agent ends its turn: exit 2 or `decision: block` continues the run with the reason; `continue: false` ends it.',
  SubagentStart: 'Hooks run when a child agent (the Task tool) starts (matcher: its type); observed only.',
  SubagentStop: 'Hooks run when a child agent finishes (matcher: its type); observed only.',
  PreCompact: 'Hooks run before a compaction (matcher: `manual` or `auto`): exit 2 or `decision: block` cancels it.',
  PostCompact: 'Hooks run after a compaction (matcher: `manual` or `auto`), with its summary; observed only.',
  SessionStart: 'Hooks run when a session starts (matcher: its source): stdout or `additionalContext` joins the first prompt.',
  SessionEnd: 'Hooks run when a session ends (default timeout 1.5 s); observed only.',
  Notification: 'Hooks run for notifications (denials and warnings; matcher: the notification type); observed only.',
};

/**
 * Guard events: a hook that crashes or times out blocks what it guards unless it says
 * `onFailure: continue`; a command hook that exits with a code other than 0 and 2 lets it through
 * (Claude Code's protocol) unless it says `onFailure: block`.
 */
export const GUARD_EVENTS: ReadonlySet<ShellHookEvent> = new Set(['PreToolUse', 'PermissionRequest', 'UserPromptSubmit']);

/** Default hook timeout, seconds (Claude Code's TOOL_HOOK_EXECUTION_TIMEOUT_MS = 10 min). */
export const DEFAULT_HOOK_TIMEOUT_S = 600;
/** Default SessionEnd hook timeout, seconds (Claude Code's 1,500 ms, so ending a run stays quick). */
export const SESSION_END_TIMEOUT_S = 1.5;

/** What every handler may say about itself. */
export interface HandlerBase {
  /** Seconds before the hook is given up on. */
  timeout?: number;
  /** What a crash or timeout means: `block` (the default for guard events) or `continue`. */
  onFailure?: 'block' | 'continue';
}

/** Hooks of each event: matcher groups, each with its handlers. */
export type HooksConfig<H extends HandlerBase> = Partial<Record<ShellHookEvent, { matcher?: string; hooks: H[] }[]>>;

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
