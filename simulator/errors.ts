/**
 * Errors the simulator answers with, shaped as the Messages API shapes them:
 * HTTP status + `{type: 'error', error: {type, message}}`.
 */

/** The API's error `type` for each HTTP status (docs.claude.com "Errors"). */
export const ERROR_TYPE_BY_STATUS: Readonly<Record<number, string>> = Object.freeze({
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
});

/** Default error message for a status when a fault gives none. */
export const DEFAULT_ERROR_MESSAGE: Readonly<Record<number, string>> = Object.freeze({
  400: 'Invalid request',
  401: 'invalid x-api-key',
  403: 'Permission denied',
  404: 'Not found',
  413: 'Request exceeds the maximum allowed number of bytes.',
  429: 'Number of request tokens has exceeded your per-minute rate limit',
  500: 'Internal server error',
  504: 'Request timed out',
  529: 'Overloaded',
});

/** The error `type` for a status: the table's, else `api_error` for 5xx and `invalid_request_error` otherwise. */
export function errorTypeFor(status: number): string {
  return ERROR_TYPE_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** The JSON body of an API error response. */
export interface ApiErrorBody {
  type: 'error';
  error: { type: string; message: string };
  request_id?: string;
}

/**
 * A request the simulator rejects: carries the HTTP status and the API error body. Thrown by the
 * validation and accounting code; the engine turns it into an error response.
 */
export class SimulatorApiError extends Error {
  readonly status: number;
  readonly errorType: string;
  constructor(status: number, message: string, errorType = errorTypeFor(status)) {
    super(message);
    this.name = 'SimulatorApiError';
    this.status = status;
    this.errorType = errorType;
  }
  /** The response body as the API sends it. */
  body(requestId?: string): ApiErrorBody {
    return { type: 'error', error: { type: this.errorType, message: this.message }, ...(requestId ? { request_id: requestId } : {}) };
  }
}

/** Shorthand for a 400 `invalid_request_error`. */
export function invalidRequest(message: string): SimulatorApiError {
  return new SimulatorApiError(400, message, 'invalid_request_error');
}
