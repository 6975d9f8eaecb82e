/**
 * `cache/ttl`: chooses each marker's TTL, 5 minutes or 1 hour, from the cache cost model, after
 * `cache/breakpoints` has placed the markers.
 *
 * - The static prefix (the markers on tools and system blocks), which every request of the session
 *   reads, gets `1h` once the cost model expects the extra write (2× instead of 1.25× the input
 *   price) to be paid back by the re-writes it avoids: the expected end-of-turn gaps past 5 minutes
 *   over the expected rest of the session. Once chosen, 1h stays for the session.
 * - The tail (the markers on messages) gets `1h` when the static prefix has it and the cost model
 *   expects the next gap, weighted by the chance this reply ends the turn, to outlive 5 minutes.
 *
 * The API requires 1-hour entries to come before 5-minute ones in a request (prompt-caching docs,
 * "Mixing different TTLs"), so a message marker is never 1h after a 5m one. Each change of
 * decision is recorded in the transcript with the cost model's figures.
 */
import { z } from 'zod';
import {
  definePlugin, REQUEST_STAGE, type ModelRequest, withReplacedMessages,
} from '../../../kernel/index.js';
import { cacheCostModel, estimateSystemTokens, estimateToolTokens, type CacheTtl } from '../../../lib/index.js';

export const PLUGIN_NAME = 'cache/ttl';

export const ttlOptions = z.object({
  /** Let the tail (message markers) take 1h too, not only the static prefix. */
  tail: z.boolean().default(true).register(z.globalRegistry, { description: 'Let the message markers (the tail) take the 1-hour TTL too, when the static prefix has it and the next gap is likely to outlive 5 minutes; off, only tools and system may get 1h.' }),
}).strict();

/** A decision as recorded in the transcript. */
export interface TtlRecord {
  part: 'static' | 'tail';
  ttl: CacheTtl;
  /** Tokens under the markers the decision covers (estimated). */
  tokens: number;
  /** The cost model's figures for 1h over 5m, USD. */
  costUsd: number;
  savingUsd: number;
  request: number;
}

type Block = Record<string, unknown> & { cache_control?: { type: 'ephemeral'; ttl?: '1h' } | null };

const marker = (ttl: CacheTtl) => (ttl === '1h' ? { type: 'ephemeral' as const, ttl: '1h' as const } : { type: 'ephemeral' as const });

/** A copy of a marked block with the marker's TTL set to `ttl` (the block itself when it already has it). */
function withTtl<T>(block: T, ttl: CacheTtl): T {
  const b = block as Block;
  if (!b || typeof b !== 'object' || b.cache_control == null) return block;
  if ((b.cache_control.ttl ?? '5m') === ttl) return block;
  return { ...b, cache_control: marker(ttl) } as T;
}

/** Sets the TTL of every marker in a message's content; the same message when nothing changed. */
function messageWithTtl(m: ModelRequest['messages'][number], ttl: CacheTtl): ModelRequest['messages'][number] {
  if (!Array.isArray(m.content)) return m;
  let changed = false;
  const content = (m.content as unknown[]).map((b) => {
    const c = withTtl(b, ttl);
    if (c !== b) changed = true;
    return c;
  });
  return changed ? ({ ...m, content } as typeof m) : m;
}

/** Whether any marker in a message's content has `ttl`. */
function hasMarkerTtl(m: ModelRequest['messages'][number], ttl: CacheTtl): boolean {
  return Array.isArray(m.content) && (m.content as unknown[]).some((b) => (b as Block).cache_control != null && ((b as Block).cache_control!.ttl ?? '5m') === ttl);
}

/**
 * Sets the TTLs of a request's markers: `staticTtl` on tools and system, `tailTtl` on messages.
 * `tailTtl` 1h with `staticTtl` 5m would break the API's ordering rule and is lowered to 5m.
 * A 1h tail looks at every message (an older 5m marker would come before it); a 5m tail only at
 * the last `recent` messages, where the markers of rein's layouts are.
 */
export function applyTtls(params: ModelRequest, staticTtl: CacheTtl, tailTtl: CacheTtl, recent = 30): ModelRequest {
  const tail = staticTtl === '5m' ? '5m' : tailTtl;
  const tools = params.tools?.map((t) => withTtl(t, staticTtl));
  const system = Array.isArray(params.system) ? params.system.map((b) => withTtl(b, staticTtl)) : params.system;
  const from = tail === '1h' ? 0 : Math.max(0, params.messages.length - recent);
  const replacements: [number, ModelRequest['messages'][number]][] = [];
  for (let i = from; i < params.messages.length; i++) {
    if (!hasMarkerTtl(params.messages[i]!, tail === '1h' ? '5m' : '1h')) continue;
    replacements.push([i, messageWithTtl(params.messages[i]!, tail)]);
  }
  // In place while the list is the request's own (see withReplacedMessages), else a copy.
  const messages = replacements.length ? withReplacedMessages(params.messages, replacements) : params.messages;
  return { ...params, ...(tools ? { tools } : {}), ...(system !== undefined ? { system } : {}), messages } as ModelRequest;
}

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'chooses 5m or 1h per cache marker from the cost model (static prefix and tail), 1h entries before 5m ones',
  options: ttlOptions,
  apply(kernel, options) {
    const session = cacheCostModel(kernel);
    let staticTtl: CacheTtl = '5m';
    let lastTail: CacheTtl = '5m';
    let n = 0;
    // Tokens of each tool definition, counted once per definition object: the definitions are the
    // same objects from one request to the next (only a marked copy of the last one is new), and
    // counting serialises each to JSON. A definition is not edited in place once sent.
    const toolTokens = new WeakMap<object, number>();
    const toolTokensOf = (t: unknown): number => {
      if (!t || typeof t !== 'object') return estimateToolTokens(t);
      let k = toolTokens.get(t);
      if (k === undefined) toolTokens.set(t, (k = estimateToolTokens(t)));
      return k;
    };
    const record = (r: TtlRecord) => kernel.transcript.append({ type: 'plugin', plugin: PLUGIN_NAME, data: r });

    kernel.hooks.request.tap({ name: PLUGIN_NAME, stage: REQUEST_STAGE.CACHE_BREAKPOINTS + 10 }, (raw) => {
      const params = raw as ModelRequest;
      n++;
      const cm = session.model;
      const snap = session.snapshot;
      const user = cm.gaps.params('user');
      const tool = cm.gaps.params('tool');
      // The share of waits that are a person's: how often a reply ends the turn.
      const pEnd = user.n + tool.n > 0 ? user.n / (user.n + tool.n) : 0.5;
      const model = params.model;
      if (staticTtl === '5m') {
        let tokens = 0;
        for (const t of params.tools ?? []) tokens += toolTokensOf(t);
        tokens += estimateSystemTokens(params.system as never);
        const remaining = cm.expectedRemainingRequests(snap?.requests ?? 0);
        const est = cm.ttl(model, { tokens, kind: 'user', remainingGaps: remaining * pEnd });
        if (est.choose === '1h') {
          staticTtl = '1h';
          record({ part: 'static', ttl: '1h', tokens, costUsd: est.costUsd, savingUsd: est.savingUsd, request: n });
        }
      }
      let tail: CacheTtl = '5m';
      if (options.tail && staticTtl === '1h') {
        const tokens = Math.max(0, (snap?.cachedTokens ?? 0) - (snap?.tokens1h ?? 0));
        const est = cm.ttl(model, { tokens, kind: 'user', remainingGaps: pEnd });
        tail = est.choose;
        if (tail !== lastTail) record({ part: 'tail', ttl: tail, tokens, costUsd: est.costUsd, savingUsd: est.savingUsd, request: n });
      }
      lastTail = tail;
      if (staticTtl === '5m') return params;
      return applyTtls(params, staticTtl, tail);
    });
  },
});
