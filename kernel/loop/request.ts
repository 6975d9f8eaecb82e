/** Builds one request: system sections, tools, the history without metadata, then the `request` hook. */
import type { RunContext, SystemSection } from '../hook-payloads.js';
import type { Kernel } from '../kernel.js';
import type { ModelRequest } from '../model/client.js';
import type { Message, TextBlock } from '../types.js';
import { RequestLists } from '../request-messages.js';

/** The preset's own `system` key as sections: its sections first, then `append` as a last static section. */
export function presetSections(system: { sections?: { name: string; text: string; kind?: 'static' | 'dynamic' }[]; append?: string } | undefined): SystemSection[] {
  const out: SystemSection[] = (system?.sections ?? []).map((s) => ({ name: s.name, text: s.text, kind: s.kind ?? 'static' }));
  if (system?.append) out.push({ name: 'append', text: system.append, kind: 'static' });
  return out;
}

/** Sections → `system` blocks: static ones in one block, dynamic in a second, so a breakpoint on the first holds. */
export function systemBlocks(sections: readonly SystemSection[]): TextBlock[] {
  const stable = sections.filter((s) => s.kind === 'static' && s.text).map((s) => s.text);
  const dynamic = sections.filter((s) => s.kind === 'dynamic' && s.text).map((s) => s.text);
  const blocks: TextBlock[] = [];
  if (stable.length) blocks.push({ type: 'text', text: stable.join('\n\n') });
  if (dynamic.length) blocks.push({ type: 'text', text: dynamic.join('\n\n') });
  return blocks;
}

/** The API shape of the history: metadata dropped, content blocks shared (not copied). */
export function apiMessages(messages: readonly Message[]): ModelRequest['messages'] {
  return messages.map((m) => ({ role: m.role, content: m.content }));
}

type ApiForm = ModelRequest['messages'][number];

/**
 * Each kernel's request lists: the history in API form, one object per message made once (memos
 * downstream key on them), and each request's list made from it with its lineage (request-messages.ts).
 */
const requestLists = new WeakMap<Kernel, RequestLists<Message, ApiForm>>();

/**
 * A history message's API form, frozen with its content array. The request body writer
 * (lib/model/request-body.ts) keeps the bytes of a message object it has sent and sends them again
 * while the object is the same, so a `request` tap that changed one in place would send stale bytes
 * on every later request and change the history too. Frozen, such an edit throws a TypeError in the
 * tap (ES modules run in strict mode) instead; taps replace messages with `withReplacedMessages`.
 * One freeze per message, when its form is made (once per message object).
 */
function frozenForm(m: Message): ApiForm {
  if (Array.isArray(m.content)) Object.freeze(m.content);
  return Object.freeze({ role: m.role, content: m.content }) as ApiForm;
}

function requestListOf(kernel: Kernel, messages: readonly Message[]): ApiForm[] {
  let lists = requestLists.get(kernel);
  if (!lists) {
    lists = new RequestLists<Message, ApiForm>(frozenForm);
    requestLists.set(kernel, lists);
  }
  return lists.open(messages);
}

export interface BuildInput {
  messages: readonly Message[];
  model: string;
  maxTokens: number;
}

/**
 * Builds the params through the `request` hook. The history's blocks are shared: taps copy before
 * changing one. The message list is the request's own while the hook runs: a tap replaces messages
 * in it with `withReplacedMessages` (in place, recorded), and one that keeps the params past its
 * call and needs them unchanged by later taps keeps a copy of the list.
 */
export async function buildRequest(kernel: Kernel, input: BuildInput, ctx: RunContext): Promise<ModelRequest> {
  const preset = kernel.preset;
  const sections = await kernel.hooks.systemPrompt.promise(presetSections(preset.system), ctx);
  const tools = kernel.hooks.toolDefinitions.call(kernel.tools.definitions(), ctx);
  const params: ModelRequest = {
    model: input.model,
    max_tokens: input.maxTokens,
    messages: requestListOf(kernel, input.messages),
  };
  const own = params.messages;
  const system = systemBlocks(sections);
  if (system.length) params.system = system;
  if (tools.length) params.tools = tools;
  const thinking = preset.model?.thinking;
  if (thinking && thinking.type !== 'disabled') params.thinking = thinking as ModelRequest['thinking'];
  if (preset.model?.effort) params.output_config = { effort: preset.model.effort } as ModelRequest['output_config'];
  const beta = preset.model?.contextWindow ? kernel.services.longContextBeta(input.model, preset.model.contextWindow) : undefined;
  if (beta) params.betas = [beta];
  try {
    const out = (await kernel.hooks.request.promise(params, ctx)) as ModelRequest;
    RequestLists.release(out.messages);
    return out;
  } finally {
    // From here on the list is the request's as sent: a later change copies it.
    RequestLists.release(own);
  }
}
