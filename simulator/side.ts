/**
 * Side requests: the model calls an agent makes besides its main loop (compaction summaries,
 * permission classifiers, session titles, other one-off questions). They are recognised by the
 * `x-rein-source` header rein sends; for other agents (no header) by the request's shape. Each kind
 * has a deterministic default answer, so side requests never consume a scenario's main turns.
 */
import type { QuerySource } from '../kernel/index.js';
import type { DraftBlock, Reply } from './responders/types.js';

/** The request header that names a request's source (rein sends it; the real API ignores it). */
export const SOURCE_HEADER = 'x-rein-source';

const SOURCES: ReadonlySet<string> = new Set(['main_loop', 'subagent', 'compact', 'classifier', 'title', 'hook', 'side']);

type Body = Record<string, any>;

/** All text of a `system` param or a message's content, joined with newlines. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const b of content) {
    if (!b || typeof b !== 'object') continue;
    if (b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
    else if (b.type === 'tool_result') parts.push(textOf(b.content));
  }
  return parts.join('\n');
}

/** Text of the last user message that has any text (tool results included), or ''. */
export function lastUserText(body: Body): string {
  const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== 'user') continue;
    const t = textOf(m.content);
    if (t.trim()) return t;
  }
  return '';
}

const SUMMARY_ASK = /\b(summar(y|ize|ise|izing|ising)|compact(ion)?)\b/i;
const CONVERSATION_SUMMARY_ASK = /summar\w* (of )?(the|this) (whole )?conversation|conversation so far/i;

/**
 * The request's source: the `x-rein-source` header when it holds a known value, else a guess
 * from the body:
 * - classifier: `stop_sequences` has `</block>`, or the system prompt mentions `<block>`, or
 *   `tool_choice` forces a tool whose name contains "classif";
 * - title: `output_config.format` is a JSON schema with a `title` property, or no tools and the
 *   system prompt asks for a title;
 * - compact: the last user message asks to summarise the conversation, or there are no tools and
 *   the system prompt or last user message asks for a summary;
 * - otherwise main_loop.
 */
export function classifySource(body: Body, headers: Readonly<Record<string, string>>): { source: QuerySource; by: 'header' | 'heuristic' } {
  const h = headers[SOURCE_HEADER];
  if (h && SOURCES.has(h)) return { source: h as QuerySource, by: 'header' };
  const system = textOf(body.system);
  const noTools = !Array.isArray(body.tools) || body.tools.length === 0;
  const forced = body.tool_choice?.type === 'tool' ? String(body.tool_choice.name ?? '') : '';
  const stops: unknown[] = Array.isArray(body.stop_sequences) ? body.stop_sequences : [];
  if (stops.includes('</block>') || system.includes('<block>') || /classif/i.test(forced)) return { source: 'classifier', by: 'heuristic' };
  const schema = body.output_config?.format?.schema;
  if ((schema && typeof schema === 'object' && schema.properties && 'title' in schema.properties) || (noTools && /\btitle\b/i.test(system))) {
    return { source: 'title', by: 'heuristic' };
  }
  const last = lastUserText(body);
  if (CONVERSATION_SUMMARY_ASK.test(last) || (noTools && (SUMMARY_ASK.test(system) || SUMMARY_ASK.test(last)))) {
    return { source: 'compact', by: 'heuristic' };
  }
  return { source: 'main_loop', by: 'heuristic' };
}

const PATH_KEYS = ['file_path', 'path', 'filePath', 'notebook_path'];
const PATH_IN_TEXT = /(?:^|[\s"'`(<[])((?:\.{0,2}\/)?(?:[\w@.-]+\/)*[\w@-]+\.(?:ts|tsx|js|jsx|mjs|cjs|json|jsonl|md|txt|yaml|yml|toml|py|rs|go|java|c|h|cpp|hpp|rb|sh|css|html|sql|csv|lock|ini|cfg|xml))(?=$|[\s"'`),:;>\]])/gm;

/** File paths mentioned in a conversation (tool inputs and text), in first-mention order. */
export function mentionedPaths(body: Body): string[] {
  const seen = new Set<string>();
  const add = (p: unknown) => { if (typeof p === 'string' && p && !seen.has(p)) seen.add(p); };
  const scanText = (t: string) => { for (const m of t.matchAll(PATH_IN_TEXT)) add(m[1]); };
  const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
  for (const m of messages) {
    if (typeof m?.content === 'string') { scanText(m.content); continue; }
    if (!Array.isArray(m?.content)) continue;
    for (const b of m.content) {
      if (b?.type === 'tool_use' && b.input && typeof b.input === 'object') for (const k of PATH_KEYS) add(b.input[k]);
      else if (b?.type === 'text') scanText(String(b.text ?? ''));
      else if (b?.type === 'tool_result') scanText(textOf(b.content));
    }
  }
  return [...seen];
}

function firstUserText(body: Body): string {
  const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
  for (const m of messages) {
    if (m?.role !== 'user') continue;
    const t = textOf(m.content).replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '').trim();
    if (t) return t;
  }
  return '';
}

/** The compaction summary the simulator writes by default (rein's wording). */
export function defaultSummary(body: Body): string {
  const request = firstUserText(body).replace(/\s+/g, ' ').slice(0, 200) || '(none)';
  const files = mentionedPaths(body);
  const count = Array.isArray(body.messages) ? body.messages.length : 0;
  return [
    '<summary>',
    `1. Primary request: ${request}`,
    `2. Files mentioned: ${files.length ? files.join(', ') : '(none)'}`,
    `3. State: simulated summary of ${count} messages; no work is pending.`,
    '</summary>',
  ].join('\n');
}

/** A short session title from the first user message (at most 6 words). */
export function defaultTitle(body: Body): string {
  const words = firstUserText(body).replace(/[^\p{L}\p{N}\s.-]/gu, ' ').split(/\s+/).filter(Boolean).slice(0, 6);
  return words.length ? words.join(' ') : 'Simulated session';
}

/** A placeholder value for a JSON schema (forced tool calls of unknown tools). */
function sampleOf(schema: any): unknown {
  if (!schema || typeof schema !== 'object') return null;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  switch (schema.type) {
    case 'string': return '';
    case 'number': case 'integer': return 0;
    case 'boolean': return false;
    case 'array': return [];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const k of schema.required ?? []) out[k] = sampleOf(schema.properties?.[k]);
      return out;
    }
    default: return null;
  }
}

/** A tool_use for a request whose `tool_choice` forces tool `name`. */
function forcedToolUse(body: Body, name: string): DraftBlock {
  if (name === 'classify_result') {
    return { type: 'tool_use', name, input: { thinking: 'Simulated review.', shouldBlock: false, reason: 'Allowed by the simulator default.' } };
  }
  const tool = (Array.isArray(body.tools) ? body.tools : []).find((t: any) => t?.name === name);
  const input = sampleOf(tool?.input_schema ?? { type: 'object' });
  return { type: 'tool_use', name, input: (input && typeof input === 'object' ? input : {}) as Record<string, unknown> };
}

/**
 * The default answer to a side request:
 * - compact: a `<summary>` text naming the first user request and every file path mentioned;
 * - classifier: `<block>no</block>` (allow; cut at a `</block>` stop sequence as the API would), or
 *   a `classify_result` tool call with `shouldBlock: false` when the tool is forced;
 * - title: a few words from the first user message (as `{"title": ...}` JSON when the request asks
 *   for structured output);
 * - hook (a `prompt` shell hook): `{"ok": true}` (allow);
 * - side and anything else: `OK.`
 * A request whose `tool_choice` forces a tool always gets a call of that tool.
 */
export function defaultSideReply(source: QuerySource, body: Body): Reply {
  if (body.tool_choice?.type === 'tool' && body.tool_choice.name) {
    return { content: [forcedToolUse(body, String(body.tool_choice.name))], stop_reason: 'tool_use' };
  }
  switch (source) {
    case 'compact':
      return { content: [{ type: 'text', text: defaultSummary(body) }] };
    case 'classifier':
      return { content: [{ type: 'text', text: '<block>no</block>' }] };
    case 'title': {
      const title = defaultTitle(body);
      const json = body.output_config?.format?.type === 'json_schema';
      return { content: [{ type: 'text', text: json ? JSON.stringify({ title }) : title }] };
    }
    case 'hook':
      return { content: [{ type: 'text', text: '{"ok": true}' }] };
    default:
      return { content: [{ type: 'text', text: 'OK.' }] };
  }
}
