/**
 * Provenance tags: external content reaches the model wrapped in a tag that says
 * where it came from, so text inside it that looks like an instruction is recognisably not the
 * user's. Attribute values are escaped, and inside the content every `<` that would open or close
 * one of rein's own tags (the wrapper, `system-reminder`, hook context) is escaped, so the content
 * cannot end its wrapper early or forge a system message. Other markup (code, HTML) stays readable.
 */
import { neutraliseReservedTags } from './neutralize.js';

/** Escapes text for an XML element body: `&`, `<`, `>`. */
export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escapes text for an XML attribute value: `&`, `<`, `>`, `"`, `'`. */
export function escapeXmlAttr(s: string): string {
  return escapeXml(s).replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}


/** Wraps external text: `<external-content source="…" …>\ntext\n</external-content>`. */
export function wrapExternal(text: string, attrs: Record<string, string>): string {
  const a = Object.entries(attrs).map(([k, v]) => ` ${k.replace(/[^\w-]/g, '_')}="${escapeXmlAttr(v)}"`).join('');
  return `<external-content${a}>\n${neutraliseReservedTags(text)}\n</external-content>`;
}
