/**
 * The price of forgetting: a closed-loop estimate of what a preset's lost facts would cost to get
 * back. For each source (a tool result, a prompt, an earlier reply) of the facts a step needed and
 * its context no longer held, the replay is charged one extra request at that step: its whole
 * prompt read from the cache (it was just sent), the source re-sent and written to the cache, and
 * the call that asks for it as output (the recorded tool_use block for a tool result; the fact's own
 * text for a prompt or a reply, which the agent would have to ask the user or re-derive).
 *
 * A source is charged once until the next summary compaction: after the re-fetch it is the newest
 * content of the context, which clearing strategies clear last. Later requests carrying the
 * re-fetched tokens are not charged (a lower bound of the closed-loop cost).
 */
import type { ContentTokenCounter } from '../../lib/index.js';
import { requestCost } from './efficiency.js';
import { sourceTokens, type FactSource, type NeededFact } from './recall.js';

/** One step's re-fetch charge. */
export interface RefetchCharge {
  /** Extra requests (one per source not already re-fetched since the last compaction). */
  requests: number;
  /** Tokens re-sent (the sources' tokens). */
  tokens: number;
  costUsd: number;
}

/**
 * Charges the re-fetch of `lost` at a step whose prompt was `promptTokens` long, sent to `model`.
 * `charged` holds the sources already re-fetched since the last compaction and gains the new ones.
 * Returns undefined when nothing new is charged.
 */
export function chargeRefetch(
  lost: readonly NeededFact[], sources: readonly FactSource[], promptTokens: number, model: string,
  charged: Set<number>, counter: ContentTokenCounter,
): RefetchCharge | undefined {
  const facts = new Map<number, NeededFact[]>();
  for (const f of lost) {
    if (charged.has(f.source)) continue;
    const list = facts.get(f.source);
    if (list) list.push(f);
    else facts.set(f.source, [f]);
  }
  if (!facts.size) return undefined;
  const out: RefetchCharge = { requests: 0, tokens: 0, costUsd: 0 };
  for (const [id, fs] of facts) {
    charged.add(id);
    const { tokens, askTokens } = sourceTokens(sources[id]!, counter);
    const ask = askTokens ?? fs.reduce((n, f) => n + counter.block(f.text, false), 0);
    out.requests++;
    out.tokens += tokens;
    out.costUsd += requestCost(model, { input: 0, cacheRead: promptTokens, cacheWrite5m: tokens, cacheWrite1h: 0, output: ask });
  }
  return out;
}
