/**
 * The simulator engine: an offline Messages API. `handle(body, {headers, now})` validates a
 * request, applies its context edits, accounts its prompt against the simulator's prompt cache,
 * asks the responder for an answer and returns the full API response (the JSON message and the
 * SSE event list) or the API error. Cache state persists across requests; the clock is injectable.
 * Everything is synchronous and deterministic: ids are `msg_sim_0001`, `toolu_sim_0001_1`,
 * `req_sim_0001`, ...
 */
import { type QuerySource, type StopReason } from '../kernel/index.js';
import { BYTE_COUNTER, countRequestTokens, TOKEN_COUNTERS, type ContentTokenCounter as TokenCounter } from '../lib/index.js';
import { accountPrefix, type CacheAccounting, type CacheUsage } from './accounting.js';
import { PromptCache } from './cache.js';
import { applyContextManagement, dropEarlierThinking, hasThinkingEdit, type AppliedEdit } from './context-edits.js';
import { errorTypeFor, DEFAULT_ERROR_MESSAGE, SimulatorApiError, type ApiErrorBody } from './errors.js';
import { contextWindow, keepsEarlierThinking, minCacheableTokens as tableMinimum } from './models.js';
import { buildPrefix, type PromptPrefix } from './prefix.js';
import { createEchoResponder } from './responders/echo.js';
import { createScriptResponder } from './responders/script.js';
import type { Delivery, DraftBlock, Fault, Reply, Responder, ResponderResult } from './responders/types.js';
import type { Scenario } from './scenario.js';
import { classifySource, defaultSideReply } from './side.js';
import { buildStreamEvents, type SseEvent } from './sse.js';
import { ValidatedHistory, validateRequest } from './validate.js';
import { THINKING_BINDING_BETA, ThinkingBindings, type InputTransformation } from './preserved-thinking.js';

export interface SimulatorOptions {
  /** Play this scenario (the `script` responder). */
  scenario?: Scenario;
  /** Or answer with this responder. Neither: the `echo` responder. */
  responder?: Responder;
  /** The simulator's clock, ms. Default `Date.now`. `handle(..., {now})` overrides it per request. */
  clock?: () => number;
  /** Model used when a request has none (in-process convenience; over HTTP the field is required). */
  defaultModel?: string;
  /** Minimum cacheable prefix, tokens: a number for every model, or a function of the model id. Default: the per-model table (models.ts). */
  minCacheableTokens?: number | ((model: string) => number);
  /**
   * How input tokens are counted: `bytes` (rein's documented estimate, lib/tokens/estimate.ts; the
   * default, easy to work out by hand) or `calibrated` (fitted on provider usage,
   * lib/tokens/counter.ts), or any TokenCounter.
   */
  tokenCounter?: 'bytes' | 'calibrated' | TokenCounter;
  /**
   * Counters to start from, for a resumed session: `mainTurns` already played (the scenario goes
   * on with the next turn), `messages` and `requests` already answered (ids stay unique).
   */
  startAt?: Partial<Pick<SimulatorStats, 'mainTurns' | 'messages' | 'requests'>>;
}

export interface HandleOptions {
  /** Request headers (any case). `anthropic-beta` and `x-rein-source` are read. */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  /** The request's time on the simulator clock, ms. */
  now?: number;
}

/** Usage as the simulator reports it (the API's `usage` object). */
export interface SimUsage extends CacheUsage {
  output_tokens: number;
  service_tier: 'standard';
}

/** A complete assistant message as the API returns it. */
export interface SimMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Array<Record<string, any>>;
  stop_reason: StopReason;
  stop_sequence: string | null;
  usage: SimUsage;
  /** Present when the request had `context_management`. */
  context_management?: { applied_edits: AppliedEdit[] };
  /** Thinking blocks removed before the model read the request; present only with the thinking-binding beta (preserved-thinking.ts). */
  input_transformations?: InputTransformation[];
}

export interface SimResponse {
  /** HTTP status. */
  status: number;
  /** The `request-id` header value. */
  requestId: string;
  /** Extra response headers (`retry-after`, a fault's own headers). */
  headers: Record<string, string>;
  /** The non-streaming JSON body: the message, or the error body. */
  body: SimMessage | ApiErrorBody | Record<string, unknown>;
  /** The message on success. */
  message?: SimMessage;
  /**
   * The SSE events of a streamed answer (empty on error). Made when first read (then kept): only the
   * HTTP server streams them, and a replay in the same process reads the message alone.
   */
  readonly events: SseEvent[];
  /** The error body when status is not 200. */
  error?: ApiErrorBody;
  /** Transport faults the server must play (slow first byte, cut, idle). */
  delivery?: Delivery;
  /** The scripted fault that produced this response, if any. */
  fault?: Fault;
  source: QuerySource;
  sourceBy: 'header' | 'heuristic';
  /** Cache accounting of the request (absent when it was rejected before accounting). */
  accounting?: CacheAccounting;
  /** The prompt as the cache saw it (after context edits): blocks with tokens and prefix hashes, breakpoints. */
  prefix?: PromptPrefix;
  /** The request as the model read it after the context edits, when the request had `context_management`. */
  edited?: Record<string, any>;
  /** 1-based main turn consumed, if the request went to the main responder. */
  mainTurn?: number;
}

export interface CountTokensResponse {
  status: number;
  requestId: string;
  body: { input_tokens: number; context_management?: { original_input_tokens: number } } | ApiErrorBody;
}

export interface SimulatorStats {
  requests: number;
  messages: number;
  errors: number;
  mainTurns: number;
}

export interface Simulator {
  /** Answers one `POST /v1/messages` body. Never throws for bad input: errors come back as responses. */
  handle(body: unknown, options?: HandleOptions): SimResponse;
  /** Answers one `POST /v1/messages/count_tokens` body (no cache change, no turn consumed). */
  countTokens(body: unknown, options?: HandleOptions): CountTokensResponse;
  /** The prompt cache (inspect or `clear()` it). */
  readonly cache: PromptCache;
  readonly stats: Readonly<SimulatorStats>;
}

const pad = (n: number) => String(n).padStart(4, '0');

/** Lower-cases header names and joins repeated values with commas. */
export function normalizeHeaders(h: HandleOptions['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  }
  return out;
}

/** The `anthropic-beta` flags of a request. */
export function betasOf(headers: Readonly<Record<string, string>>): Set<string> {
  return new Set((headers['anthropic-beta'] ?? '').split(',').map((s) => s.trim()).filter(Boolean));
}

/** Creates a simulator. See SimulatorOptions. */
export function createSimulator(options: SimulatorOptions = {}): Simulator {
  const responder = options.responder ?? (options.scenario ? createScriptResponder(options.scenario) : createEchoResponder());
  const clock = options.clock ?? Date.now;
  const cache = new PromptCache();
  const counter: TokenCounter = typeof options.tokenCounter === 'string' ? TOKEN_COUNTERS[options.tokenCounter] : options.tokenCounter ?? BYTE_COUNTER;
  // What the model reads: context edits first, then (models that do not keep it) earlier-turn thinking drops out.
  const visible = <R extends Record<string, any>>(request: R): R =>
    (keepsEarlierThinking(String(request.model)) || hasThinkingEdit(request) ? request : dropEarlierThinking(request as any) as R);
  // Thinking blocks this simulator produced, for the preserved-thinking checks of later requests.
  const bindings = new ThinkingBindings();
  // The last prefix per source: the next request of the same conversation reuses its unchanged blocks.
  const lastPrefix = new Map<QuerySource, PromptPrefix>();
  // The last valid request per source: its messages are not checked again (validate.ts).
  const validated = new ValidatedHistory();
  const start = options.startAt ?? {};
  const stats: SimulatorStats = { requests: start.requests ?? 0, messages: start.messages ?? 0, errors: 0, mainTurns: start.mainTurns ?? 0 };
  const minimum = (model: string) => {
    const m = options.minCacheableTokens;
    return typeof m === 'number' ? m : typeof m === 'function' ? m(model) : tableMinimum(model);
  };

  function errorResponse(status: number, requestId: string, body: ApiErrorBody | Record<string, unknown>, extra: Partial<SimResponse>): SimResponse {
    stats.errors++;
    const error = (body as ApiErrorBody).type === 'error' ? (body as ApiErrorBody) : undefined;
    return {
      status, requestId, headers: {}, body, events: [], source: 'main_loop', sourceBy: 'heuristic',
      ...(error ? { error } : {}), ...extra,
    };
  }

  function faultResponse(fault: Fault, requestId: string, extra: Partial<SimResponse>): SimResponse {
    const body: ApiErrorBody | Record<string, unknown> = typeof fault.body === 'object'
      ? fault.body
      : { type: 'error', error: { type: errorTypeFor(fault.status), message: fault.body ?? DEFAULT_ERROR_MESSAGE[fault.status] ?? `HTTP ${fault.status}` }, request_id: requestId };
    const headers: Record<string, string> = { ...(fault.headers ?? {}) };
    if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
    const r = errorResponse(fault.status, requestId, body, { ...extra, fault });
    r.headers = headers;
    if (fault.slowFirstByteMs) r.delivery = { slowFirstByteMs: fault.slowFirstByteMs };
    return r;
  }

  function handle(raw: unknown, opts: HandleOptions = {}): SimResponse {
    stats.requests++;
    const requestId = `req_sim_${pad(stats.requests)}`;
    const headers = normalizeHeaders(opts.headers);
    const now = opts.now ?? clock();
    let body: Record<string, any>;
    let accountingPrefix: PromptPrefix;
    let appliedEdits: AppliedEdit[] | undefined;
    let editedRequest: Record<string, any> | undefined;
    let transformations: InputTransformation[] = [];
    let betas: Set<string> = new Set();
    // Classified before validation, so a rejected request is logged under the source that sent it.
    let classified: ReturnType<typeof classifySource> = { source: 'main_loop', by: 'heuristic' };
    try {
      classified = classifySource(raw && typeof raw === 'object' && !Array.isArray(raw) ? raw as Record<string, any> : {}, headers);
    } catch {
      // A body too malformed to classify stays main_loop, the default; validation names its fault.
    }
    try {
      body = fillModel(raw, options.defaultModel);
      betas = betasOf(headers);
      validateRequest(body, { betas, history: validated, source: classified.source });
      const bound = bindings.check(body as any, betas);
      transformations = bound.transformations;
      const edited = applyContextManagement(bound.request as any, betas, counter);
      if (body.context_management != null) { appliedEdits = edited.appliedEdits; editedRequest = edited.request as Record<string, any>; }
      accountingPrefix = buildPrefix(visible(edited.request as any), lastPrefix.get(classified.source), counter);
      lastPrefix.set(classified.source, accountingPrefix);
      const window = contextWindow(body.model, betas);
      if (accountingPrefix.totalTokens > window) {
        throw new SimulatorApiError(400, `prompt is too long: ${accountingPrefix.totalTokens} tokens > ${window} maximum`, 'invalid_request_error');
      }
    } catch (err) {
      if (err instanceof SimulatorApiError) return errorResponse(err.status, requestId, err.body(requestId), { source: classified.source, sourceBy: classified.by });
      throw err;
    }

    const { source, by } = classified;
    let result: ResponderResult | undefined;
    let mainTurn: number | undefined;
    if (source !== 'main_loop') result = responder.respondSide?.({ body, headers, source, mainTurn: stats.mainTurns });
    if (!result) {
      if (source === 'main_loop' || source === 'subagent') {
        mainTurn = ++stats.mainTurns;
        result = responder.respond({ body, headers, source, mainTurn });
      } else {
        result = { reply: defaultSideReply(source, body) };
      }
    }
    const extra = { source, sourceBy: by, prefix: accountingPrefix, ...(mainTurn !== undefined ? { mainTurn } : {}), ...(editedRequest ? { edited: editedRequest } : {}) };
    if ('fault' in result) return faultResponse(result.fault, requestId, extra);

    const accounting = accountPrefix(cache, accountingPrefix, { now, minCacheableTokens: minimum(body.model) });
    const message = buildMessage(result.reply, body, accounting.usage, ++stats.messages, appliedEdits, counter);
    let events: SseEvent[] | undefined;
    bindings.record(body as any, message.model, message.content);
    if (betas.has(THINKING_BINDING_BETA)) message.input_transformations = transformations;
    return {
      status: 200,
      requestId,
      headers: {},
      body: message,
      message,
      get events(): SseEvent[] {
        return (events ??= buildStreamEvents(message));
      },
      ...(result.reply.delivery ? { delivery: result.reply.delivery } : {}),
      ...extra,
      accounting,
    };
  }

  function countTokens(raw: unknown, opts: HandleOptions = {}): CountTokensResponse {
    stats.requests++;
    const requestId = `req_sim_${pad(stats.requests)}`;
    try {
      const body = fillModel(raw, options.defaultModel);
      const betas = betasOf(normalizeHeaders(opts.headers));
      validateRequest(body, { countTokens: true, betas });
      const edited = applyContextManagement(bindings.check(body as any, betas).request as any, betas, counter);
      const input_tokens = countRequestTokens(counter, visible(edited.request as any));
      return {
        status: 200,
        requestId,
        body: edited.originalInputTokens !== undefined ? { input_tokens, context_management: { original_input_tokens: edited.originalInputTokens } } : { input_tokens },
      };
    } catch (err) {
      if (err instanceof SimulatorApiError) { stats.errors++; return { status: err.status, requestId, body: err.body(requestId) }; }
      throw err;
    }
  }

  return { handle, countTokens, cache, stats };
}

function fillModel(raw: unknown, defaultModel: string | undefined): Record<string, any> {
  if (raw && typeof raw === 'object' && !Array.isArray(raw) && defaultModel && (raw as any).model == null) {
    return { ...(raw as object), model: defaultModel };
  }
  return raw as Record<string, any>;
}

/** Turns a draft reply into the API message: ids, stop sequences, max_tokens, usage. */
function buildMessage(reply: Reply, body: Record<string, any>, cacheUsage: CacheUsage, seq: number, appliedEdits: AppliedEdit[] | undefined, counter: TokenCounter): SimMessage {
  const estimateBlockTokens = (b: unknown) => counter.block(b, false);
  const estimateTextTokens = (t: string) => (t ? counter.block(t, false) : 0);
  const id = `msg_sim_${pad(seq)}`;
  let toolN = 0;
  let content: Array<Record<string, any>> = reply.content.map((b: DraftBlock) =>
    b.type === 'tool_use' ? { type: 'tool_use', id: b.id ?? `toolu_sim_${pad(seq)}_${++toolN}`, name: b.name, input: b.input } : { ...b });
  // With `tool_choice: {type: "none"}` the API never answers with a tool call: a scripted one is dropped.
  const noTools = body.tool_choice?.type === 'none';
  if (noTools) content = content.filter((b) => b.type !== 'tool_use');
  let stop_reason: StopReason = noTools && reply.stop_reason === 'tool_use' ? 'end_turn' : reply.stop_reason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
  let stop_sequence: string | null = null;

  const stops: string[] = Array.isArray(body.stop_sequences) ? body.stop_sequences.filter((s: unknown): s is string => typeof s === 'string' && s.length > 0) : [];
  if (stops.length) {
    for (let i = 0; i < content.length; i++) {
      const b = content[i]!;
      if (b.type !== 'text') continue;
      let at = -1;
      let hit = '';
      for (const s of stops) {
        const k = b.text.indexOf(s);
        if (k >= 0 && (at < 0 || k < at)) { at = k; hit = s; }
      }
      if (at >= 0) {
        content = [...content.slice(0, i), { ...b, text: b.text.slice(0, at) }];
        stop_reason = 'stop_sequence';
        stop_sequence = hit;
        break;
      }
    }
  }

  let output = 0;
  const maxTokens: number = body.max_tokens;
  for (let i = 0; i < content.length; i++) {
    const b = content[i]!;
    const t = estimateBlockTokens(b);
    if (output + t <= maxTokens) { output += t; continue; }
    // The model would have been stopped here: keep what fits of a text or thinking block, drop the rest.
    const room = maxTokens - output;
    const kept = content.slice(0, i);
    const field = b.type === 'text' ? 'text' : b.type === 'thinking' ? 'thinking' : undefined;
    if (field && room > 0) {
      const cut = truncateToTokens(String(b[field]), room, estimateTextTokens);
      kept.push({ ...b, [field]: cut });
      output += estimateTextTokens(cut);
    }
    content = kept;
    stop_reason = 'max_tokens';
    stop_sequence = null;
    break;
  }
  output = Math.max(1, output);

  const o = reply.usage ?? {};
  const usage: SimUsage = {
    input_tokens: o.input_tokens ?? cacheUsage.input_tokens,
    cache_creation_input_tokens: o.cache_creation_input_tokens ?? cacheUsage.cache_creation_input_tokens,
    cache_read_input_tokens: o.cache_read_input_tokens ?? cacheUsage.cache_read_input_tokens,
    cache_creation: {
      ephemeral_5m_input_tokens: o.cache_creation?.ephemeral_5m_input_tokens ?? cacheUsage.cache_creation.ephemeral_5m_input_tokens,
      ephemeral_1h_input_tokens: o.cache_creation?.ephemeral_1h_input_tokens ?? cacheUsage.cache_creation.ephemeral_1h_input_tokens,
    },
    output_tokens: o.output_tokens ?? output,
    service_tier: 'standard',
  };
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: reply.model ?? body.model,
    content,
    stop_reason,
    stop_sequence,
    usage,
    ...(appliedEdits ? { context_management: { applied_edits: appliedEdits } } : {}),
  };
}

/** The longest prefix of `text` (whole code points) whose estimate is at most `tokens`. */
function truncateToTokens(text: string, tokens: number, estimateTextTokens: (t: string) => number): string {
  const cps = Array.from(text);
  let lo = 0;
  let hi = cps.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (estimateTextTokens(cps.slice(0, mid).join('')) <= tokens) lo = mid;
    else hi = mid - 1;
  }
  return cps.slice(0, lo).join('');
}
