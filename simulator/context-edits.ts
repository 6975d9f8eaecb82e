/**
 * Server-side context editing (beta `context-management-2025-06-27`): the request's
 * `context_management.edits` rewrite the prompt before it is cached and counted, and the response
 * reports what they did in `context_management.applied_edits`.
 *
 * Semantics (platform.claude.com/docs "Context editing"; field shapes from the SDK's
 * `BetaClearToolUses20250919Edit` / `BetaClearThinking20251015Edit`):
 * - `clear_tool_uses_20250919`: when the prompt exceeds `trigger` (default 100,000 input tokens;
 *   or a number of tool uses), every tool use older than the most recent `keep` (default 3) tool
 *   uses has its `tool_result` content replaced by a short placeholder, oldest first. Tools named
 *   in `exclude_tools` are never cleared. `clear_tool_inputs` (true, or a list of tool names) also
 *   empties the cleared `tool_use` inputs. With `clear_at_least`, nothing is cleared unless at
 *   least that many tokens would be.
 * - `clear_thinking_20251015`: thinking blocks are removed from all assistant turns but the last
 *   `keep` turns that have thinking (default 1; `'all'` keeps everything).
 * The thinking edit must come first when both are present (the API rejects the other order).
 * Edits never mutate the caller's request: changed messages and blocks are copies.
 */
import { BYTE_COUNTER, countRequestTokens, type ContentTokenCounter as TokenCounter } from '../lib/index.js';
import { invalidRequest } from './errors.js';

/** The beta that enables `context_management`. */
export const CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27';
/** Default `trigger` of clear_tool_uses, input tokens (context-editing docs). */
export const DEFAULT_CLEAR_TOOL_USES_TRIGGER_TOKENS = 100_000;
/** Default `keep` of clear_tool_uses, tool uses (context-editing docs). */
export const DEFAULT_CLEAR_TOOL_USES_KEEP = 3;
/** Default `keep` of clear_thinking, thinking turns (context-editing docs). */
export const DEFAULT_CLEAR_THINKING_KEEP = 1;
/** What a cleared tool result says instead of its content (rein's wording). */
export const CLEARED_TOOL_RESULT_TEXT = '[This tool result was cleared to save context space.]';

export type AppliedEdit =
  | { type: 'clear_tool_uses_20250919'; cleared_tool_uses: number; cleared_input_tokens: number }
  | { type: 'clear_thinking_20251015'; cleared_thinking_turns: number; cleared_input_tokens: number };

type Block = Record<string, unknown>;
type Msg = { role: string; content: string | Block[] } & Record<string, unknown>;

/** The request fields context editing reads and rewrites. */
export interface EditableRequest {
  tools?: readonly unknown[] | null;
  system?: string | readonly unknown[] | null;
  messages: ReadonlyArray<{ role: string; content: string | readonly unknown[] }>;
  context_management?: unknown;
}

export interface ContextEditResult<R> {
  /** The request with the edits applied (the input itself when nothing changed). */
  request: R;
  appliedEdits: AppliedEdit[];
  /** Tokens of the prompt before any edit; undefined when the request has no `context_management`. */
  originalInputTokens?: number;
}

function num(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw invalidRequest(`${where}: Input should be a non-negative integer`);
  return v;
}

function typed(v: unknown, types: readonly string[], where: string): { type: string; value: number } | undefined {
  if (v == null) return undefined;
  if (typeof v !== 'object' || !types.includes(String((v as Block).type))) {
    throw invalidRequest(`${where}: Input should be an object with type ${types.map((t) => `'${t}'`).join(' or ')}`);
  }
  return { type: String((v as Block).type), value: num((v as Block).value, `${where}.value`) };
}

/**
 * Applies `request.context_management.edits` and reports them. `betas` are the request's
 * `anthropic-beta` flags. Throws SimulatorApiError (400) when the field is used without the beta,
 * an edit is malformed or unknown, or the thinking edit is not first.
 */
export function applyContextManagement<R extends EditableRequest>(request: R, betas: ReadonlySet<string>, counter: TokenCounter = BYTE_COUNTER): ContextEditResult<R> {
  const estimateRequestTokens = (r: EditableRequest) => countRequestTokens(counter, r);
  const estimateBlockTokens = (b: unknown) => counter.block(b, false);
  const cm = request.context_management;
  if (cm == null) return { request, appliedEdits: [] };
  if (!betas.has(CONTEXT_MANAGEMENT_BETA)) {
    throw invalidRequest(`context_management: Extra inputs are not permitted (send the anthropic-beta header '${CONTEXT_MANAGEMENT_BETA}')`);
  }
  const edits = (cm as Block).edits ?? [];
  if (!Array.isArray(edits)) throw invalidRequest('context_management.edits: Input should be a valid list');
  const originalInputTokens = estimateRequestTokens(request);
  let messages = request.messages as readonly Msg[];
  const applied: AppliedEdit[] = [];
  edits.forEach((edit: unknown, i: number) => {
    const where = `context_management.edits.${i}`;
    const type = edit && typeof edit === 'object' ? (edit as Block).type : undefined;
    if (type === 'clear_thinking_20251015') {
      if (i > 0) throw invalidRequest(`${where}: clear_thinking_20251015 must be the first edit in context_management.edits`);
      const r = clearThinking(messages, edit as Block, where, estimateBlockTokens);
      if (r) { messages = r.messages; applied.push(r.applied); }
    } else if (type === 'clear_tool_uses_20250919') {
      const current = { ...request, messages };
      const r = clearToolUses(messages, edit as Block, estimateRequestTokens(current), where, estimateBlockTokens);
      if (r) { messages = r.messages; applied.push(r.applied); }
    } else {
      throw invalidRequest(`${where}.type: Input should be 'clear_tool_uses_20250919' or 'clear_thinking_20251015' (the simulator does not implement ${JSON.stringify(type)})`);
    }
  });
  const out = messages === request.messages ? request : { ...request, messages };
  return { request: out, appliedEdits: applied, originalInputTokens };
}

function contentArray(m: Msg): Block[] {
  return typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
}

function clearToolUses(messages: readonly Msg[], edit: Block, inputTokens: number, where: string, estimateBlockTokens: (b: unknown) => number) {
  const trigger = typed(edit.trigger, ['input_tokens', 'tool_uses'], `${where}.trigger`) ?? { type: 'input_tokens', value: DEFAULT_CLEAR_TOOL_USES_TRIGGER_TOKENS };
  const keep = typed(edit.keep, ['tool_uses'], `${where}.keep`)?.value ?? DEFAULT_CLEAR_TOOL_USES_KEEP;
  const atLeast = typed(edit.clear_at_least, ['input_tokens'], `${where}.clear_at_least`)?.value ?? 0;
  const exclude = new Set(Array.isArray(edit.exclude_tools) ? edit.exclude_tools.map(String) : []);
  const clearInputs = edit.clear_tool_inputs;
  const clearsInput = (name: string) => clearInputs === true || (Array.isArray(clearInputs) && clearInputs.includes(name));

  const uses: { m: number; b: number; id: string; name: string }[] = [];
  const results = new Map<string, { m: number; b: number }[]>();
  messages.forEach((msg, m) => {
    if (typeof msg.content === 'string') return;
    msg.content.forEach((block, b) => {
      if (msg.role === 'assistant' && block.type === 'tool_use') uses.push({ m, b, id: String(block.id), name: String(block.name) });
      if (msg.role === 'user' && block.type === 'tool_result') {
        const id = String(block.tool_use_id);
        const list = results.get(id) ?? [];
        list.push({ m, b });
        results.set(id, list);
      }
    });
  });
  const measure = trigger.type === 'tool_uses' ? uses.length : inputTokens;
  if (measure <= trigger.value) return undefined;

  const edited = new Map<number, Block[]>();
  const blocksOf = (m: number) => {
    let c = edited.get(m);
    if (!c) { c = contentArray(messages[m]!).slice(); edited.set(m, c); }
    return c;
  };
  let clearedUses = 0;
  let clearedTokens = 0;
  for (const use of uses.slice(0, Math.max(0, uses.length - keep))) {
    if (exclude.has(use.name)) continue;
    let changed = false;
    for (const at of results.get(use.id) ?? []) {
      const content = blocksOf(at.m);
      const old = content[at.b]!;
      if (isCleared(old)) continue;
      const placeholder = { ...old, content: [{ type: 'text', text: CLEARED_TOOL_RESULT_TEXT }] };
      const saved = estimateBlockTokens(old) - estimateBlockTokens(placeholder);
      content[at.b] = placeholder;
      clearedTokens += saved;
      changed = true;
    }
    if (clearsInput(use.name)) {
      const content = blocksOf(use.m);
      const old = content[use.b]!;
      if (old.input && Object.keys(old.input as object).length > 0) {
        const emptied = { ...old, input: {} };
        clearedTokens += estimateBlockTokens(old) - estimateBlockTokens(emptied);
        content[use.b] = emptied;
        changed = true;
      }
    }
    if (changed) clearedUses++;
  }
  if (clearedUses === 0 || clearedTokens < atLeast) return undefined;
  const out = messages.map((msg, m) => (edited.has(m) ? { ...msg, content: edited.get(m)! } : msg));
  return {
    messages: out,
    applied: { type: 'clear_tool_uses_20250919', cleared_tool_uses: clearedUses, cleared_input_tokens: clearedTokens } as AppliedEdit,
  };
}

function isCleared(block: Block): boolean {
  const c = block.content;
  return Array.isArray(c) && c.length === 1 && (c[0] as Block)?.text === CLEARED_TOOL_RESULT_TEXT;
}

const THINKING_TYPES = new Set(['thinking', 'redacted_thinking']);

function clearThinking(messages: readonly Msg[], edit: Block, where: string, estimateBlockTokens: (b: unknown) => number) {
  let keep: number;
  const k = edit.keep;
  if (k == null) keep = DEFAULT_CLEAR_THINKING_KEEP;
  else if (k === 'all' || (typeof k === 'object' && (k as Block).type === 'all')) return undefined;
  else {
    const t = typed(k, ['thinking_turns'], `${where}.keep`)!;
    if (t.value < 1) throw invalidRequest(`${where}.keep.value: Input should be greater than or equal to 1`);
    keep = t.value;
  }
  const turns: number[] = [];
  messages.forEach((msg, m) => {
    if (msg.role === 'assistant' && typeof msg.content !== 'string' && msg.content.some((b) => THINKING_TYPES.has(String(b.type)))) turns.push(m);
  });
  const clear = new Set(turns.slice(0, Math.max(0, turns.length - keep)));
  if (clear.size === 0) return undefined;
  let tokens = 0;
  const out = messages.map((msg, m) => {
    if (!clear.has(m)) return msg;
    const kept: Block[] = [];
    for (const b of msg.content as Block[]) {
      if (THINKING_TYPES.has(String(b.type))) tokens += estimateBlockTokens(b);
      else kept.push(b);
    }
    return { ...msg, content: kept };
  });
  return {
    messages: out,
    applied: { type: 'clear_thinking_20251015', cleared_thinking_turns: clear.size, cleared_input_tokens: tokens } as AppliedEdit,
  };
}

/** True when `request.context_management` carries a `clear_thinking_20251015` edit (it then decides what thinking stays). */
export function hasThinkingEdit(request: { context_management?: unknown }): boolean {
  const edits = (request.context_management as Block | null | undefined)?.edits;
  return Array.isArray(edits) && edits.some((e) => e && typeof e === 'object' && (e as Block).type === 'clear_thinking_20251015');
}

/**
 * The API's default for earlier-turn thinking on models that do not keep it (models.ts
 * `keepsEarlierThinking`): only the thinking of the assistant turn in progress is part of the
 * prompt. The turn in progress is everything after the last user message that carries more than
 * tool results; thinking in assistant messages before it is dropped before the prompt is cached
 * and counted, so the cached prefix ends at the first dropped block
 * (https://platform.claude.com/docs/en/build-with-claude/context-windows, the context window with
 * extended thinking: previous turns' thinking is stripped; https://platform.claude.com/docs/en/build-with-claude/extended-thinking,
 * thinking blocks must be passed back only for the last assistant turn, during tool use;
 * https://platform.claude.com/docs/en/build-with-claude/context-editing, "Thinking block clearing":
 * without a `clear_thinking_20251015` edit only the final assistant turn's thinking is kept).
 * Returns the request itself when nothing is dropped; never mutates it.
 */
export function dropEarlierThinking<R extends { messages: ReadonlyArray<{ role: string; content: string | readonly unknown[] }> }>(request: R): R {
  const messages = request.messages;
  let turnStart = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    if (typeof m.content === 'string' || m.content.some((b) => !b || typeof b !== 'object' || (b as Block).type !== 'tool_result')) { turnStart = i; break; }
  }
  if (turnStart <= 0) return request;
  let out: Array<{ role: string; content: string | readonly unknown[] }> | undefined;
  for (let i = 0; i < turnStart; i++) {
    const m = messages[i]!;
    if (m.role !== 'assistant' || typeof m.content === 'string') continue;
    if (!m.content.some((b) => THINKING_TYPES.has(String((b as Block)?.type)))) continue;
    out ??= messages.slice();
    out[i] = { ...m, content: m.content.filter((b) => !THINKING_TYPES.has(String((b as Block)?.type))) };
  }
  return out ? { ...request, messages: out } : request;
}
