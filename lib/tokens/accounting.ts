/**
 * Token accounting: how big the context is right now, for every threshold decision (auto-compaction,
 * snipping, microcompact by count, warnings).
 *
 * The count is the last main-loop response's usage (input + cache write + cache read + output:
 * everything the server saw and wrote) plus an estimate for what entered the history after it
 * (Claude Code behaviour). Tool results of one parallel batch sit in one
 * message and are counted once. When messages before that response changed since (compaction,
 * cleared results, snipped turns), the estimated difference is applied, so the count follows the
 * history it is asked about rather than the one that was sent.
 *
 * Implementation: `overhead = usage total − estimate(messages as sent + reply)` is what the server
 * counted that the estimator did not see (tools, system, the user-context reminder, estimator
 * error); `count(messages) = overhead + estimate(messages)`. While the history only grows this is
 * exactly "usage + estimate of the tail". Before the first response the overhead is the estimate
 * of the system prompt and tools.
 *
 * The estimator is pluggable (`setEstimator`); exact counts go through the API's
 * `POST /v1/messages/count_tokens` (`exact`).
 */
import {
  Incremental, presetSections, systemBlocks, type Kernel, type Message, type ModelRequest, type RunContext, type Usage,
} from '../../kernel/index.js';
import {
  estimateMessageTokens, estimateRequestTokens, estimateSystemTokens, estimateToolTokens, type EstimatableRequest,
} from './estimate.js';

/** A token estimator: the default is rein's (lib/tokens/estimate.ts). */
export interface Estimator {
  /** Tokens of one message's content. */
  message(message: { content: string | readonly unknown[] }): number;
  /** Tokens of a whole request (tools + system + messages). */
  request(request: EstimatableRequest): number;
}

/** rein's estimator: 4 bytes a token for text, 2 for JSON, 2,000 per image or document. */
export const defaultEstimator: Estimator = Object.freeze({
  message: estimateMessageTokens,
  request: estimateRequestTokens,
});

/**
 * Everything a response's usage says the server processed: `input_tokens +
 * cache_creation_input_tokens + cache_read_input_tokens + output_tokens`, tokens.
 * Missing cache fields count as 0.
 */
export function usageTotal(usage: Partial<Usage> | null | undefined): number {
  if (!usage) return 0;
  return (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.output_tokens ?? 0);
}

/** Input side of a usage: `input_tokens + cache_creation_input_tokens + cache_read_input_tokens`, tokens. */
export function usageInput(usage: Partial<Usage> | null | undefined): number {
  if (!usage) return 0;
  return (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
}

/** How a count was made. */
export interface ContextCount {
  /** The context's size, tokens. */
  tokens: number;
  /** Tokens outside the messages (tools, system, injected context, estimator correction). */
  overhead: number;
  /** Estimated tokens of the messages. */
  messages: number;
  /** `usage`: anchored on a response's usage; `estimate`: no response yet, everything estimated. */
  basis: 'usage' | 'estimate';
}

/** The per-kernel token counter every threshold plugin shares. */
export interface TokenCounter {
  /** The estimator in use. */
  readonly estimator: Estimator;
  /** Replaces the estimator (clears the per-message memo). */
  setEstimator(estimator: Estimator): void;
  /** Estimated tokens of one message (memoised per message object; messages are never mutated). */
  messageTokens(message: Message): number;
  /**
   * Estimated tokens of a list of messages. Kept as a running total: a call on the history after
   * it grew adds only the new messages (kernel/incremental.ts).
   */
  messagesTokens(messages: readonly Message[]): number;
  /** Size of the context if `messages` were sent now. */
  count(messages: readonly Message[]): ContextCount;
  /**
   * Makes sure the overhead is known before the first response: builds the system prompt and tool
   * list through the hooks (memoised sections make this cheap) and estimates them.
   */
  prime(ctx: RunContext): Promise<void>;
  /**
   * The exact input tokens of a request with `messages` and the last request's system and tools,
   * through `count_tokens`. Rejects with the client's error when the endpoint fails.
   */
  exact(messages: readonly Message[], ctx?: RunContext): Promise<number>;
  /** The last main-loop request as sent (after every `request` tap), if any. */
  readonly lastRequest: ModelRequest | undefined;
  /** The history array the last main-loop request was built from (its messages, before any tap). */
  readonly lastRequestHistory: readonly Message[] | undefined;
  /** Usage of the last main-loop response, if any. */
  readonly lastUsage: Usage | undefined;
  /** ms since the epoch when the last main-loop response arrived (its request was sent), if any. */
  readonly lastResponseAt: number | undefined;
}

/** Stage of the counter's own `request` tap: after every other tap, so it sees the final bytes. */
export const TOKEN_COUNTER_REQUEST_STAGE = 100_000;

/**
 * Where the counter is kept: in the kernel's own state, not in a module-level map, so a plugin
 * file a preset loads (which imports the installed package, a second copy of this module beside
 * the `rein` command's bundle) gets the same counter, with one set of taps and one running total.
 */
const COUNTER_KEY = 'tokens';

/**
 * The kernel's token counter, created (and its `request` / `response` taps added) on first use.
 * Plugins call it in `apply`.
 */
export function tokenCounter(kernel: Kernel): TokenCounter {
  let c = kernel.state.get(COUNTER_KEY) as TokenCounter | undefined;
  if (!c) {
    c = createCounter(kernel);
    kernel.state.set(COUNTER_KEY, c);
  }
  return c;
}

function createCounter(kernel: Kernel): TokenCounter {
  let estimator: Estimator = defaultEstimator;
  let memo = new WeakMap<object, number>();
  let overhead: number | undefined;
  let primedOverhead: number | undefined;
  let lastRequest: ModelRequest | undefined;
  let lastRequestHistory: { messages: readonly Message[]; length: number } | undefined;
  let lastUsage: Usage | undefined;
  let lastResponseAt: number | undefined;

  const messageTokens = (m: { content: string | readonly unknown[] }): number => {
    let n = memo.get(m);
    if (n === undefined) {
      n = estimator.message(m);
      memo.set(m, n);
    }
    return n;
  };
  // Running totals (totals[i] = tokens of the first i messages), kept as the history grows: a
  // long session's turn adds the new messages instead of summing the whole history again.
  const totals = new Incremental<{ content: string | readonly unknown[] }, number[]>({
    init: () => [0],
    add: (t, m) => { t.push(t[t.length - 1]! + messageTokens(m)); },
    truncate: (t, length) => { t.length = length + 1; },
  });
  const messagesTokens = (ms: readonly { content: string | readonly unknown[] }[]) => {
    const t = totals.update(ms);
    return t[t.length - 1]!;
  };
  const requestOverhead = (r: Pick<ModelRequest, 'system' | 'tools'>) => {
    let n = estimateSystemTokens(r.system as never);
    for (const t of r.tools ?? []) n += estimateToolTokens(t);
    return n;
  };

  kernel.hooks.request.tap({ name: 'tokens', stage: TOKEN_COUNTER_REQUEST_STAGE }, (params) => {
    lastRequest = params as ModelRequest;
    // The history grows in place after this request: remember how long it was.
    lastRequestHistory = { messages: kernel.messages, length: kernel.messages.length };
    return params;
  });
  kernel.hooks.response.tap('tokens', (info) => {
    if (info.source !== 'main_loop' && info.source !== 'subagent') return;
    const usage = info.usage;
    // The history the request was built from (the reply is not in it yet). Request taps may have
    // added to it (the user-context reminder, markers); what they added lands in the overhead,
    // which is where it belongs: every later request carries it too.
    const est = messagesTokens(kernel.messages) + estimator.message({ content: info.message.content as unknown as readonly unknown[] });
    overhead = usageTotal(usage) - est;
    lastUsage = usage;
    lastResponseAt = info.at + info.durationMs;
  });

  return {
    get estimator() { return estimator; },
    setEstimator(e) {
      estimator = e;
      memo = new WeakMap();
      totals.reset();
    },
    messageTokens,
    messagesTokens,
    count(messages) {
      const m = messagesTokens(messages);
      if (overhead !== undefined) return { tokens: Math.max(0, overhead + m), overhead, messages: m, basis: 'usage' };
      const o = lastRequest ? requestOverhead(lastRequest) : primedOverhead ?? fallbackOverhead(kernel);
      return { tokens: o + m, overhead: o, messages: m, basis: 'estimate' };
    },
    async prime(ctx) {
      if (overhead !== undefined || lastRequest || primedOverhead !== undefined) return;
      const sections = await kernel.hooks.systemPrompt.promise(presetSections(kernel.preset.system), ctx);
      const tools = kernel.hooks.toolDefinitions.call(kernel.tools.definitions(), ctx);
      primedOverhead = requestOverhead({ system: systemBlocks(sections), tools });
    },
    async exact(messages, ctx) {
      const c = ctx ?? kernel.runContext();
      await this.prime(c);
      const params: ModelRequest = {
        model: c.model,
        max_tokens: 1,
        messages: messages.map((msg) => ({ role: msg.role, content: msg.content })),
      };
      if (lastRequest?.system) params.system = lastRequest.system;
      if (lastRequest?.tools) params.tools = lastRequest.tools;
      if (lastRequest?.thinking) params.thinking = lastRequest.thinking;
      return kernel.client.countTokens(params);
    },
    get lastRequest() { return lastRequest; },
    get lastRequestHistory() {
      if (!lastRequestHistory) return undefined;
      const { messages, length } = lastRequestHistory;
      return messages.length === length ? messages : messages.slice(0, length);
    },
    get lastUsage() { return lastUsage; },
    get lastResponseAt() { return lastResponseAt; },
  };
}

/** Estimate of the preset's own system sections and the registered tools (no hooks run). */
function fallbackOverhead(kernel: Kernel): number {
  let n = estimateSystemTokens(systemBlocks(presetSections(kernel.preset.system)));
  for (const t of kernel.tools.definitions()) n += estimateToolTokens(t);
  return n;
}
