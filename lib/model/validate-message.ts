/**
 * What a 200 response must be before the loop uses it: a Messages API `Message` (an object with a
 * `content` list of typed blocks and a `usage` with token counts), as the API reference describes
 * it (https://platform.claude.com/docs/en/api/messages/create). Anything else (`{}`, an HTML page
 * from a proxy, a message without `usage`, a `tool_use` block without an id, two tool_use blocks
 * with one id) is reported as an `invalid_response` failure naming the first problem, instead of
 * failing later deep in the loop.
 */
import type { ApiMessage } from '../../kernel/index.js';

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function preview(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(one.length > 60 ? `${one.slice(0, 60)}…` : one);
}

/** The first problem of `block` (at `content[i]`), or undefined. */
function blockProblem(block: unknown, i: number): string | undefined {
  const at = `content[${i}]`;
  if (!isObject(block)) return `${at} is not an object`;
  if (typeof block.type !== 'string') return `${at} has no "type"`;
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? undefined : `${at} (text) has no "text" string`;
    case 'tool_use':
      if (typeof block.id !== 'string' || !block.id) return `${at} (tool_use) has no "id"`;
      if (typeof block.name !== 'string' || !block.name) return `${at} (tool_use ${block.id}) has no "name"`;
      return isObject(block.input) ? undefined : `${at} (tool_use ${block.id}) has no "input" object`;
    case 'thinking':
      return typeof block.thinking === 'string' ? undefined : `${at} (thinking) has no "thinking" string`;
    default:
      return undefined; // server tool blocks, redacted thinking and newer types go back as they came
  }
}

/**
 * Checks a 200 response body. Returns the message with its `usage` cache counters defaulted to 0
 * when absent (older proxies omit them), or `{ problem }` naming what is wrong.
 */
export function checkMessage(body: unknown): { message: ApiMessage } | { problem: string } {
  if (typeof body === 'string') return { problem: `the body is not JSON (it starts ${preview(body)})` };
  if (!isObject(body)) return { problem: `the body is ${body === null ? 'null' : Array.isArray(body) ? 'a list' : typeof body}, not a Message object` };
  if (!Array.isArray(body.content)) return { problem: Object.keys(body).length ? 'it has no "content" list' : 'the body is an empty object' };
  const seen = new Set<string>();
  for (let i = 0; i < body.content.length; i++) {
    const block = body.content[i];
    const problem = blockProblem(block, i);
    if (problem) return { problem };
    if ((block as { type: string }).type === 'tool_use') {
      const id = (block as { id: string }).id;
      if (seen.has(id)) return { problem: `two tool_use blocks have the id ${id}` };
      seen.add(id);
    }
  }
  const usage = body.usage;
  if (!isObject(usage)) return { problem: 'it has no "usage"' };
  for (const k of ['input_tokens', 'output_tokens'] as const) {
    if (typeof usage[k] !== 'number' || !Number.isFinite(usage[k])) return { problem: `usage.${k} is not a number` };
  }
  const cacheCounters = ['cache_creation_input_tokens', 'cache_read_input_tokens'] as const;
  if (cacheCounters.every((k) => typeof usage[k] === 'number')) return { message: body as unknown as ApiMessage };
  const filled = { ...usage };
  for (const k of cacheCounters) if (typeof filled[k] !== 'number') filled[k] = 0;
  return { message: { ...body, usage: filled } as unknown as ApiMessage };
}
