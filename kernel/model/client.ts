/** The model client contract: one request in, one complete message out, stream events on the way. No retries. */
import type { ApiError } from '../hook-payloads.js';
import type { ApiMessage, MessageRequest, QuerySource, StreamEvent } from '../types.js';

/** Request params plus the beta-only fields rein may send. */
export type ModelRequest = MessageRequest & {
  /** Beta flags (`anthropic-beta`). */
  betas?: string[];
  /** Server-side context edits (beta `context-management-2025-06-27`). */
  context_management?: unknown;
};

export interface SendOptions {
  signal: AbortSignal;
  /** false: a plain JSON request (the fallback after a stream fails). */
  stream: boolean;
  source: QuerySource;
  onEvent?: (event: StreamEvent) => void;
  /** Abort a stream silent this long, ms; 0 disables. */
  idleTimeoutMs?: number;
}

export interface SendResult {
  message: ApiMessage;
  /** The API's `request-id` header, when there was one. */
  requestId?: string;
}

export interface ModelClient {
  /** The provider's name (`simulator` marks responses `simulated`). */
  readonly kind: 'anthropic' | 'simulator' | (string & {});
  /** Base URL the client talks to. */
  readonly baseURL: string;
  /** Sends one request. Throws `ModelRequestError` for every failure. */
  send(params: ModelRequest, options: SendOptions): Promise<SendResult>;
  /** Exact input tokens (`/v1/messages/count_tokens`). */
  countTokens(params: ModelRequest): Promise<number>;
  /** Releases resources (the embedded simulator's server). */
  close(): Promise<void>;
  /** State kept with each response so a resumed client carries on (the simulator's scenario position). */
  checkpoint?(): Record<string, unknown> | undefined;
}

/** A failed request, normalised. `info` is what the `apiError` hook sees. */
export class ModelRequestError extends Error {
  constructor(readonly info: ApiError, options?: { cause?: unknown }) {
    super(info.message, options);
    this.name = 'ModelRequestError';
  }
}
