/**
 * Request checks the API makes before any model work, with its wording where rein's agents depend
 * on recognising the error (tool_use / tool_result pairing, prompt too long).
 */
import { invalidRequest } from './errors.js';
import { maxOutputTokens, modelFacts } from '../lib/index.js';
import { THINKING_BINDING_BETA } from './preserved-thinking.js';
import { sealedSharedLength } from './body.js';

type Body = Record<string, any>;

/**
 * The beta that lets `messages` hold `role: "system"` messages (text only) between the turns;
 * Claude Code sends one after the first user message (with `mid-conversation-system-2026-04-07`).
 * Matched by name, any date.
 */
export const MID_CONVERSATION_SYSTEM_BETA = 'mid-conversation-system-';

/**
 * Checks the shape of a `POST /v1/messages` body (`countTokens: true` for count_tokens, which
 * needs no `max_tokens`; `betas`: the request's `anthropic-beta` flags, which widen what is
 * accepted). Throws SimulatorApiError (400) naming the first bad field.
 */
export function validateRequest(body: unknown, options: { countTokens?: boolean; betas?: ReadonlySet<string>; history?: ValidatedHistory; source?: string } = {}): asserts body is Body {
  const systemMessages = [...(options.betas ?? [])].some((b) => b.startsWith(MID_CONVERSATION_SYSTEM_BETA));
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('The request body must be a JSON object');
  const b = body as Body;
  if (typeof b.model !== 'string' || !b.model) throw invalidRequest('model: Field required');
  if (!options.countTokens) {
    if (b.max_tokens === undefined) throw invalidRequest('max_tokens: Field required');
    if (!Number.isInteger(b.max_tokens) || b.max_tokens < 1) throw invalidRequest('max_tokens: Input should be an integer greater than or equal to 1');
    // The API refuses a max_tokens over the model's output limit (lib/model/models.ts), in these words.
    const limit = maxOutputTokens(b.model);
    if (limit !== undefined && b.max_tokens > limit) throw invalidRequest(`max_tokens: ${b.max_tokens} > ${limit}, which is the maximum allowed number of output tokens for ${b.model}`);
  }
  if (!Array.isArray(b.messages)) throw invalidRequest('messages: Field required');
  if (b.messages.length === 0) throw invalidRequest('messages: at least one message is required');
  if (b.system !== undefined && typeof b.system !== 'string' && !Array.isArray(b.system)) throw invalidRequest('system: Input should be a valid string or list');
  if (Array.isArray(b.system)) {
    b.system.forEach((s: any, i: number) => {
      if (!s || s.type !== 'text' || typeof s.text !== 'string') throw invalidRequest(`system.${i}: Input should be a text block`);
    });
  }
  if (b.tools !== undefined && !Array.isArray(b.tools)) throw invalidRequest('tools: Input should be a valid list');
  (b.tools ?? []).forEach((t: any, i: number) => {
    if (!t || typeof t !== 'object' || typeof t.name !== 'string' || !t.name) throw invalidRequest(`tools.${i}.name: Field required`);
  });
  const deferred = deferredNames(b.tools ?? []);
  const messages: any[] = b.messages;
  // Leading messages this history already validated, in the same context, are not checked again.
  const context = `${systemMessages}|${[...deferred].join('\u0000')}`;
  const known = options.history?.known(options.source ?? '', context, messages) ?? 0;
  checkDeferredTools(b.tools ?? [], deferred, messages, known);
  // Plain loops, here and in the checks below: they run over every block of every request (a
  // replay's whole history per request), where a closure per message was most of their garbage.
  for (let i = known; i < messages.length; i++) {
    const m = messages[i];
    if (!m || typeof m !== 'object') throw invalidRequest(`messages.${i}: Input should be an object`);
    if (m.role === 'system' && systemMessages) {
      const textOnly = typeof m.content === 'string' || (Array.isArray(m.content) && m.content.every((c: any) => c?.type === 'text' && typeof c.text === 'string'));
      if (!textOnly) throw invalidRequest(`messages.${i}.content: a system message holds text only`);
      continue;
    }
    if (m.role !== 'user' && m.role !== 'assistant') throw invalidRequest(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    if (typeof m.content === 'string') continue;
    if (!Array.isArray(m.content)) throw invalidRequest(`messages.${i}.content: Input should be a valid string or list`);
    const content: any[] = m.content;
    for (let j = 0; j < content.length; j++) {
      const c = content[j];
      if (!c || typeof c !== 'object' || typeof c.type !== 'string') throw invalidRequest(`messages.${i}.content.${j}: Input should be a content block with a type`);
      if (c.type === 'text' && typeof c.text !== 'string') throw invalidRequest(`messages.${i}.content.${j}.text: Field required`);
    }
  }
  checkToolPairing(b.messages, known);
  checkThinking(b, options.betas ?? new Set());
  options.history?.record(options.source ?? '', context, messages);
}

/**
 * The messages of the last valid request per source, so the next request of the same conversation
 * checks only the messages after the ones it shares. Only sealed messages (parsed by the HTTP
 * server's BodyParser, frozen: the same object cannot have changed) count as shared; a message's
 * pairing with its neighbours is checked again where a neighbour is new.
 */
export class ValidatedHistory {
  private readonly last = new Map<string, { context: string; messages: readonly unknown[] }>();

  /** How many leading messages of `messages` the last valid request of `source` had, in the same context. */
  known(source: string, context: string, messages: readonly unknown[]): number {
    const prev = this.last.get(source);
    if (!prev || prev.context !== context) return 0;
    return sealedSharedLength(messages, prev.messages);
  }

  record(source: string, context: string, messages: readonly unknown[]): void {
    this.last.set(source, { context, messages });
  }
}

/**
 * Models that take only adaptive thinking: `thinking: {type: "enabled"}` is refused
 * (https://platform.claude.com/docs/en/build-with-claude/extended-thinking: Claude 4.7 and later
 * reject it; .../adaptive-thinking: Fable 5 and Mythos 5 take only adaptive thinking). Id prefixes.
 */
export const ADAPTIVE_ONLY_MODELS: readonly string[] = Object.freeze(['claude-opus-4-7', 'claude-opus-4-8', 'claude-fable-5', 'claude-mythos-5']);

/**
 * `thinking` and `output_config.effort` as the model accepts them
 * (https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking, .../effort): adaptive
 * thinking only on models that have it, manual budgets not on models that take only adaptive
 * thinking, an effort level the model takes, and `block_binding` only with its beta
 * (.../preserved-thinking). Models rein's table does not know are not checked.
 */
function checkThinking(b: Body, betas: ReadonlySet<string>): void {
  const thinking = b.thinking as { type?: string; block_binding?: unknown } | undefined;
  if (thinking?.block_binding !== undefined && !betas.has(THINKING_BINDING_BETA)) {
    throw invalidRequest(`thinking.${thinking.type}.block_binding: Extra inputs are not permitted`);
  }
  const facts = modelFacts(String(b.model));
  if (thinking?.type === 'adaptive' && facts && !facts.adaptiveThinking) throw invalidRequest('adaptive thinking is not supported on this model');
  if (thinking?.type === 'enabled' && ADAPTIVE_ONLY_MODELS.some((p) => String(b.model).startsWith(p))) {
    throw invalidRequest('"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.');
  }
  const effort = (b.output_config as { effort?: unknown } | undefined)?.effort;
  if (effort !== undefined && facts && !(facts.effort as readonly unknown[]).includes(effort)) {
    throw invalidRequest(facts.effort.length ? `output_config.effort: ${String(b.model)} does not support effort "${String(effort)}" (supported: ${facts.effort.join(', ')})` : `output_config.effort: effort is not supported on ${String(b.model)}`);
  }
}

/**
 * The tool search rules (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool):
 * at least one tool must be loaded up front, and a `tool_reference` in a `tool_result` must name
 * a tool of the request that is deferred (`defer_loading: true`).
 */
function deferredNames(tools: any[]): Set<string> {
  return new Set(tools.filter((t) => t?.defer_loading === true).map((t) => String(t.name)));
}

function checkDeferredTools(tools: any[], deferred: ReadonlySet<string>, messages: any[], from: number): void {
  if (deferred.size && deferred.size === tools.length) {
    throw invalidRequest('tools: every tool has defer_loading set; at least one tool must be loaded without deferral (the tool that searches the rest).');
  }
  for (let i = from; i < messages.length; i++) {
    const content = messages[i]?.content;
    if (!Array.isArray(content)) continue;
    for (let j = 0; j < content.length; j++) {
      const c = content[j];
      if (c?.type !== 'tool_result' || !Array.isArray(c.content)) continue;
      for (let k = 0; k < c.content.length; k++) {
        const r = c.content[k];
        if (r?.type !== 'tool_reference') continue;
        if (!deferred.has(String(r.tool_name))) {
          throw invalidRequest(`messages.${i}.content.${j}.content.${k}: tool_reference names ${JSON.stringify(r.tool_name)}, which is not a tool of this request with defer_loading: true.`);
        }
      }
    }
  }
}

function toolUseIds(m: any): string[] {
  if (m?.role !== 'assistant' || !Array.isArray(m.content)) return [];
  return m.content.filter((c: any) => c?.type === 'tool_use').map((c: any) => String(c.id));
}

/** Does assistant message `m` have a tool_use with this id? (No allocation: this runs per block per request.) */
function hasToolUse(m: any, id: string): boolean {
  if (m?.role !== 'assistant' || !Array.isArray(m.content)) return false;
  // Indexed, not for-of: an iterator and a result object per block where V8 does not optimise them away.
  const content: any[] = m.content;
  for (let i = 0; i < content.length; i++) if (content[i]?.type === 'tool_use' && String(content[i].id) === id) return true;
  return false;
}

/** Does message `m` have a tool_result for this id? */
function hasToolResult(m: any, id: string): boolean {
  if (!Array.isArray(m?.content)) return false;
  const content: any[] = m.content;
  for (let i = 0; i < content.length; i++) if (content[i]?.type === 'tool_result' && String(content[i].tool_use_id) === id) return true;
  return false;
}

/**
 * Every `tool_use` must be answered by a `tool_result` in the next message, and every `tool_result`
 * must answer a `tool_use` of the previous message (the API's rule; error texts as it words them).
 */
function checkToolPairing(messages: any[], known: number): void {
  // Messages before `known` were paired with each other already.
  for (let i = known; i < messages.length; i++) {
    const m = messages[i];
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    const content: any[] = m.content;
    for (let j = 0; j < content.length; j++) {
      const c = content[j];
      if (c?.type === 'tool_result' && !hasToolUse(messages[i - 1], String(c.tool_use_id))) {
        throw invalidRequest(
          `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${c.tool_use_id}. ` +
            'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
        );
      }
    }
  }
  for (let i = Math.max(0, known - 1); i < messages.length - 1; i++) {
    const m = messages[i];
    if (m?.role !== 'assistant' || !Array.isArray(m.content)) continue;
    const next = messages[i + 1];
    let complete = true;
    const content: any[] = m.content;
    for (let j = 0; j < content.length; j++) if (content[j]?.type === 'tool_use' && !hasToolResult(next, String(content[j].id))) { complete = false; break; }
    if (complete) continue;
    const missing = toolUseIds(m).filter((id) => !hasToolResult(next, id));
    throw invalidRequest(
      `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. ` +
        'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
  }
}
