/**
 * The `script` responder: answers main-loop requests with a scenario's turns in order (a fault
 * consumes its turn too, so a retry gets the next entry), and side requests with the first
 * matching `side` entry.
 */
import type { Scenario, ScenarioReplyBlock, ScenarioSide, ScenarioTurn } from '../scenario.js';
import { lastUserText, textOf } from '../side.js';
import type { Delivery, DraftBlock, Fault, Responder, ResponderRequest, ResponderResult } from './types.js';

/** Converts a scenario reply block to a draft content block. */
export function draftBlock(b: ScenarioReplyBlock): DraftBlock {
  if (b.text !== undefined) return { type: 'text', text: b.text };
  if (b.tool_use) return { type: 'tool_use', name: b.tool_use.name, input: b.tool_use.input ?? {}, ...(b.tool_use.id ? { id: b.tool_use.id } : {}) };
  if (b.thinking) return { type: 'thinking', thinking: b.thinking.thinking, signature: b.thinking.signature ?? 'sim-signature' };
  return { type: 'redacted_thinking', data: b.redacted_thinking ?? '' };
}

/** The result for one scenario entry (turn or side answer). */
export function entryResult(entry: ScenarioTurn | ScenarioSide, defaultModel?: string): ResponderResult {
  const f = entry.fault;
  if (f?.status !== undefined) {
    const fault: Fault = { status: f.status };
    if (f.body !== undefined) fault.body = f.body;
    if (f.retryAfter !== undefined) fault.retryAfter = f.retryAfter;
    if (f.headers) fault.headers = f.headers;
    if (f.slowFirstByteMs !== undefined) fault.slowFirstByteMs = f.slowFirstByteMs;
    return { fault };
  }
  const delivery: Delivery = {};
  if (f?.slowFirstByteMs !== undefined) delivery.slowFirstByteMs = f.slowFirstByteMs;
  if (f?.cut) delivery.cut = f.cut;
  if (f?.idle) delivery.idle = f.idle;
  const content = entry.reply ? entry.reply.map(draftBlock) : [{ type: 'text' as const, text: 'This reply is cut off before it ends.' }];
  const model = entry.model ?? defaultModel;
  return {
    reply: {
      content,
      ...(entry.stop_reason ? { stop_reason: entry.stop_reason } : {}),
      ...(entry.usage ? { usage: entry.usage } : {}),
      ...(model ? { model } : {}),
      ...(Object.keys(delivery).length ? { delivery } : {}),
    },
  };
}

function matches(side: ScenarioSide, req: ResponderRequest, compiled: Map<string, RegExp>): boolean {
  const re = (s: string) => {
    let r = compiled.get(s);
    if (!r) { r = new RegExp(s); compiled.set(s, r); }
    return r;
  };
  const m = side.match;
  if (m.source && m.source !== req.source) return false;
  if (m.system !== undefined && !re(m.system).test(textOf(req.body.system))) return false;
  if (m.lastUser !== undefined && !re(m.lastUser).test(lastUserText(req.body))) return false;
  return true;
}

/** A responder that plays `scenario`. Main turn N (1-based) answers the N-th main-loop or subagent request. */
export function createScriptResponder(scenario: Scenario): Responder {
  const compiled = new Map<string, RegExp>();
  return {
    respond(req) {
      const turn = scenario.turns[req.mainTurn - 1];
      if (!turn) {
        // x-should-retry: false, as the API sends for an error a retry cannot fix: asking again
        // only waits out the client's backoff.
        return { fault: { status: 500, body: `scenario has no turn ${req.mainTurn} (it has ${scenario.turns.length})`, headers: { 'x-should-retry': 'false' } } };
      }
      return entryResult(turn, scenario.model);
    },
    respondSide(req) {
      const side = scenario.side?.find((s) => matches(s, req, compiled));
      return side ? entryResult(side, scenario.model) : undefined;
    },
  };
}
