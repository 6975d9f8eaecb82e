/**
 * Reading the classifier's answer: reasoning inside `<thinking>` is removed first
 * (it may quote `<block>` tags as examples), including an unclosed `<thinking>` cut off by the
 * token limit; then `<block>yes|no` and an optional `<reason>`. Stage 1 stops at the `</block>`
 * stop sequence, so its closing tag is usually missing.
 */

export type Verdict = { block: boolean; reason?: string } | undefined;

/** Removes `<thinking>…</thinking>` and a trailing unclosed `<thinking>…`. */
export function stripThinking(text: string): string {
  return text.replace(/<thinking>[\s\S]*?<\/thinking>/g, '').replace(/<thinking>[\s\S]*$/, '');
}

/** The verdict in `text`, or undefined when there is none. */
export function parseVerdict(text: string): Verdict {
  const t = stripThinking(text);
  const m = /<block>\s*(yes|no)\b/i.exec(t);
  if (!m) return undefined;
  const reason = /<reason>([\s\S]*?)(?:<\/reason>|$)/.exec(t.slice(m.index))?.[1]?.trim();
  return { block: m[1]!.toLowerCase() === 'yes', reason: reason || undefined };
}
