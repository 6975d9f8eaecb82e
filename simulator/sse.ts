/**
 * The server-sent event sequence of a streamed Messages API response, built from a complete
 * message: `message_start` (usage with the cache fields, output_tokens 1), `ping`, per block
 * `content_block_start` / deltas / `content_block_stop`, `message_delta` (stop_reason and final
 * usage), `message_stop`.
 */

/** One SSE event: `event: <event>` + `data: <JSON of data>`. */
export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Characters (code points) per `text_delta` / `thinking_delta`. */
export const TEXT_DELTA_CHARS = 24;
/** Characters per `input_json_delta` chunk. */
export const JSON_DELTA_CHARS = 32;

/** Splits `s` into pieces of at most `size` code points (never inside a surrogate pair). */
export function chunk(s: string, size: number): string[] {
  if (s.length === 0) return [];
  const cps = Array.from(s);
  if (cps.length <= size) return [s];
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(''));
  return out;
}

type Msg = {
  id: string;
  model: string;
  content: Array<Record<string, any>>;
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: Record<string, any>;
  context_management?: unknown;
  input_transformations?: unknown;
};

/** The full event list for `message`. */
export function buildStreamEvents(message: Msg): SseEvent[] {
  const { usage } = message;
  const events: SseEvent[] = [];
  const startUsage: Record<string, unknown> = { ...usage, output_tokens: Math.min(1, usage.output_tokens ?? 0) };
  events.push({
    event: 'message_start',
    data: {
      type: 'message_start',
      message: {
        id: message.id, type: 'message', role: 'assistant', model: message.model, content: [],
        stop_reason: null, stop_sequence: null, usage: startUsage,
        // Final in message_start (preserved-thinking docs): the stream never repeats it.
        ...(message.input_transformations ? { input_transformations: message.input_transformations } : {}),
      },
    },
  });
  events.push({ event: 'ping', data: { type: 'ping' } });
  message.content.forEach((block, index) => {
    const start = (content_block: Record<string, unknown>) => events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block } });
    const delta = (d: Record<string, unknown>) => events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: d } });
    switch (block.type) {
      case 'text':
        start({ type: 'text', text: '' });
        for (const piece of chunk(block.text, TEXT_DELTA_CHARS)) delta({ type: 'text_delta', text: piece });
        break;
      case 'tool_use': {
        start({ type: 'tool_use', id: block.id, name: block.name, input: {} });
        delta({ type: 'input_json_delta', partial_json: '' });
        for (const piece of chunk(JSON.stringify(block.input ?? {}), JSON_DELTA_CHARS)) delta({ type: 'input_json_delta', partial_json: piece });
        break;
      }
      case 'thinking':
        start({ type: 'thinking', thinking: '', signature: '' });
        for (const piece of chunk(block.thinking, TEXT_DELTA_CHARS)) delta({ type: 'thinking_delta', thinking: piece });
        delta({ type: 'signature_delta', signature: block.signature });
        break;
      default:
        // redacted_thinking and anything opaque arrive whole in the start event.
        start({ ...block });
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  const finalUsage: Record<string, unknown> = {
    input_tokens: usage.input_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens,
    cache_read_input_tokens: usage.cache_read_input_tokens,
    output_tokens: usage.output_tokens,
  };
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
      usage: finalUsage,
      ...(message.context_management ? { context_management: message.context_management } : {}),
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}

/** The wire form of one event. */
export function formatSse(e: SseEvent): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}
