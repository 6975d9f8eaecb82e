/**
 * `cache/keepalive`: while a long tool call runs (or, when the preset allows, while a person reads
 * an answer), refreshes the prompt-cache entries of the last request before they expire, with a
 * minimal request (the same prefix, `max_tokens: 1`): a read at 0.1× the input price now instead
 * of a re-write at 1.25× (5m) or 2× (1h) later (platform.claude.com/docs prompt caching: every read
 * restarts an entry's TTL).
 *
 * Before each refresh it asks the cost model (`cacheCostModel`) whether the expected saving beats
 * the request's price, given what the agent waits on and how long it has waited; it stops when the
 * answer turns negative, after `maxPerWait` refreshes, and as soon as the next main-loop request is
 * built. Each decision is recorded in the transcript with its predicted saving. Keep-alive requests
 * are side requests (source `side`): the run's `sideUsage.side` and every report show them apart.
 */
import { z } from 'zod';
import {
  definePlugin, REQUEST_STAGE, type Kernel, type ModelRequest,
} from '../../../kernel/index.js';
import { cacheClock, cacheCostModel, KEEPALIVE_OUTPUT_TOKENS, TTL_SECONDS, type CacheTtl } from '../../../lib/index.js';

export const PLUGIN_NAME = 'cache/keepalive';

export const keepaliveOptions = z.object({
  /** Send the refresh this long before the entry expires, seconds (time for the request itself). */
  marginSeconds: z.number().min(1).max(240).default(30).register(z.globalRegistry, { description: 'Send the refresh this long before the cache entry expires, seconds (time for the refresh request itself).' }),
  /** Also keep the cache warm while waiting for a person (an end of turn). Off: a person's idle time is theirs. */
  idle: z.boolean().default(false).register(z.globalRegistry, { description: 'Also keep the cache warm while waiting for a person after an end of turn; off, a person\'s idle time is never paid for.' }),
  /** Most refreshes during one wait (12 × 5 minutes: an hour). */
  maxPerWait: z.number().int().min(1).default(12).register(z.globalRegistry, { description: 'Most refreshes during one wait (12 × 5 minutes: an hour).' }),
  /** Refresh only when the predicted net saving is above this, USD. */
  minNetUsd: z.number().min(0).default(0).register(z.globalRegistry, { description: 'Refresh only when the cost model\'s predicted saving minus the refresh\'s price is above this, USD.' }),
}).strict();

export type KeepaliveOptions = z.output<typeof keepaliveOptions>;

/** One decision, as recorded in the transcript. */
export interface KeepaliveRecord {
  /** When it was taken, ms on the cache clock. */
  at: number;
  /** Seconds since the entries' last use. */
  elapsedSeconds: number;
  /** Tokens the refresh would read. */
  prefixTokens: number;
  ttl: CacheTtl;
  /** What the agent was waiting on. */
  waiting: string;
  /** Probability that the next request comes after the expiry and before the refreshed one. */
  pNeeded: number;
  /** The cost model's figures, USD. */
  costUsd: number;
  savingUsd: number;
  sent: boolean;
  /** Why no request was sent, when none was. */
  reason?: string;
}

/** Counters for reports and tests. */
export interface KeepaliveStats { sent: number; skipped: number; failed: number; predictedNetUsd: number }

const stats = new WeakMap<Kernel, KeepaliveStats>();

/** The plugin's counters for a kernel. */
export function keepaliveStats(kernel: Kernel): KeepaliveStats | undefined {
  return stats.get(kernel);
}

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'refreshes prompt-cache entries before they expire during long tool calls, when the cost model says a read now beats a re-write later',
  options: keepaliveOptions,
  apply(kernel, options) {
    const session = cacheCostModel(kernel);
    const counters: KeepaliveStats = { sent: 0, skipped: 0, failed: 0, predictedNetUsd: 0 };
    stats.set(kernel, counters);
    let last: ModelRequest | undefined;
    let timer: unknown;
    let generation = 0;
    let refreshes = 0;

    const cancel = () => {
      generation++;
      if (timer !== undefined) cacheClock(kernel).clear(timer);
      timer = undefined;
    };

    const record = (r: KeepaliveRecord) => {
      if (r.sent) counters.sent++;
      else counters.skipped++;
      kernel.transcript.append({ type: 'plugin', plugin: PLUGIN_NAME, data: r });
    };

    const schedule = () => {
      const snap = session.snapshot;
      if (!snap || !last || snap.cachedTokens === 0) return;
      if (snap.waiting === 'user' && !options.idle) return;
      if (refreshes >= options.maxPerWait) return;
      const ttl: CacheTtl = snap.tokens1h >= snap.cachedTokens ? '1h' : '5m';
      const clock = cacheClock(kernel);
      const due = snap.lastUseAt + (TTL_SECONDS[ttl] - options.marginSeconds) * 1000;
      const mine = generation;
      timer = clock.setTimer(() => { timer = undefined; return mine === generation ? fire(mine, ttl) : undefined; }, Math.max(0, due - clock.now()));
    };

    const fire = async (mine: number, ttl: CacheTtl) => {
      const snap = session.snapshot;
      if (!snap || !last) return;
      const clock = cacheClock(kernel);
      const now = clock.now();
      const elapsedSeconds = (now - snap.lastUseAt) / 1000;
      // Only the part under 5-minute markers expires first; the refresh reads everything.
      const part = ttl === '1h' ? snap.cachedTokens : snap.cachedTokens - snap.tokens1h;
      const est = session.model.keepAlive(snap.model, { prefixTokens: part, ttl, elapsedSeconds, kind: snap.waiting });
      // With extended thinking on, max_tokens must exceed the budget (the thinking parameter must
      // stay as it was: a change would invalidate the messages' cache). Priced at that worst case.
      const thinking = (last as { thinking?: { type?: string; budget_tokens?: number } }).thinking;
      const maxTokens = thinking?.type === 'enabled' ? (thinking.budget_tokens ?? 1024) + 1 : KEEPALIVE_OUTPUT_TOKENS;
      const costUsd = session.model.keepAliveCost(snap.model, snap.cachedTokens, maxTokens);
      const base = { at: now, elapsedSeconds, prefixTokens: snap.cachedTokens, ttl, waiting: snap.waiting, pNeeded: est.pNeeded, costUsd, savingUsd: est.savingUsd };
      if (est.savingUsd - costUsd <= options.minNetUsd) {
        record({ ...base, sent: false, reason: 'the expected saving does not beat the refresh' });
        return;
      }
      refreshes++;
      counters.predictedNetUsd += est.savingUsd - costUsd;
      record({ ...base, sent: true });
      try {
        // The last request as sent (markers included), so every entry it used is read again.
        await kernel.sideRequest({ ...last, max_tokens: maxTokens }, 'side');
      } catch (err) {
        counters.failed++;
        kernel.emit({ type: 'notice', level: 'warn', source: PLUGIN_NAME, message: `keep-alive request failed: ${err instanceof Error ? err.message : String(err)}; no more refreshes during this wait` });
        return;
      }
      if (mine !== generation) return;
      session.touched(now);
      schedule();
    };

    // The next main-loop request is being built: the wait is over.
    kernel.hooks.request.tap({ name: PLUGIN_NAME, stage: REQUEST_STAGE.PARAMS }, (params) => {
      cancel();
      refreshes = 0;
      return params;
    });
    kernel.hooks.response.tap(PLUGIN_NAME, (info) => {
      if (info.source !== 'main_loop') return;
      last = info.request as ModelRequest;
      cancel();
      schedule();
    });
    // With `idle`, the wait after a run's last answer is one to bridge too.
    kernel.hooks.sessionEnd.tap(PLUGIN_NAME, () => { if (!options.idle) cancel(); });
    kernel.onClose(() => cancel());
  },
});
