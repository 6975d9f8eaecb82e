/**
 * rein's token estimator: a documented, deterministic stand-in for the model's tokenizer, used by the
 * simulator's usage accounting and by every client-side threshold (budgets, compaction triggers).
 *
 * Rules (Claude Code behaviour; rounding up, because
 * over-estimating only compacts early while under-estimating overflows the window):
 * - prose (text, thinking, tool names, string tool results): `ceil(UTF-8 bytes / 4)`;
 * - JSON-serialised structures (tool_use inputs, tool definitions, unknown block types):
 *   `ceil(UTF-8 bytes / 2)`, since dense JSON is full of one-character tokens;
 * - an image or document block: a fixed 2,000 tokens whatever its size.
 *
 * Every count is per block and rounded per block, so a request's total is exactly the sum of its
 * blocks and a prefix's size is the sum of the blocks in it. Nothing else is added (no per-message
 * or per-request overhead), so expected numbers in tests can be worked out by hand.
 */

/** Bytes per token for prose. */
export const TEXT_BYTES_PER_TOKEN = 4;
/** Bytes per token for JSON (Claude Code: `json`, `jsonl`, `jsonc` files use 2). */
export const JSON_BYTES_PER_TOKEN = 2;
/** Fixed cost of one image or document block, tokens. */
export const MEDIA_BLOCK_TOKENS = 2_000;

type AnyBlock = { type?: string; [key: string]: unknown };

/** Tokens of a prose string: `ceil(UTF-8 bytes / 4)`; 0 for the empty string. */
export function estimateTextTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(Buffer.byteLength(text, 'utf8') / TEXT_BYTES_PER_TOKEN);
}

/** Tokens of a JSON-serialisable value: `ceil(UTF-8 bytes of JSON.stringify(value) / 2)`. */
export function estimateJsonTokens(value: unknown): number {
  const json = JSON.stringify(value ?? null);
  return Math.ceil(Buffer.byteLength(json, 'utf8') / JSON_BYTES_PER_TOKEN);
}

/**
 * Tokens of one content block (anything a message's `content` array, a `tool_result`'s content or
 * the `system` array may hold). `cache_control` never counts. Shapes:
 * - `text` → its text; `thinking` → its thinking text (the signature is opaque and free);
 *   `redacted_thinking` → its data as prose;
 * - `tool_use` / `server_tool_use` → name as prose + input as JSON;
 * - `tool_result` → its string content as prose, or the sum of its content blocks;
 * - `image` / `document` → 2,000;
 * - anything else → the block (minus `cache_control`) as JSON.
 */
export function estimateBlockTokens(block: unknown): number {
  if (typeof block === 'string') return estimateTextTokens(block);
  if (!block || typeof block !== 'object') return 0;
  const b = block as AnyBlock;
  switch (b.type) {
    case 'text':
      return estimateTextTokens(typeof b.text === 'string' ? b.text : '');
    case 'thinking':
      return estimateTextTokens(typeof b.thinking === 'string' ? b.thinking : '');
    case 'redacted_thinking':
      return estimateTextTokens(typeof b.data === 'string' ? b.data : '');
    case 'image':
    case 'document':
      return MEDIA_BLOCK_TOKENS;
    case 'tool_use':
    case 'server_tool_use':
      return estimateTextTokens(typeof b.name === 'string' ? b.name : '') + estimateJsonTokens(b.input ?? {});
    case 'tool_result':
      return estimateContentTokens(b.content as string | unknown[] | undefined);
    default: {
      const { cache_control: _cc, ...rest } = b;
      return estimateJsonTokens(rest);
    }
  }
}

/** Tokens of a message `content` value: a string (one text block) or an array of blocks. */
export function estimateContentTokens(content: string | readonly unknown[] | undefined | null): number {
  if (content == null) return 0;
  if (typeof content === 'string') return estimateTextTokens(content);
  let n = 0;
  for (const block of content) n += estimateBlockTokens(block);
  return n;
}

/** Tokens of one message (`{role, content}`); the role is free. */
export function estimateMessageTokens(message: { content: string | readonly unknown[] }): number {
  return estimateContentTokens(message.content);
}

/**
 * Tokens of one entry of the `tools` parameter: the whole definition (name, description,
 * input_schema, ...; `cache_control` excluded) as JSON. A deferred tool (`defer_loading: true`)
 * adds nothing to the prompt until a `tool_reference` loads it, so it counts 0 here
 * (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching).
 */
export function estimateToolTokens(tool: unknown): number {
  if (!tool || typeof tool !== 'object' || (tool as AnyBlock).defer_loading === true) return 0;
  const { cache_control: _cc, ...rest } = tool as AnyBlock;
  return estimateJsonTokens(rest);
}

/** Tokens of the `system` parameter: a string, or an array of text blocks. */
export function estimateSystemTokens(system: string | readonly unknown[] | undefined | null): number {
  return estimateContentTokens(system);
}

/** The parts of a Messages API request that count as input. */
export interface EstimatableRequest {
  tools?: readonly unknown[] | null;
  system?: string | readonly unknown[] | null;
  messages: ReadonlyArray<{ content: string | readonly unknown[] }>;
}

/** Tokens of a whole request: tools + system + messages (what `count_tokens` reports as `input_tokens`). */
export function estimateRequestTokens(request: EstimatableRequest): number {
  let n = 0;
  for (const tool of request.tools ?? []) n += estimateToolTokens(tool);
  n += estimateSystemTokens(request.system);
  for (const message of request.messages) n += estimateMessageTokens(message);
  return n;
}

/** Where a cacheable block sits in the prompt prefix (tools → system → messages). */
export interface BlockPosition {
  /** Which part of the request the block belongs to. */
  level: 'tools' | 'system' | 'messages';
  /** Index of the tool, the system block, or the message. */
  index: number;
  /** Index of the block inside the message's content (0 for tools and system blocks). */
  blockIndex: number;
  /** The block as sent (a string content or system is one text block). */
  block: unknown;
  /** Tokens of this block. */
  tokens: number;
  /** Tokens of the prefix up to and including this block. */
  prefixTokens: number;
}

/**
 * The request's cacheable blocks in prefix order (each tool definition, each system block, each
 * message content block), with each block's tokens and the running prefix total. A string `system`
 * or a string message `content` is one block.
 */
export function blockPositions(request: EstimatableRequest): BlockPosition[] {
  const out: BlockPosition[] = [];
  let sum = 0;
  const push = (level: BlockPosition['level'], index: number, blockIndex: number, block: unknown, tokens: number) => {
    sum += tokens;
    out.push({ level, index, blockIndex, block, tokens, prefixTokens: sum });
  };
  (request.tools ?? []).forEach((tool, i) => push('tools', i, 0, tool, estimateToolTokens(tool)));
  const system = request.system;
  if (typeof system === 'string') {
    if (system.length > 0) push('system', 0, 0, system, estimateTextTokens(system));
  } else if (system) {
    system.forEach((block, i) => push('system', i, 0, block, estimateBlockTokens(block)));
  }
  request.messages.forEach((message, i) => {
    if (typeof message.content === 'string') push('messages', i, 0, message.content, estimateTextTokens(message.content));
    else message.content.forEach((block, j) => push('messages', i, j, block, estimateBlockTokens(block)));
  });
  return out;
}
