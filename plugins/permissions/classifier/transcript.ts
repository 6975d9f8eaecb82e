/**
 * What the classifier sees of the conversation: the user's text and the agent's
 * tool calls, never the assistant's prose (text the model wrote could be steered by an injection
 * to talk the classifier round). One JSON object per line, so a newline inside user text cannot
 * forge a line that looks like a tool call.
 */
import type { Message } from '../../../kernel/index.js';

/** One JSONL line per user text block and per tool_use block, in order. */
export function projectTranscript(messages: readonly Message[]): string[] {
  const lines: string[] = [];
  for (const m of messages) {
    if (m.meta?.meta) continue; // text rein injected itself (reminders, nudges), not the user's words
    for (const b of m.content) {
      if (m.role === 'user' && b.type === 'text' && b.text.trim()) lines.push(JSON.stringify({ user: b.text }));
      else if (m.role === 'assistant' && b.type === 'tool_use') lines.push(JSON.stringify({ [b.name]: b.input }));
    }
  }
  return lines;
}

/**
 * Keeps the transcript within `maxChars` characters: the first line (the task as first given)
 * and as many of the latest lines as fit.
 */
export function fitTranscript(lines: readonly string[], maxChars: number): string {
  if (!lines.length) return '';
  const first = lines[0]!;
  const tail: string[] = [];
  let size = first.length;
  for (let i = lines.length - 1; i > 0; i--) {
    const l = lines[i]!;
    if (size + l.length + 1 > maxChars) {
      tail.unshift('{"omitted":"earlier entries left out for length"}');
      break;
    }
    tail.unshift(l);
    size += l.length + 1;
  }
  return [first.length > maxChars ? first.slice(0, maxChars) : first, ...tail].join('\n');
}

/** The pending action as one JSON line. */
export function projectAction(toolName: string, input: Record<string, unknown>): string {
  return JSON.stringify({ [toolName]: input });
}
