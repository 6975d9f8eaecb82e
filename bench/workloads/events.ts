/**
 * Client events a recording shows, found from its usage and its entries, and the cause of every
 * recorded cache break.
 *
 * Events (each with the step it happened at):
 * - `model switch`: the request was answered by another model than the one before (the model is
 *   part of the cache key: everything misses);
 * - `thinking change`: the thinking parameter differs from the previous request's (the messages
 *   part of the cache misses; prompt-caching docs);
 * - `context cleared`: at a turn start the prompt fell below `RESET_DROP` of the previous one with
 *   no compaction recorded (the user cleared the conversation, or the client started a new one in
 *   the same file);
 * - `restart`: at a turn start within the TTL, the cache read fell to what other sessions of the
 *   client keep cached (a warm first request's cache read; 0 for a client whose first request was
 *   cold) or below, with none of the causes above: the client was restarted and the
 *   session-specific part of its system prompt changed (pi's ends with the current time; Claude
 *   Code's carries the environment). A read that keeps the whole system prompt and loses only the
 *   messages is not a restart;
 * - `aborted request`: requests the user aborted (or that failed) before this one; they were billed
 *   nothing and left nothing in the context.
 *
 * The fixed prefix is inferred from the first request: its prompt total minus its messages
 * (counted with the replay's token counter); a first request that read the cache shows how much of
 * that prefix other sessions of the same client had cached (`sharedTokens`).
 */
import type { TokenCounter } from '../../lib/tokens/counter.js';
import { TTL_MS } from '../../simulator/prefix.js';
import { keepsEarlierThinking } from '../../simulator/models.js';
import { RESET_DROP } from '../calibration/pairs.js';
import { isBreak, BREAK_CAUSES } from '../metrics/breaks.js';
import { promptTokens, type Workload, type WorkloadStep } from './types.js';

export const CLIENT_EVENTS = ['model switch', 'thinking change', 'context cleared', 'restart', 'aborted request'] as const;
export type ClientEventKind = (typeof CLIENT_EVENTS)[number];

/** A client event at a step. */
export interface ClientEvent {
  /** Index of the step (request) it precedes. */
  step: number;
  kind: ClientEventKind;
  /** What was seen (`claude-sonnet-4-5 → claude-opus-4-5`, `cache read 0 of a 1,684-token prefix`, ...). */
  detail: string;
}

/** The client's fixed prefix as the recording shows it, tokens. */
export interface RecordedPrefix {
  /** Tools + system of the first request: its prompt total minus its messages. */
  tokens: number;
  /** Part of it other sessions had cached: the first request's cache read (0 when it was cold). */
  sharedTokens: number;
}

/** Fixed prefix of the recording's client (see the module comment); undefined without usage. */
export function recordedPrefix(w: Workload, counter: TokenCounter): RecordedPrefix | undefined {
  const first = w.steps.find((s) => s.usage);
  if (!first || first !== w.steps[0]) return first ? { tokens: 0, sharedTokens: 0 } : undefined;
  const u = first.usage!;
  let messages = 0;
  (first.prompt ?? []).forEach((p, i) => { messages += counter.block(p.block, i === 0); });
  const tokens = Math.max(0, promptTokens(u) - messages);
  return { tokens, sharedTokens: Math.min(u.cacheRead, tokens) };
}

function sameThinking(a: WorkloadStep['thinking'], b: WorkloadStep['thinking']): boolean {
  const norm = (t: WorkloadStep['thinking']) => JSON.stringify(t && t.type !== 'disabled' ? t : null);
  return norm(a) === norm(b);
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** A restart leaves the cache read within this many tokens of the shared level (or of 0). */
const RESTART_MARGIN = 200;

/**
 * The client events of a recording, in step order. Only steps with usage on both sides are
 * compared. `prefix` is the recording's fixed prefix (recordedPrefix).
 */
export function detectEvents(w: Workload, prefix: RecordedPrefix | undefined): ClientEvent[] {
  const events: ClientEvent[] = [];
  let prev: WorkloadStep | undefined;
  for (const s of w.steps) {
    if (s.abortedBefore) events.push({ step: s.index, kind: 'aborted request', detail: `${s.abortedBefore} request${s.abortedBefore === 1 ? '' : 's'} aborted before it (nothing billed)` });
    if (!s.usage) continue;
    if (prev?.usage) {
      const p = prev.usage;
      const u = s.usage;
      const here = (kind: ClientEventKind, detail: string) => events.push({ step: s.index, kind, detail });
      let explained = !!s.compactionBefore;
      if (!explained && s.model !== prev.model) { here('model switch', `${prev.model} → ${s.model}`); explained = true; }
      if (!explained && !sameThinking(s.thinking, prev.thinking)) { here('thinking change', `${JSON.stringify(prev.thinking ?? null)} → ${JSON.stringify(s.thinking ?? null)}`); explained = true; }
      // A cleared context is about what is in the prompt, not the cache key: it can come with a model or thinking change.
      if (!s.compactionBefore && s.prompt && promptTokens(u) < RESET_DROP * promptTokens(p)) {
        here('context cleared', `prompt ${fmt(promptTokens(p))} → ${fmt(promptTokens(u))} tokens with no compaction`);
        explained = true;
      }
      const withinTtl = s.at - prev.at <= TTL_MS['5m'] || !w.timed;
      const restartLevel = prefix ? (prefix.sharedTokens > 0 ? prefix.sharedTokens + RESTART_MARGIN : RESTART_MARGIN) : -1;
      if (!explained && s.prompt && withinTtl && prefix && isBreak(p.cacheRead, u.cacheRead) && u.cacheRead <= restartLevel) {
        here('restart', `cache read ${fmt(u.cacheRead)} of a ${fmt(prefix.tokens)}-token fixed prefix at a turn start ${Math.round((s.at - prev.at) / 1000)} s after the last request`);
      }
    }
    prev = s;
  }
  return events;
}

/** Break causes of recordings beyond those of breaks.ts. */
export const RECORDED_CAUSES = {
  restart: 'client restart',
  cleared: BREAK_CAUSES.cleared,
  thinkingChange: BREAK_CAUSES.thinkingChanged,
  thinkingDropped: BREAK_CAUSES.thinkingDropped,
  unexplained: 'no cause the replay can model',
} as const;

/**
 * The cause of each recorded cache break, by step index: compaction, model switch, thinking
 * change, context cleared, restart, TTL expiry (a gap longer than 5 minutes), earlier-turn
 * thinking dropped by the API (a turn start after a turn that thought, on a model that does not
 * keep it), or none the replay can model (a server-side miss, or a client change the recording
 * does not show).
 */
export function recordedBreakCauses(w: Workload, events: readonly ClientEvent[]): Map<number, string> {
  const at = new Map<number, ClientEventKind[]>();
  for (const e of events) at.set(e.step, [...(at.get(e.step) ?? []), e.kind]);
  const causes = new Map<number, string>();
  let prev: WorkloadStep | undefined;
  let turnThought = false;
  let lastThought = false;
  for (const s of w.steps) {
    if (s.prompt) { lastThought = turnThought; turnThought = false; }
    if (s.reply.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking')) turnThought = true;
    if (!s.usage) continue;
    if (prev?.usage && isBreak(prev.usage.cacheRead, s.usage.cacheRead)) {
      const kinds = at.get(s.index) ?? [];
      const gap = s.at - prev.at;
      let cause: string;
      if (s.compactionBefore) cause = BREAK_CAUSES.compaction;
      else if (kinds.includes('model switch')) cause = BREAK_CAUSES.model;
      else if (kinds.includes('thinking change')) cause = RECORDED_CAUSES.thinkingChange;
      else if (kinds.includes('context cleared')) cause = RECORDED_CAUSES.cleared;
      else if (kinds.includes('restart')) cause = RECORDED_CAUSES.restart;
      else if (w.timed && gap > TTL_MS['1h']) cause = BREAK_CAUSES.ttl1h;
      else if (w.timed && gap > TTL_MS['5m']) cause = BREAK_CAUSES.ttl5m;
      else if (s.prompt && lastThought && !keepsEarlierThinking(s.model)) cause = RECORDED_CAUSES.thinkingDropped;
      else cause = RECORDED_CAUSES.unexplained;
      causes.set(s.index, cause);
    }
    prev = s;
  }
  return causes;
}
