/**
 * The responder contract: given a request, answer with content blocks (and how to deliver them),
 * or with a fault. Responders never touch usage accounting; the engine does that.
 */
import type { QuerySource, StopReason } from '../../kernel/index.js';

/** A content block a responder produces. `tool_use` ids may be left out: the engine assigns them. */
export type DraftBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown>; id?: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

/** How a streamed (or plain) response is delivered: the transport-level faults. */
export interface Delivery {
  /** Wait this long before the first byte (before the status line), ms. */
  slowFirstByteMs?: number;
  /** Close the connection after this many SSE events, without `message_stop` (plain requests: before any byte). */
  cut?: { afterEvents: number };
  /** Stop writing for `ms` after `afterEvents` SSE events, then go on. */
  idle?: { afterEvents: number; ms: number };
}

/** Usage fields a reply may force (tests of usage printing); tokens. */
export interface UsageOverride {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number };
}

export interface Reply {
  content: DraftBlock[];
  /** Default: `tool_use` when a tool_use block is present, else `end_turn`. */
  stop_reason?: StopReason;
  usage?: UsageOverride;
  /** The response's `model` field (default: the request's model). */
  model?: string;
  delivery?: Delivery;
}

/** An HTTP error answer. */
export interface Fault {
  status: number;
  /** A string becomes `error.message`; an object is sent as the whole JSON body. */
  body?: string | Record<string, unknown>;
  /** Sets the `retry-after` header, seconds. */
  retryAfter?: number;
  headers?: Record<string, string>;
  /** Delay before the error is sent, ms. */
  slowFirstByteMs?: number;
}

export type ResponderResult = { reply: Reply } | { fault: Fault };

/** What a responder is asked. */
export interface ResponderRequest {
  /** The request body as received (after no edits). */
  body: Record<string, any>;
  /** Lower-cased request headers. */
  headers: Readonly<Record<string, string>>;
  /** Who sent it: from `x-rein-source`, else guessed (see side.ts). */
  source: QuerySource;
  /** 1-based number of this request among main-loop (and subagent) requests so far. */
  mainTurn: number;
}

/**
 * A source of answers. `respond` answers main-loop and subagent requests; `respondSide`, when
 * present, may answer side requests (compact, classifier, title, side) and returns undefined to
 * fall back to the engine's defaults. Both are synchronous: the simulator is deterministic and
 * in-process replays must be fast.
 */
export interface Responder {
  respond(request: ResponderRequest): ResponderResult;
  respondSide?(request: ResponderRequest): ResponderResult | undefined;
}
