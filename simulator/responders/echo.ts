/** The `echo` responder: answers every main-loop request with the text of the last user message. */
import { textOf } from '../side.js';
import type { Responder } from './types.js';

/**
 * Context an agent adds to user turns (`<system-reminder>` blocks: rein's session context,
 * memory files, the agent types; Claude Code's too), which is not what the user typed.
 */
const REMINDER = /^\s*<system-reminder>[\s\S]*<\/system-reminder>\s*$/;

/**
 * The text of the last user message that has any besides `<system-reminder>` blocks (tool results
 * included), so that an agent pointed at the simulator gets its prompt back, not the context it
 * sent after it; else the last user text at all, or ''.
 */
function echoText(body: Record<string, any>): string {
  const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
  let fallback = '';
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== 'user') continue;
    const blocks: unknown[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content : [];
    const own = blocks.filter((b) => !(b && typeof b === 'object' && (b as { type?: unknown }).type === 'text' && REMINDER.test(String((b as { text?: unknown }).text))));
    const text = textOf(own);
    if (text.trim()) return text;
    if (!fallback && textOf(blocks).trim()) fallback = textOf(blocks);
  }
  return fallback;
}

/** A responder that repeats the last user text (tool results included), or `(no text)`. Never calls tools. */
export function createEchoResponder(): Responder {
  return {
    respond(req) {
      return { reply: { content: [{ type: 'text', text: echoText(req.body) || '(no text)' }], stop_reason: 'end_turn' } };
    },
  };
}
