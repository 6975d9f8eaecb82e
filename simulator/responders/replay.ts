/**
 * The `replay` responder: returns recorded assistant messages in order, one per main-loop request
 * (side requests get the engine's defaults).
 */
import type { DraftBlock, Responder, UsageOverride } from './types.js';
import type { StopReason } from '../../kernel/index.js';

/** A recorded assistant message: at least its content; an API Message works as is. */
export interface RecordedMessage {
  content: ReadonlyArray<Record<string, any>>;
  stop_reason?: StopReason | null;
  model?: string;
  /** Recorded usage. Only `output_tokens` is reused (input usage is the simulator's to compute). */
  usage?: { output_tokens?: number } & Record<string, unknown>;
}

export interface ReplayOptions {
  /** Reuse each recording's `usage.output_tokens` instead of estimating it. Default true. */
  recordedOutputTokens?: boolean;
}

function draft(block: Record<string, any>): DraftBlock | undefined {
  switch (block.type) {
    case 'text': return { type: 'text', text: String(block.text ?? '') };
    case 'tool_use': return { type: 'tool_use', name: String(block.name), input: block.input ?? {}, ...(block.id ? { id: String(block.id) } : {}) };
    case 'thinking': return { type: 'thinking', thinking: String(block.thinking ?? ''), signature: String(block.signature ?? '') };
    case 'redacted_thinking': return { type: 'redacted_thinking', data: String(block.data ?? '') };
    default: return undefined;
  }
}

/**
 * A responder that answers main request N with `messages[N-1]`. Recorded tool_use ids are kept
 * (so recorded tool results pair up). Block types other than text, tool_use, thinking and
 * redacted_thinking are dropped. Past the end: HTTP 500 "replay has no message N".
 */
export function createReplayResponder(messages: readonly RecordedMessage[], options: ReplayOptions = {}): Responder {
  const useRecorded = options.recordedOutputTokens ?? true;
  return {
    respond(req) {
      const m = messages[req.mainTurn - 1];
      if (!m) return { fault: { status: 500, body: `replay has no message ${req.mainTurn} (it has ${messages.length})` } };
      const content = m.content.map(draft).filter((b): b is DraftBlock => b !== undefined);
      const usage: UsageOverride | undefined = useRecorded && typeof m.usage?.output_tokens === 'number' ? { output_tokens: m.usage.output_tokens } : undefined;
      return {
        reply: {
          content: content.length ? content : [{ type: 'text', text: '' }],
          ...(m.stop_reason ? { stop_reason: m.stop_reason } : {}),
          ...(usage ? { usage } : {}),
          ...(m.model ? { model: m.model } : {}),
        },
      };
    },
  };
}
