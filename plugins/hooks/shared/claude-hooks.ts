/**
 * Claude Code's hook events on rein's hooks, whatever runs a hook: the shell-hooks plugin runs
 * commands, the SDK-hooks plugin asks the program driving rein. A handler's answer (its exit code
 * and JSON, or a callback's JSON) feeds back into rein's hooks:
 *
 *   PreToolUse         `permission` at PERMISSION_STAGE.POLICY (after deny and ask rules, so a hook's
 *                      allow never overrides them), and `preToolUse` for input rewrites and for
 *                      calls an earlier stage sent to the host
 *   PermissionRequest  `permissionRequest`, before host callbacks
 *   PostToolUse / PostToolUseFailure  `postToolUse` (feedback and context for the model)
 *   UserPromptSubmit   `userPromptSubmit`      Stop  `stop`      PreCompact  `preCompact`
 *   SessionStart, SessionEnd, SubagentStart, SubagentStop, PostCompact, Notification: observed
 *
 * Hooks of one event run in parallel; their answers are combined in configuration order (deny
 * beats ask beats allow; the last `updatedInput` wins). Text a hook sends to the model is
 * Unicode-sanitised and tagged with its origin.
 */
import { createKernelState, PERMISSION_REQUEST_STAGE, PERMISSION_STAGE, PluginError } from '../../../kernel/index.js';
import type { ContentBlock, Kernel, PermissionAsk, PermissionDecision, PermissionQuery, RunContext, ToolOutput } from '../../../kernel/index.js';
import { escapeXmlAttr, neutraliseReservedTags, sanitizeText } from '../../../lib/index.js';
import {
  compileMatcher, DEFAULT_HOOK_TIMEOUT_S, GUARD_EVENTS, SESSION_END_TIMEOUT_S, SHELL_HOOK_EVENTS,
  type HandlerBase, type HooksConfig, type ShellHookEvent,
} from './config.js';
import type { HookJson, HookOutcome } from './outcome.js';

/** Runs one handler: a shell command, a host callback. */
export interface HookRunner<H extends HandlerBase> {
  /**
   * Runs `hook` with the event's JSON input (`session_id`, `hook_event_name`, the event's fields).
   * Never throws: a crash or timeout is a `failure` outcome.
   */
  run(hook: H, input: Record<string, unknown>, opts: { event: ShellHookEvent; timeoutMs: number; ctx: RunContext; toolUseId?: string }): Promise<HookOutcome>;
  /** How messages name the handler (`PreToolUse hook \`./check.sh\``). */
  label(hook: H): string;
  /** Handlers with the same key run once per event. */
  key(hook: H): string;
  /** The timeout of a handler that sets none, seconds; unset: DEFAULT_HOOK_TIMEOUT_S (SessionEnd: SESSION_END_TIMEOUT_S). */
  defaultTimeoutS?(hook: H): number | undefined;
}

interface Group<H> { match: (v: string | undefined) => boolean; hooks: H[] }
interface Ran<H> { hook: H; outcome: HookOutcome }

/** A hook's answer to a permission ask (Claude Agent SDK's PermissionResult shape). */
type HookAnswer = { behavior: 'allow'; updatedInput?: Record<string, unknown> } | { behavior: 'deny'; message: string; interrupt?: boolean };

/**
 * What the permission plugins publish in kernel state (plugins/permissions/shared/): the mode in
 * force, and `check`, which turns an answer into a decision and checks a rewritten input against the
 * deny rules again. Read here, not imported: a plugin never imports another family's modules.
 */
const permissionState = createKernelState('permissions', () => ({ context: undefined as { mode: string } | undefined }));
const answerState = createKernelState('permissions/answer', () => ({
  check: undefined as ((ask: PermissionAsk, answer: HookAnswer, source: string) => PermissionDecision | undefined) | undefined,
}));

/**
 * A hook's answer as a permission decision, through the permission plugins' check. Without them
 * (a kernel with no permission plugin), an answer that rewrites the input is denied: no one could
 * check the new input against deny rules.
 */
function answerDecision(kernel: Kernel, ask: PermissionAsk, answer: HookAnswer, source: string): PermissionDecision | undefined {
  const check = answerState(kernel).check;
  if (check) return check(ask, answer, source);
  if (answer.behavior === 'deny') {
    return { behavior: 'deny', message: answer.message || `Permission to use ${ask.toolName} was denied by ${source}.`, reason: `denied by ${source}`, source, ...(answer.interrupt ? { interrupt: true } : {}) };
  }
  if (answer.updatedInput) {
    return { behavior: 'deny', message: `Permission to use ${ask.toolName} was denied: ${source} rewrote the input, and no permission plugin is loaded to check it.`, reason: `${source} rewrote the input with no permission rules to check it`, source };
  }
  return { behavior: 'allow', reason: `allowed by ${source}`, source };
}

/** Text from a hook on its way to the model: sanitised, reserved tags neutralised. */
function clean(s: string): string {
  return neutraliseReservedTags(sanitizeText(s).text);
}

/** Extra context from a hook, tagged with the event it came from. */
function contextBlock(event: string, text: string): string {
  return `<hook-context event="${escapeXmlAttr(event)}">\n${clean(text)}\n</hook-context>`;
}

function outputText(out: ToolOutput): string {
  const content = typeof out === 'object' && !Array.isArray(out) ? out.content : out;
  return typeof content === 'string' ? content : content.map((b: ContentBlock) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}

/** The PreToolUse answers of all hooks, combined. */
interface PreToolFold {
  decision?: 'allow' | 'deny' | 'ask';
  reason?: string;
  updatedInput?: Record<string, unknown>;
  additionalContext: string[];
  stop?: string;
}

const RANK = { allow: 1, ask: 2, deny: 3 } as const;

/** The hooks of one plugin instance, tapped into a kernel with `install()`. */
export class ClaudeHooks<H extends HandlerBase> {
  private readonly groups = new Map<ShellHookEvent, Group<H>[]>();
  /** PreToolUse results kept from the permission stage for `preToolUse`, by tool_use id. */
  private readonly preResults = new Map<string, PreToolFold>();
  /** Permission queries made by this plugin to re-check a rewritten input (skipped by its own tap). */
  private readonly innerQueries = new WeakSet<PermissionQuery>();
  private sessionContext: string[] = [];
  /** Hooks run so far (for hook ids in `hook` events). */
  private hookRuns = 0;
  private readonly background = new Set<Promise<unknown>>();

  /** `name`: the plugin's name, used for taps and notices. */
  constructor(private readonly kernel: Kernel, config: HooksConfig<H>, private readonly runner: HookRunner<H>, private readonly name: string) {
    for (const event of SHELL_HOOK_EVENTS) {
      const groups = config[event];
      if (!groups?.length) continue;
      this.groups.set(event, groups.map((g, i) => {
        try {
          return { match: compileMatcher(g.matcher), hooks: g.hooks };
        } catch (err) {
          throw new PluginError(this.name, `hooks.${event}[${i}].matcher: not a valid regular expression: ${(err as Error).message}`);
        }
      }));
    }
  }

  has(event: ShellHookEvent): boolean {
    return this.groups.has(event);
  }

  private notify(message: string, level: 'info' | 'warn' = 'warn'): void {
    this.kernel.emit({ type: 'notice', level, source: this.name, message });
  }

  /** Runs every hook of `event` whose matcher accepts `matchValue`; identical handlers run once. */
  async run(event: ShellHookEvent, matchValue: string | undefined, fields: Record<string, unknown>, ctx: RunContext): Promise<Ran<H>[]> {
    const hooks: H[] = [];
    const seen = new Set<string>();
    for (const g of this.groups.get(event) ?? []) {
      if (!g.match(matchValue)) continue;
      for (const h of g.hooks) {
        const key = this.runner.key(h);
        if (!seen.has(key)) { seen.add(key); hooks.push(h); }
      }
    }
    if (!hooks.length) return [];
    let transcriptPath: string | undefined;
    try { transcriptPath = this.kernel.transcript.file; } catch { transcriptPath = undefined; }
    const input = {
      session_id: ctx.sessionId, transcript_path: transcriptPath, cwd: ctx.cwd, hook_event_name: event,
      permission_mode: permissionState(this.kernel).context?.mode ?? 'default',
      // A child agent's call decided by these hooks: which agent made it (Claude Code's fields).
      ...(ctx.agent ? { agent_id: ctx.agent.id, agent_type: ctx.agent.type } : {}),
      ...fields,
    };
    const toolUseId = typeof fields.tool_use_id === 'string' ? fields.tool_use_id : undefined;
    return Promise.all(hooks.map(async (hook) => {
      const timeoutS = hook.timeout ?? (event === 'SessionEnd' ? SESSION_END_TIMEOUT_S : this.runner.defaultTimeoutS?.(hook) ?? DEFAULT_HOOK_TIMEOUT_S);
      const hookId = `${this.name}:${++this.hookRuns}`;
      const name = this.runner.label(hook);
      this.kernel.emit({ type: 'hook', phase: 'started', hookId, name, event });
      let outcome = await this.runner.run(hook, input, { event, timeoutMs: timeoutS * 1000, ctx, toolUseId });
      // `onFailure: block` makes a guard fail closed on any exit code but 0 and 2 as well, where
      // Claude Code's protocol lets the call run.
      if (outcome.kind === 'error' && hook.onFailure === 'block' && GUARD_EVENTS.has(event)) outcome = { kind: 'failure', message: `${outcome.message} (onFailure: block)` };
      this.kernel.emit({ type: 'hook', phase: 'response', hookId, name, event, outcome: outcome.kind === 'ok' || outcome.kind === 'block' ? 'success' : 'error', output: outcome.kind === 'ok' ? outcome.stdout : outcome.message });
      if (outcome.kind === 'error') this.notify(`${event} hook ${this.runner.label(hook)}: ${outcome.message}`);
      return { hook, outcome };
    }));
  }

  /** True when a failed hook must block: guard events fail closed unless the hook says otherwise. */
  private failureBlocks(event: ShellHookEvent, ran: Ran<H>): boolean {
    const blocks = GUARD_EVENTS.has(event) && ran.hook.onFailure !== 'continue';
    if (!blocks) this.notify(`${event} hook ${this.runner.label(ran.hook)} failed: ${ran.outcome.kind === 'failure' ? ran.outcome.message : ''}`);
    return blocks;
  }

  /** Runs PreToolUse hooks for a call and combines their answers. */
  async preToolUse(q: { toolName: string; toolUseId: string; input: Record<string, unknown> }, ctx: RunContext): Promise<PreToolFold> {
    const fold: PreToolFold = { additionalContext: [] };
    const set = (d: 'allow' | 'deny' | 'ask', reason: string) => {
      if (!fold.decision || RANK[d] > RANK[fold.decision]) { fold.decision = d; fold.reason = reason; }
    };
    for (const ran of await this.run('PreToolUse', q.toolName, { tool_name: q.toolName, tool_input: q.input, tool_use_id: q.toolUseId }, ctx)) {
      const o = ran.outcome;
      const who = `PreToolUse hook ${this.runner.label(ran.hook)}`;
      if (o.kind === 'failure') { if (this.failureBlocks('PreToolUse', ran)) set('deny', `${who} failed: ${o.message}`); continue; }
      if (o.kind === 'block') { set('deny', `${who}: ${clean(o.message)}`); continue; }
      if (o.kind !== 'ok' || !o.json) continue;
      const j: HookJson = o.json;
      const hso = j.hookSpecificOutput;
      if (j.continue === false) fold.stop = clean(j.stopReason ?? `stopped by ${who}`);
      const said = hso?.permissionDecision === 'defer' ? undefined : hso?.permissionDecision;
      const d = said ?? (j.decision === 'block' ? 'deny' : j.decision === 'approve' ? 'allow' : undefined);
      if (d) set(d, `${who}: ${clean(hso?.permissionDecisionReason ?? j.reason ?? `${d} without a reason`)}`);
      if (hso?.updatedInput) fold.updatedInput = hso.updatedInput;
      if (hso?.additionalContext) fold.additionalContext.push(contextBlock('PreToolUse', hso.additionalContext));
    }
    return fold;
  }

  /** The `permission` tap at the POLICY stage. */
  async policy(q: PermissionQuery, ctx: RunContext): Promise<PermissionDecision | undefined> {
    if (this.innerQueries.has(q) || !this.has('PreToolUse')) return undefined;
    const fold = await this.preToolUse(q, ctx);
    this.preResults.set(q.toolUseId, fold);
    if (fold.decision === 'deny') return { behavior: 'deny', message: `Blocked by a hook: ${fold.reason}`, reason: fold.reason, source: this.name };
    let inner: PermissionDecision | undefined;
    if (fold.updatedInput) {
      // The rewritten input is what will run: check it against every rule again.
      const again: PermissionQuery = { ...q, input: fold.updatedInput };
      this.innerQueries.add(again);
      inner = await this.kernel.hooks.permission.promise(again, ctx);
      if (inner?.behavior === 'deny') return { ...inner, reason: `a PreToolUse hook rewrote the input, and then: ${inner.reason ?? inner.message}` };
      if (inner?.behavior === 'ask' && inner.source === 'permissions') return inner;
    }
    if (fold.decision === 'ask') return { behavior: 'ask', message: `A hook asks for approval: ${fold.reason}`, reason: fold.reason, source: this.name };
    if (fold.decision === 'allow') return { behavior: 'allow', reason: fold.reason, source: this.name };
    return inner;
  }

  install(): void {
    const k = this.kernel;
    const h = k.hooks;
    if (this.has('PreToolUse')) {
      h.permission.tapPromise({ name: this.name, stage: PERMISSION_STAGE.POLICY }, (q, ctx) => this.policy(q, ctx));
      h.preToolUse.tapPromise(this.name, async (call, ctx) => {
        let fold = this.preResults.get(call.toolUseId);
        this.preResults.delete(call.toolUseId);
        if (!fold) {
          // Decided before the policy stage (an ask answered by the host): the hooks still guard it.
          fold = await this.preToolUse(call, ctx);
          if (fold.decision === 'deny' || fold.decision === 'ask') return { ...call, blocked: `Blocked by a hook: ${fold.reason}` };
        }
        const next = { ...call, additionalContext: [...call.additionalContext, ...fold.additionalContext] };
        if (fold.updatedInput) next.input = fold.updatedInput;
        if (fold.stop) return { ...next, blocked: fold.stop, preventContinuation: fold.stop };
        return next;
      });
    }
    if (this.has('PermissionRequest')) {
      h.permissionRequest.tapPromise({ name: this.name, stage: PERMISSION_REQUEST_STAGE.HOOKS }, async (ask, ctx) => {
        for (const ran of await this.run('PermissionRequest', ask.toolName, { tool_name: ask.toolName, tool_input: ask.input, tool_use_id: ask.toolUseId }, ctx)) {
          const o = ran.outcome;
          const who = `PermissionRequest hook ${this.runner.label(ran.hook)}`;
          const deny = (why: string): PermissionDecision => ({ behavior: 'deny', message: `Permission to use ${ask.toolName} was denied by a hook: ${why}`, reason: `${who}: ${why}`, source: this.name });
          if (o.kind === 'failure') { if (this.failureBlocks('PermissionRequest', ran)) return deny(`it failed: ${o.message}`); continue; }
          if (o.kind === 'block') return deny(clean(o.message));
          if (o.kind !== 'ok' || !o.json) continue;
          const d = o.json.hookSpecificOutput?.decision;
          if (d) return answerDecision(k, ask, d.behavior === 'deny' ? { behavior: 'deny', message: clean(d.message ?? ''), interrupt: d.interrupt === true } : { behavior: 'allow', updatedInput: d.updatedInput }, who);
          if (o.json.decision === 'block') return deny(clean(o.json.reason ?? 'blocked'));
          if (o.json.decision === 'approve') return answerDecision(k, ask, { behavior: 'allow' }, who);
        }
        return undefined;
      });
    }
    if (this.has('PostToolUse') || this.has('PostToolUseFailure')) {
      h.postToolUse.tapPromise(this.name, async (r, ctx) => {
        const event: ShellHookEvent = r.isError ? 'PostToolUseFailure' : 'PostToolUse';
        const text = outputText(r.output);
        const fields = r.isError
          ? { tool_name: r.toolName, tool_input: r.input, tool_use_id: r.toolUseId, error: text }
          : { tool_name: r.toolName, tool_input: r.input, tool_use_id: r.toolUseId, tool_response: text, duration_ms: Math.round(r.durationMs) };
        const extra: string[] = [];
        let stop: string | undefined;
        for (const ran of await this.run(event, r.toolName, fields, ctx)) {
          const o = ran.outcome;
          if (o.kind === 'failure') { this.failureBlocks(event, ran); continue; }
          // The tool already ran: a blocking answer can only tell the model.
          if (o.kind === 'block') { extra.push(contextBlock(event, o.message)); continue; }
          if (o.kind !== 'ok' || !o.json) continue;
          if (o.json.decision === 'block') extra.push(contextBlock(event, o.json.reason ?? 'a hook flagged this result'));
          if (o.json.hookSpecificOutput?.additionalContext) extra.push(contextBlock(event, o.json.hookSpecificOutput.additionalContext));
          if (o.json.continue === false) stop = clean(o.json.stopReason ?? `stopped by a ${event} hook`);
        }
        if (!extra.length && !stop) return r;
        return { ...r, additionalContext: [...r.additionalContext, ...extra], preventContinuation: r.preventContinuation ?? stop };
      });
    }
    h.userPromptSubmit.tapPromise(this.name, async (p, ctx) => {
      const context = [...this.sessionContext];
      this.sessionContext = [];
      let blocked: string | undefined;
      if (this.has('UserPromptSubmit')) {
        const prompt = p.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
        for (const ran of await this.run('UserPromptSubmit', undefined, { prompt }, ctx)) {
          const o = ran.outcome;
          const who = `UserPromptSubmit hook ${this.runner.label(ran.hook)}`;
          if (o.kind === 'failure') { if (this.failureBlocks('UserPromptSubmit', ran)) blocked ??= `${who} failed: ${o.message}`; continue; }
          if (o.kind === 'block') { blocked ??= `${who}: ${clean(o.message)}`; continue; }
          if (o.kind !== 'ok') continue;
          if (!o.json) { if (o.stdout) context.push(contextBlock('UserPromptSubmit', o.stdout)); continue; }
          if (o.json.decision === 'block') blocked ??= `${who}: ${clean(o.json.reason ?? 'blocked')}`;
          if (o.json.continue === false) blocked ??= clean(o.json.stopReason ?? `stopped by ${who}`);
          if (o.json.hookSpecificOutput?.additionalContext) context.push(contextBlock('UserPromptSubmit', o.json.hookSpecificOutput.additionalContext));
        }
      }
      if (!context.length && !blocked) return p;
      return { ...p, blocked: p.blocked ?? blocked, additionalContext: [...(p.additionalContext ?? []), ...context] };
    });
    if (this.has('SessionStart')) {
      h.sessionStart.tapPromise(this.name, async (s, ctx) => {
        for (const ran of await this.run('SessionStart', s.source, { source: s.source }, ctx)) {
          const o = ran.outcome;
          if (o.kind === 'failure') { this.failureBlocks('SessionStart', ran); continue; }
          if (o.kind !== 'ok') continue; // SessionStart cannot block the start
          const text = o.json?.hookSpecificOutput?.additionalContext ?? (o.json ? undefined : o.stdout);
          if (text) this.sessionContext.push(contextBlock('SessionStart', text));
        }
      });
    }
    if (this.has('Stop')) {
      h.stop.tapPromise(this.name, async (s, ctx) => {
        const last = s.message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
        for (const ran of await this.run('Stop', undefined, { stop_hook_active: s.stopHookActive, last_assistant_message: last }, ctx)) {
          const o = ran.outcome;
          if (o.kind === 'failure') { this.failureBlocks('Stop', ran); continue; }
          if (o.kind === 'block') return { action: 'block' as const, reason: clean(o.message) };
          if (o.kind !== 'ok' || !o.json) continue;
          if (o.json.continue === false) return { action: 'prevent' as const, reason: clean(o.json.stopReason ?? 'stopped by a Stop hook') };
          if (o.json.decision === 'block') return { action: 'block' as const, reason: clean(o.json.reason ?? 'a Stop hook asks to continue') };
        }
        return undefined;
      });
    }
    if (this.has('PreCompact')) {
      h.preCompact.tapPromise(this.name, async (c, ctx) => {
        const trigger = c.trigger === 'manual' ? 'manual' : 'auto';
        for (const ran of await this.run('PreCompact', trigger, { trigger, custom_instructions: c.instructions ?? '' }, ctx)) {
          const o = ran.outcome;
          if (o.kind === 'failure') { this.failureBlocks('PreCompact', ran); continue; }
          if (o.kind === 'block') return { ...c, cancel: clean(o.message) };
          if (o.kind === 'ok' && o.json?.decision === 'block') return { ...c, cancel: clean(o.json.reason ?? 'a PreCompact hook cancelled it') };
        }
        return c;
      });
    }
    this.observe('PostCompact', (tap) => h.postCompact.tapPromise(this.name, (c, ctx) => tap(ctx, c.trigger === 'manual' ? 'manual' : 'auto', { trigger: c.trigger === 'manual' ? 'manual' : 'auto', compact_summary: c.result.summary ?? '' })));
    this.observe('SubagentStart', (tap) => h.subagentStart.tapPromise(this.name, (s, ctx) => tap(ctx, s.preset, { agent_id: s.childSessionId, agent_type: s.preset })));
    this.observe('SubagentStop', (tap) => h.subagentStop.tapPromise(this.name, (s, ctx) => tap(ctx, s.preset, { agent_id: s.childSessionId, agent_type: s.preset, last_assistant_message: s.result?.text ?? '', stop_hook_active: false })));
    // A run's background hooks finish with the run; SessionEnd runs once, when the session closes.
    h.runEnd.tapPromise(this.name, async () => {
      await Promise.allSettled([...this.background]);
      this.preResults.clear();
    });
    if (this.has('SessionEnd')) {
      h.sessionEnd.tapPromise(this.name, async (s, ctx) => {
        await this.runObserved('SessionEnd', 'other', { reason: s.error ? 'error' : 'other' }, ctx);
        await Promise.allSettled([...this.background]);
      });
    }
    if (this.has('Notification')) {
      h.event.tap(this.name, (e) => {
        let message: string | undefined;
        let type = 'notice';
        if (e.type === 'permission_denied') { message = `rein denied ${e.denial.tool_name}: ${e.denial.reason}`; type = 'permission_denied'; }
        else if (e.type === 'notice' && (e.level === 'warn' || e.level === 'error') && e.source !== this.name) message = e.message;
        if (!message) return;
        const p = this.runObserved('Notification', type, { message, notification_type: type }, k.runContext());
        this.background.add(p);
        void p.finally(() => this.background.delete(p));
      });
    }
  }

  private async runObserved(event: ShellHookEvent, matchValue: string | undefined, fields: Record<string, unknown>, ctx: RunContext): Promise<void> {
    for (const ran of await this.run(event, matchValue, fields, ctx)) if (ran.outcome.kind === 'failure') this.failureBlocks(event, ran);
  }

  private observe(event: ShellHookEvent, install: (tap: (ctx: RunContext, match: string | undefined, fields: Record<string, unknown>) => Promise<void>) => void): void {
    if (this.has(event)) install((ctx, match, fields) => this.runObserved(event, match, fields, ctx));
  }
}

