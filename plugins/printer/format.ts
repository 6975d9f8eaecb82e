/**
 * rein's events in the shapes Claude Code's headless mode prints (`--output-format json` and
 * `stream-json`), so tools that read those outputs read rein's unchanged. rein-only events keep the
 * same envelope: `{ type: 'system', subtype: ..., session_id }`.
 */
import type { AgentEvent, RunResult, TerminalReason, Usage } from '../../kernel/index.js';

/** The `subtype` of the final result object for each terminal reason. */
export function resultSubtype(reason: TerminalReason): string {
  switch (reason) {
    case 'end_turn': return 'success';
    case 'max_turns': return 'error_max_turns';
    case 'budget_exhausted': return 'error_max_budget_usd';
    default: return 'error_during_execution';
  }
}

function usageJson(u: Usage) {
  return {
    input_tokens: u.input_tokens,
    cache_creation_input_tokens: u.cache_creation_input_tokens,
    cache_read_input_tokens: u.cache_read_input_tokens,
    output_tokens: u.output_tokens,
    cache_creation: u.cache_creation ?? { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
  };
}

/** How the run was served: `simulated` when its tokens and cost come from rein's simulator, not a bill. */
export interface RunSource {
  simulated?: boolean;
}

/**
 * The final result object (one line in stream-json, the whole output in json). A simulated run
 * adds rein's `simulated: true`, so no reader takes its `total_cost_usd` for money spent.
 */
export function resultJson(r: RunResult, source: RunSource = {}): Record<string, unknown> {
  return {
    type: 'result',
    subtype: resultSubtype(r.terminalReason),
    is_error: r.isError,
    duration_ms: r.durationMs,
    num_turns: r.numTurns,
    result: r.text,
    session_id: r.sessionId,
    total_cost_usd: Number(r.totalCostUsd.toFixed(6)),
    usage: usageJson(r.usage),
    side_usage: Object.fromEntries(Object.entries(r.sideUsage).map(([k, v]) => [k, usageJson(v!)])),
    permission_denials: r.permissionDenials,
    terminal_reason: r.terminalReason,
    num_requests: r.numRequests,
    model: r.model,
    ...(source.simulated ? { simulated: true } : {}),
  };
}

/** One stream-json line for an event, or undefined for events the stream does not show. */
export function streamJson(e: AgentEvent, sessionId: string, opts: { partial?: boolean } & RunSource = {}): Record<string, unknown> | undefined {
  const sys = (subtype: string, body: Record<string, unknown>) => ({ type: 'system', subtype, ...body, session_id: sessionId });
  switch (e.type) {
    case 'session_start':
      return { type: 'system', subtype: 'init', cwd: e.cwd, session_id: e.sessionId, model: e.model, tools: e.tools, simulated: e.simulated, resumed: e.resumed };
    case 'user_message':
      return { type: 'user', message: { role: 'user', content: e.message.content }, parent_tool_use_id: null, session_id: sessionId };
    case 'assistant_message':
      return { type: 'assistant', message: { type: 'message', role: 'assistant', model: e.model, content: e.message.content, stop_reason: e.stopReason, usage: usageJson(e.usage) }, parent_tool_use_id: null, session_id: sessionId };
    case 'tool_results':
      return { type: 'user', message: { role: 'user', content: e.message.content }, parent_tool_use_id: null, session_id: sessionId };
    case 'permission_denied':
      return sys('permission_denied', { ...e.denial });
    case 'api_retry':
      return sys('api_retry', { attempt: e.attempt, retry_delay_ms: e.delayMs, error_status: e.status ?? null, error: e.error, source: e.source });
    case 'model_fallback':
      return sys('model_fallback', { from: e.from, to: e.to, reason: e.reason });
    case 'compact':
      return sys('compact_boundary', { compact_metadata: { trigger: e.trigger, pre_tokens: e.tokensBefore, post_tokens: e.tokensAfter, strategy: e.strategy } });
    case 'notice':
      return sys('notice', { level: e.level, source: e.source, message: e.message });
    case 'transition':
      return sys('transition', { kind: e.transition.kind, reason: e.transition.reason, turn: e.transition.turn, ...(e.transition.detail ? { detail: e.transition.detail } : {}) });
    case 'stream_event':
      return opts.partial ? { type: 'stream_event', event: e.event, session_id: sessionId } : undefined;
    case 'result':
      return resultJson(e.result, opts);
    default:
      return undefined;
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
