/** Builds one request: system sections, tools, the history without metadata, then the `request` hook. */
import type { RunContext, SystemSection } from '../hook-payloads.js';
import type { Kernel } from '../kernel.js';
import type { ModelRequest } from '../model/client.js';
import type { Message, TextBlock } from '../types.js';
import { Incremental } from '../incremental.js';

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

/** Each kernel's history in API form, one object per message made once (memos downstream key on them). */
const apiForms = new WeakMap<Kernel, Incremental<Message, ApiForm[]>>();

function apiFormOf(kernel: Kernel, messages: readonly Message[]): ApiForm[] {
  let forms = apiForms.get(kernel);
  if (!forms) {
    forms = new Incremental<Message, ApiForm[]>({
      init: () => [],
      add: (out, m) => { out.push({ role: m.role, content: m.content }); },
      truncate: (out, length) => { out.length = length; },
    });
    apiForms.set(kernel, forms);
  }
  return forms.update(messages);
}

export interface BuildInput {
  messages: readonly Message[];
  model: string;
  maxTokens: number;
}

/** Builds the params through the `request` hook. The history's blocks are shared: taps copy before changing one. */
export async function buildRequest(kernel: Kernel, input: BuildInput, ctx: RunContext): Promise<ModelRequest> {
  const preset = kernel.preset;
  const sections = await kernel.hooks.systemPrompt.promise(presetSections(preset.system), ctx);
  const tools = kernel.hooks.toolDefinitions.call(kernel.tools.definitions(), ctx);
  const params: ModelRequest = {
    model: input.model,
    max_tokens: input.maxTokens,
    messages: apiFormOf(kernel, input.messages).slice(),
  };
  const system = systemBlocks(sections);
  if (system.length) params.system = system;
  if (tools.length) params.tools = tools;
  const thinking = preset.model?.thinking;
  if (thinking && thinking.type !== 'disabled') params.thinking = thinking as ModelRequest['thinking'];
  if (preset.model?.effort) params.output_config = { effort: preset.model.effort } as ModelRequest['output_config'];
  const beta = preset.model?.contextWindow ? kernel.services.longContextBeta(input.model, preset.model.contextWindow) : undefined;
  if (beta) params.betas = [beta];
  return (await kernel.hooks.request.promise(params, ctx)) as ModelRequest;
}
