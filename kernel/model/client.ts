/**
 * The model client contract: one request in, one complete assistant message out, with the stream's
 * events passed to a callback on the way. Retries are not the client's job; the kernel drives them
 * through the `apiError` hook so there is one retry policy (the `retry` plugin).
 */
import type { ApiError } from '../hook-payloads.js';
import type { ApiMessage, MessageRequest, QuerySource, StreamEvent } from '../types.js';

/** Request params plus the beta-only fields rein may send. */
export type ModelRequest = MessageRequest & {
  /** Beta flags; when non-empty the request goes through the beta endpoint with `anthropic-beta`. */
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
  /** Abort a stream that has been silent this long, ms (Claude Code: 90,000). 0 disables. */
  idleTimeoutMs?: number;
}

export interface SendResult {
  message: ApiMessage;
  /** The API's `request-id` header, when there was one. */
  requestId?: string;
}

export interface ModelClient {
  /**
   * The provider's name (`model.provider`): `anthropic` for the API, `simulator` for rein's
   * simulator (the transcript marks its responses `simulated`), or a provider plugin's own name.
   */
  readonly kind: 'anthropic' | 'simulator' | (string & {});
  /** Base URL the client talks to. */
  readonly baseURL: string;
  /** Sends one request. Throws `ModelRequestError` for every failure. */
  send(params: ModelRequest, options: SendOptions): Promise<SendResult>;
  /** Exact input token count through `/v1/messages/count_tokens`. */
  countTokens(params: ModelRequest): Promise<number>;
  /** Releases resources (the embedded simulator's server). */
  close(): Promise<void>;
  /**
   * State to keep in the transcript with each response, so a resumed session's client carries on
   * from it (the embedded simulator: how far its scenario got). Optional.
   */
  checkpoint?(): Record<string, unknown> | undefined;
}

/** A failed request, normalised. `info` is what the `apiError` hook sees. */
export class ModelRequestError extends Error {
  constructor(readonly info: ApiError, options?: { cause?: unknown }) {
    super(info.message, options);
    this.name = 'ModelRequestError';
  }
}
