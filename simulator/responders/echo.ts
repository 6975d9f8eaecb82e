/** The `echo` responder: answers every main-loop request with the text of the last user message. */
import { lastUserText } from '../side.js';
import type { Responder } from './types.js';

/** A responder that repeats the last user text (tool results included), or `(no text)`. Never calls tools. */
export function createEchoResponder(): Responder {
  return {
    respond(req) {
      return { reply: { content: [{ type: 'text', text: lastUserText(req.body) || '(no text)' }], stop_reason: 'end_turn' } };
    },
  };
}
