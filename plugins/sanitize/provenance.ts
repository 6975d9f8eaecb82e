/**
 * Provenance tags: external content reaches the model wrapped in a tag that says
 * where it came from, so text inside it that looks like an instruction is recognisably not the
 * user's. Attribute values are escaped, and inside the content every `<` that would open or close
 * one of rein's own tags (the wrapper, `system-reminder`, hook context) is escaped, so the content
 * cannot end its wrapper early or forge a system message. Other markup (code, HTML) stays readable.
 */

/** Escapes text for an XML element body: `&`, `<`, `>`. */
export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escapes text for an XML attribute value: `&`, `<`, `>`, `"`, `'`. */
export function escapeXmlAttr(s: string): string {
  return escapeXml(s).replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** Tags whose opening or closing inside external content is neutralised. */
export const RESERVED_TAGS: readonly string[] = Object.freeze([
  'external-content', 'system-reminder', 'user-prompt-submit-hook', 'hook-context', 'hook-output', 'command-message',
]);

const RESERVED = new RegExp(`<(/?\\s*(?:${RESERVED_TAGS.join('|')})\\b)`, 'gi');

/** Escapes the `<` of every reserved tag in `text`. */
export function neutraliseReservedTags(text: string): string {
  return text.replace(RESERVED, '&lt;$1');
}

/** Wraps external text: `<external-content source="…" …>\ntext\n</external-content>`. */
export function wrapExternal(text: string, attrs: Record<string, string>): string {
  const a = Object.entries(attrs).map(([k, v]) => ` ${k.replace(/[^\w-]/g, '_')}="${escapeXmlAttr(v)}"`).join('');
  return `<external-content${a}>\n${neutraliseReservedTags(text)}\n</external-content>`;
}
