/**
 * rein's events in the shapes Claude Code's headless mode prints (`--output-format json` and
 * `stream-json`), which are the Claude Agent SDK's message types (`SDKMessage` in the SDK's
 * `sdk.d.ts`): `system/init`, `assistant`, `user`, `stream_event`, `system/compact_boundary`,
 * `system/api_retry`, `system/permission_denied` and `result`. Every line carries `session_id` and a
 * fresh `uuid`. rein's own extras stay, in fields those types do not have (`simulated`, `resumed`,
 * `side_usage`, `num_requests`, `rein_terminal_reason`, ...), and rein-only events keep the same
 * envelope: `{ type: 'system', subtype: ..., uuid, session_id }`.
 */
import { randomUUID } from 'node:crypto';
import { emptyUsage, addUsage } from '../../kernel/index.js';
import { costUsd } from '../../lib/index.js';
import type { AgentEvent, RunResult, StreamEvent, TerminalReason, Usage } from '../../kernel/index.js';

/** The `subtype` of the final result object for each terminal reason. */
export function resultSubtype(reason: TerminalReason): string {
  switch (reason) {
    case 'end_turn': return 'success';
    case 'max_turns': return 'error_max_turns';
    case 'budget_exhausted': return 'error_max_budget_usd';
    default: return 'error_during_execution';
  }
}

/**
 * The result's `terminal_reason` in the Agent SDK's words (its `TerminalReason`); undefined where
 * the SDK has no word for rein's reason (rein's own is always in `rein_terminal_reason`). An abort
 * is `aborted_streaming` here; StreamFormatter makes it `aborted_tools` when tools were running.
 */
export function sdkTerminalReason(reason: TerminalReason): string | undefined {
  switch (reason) {
    case 'end_turn': return 'completed';
    case 'aborted': return 'aborted_streaming';
    case 'max_turns': case 'budget_exhausted': case 'prompt_too_long': case 'blocking_limit':
    case 'model_error': case 'stop_hook_prevented': case 'hook_stopped':
      return reason;
    default: return undefined;
  }
}

/** The Agent SDK's `SDKAssistantMessageError` for a failed request's HTTP status. */
export function retryErrorKind(status: number | undefined): string {
  if (status === 401 || status === 403) return 'authentication_failed';
  if (status === 429) return 'rate_limit';
  if (status === 529) return 'overloaded';
  if (status === 400 || status === 413) return 'invalid_request';
  if (status === 404) return 'model_not_found';
  if (status !== undefined && status >= 500) return 'server_error';
  return 'unknown';
}

/**
 * Usage in the Messages API's full shape (every field of the beta `Usage` object), as the Agent
 * SDK's types expect it on assistant messages and results. Fields the simulator and the API leave
 * out get their neutral value.
 */
export function usageJson(u: Usage) {
  return {
    input_tokens: u.input_tokens,
    cache_creation_input_tokens: u.cache_creation_input_tokens,
    cache_read_input_tokens: u.cache_read_input_tokens,
    output_tokens: u.output_tokens,
    cache_creation: u.cache_creation ?? { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
    service_tier: 'standard' as const,
    inference_geo: '',
    iterations: [],
    output_tokens_details: { thinking_tokens: 0 },
    speed: 'standard' as const,
    fallback_credit: null,
  };
}

/**
 * A content block as the API returns it: fields the simulator (or an older API version) leaves
 * out get the API's value for "none" (`citations: null` on text), so a reader typed against the
 * current Messages API (the Agent SDK's `BetaContentBlock`) reads every block.
 */
function apiBlock(b: unknown): unknown {
  const block = b as { type?: string; citations?: unknown };
  return block?.type === 'text' && block.citations === undefined ? { ...block, citations: null } : b;
}

/** A streaming event with the fields the current API sends filled in where they are missing. */
function apiEvent(e: StreamEvent): unknown {
  switch (e.type) {
    case 'message_start':
      return { ...e, message: { ...{ container: null, context_management: null, diagnostics: null, stop_details: null }, ...(e.message as object), content: e.message.content.map(apiBlock), usage: usageJson(e.message.usage as unknown as Usage) } };
    case 'content_block_start':
      return { ...e, content_block: apiBlock(e.content_block) };
    case 'message_delta':
      return {
        context_management: null,
        ...e,
        delta: { ...{ container: null, stop_details: null }, ...(e.delta as object) },
        usage: { ...{ fallback_credit: null, iterations: null, output_tokens_details: null, server_tool_use: null, cache_creation_input_tokens: null, cache_read_input_tokens: null, input_tokens: null }, ...(e.usage as object) },
      };
    default:
      return e;
  }
}

/** How the run was served: `simulated` when its tokens and cost come from rein's simulator, not a bill. */
export interface RunSource {
  simulated?: boolean;
}

/** Per-model totals as the result's `modelUsage` reports them (tokens; `costUSD` in USD). */
interface ModelTotals { usage: Usage; costUSD: number }

/** What the formatter needs to know about the session besides the events. */
export interface SessionInfo {
  /** The permission mode in force. */
  permissionMode(): string;
  /** MCP servers and how each fared. */
  mcpServers(): { name: string; status: string }[];
  /** Subagent types the Task tool offers. */
  agents(): string[];
  /** Context window and output cap of the main model, tokens. */
  limits(): { contextWindow: number; maxOutputTokens: number };
  /** Where the API key came from: `ANTHROPIC_API_KEY` or `none`. */
  apiKeySource: string;
  /** rein's version. */
  version: string;
  /** True when rein's simulator serves the run: the result then says `simulated: true`. */
  simulated?: boolean;
}

/**
 * Turns a session's events into stream-json lines. One per printer: it keeps what a result
 * reports across turns (`modelUsage` and `total_cost_usd` are running totals for the session, as
 * in Claude Code; `usage` is the turn's) and the API time of each turn (`duration_api_ms`).
 */
export class StreamFormatter {
  private readonly models = new Map<string, ModelTotals>();
  private apiMs = 0;
  private costBefore = 0;
  private lastStopReason: string | null = null;
  /** What the run was doing: asking the model, or running the tools of its reply (an abort's `terminal_reason`). */
  private phase: 'model' | 'tools' = 'model';

  constructor(private readonly sessionId: () => string, private readonly info: SessionInfo) {}

  /**
   * Follows a run's events whatever the output format: a tool starting puts the run in its tools
   * until the next request starts (a `continue` transition), so an abort in between is the SDK's
   * `aborted_tools` rather than `aborted_streaming`.
   */
  observe(e: AgentEvent): void {
    if (e.type === 'tool_start') this.phase = 'tools';
    else if (e.type === 'transition' && e.transition.kind === 'continue') this.phase = 'model';
  }

  /** Counts a main-loop response: its model's totals and its time (ms). */
  response(model: string, usage: Usage, durationMs: number): void {
    this.apiMs += durationMs;
    const t = this.models.get(model) ?? { usage: emptyUsage(), costUSD: 0 };
    addUsage(t.usage, usage);
    t.costUSD += costUsd(model, usage).usd;
    this.models.set(model, t);
  }

  private envelope(body: Record<string, unknown>): Record<string, unknown> {
    return { ...body, uuid: randomUUID(), session_id: this.sessionId() };
  }

  private system(subtype: string, body: Record<string, unknown>): Record<string, unknown> {
    return this.envelope({ type: 'system', subtype, ...body });
  }

  /** The `system/init` line. */
  init(e: Extract<AgentEvent, { type: 'session_start' }>): Record<string, unknown> {
    return {
      type: 'system', subtype: 'init',
      apiKeySource: this.info.apiKeySource,
      claude_code_version: this.info.version,
      cwd: e.cwd,
      tools: e.tools,
      mcp_servers: this.info.mcpServers(),
      model: e.model,
      permissionMode: this.info.permissionMode(),
      slash_commands: [],
      output_style: 'default',
      skills: [],
      plugins: [],
      agents: this.info.agents(),
      uuid: randomUUID(),
      session_id: e.sessionId,
      // rein's own
      simulated: e.simulated,
      resumed: e.resumed,
      rein_version: this.info.version,
    };
  }

  /** A `user` line for a message that enters the history (a typed prompt, tool results). */
  user(content: unknown, opts: { replay?: boolean; uuid?: string } = {}): Record<string, unknown> {
    return {
      type: 'user', message: { role: 'user', content }, parent_tool_use_id: null,
      ...(opts.replay ? { isReplay: true } : {}),
      uuid: opts.uuid ?? randomUUID(), session_id: this.sessionId(),
    };
  }

  /**
   * The final result object (one line in stream-json, the whole output in json). A simulated run
   * adds rein's `simulated: true`, so no reader takes its `total_cost_usd` for money spent.
   */
  result(r: RunResult): Record<string, unknown> {
    const subtype = resultSubtype(r.terminalReason);
    const modelUsage: Record<string, unknown> = {};
    const { contextWindow, maxOutputTokens } = this.info.limits();
    for (const [model, t] of this.models) {
      modelUsage[model] = {
        inputTokens: t.usage.input_tokens,
        outputTokens: t.usage.output_tokens,
        cacheReadInputTokens: t.usage.cache_read_input_tokens,
        cacheCreationInputTokens: t.usage.cache_creation_input_tokens,
        cacheCreationEphemeral5mInputTokens: t.usage.cache_creation?.ephemeral_5m_input_tokens ?? 0,
        cacheCreationEphemeral1hInputTokens: t.usage.cache_creation?.ephemeral_1h_input_tokens ?? 0,
        webSearchRequests: 0,
        costUSD: Number(t.costUSD.toFixed(6)),
        contextWindow,
        maxOutputTokens,
      };
    }
    // The running total of this process's runs (earlier runs of a multi-turn stream plus this one,
    // side requests included); a resumed session starts again from 0.
    const total = this.costBefore + r.totalCostUsd;
    this.costBefore = total;
    const sdkReason = r.terminalReason === 'aborted' && this.phase === 'tools' ? 'aborted_tools' : sdkTerminalReason(r.terminalReason);
    const out: Record<string, unknown> = {
      type: 'result',
      subtype,
      is_error: r.isError,
      duration_ms: r.durationMs,
      duration_api_ms: Math.round(this.apiMs),
      num_turns: r.numTurns,
      result: r.text,
      stop_reason: this.lastStopReason,
      session_id: r.sessionId,
      total_cost_usd: Number(total.toFixed(6)),
      usage: usageJson(r.usage),
      modelUsage,
      permission_denials: r.permissionDenials,
      ...(r.structuredOutput !== undefined ? { structured_output: r.structuredOutput } : {}),
      ...(subtype !== 'success' ? { errors: [r.terminalDetail ?? r.terminalReason] } : {}),
      ...(sdkReason ? { terminal_reason: sdkReason } : {}),
      uuid: randomUUID(),
      // rein's own
      rein_terminal_reason: r.terminalReason,
      side_usage: Object.fromEntries(Object.entries(r.sideUsage).map(([k, v]) => [k, usageJson(v!)])),
      num_requests: r.numRequests,
      model: r.model,
      ...(this.info.simulated ? { simulated: true } : {}),
    };
    this.apiMs = 0;
    this.lastStopReason = null;
    this.phase = 'model';
    return out;
  }

  /** One stream-json line for an event, or undefined for events the stream does not show. */
  line(e: AgentEvent, opts: { partial?: boolean; replayUserMessages?: boolean; hookEvents?: boolean } = {}): Record<string, unknown> | undefined {
    switch (e.type) {
      case 'session_start':
        return this.init(e);
      case 'user_message':
        // The typed prompt is the caller's own: echoed only when asked (--replay-user-messages).
        return opts.replayUserMessages ? this.user(e.message.content, { replay: true }) : undefined;
      case 'assistant_message':
        this.lastStopReason = e.stopReason;
        return this.envelope({
          type: 'assistant',
          message: {
            id: e.id ?? `msg_rein_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
            type: 'message', role: 'assistant', model: e.model, content: e.message.content.map(apiBlock),
            stop_reason: e.stopReason, stop_sequence: e.stopSequence ?? null, stop_details: null,
            usage: usageJson(e.usage), container: null, context_management: null, diagnostics: null,
          },
          parent_tool_use_id: null,
          ...(e.requestId ? { request_id: e.requestId } : {}),
        });
      case 'tool_results':
        return this.user(e.message.content);
      case 'permission_denied':
        return this.system('permission_denied', {
          tool_name: e.denial.tool_name, tool_use_id: e.denial.tool_use_id, decision_reason: e.denial.reason, message: e.denial.reason,
          tool_input: e.denial.tool_input,
        });
      case 'api_retry':
        return this.system('api_retry', {
          attempt: e.attempt, max_retries: e.maxRetries ?? e.attempt, retry_delay_ms: e.delayMs, error_status: e.status ?? null,
          error: retryErrorKind(e.status), error_message: e.error, source: e.source,
        });
      case 'model_fallback':
        return this.system('model_fallback', { from: e.from, to: e.to, reason: e.reason });
      case 'compact':
        return this.system('compact_boundary', {
          compact_metadata: { trigger: e.trigger === 'manual' ? 'manual' : 'auto', pre_tokens: e.tokensBefore, post_tokens: e.tokensAfter },
          rein_trigger: e.trigger, strategy: e.strategy,
        });
      case 'notice':
        return this.system('notice', { level: e.level, source: e.source, message: e.message });
      case 'transition':
        return this.system('transition', { kind: e.transition.kind, reason: e.transition.reason, turn: e.transition.turn, ...(e.transition.detail ? { detail: e.transition.detail } : {}) });
      case 'hook':
        if (!opts.hookEvents) return undefined;
        return e.phase === 'started'
          ? this.system('hook_started', { hook_id: e.hookId, hook_name: e.name, hook_event: e.event })
          : this.system('hook_response', { hook_id: e.hookId, hook_name: e.name, hook_event: e.event, output: e.output ?? '', stdout: e.outcome === 'success' ? e.output ?? '' : '', stderr: e.outcome === 'success' ? '' : e.output ?? '', outcome: e.outcome ?? 'success' });
      case 'stream_event':
        return opts.partial ? this.envelope({ type: 'stream_event', event: apiEvent(e.event), parent_tool_use_id: null }) : undefined;
      case 'result':
        return this.result(e.result);
      default:
        return undefined;
    }
  }
}

/**
 * A short human report of a run's usage and cache behaviour (text mode, on stderr). A simulated
 * run's figures say they are simulated.
 */
export function usageReport(r: RunResult, source: RunSource = {}): string {
  const u = r.usage;
  const input = u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
  const share = input ? (u.cache_read_input_tokens / input) * 100 : 0;
  const lines = [
    `rein: ${r.terminalReason} after ${r.numTurns} turn${r.numTurns === 1 ? '' : 's'} (${r.numRequests} request${r.numRequests === 1 ? '' : 's'}, ${(r.durationMs / 1000).toFixed(1)} s), session ${r.sessionId}`,
    ...(r.isError && r.terminalDetail ? [`rein: ${r.terminalReason}: ${r.terminalDetail}`] : []),
    `rein: ${source.simulated ? 'simulated tokens' : 'tokens'}: input ${u.input_tokens}, cache write ${u.cache_creation_input_tokens} (5m ${u.cache_creation?.ephemeral_5m_input_tokens ?? 0}, 1h ${u.cache_creation?.ephemeral_1h_input_tokens ?? 0}), cache read ${u.cache_read_input_tokens}, output ${u.output_tokens}`,
    `rein: cache-read share of input ${share.toFixed(1)}%, ${source.simulated ? `simulated cost $${r.totalCostUsd.toFixed(4)} at API prices (nothing was billed)` : `cost $${r.totalCostUsd.toFixed(4)}`}`,
  ];
  for (const [name, s] of Object.entries(r.sideUsage)) {
    lines.push(`rein: ${source.simulated ? 'simulated ' : ''}side requests (${name}): input ${s!.input_tokens + s!.cache_creation_input_tokens + s!.cache_read_input_tokens}, output ${s!.output_tokens}`);
  }
  if (r.permissionDenials.length) lines.push(`rein: ${r.permissionDenials.length} tool call(s) denied: ${r.permissionDenials.map((d) => `${d.tool_name} (${d.reason})`).join('; ')}`);
  return lines.join('\n');
}

/** Seconds for people: `4 s`, `0.6 s`, `32 s`. */
function seconds(ms: number): string {
  const s = ms / 1000;
  return `${s >= 10 || Number.isInteger(s) ? Math.round(s) : s.toFixed(1)} s`;
}

/**
 * The stderr line for a retry: what failed, which retry of how many, and the wait.
 * `rein: cannot reach api.anthropic.com: DNS lookup failed (ENOTFOUND); retry 1 of 1 in 0.6 s`.
 */
export function retryLine(e: Extract<AgentEvent, { type: 'api_retry' }>): string {
  const of = e.maxRetries !== undefined ? ` of ${e.maxRetries}` : '';
  const who = e.source === 'main_loop' ? '' : ` (${e.source} request)`;
  return `rein: ${e.error}${who}; retry ${e.attempt}${of} in ${seconds(e.delayMs)}`;
}
