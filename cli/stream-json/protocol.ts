/**
 * The stdio control protocol of Claude Code's `--input-format stream-json`, as the Claude Agent SDK
 * speaks it (its `sdk.d.ts`: `SDKControlRequest`, `SDKControlResponse`, `SDKUserMessage`). Each
 * line on stdin and stdout is one JSON object:
 *
 *   { type: 'user', message: { role: 'user', content }, parent_tool_use_id, uuid?, session_id? }
 *   { type: 'control_request', request_id, request: { subtype, ... } }       either direction
 *   { type: 'control_response', response: { subtype: 'success', request_id, response? }
 *                                        | { subtype: 'error', request_id, error } }
 *   { type: 'control_cancel_request', request_id }                            either direction
 *   { type: 'keep_alive' }
 *
 * Requests the host sends to rein: `initialize` (hooks, in-process MCP servers, MCP servers, system
 * prompt, JSON schema), `interrupt`, `set_permission_mode`, `set_model`, `mcp_message` (a message
 * from an in-process MCP server). Requests rein sends to the host: `can_use_tool`,
 * `hook_callback`, `mcp_message` (to an in-process MCP server).
 */
import { randomBytes } from 'node:crypto';

/** A line from stdin, as far as rein reads it. */
export type InboundLine =
  | { type: 'user'; message: { role: 'user'; content: unknown }; uuid?: string; parent_tool_use_id?: string | null }
  | { type: 'control_request'; request_id: string; request: { subtype: string; [k: string]: unknown } }
  | { type: 'control_response'; response: { subtype: 'success' | 'error'; request_id: string; response?: Record<string, unknown>; error?: string } }
  | { type: 'control_cancel_request'; request_id: string }
  | { type: 'keep_alive' };

/** Reads one stdin line; throws with a short reason for a line rein cannot use. */
export function parseInbound(line: string): InboundLine | undefined {
  if (!line.trim()) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (err) {
    throw new Error(`not JSON (${(err as Error).message})`);
  }
  if (!v || typeof v !== 'object' || typeof (v as { type?: unknown }).type !== 'string') throw new Error('expected an object with a "type"');
  const o = v as Record<string, unknown>;
  switch (o.type) {
    case 'user': {
      const m = o.message as { role?: unknown; content?: unknown } | undefined;
      if (!m || m.role !== 'user' || (typeof m.content !== 'string' && !Array.isArray(m.content))) throw new Error('a user line needs message: { role: "user", content: string or content blocks }');
      return o as InboundLine;
    }
    case 'control_request':
      if (typeof o.request_id !== 'string' || !o.request || typeof (o.request as { subtype?: unknown }).subtype !== 'string') throw new Error('a control_request needs request_id and request.subtype');
      return o as InboundLine;
    case 'control_response': {
      const r = o.response as { request_id?: unknown; subtype?: unknown } | undefined;
      if (!r || typeof r.request_id !== 'string' || (r.subtype !== 'success' && r.subtype !== 'error')) throw new Error('a control_response needs response.request_id and response.subtype success or error');
      return o as InboundLine;
    }
    case 'control_cancel_request':
      if (typeof o.request_id !== 'string') throw new Error('a control_cancel_request needs request_id');
      return o as InboundLine;
    case 'keep_alive':
      return { type: 'keep_alive' };
    default:
      throw new Error(`unknown line type "${String(o.type)}"`);
  }
}

/** A request id for a request rein sends (unique within the process). */
export function requestId(): string {
  return `rein_${randomBytes(8).toString('hex')}`;
}

/** The success reply to a control request. */
export function success(requestIdValue: string, response: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'control_response', response: { subtype: 'success', request_id: requestIdValue, response } };
}

/** The error reply to a control request. */
export function failure(requestIdValue: string, error: string): Record<string, unknown> {
  return { type: 'control_response', response: { subtype: 'error', request_id: requestIdValue, error } };
}
