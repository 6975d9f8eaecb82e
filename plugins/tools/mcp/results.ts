/**
 * MCP tool results → Messages API content blocks. Text stays text; images the API accepts become
 * image blocks; embedded text resources become text with their URI; anything else (audio, binary
 * resources) becomes a short note, so the model knows something was returned.
 */
import type { ContentBlock } from '../../../kernel/index.js';

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

type McpContent = { type: string; [k: string]: any };

/** Converts one MCP `CallToolResult` to content blocks. */
export function toContentBlocks(result: { content?: McpContent[]; structuredContent?: unknown; toolResult?: unknown }): ContentBlock[] {
  const out: ContentBlock[] = [];
  for (const c of result.content ?? []) {
    switch (c.type) {
      case 'text':
        out.push({ type: 'text', text: String(c.text ?? '') });
        break;
      case 'image':
        if (IMAGE_TYPES.has(c.mimeType)) out.push({ type: 'image', source: { type: 'base64', media_type: c.mimeType, data: c.data } } as ContentBlock);
        else out.push({ type: 'text', text: `[image of type ${c.mimeType} omitted: not a type the model can view]` });
        break;
      case 'resource': {
        const r = c.resource ?? {};
        if (typeof r.text === 'string') out.push({ type: 'text', text: `[resource ${r.uri}]\n${r.text}` });
        else out.push({ type: 'text', text: `[binary resource ${r.uri} (${r.mimeType ?? 'unknown type'}) omitted]` });
        break;
      }
      case 'resource_link':
        out.push({ type: 'text', text: `[resource link: ${c.name ?? c.uri} <${c.uri}>${c.description ? ` ${c.description}` : ''}]` });
        break;
      default:
        out.push({ type: 'text', text: `[${c.type} content omitted]` });
    }
  }
  if (out.length === 0 && result.structuredContent !== undefined) out.push({ type: 'text', text: JSON.stringify(result.structuredContent) });
  if (out.length === 0 && result.toolResult !== undefined) out.push({ type: 'text', text: JSON.stringify(result.toolResult) });
  return out;
}
