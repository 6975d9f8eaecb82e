/**
 * Preserved thinking: on the models that run the prefix check, a thinking block sent back in a later
 * request counts only if the model may read it and nothing before it changed
 * (https://platform.claude.com/docs/en/build-with-claude/preserved-thinking and
 * .../preserved-thinking/prefix-checks):
 * - the block's prefix is the top-level `tools` and `system` and everything in `messages` before
 *   it; when it differs from what was sent when the block was produced, that block and every later
 *   thinking block of the request fail the check (thinking before the change stays valid);
 * - a block another model produced is dropped without an error unless the reading model may read
 *   that model's thinking (Fable 5.1 reads Opus 5 and Opus 5.5 blocks; Haiku 5.5's blocks replay on
 *   any model);
 * - a failed prefix check is a 400 `invalid_request_error` ("… The block is bound to a different
 *   conversation …"), unless `thinking.block_binding.prefix_mismatch_behavior` is `"drop_block"`
 *   (beta `thinking-binding-controls-2026-08-01`): the failing blocks are removed before the model
 *   sees them, count for nothing in the usage, and are listed in the response's
 *   `input_transformations` (`{type: "thinking_dropped", path: "messages.i.content.j", reason}`),
 *   which comes back, `[]` when nothing was dropped, only with that beta.
 *
 * The simulator knows a block's prefix only when it produced the block itself (its replies, the
 * replay's recorded replies): a block it never sent is passed through unchecked, since the real
 * check reads the signature, which the simulator cannot.
 */
import { createHash, type Hash } from 'node:crypto';
import { SimulatorApiError } from './errors.js';

/** Beta that accepts `thinking.block_binding` and returns `input_transformations`. */
export const THINKING_BINDING_BETA = 'thinking-binding-controls-2026-08-01';

/**
 * Models that run the prefix check (the prefix-checks page's list of supported models). Matched by
 * id prefix, so dated ids behave like their alias.
 */
export const PREFIX_CHECK_MODELS: readonly string[] = Object.freeze([
  'claude-fable-5-1', 'claude-fable-5-2', 'claude-mythos-5-1', 'claude-mythos-5-2',
  'claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5',
]);

/** Other models whose thinking a model may read, besides its own (preserved-thinking docs, "Switching models"). */
const READS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  'claude-fable-5-1': ['claude-opus-5', 'claude-opus-5-5'],
});
/** Models whose thinking any model may read. */
const READ_BY_ALL: readonly string[] = ['claude-haiku-5-5'];

/** The listed model id `model` starts with (longest first), or undefined. */
function family(model: string, list: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const p of list) if ((model === p || model.startsWith(`${p}-`)) && (!best || p.length > best.length)) best = p;
  return best;
}

/** True when `model` runs the prefix check on thinking blocks sent back to it. */
export function runsPrefixCheck(model: string): boolean {
  return family(model, PREFIX_CHECK_MODELS) !== undefined;
}

/** True when `reader` may read thinking that `producer` wrote. */
export function readsThinkingOf(reader: string, producer: string): boolean {
  if (reader === producer) return true;
  const r = family(reader, PREFIX_CHECK_MODELS) ?? reader;
  const p = family(producer, [...PREFIX_CHECK_MODELS, 'claude-opus-5']) ?? producer;
  if (r === p || READ_BY_ALL.includes(p)) return true;
  return (READS[r] ?? []).includes(p);
}

/** One block the API removed before the model saw the request. */
export interface InputTransformation {
  type: 'thinking_dropped';
  /** `messages.{i}.content.{j}` of the request as sent. */
  path: string;
  reason: 'prefix_binding_mismatch' | 'model_binding_mismatch';
}

type Obj = Record<string, unknown>;
type Message = { role?: string; content: string | readonly unknown[] };

const THINKING = new Set(['thinking', 'redacted_thinking']);
/** Produced blocks remembered, at most (oldest forgotten first). */
const REMEMBERED = 100_000;

/** JSON with sorted keys and no `cache_control`: the same block re-serialised by a client gives the same text. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Obj;
    return `{${Object.keys(o).filter((k) => k !== 'cache_control').sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

const blocksOf = (m: Message): readonly unknown[] => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content);

/** A hash of `tools` and `system`, the start of every block's prefix. */
function head(request: { tools?: unknown; system?: unknown }): Hash {
  const system = typeof request.system === 'string' ? [{ type: 'text', text: request.system }] : request.system ?? [];
  return createHash('sha1').update(`tools:${canonical(request.tools ?? [])}\nsystem:${canonical(system)}\n`);
}

/** Blocks this simulator produced: block text → producing model and the prefix digests it was produced after. */
export class ThinkingBindings {
  private readonly produced = new Map<string, { model: string; prefixes: Set<string> }>();

  /** Records the thinking blocks of `reply`, produced by `model` for `request` (as sent). */
  record(request: { model: string; tools?: unknown; system?: unknown; messages: readonly Message[] }, model: string, reply: readonly unknown[]): void {
    if (!runsPrefixCheck(model) || !reply.some((b) => THINKING.has(String((b as Obj)?.type)))) return;
    const h = head(request);
    for (const m of request.messages) {
      h.update(`role:${m.role}\n`);
      for (const b of blocksOf(m)) h.update(`${canonical(b)}\n`);
    }
    h.update('role:assistant\n');
    for (const b of reply) {
      const text = canonical(b);
      if (THINKING.has(String((b as Obj)?.type))) {
        let entry = this.produced.get(text);
        if (!entry) {
          entry = { model, prefixes: new Set() };
          this.produced.set(text, entry);
          if (this.produced.size > REMEMBERED) this.produced.delete(this.produced.keys().next().value!);
        }
        entry.prefixes.add(h.copy().digest('hex'));
      }
      h.update(`${text}\n`);
    }
  }

  /**
   * The request as the model reads it: the thinking blocks that fail a check removed, with what was
   * removed. Throws SimulatorApiError (400) on a failed prefix check unless the request asks for
   * `drop_block`. A request to a model that runs no prefix check comes back unchanged.
   */
  check<R extends { model: string; tools?: unknown; system?: unknown; messages: readonly Message[]; thinking?: unknown }>(request: R, betas: ReadonlySet<string>): { request: R; transformations: InputTransformation[] } {
    const transformations: InputTransformation[] = [];
    if (!runsPrefixCheck(request.model) || !this.produced.size) return { request, transformations };
    const binding = betas.has(THINKING_BINDING_BETA) ? (request.thinking as { block_binding?: { prefix_mismatch_behavior?: string } } | undefined)?.block_binding : undefined;
    const drop = binding?.prefix_mismatch_behavior === 'drop_block';
    const h = head(request);
    let failed = false;
    let messages: Message[] | undefined;
    request.messages.forEach((m, i) => {
      h.update(`role:${m.role}\n`);
      const blocks = blocksOf(m);
      let kept: unknown[] | undefined;
      blocks.forEach((b, j) => {
        const text = canonical(b);
        const thinking = THINKING.has(String((b as Obj)?.type));
        let reason: InputTransformation['reason'] | undefined;
        if (thinking) {
          const entry = this.produced.get(text);
          if (failed) reason = 'prefix_binding_mismatch';
          else if (entry && !readsThinkingOf(request.model, entry.model)) reason = 'model_binding_mismatch';
          else if (entry && !entry.prefixes.has(h.copy().digest('hex'))) {
            if (!drop) {
              throw new SimulatorApiError(400, `messages.${i}.content.${j}: Invalid \`signature\` in \`${String((b as Obj).type)}\` block. The block is bound to a different conversation. Remove the block, or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block".`, 'invalid_request_error');
            }
            failed = true;
            reason = 'prefix_binding_mismatch';
          }
        }
        if (reason) {
          transformations.push({ type: 'thinking_dropped', path: `messages.${i}.content.${j}`, reason });
          kept ??= blocks.slice(0, j);
        } else kept?.push(b);
        h.update(`${text}\n`);
      });
      if (kept) { messages ??= request.messages.slice(0, i); messages.push({ ...m, content: kept }); } else messages?.push(m);
    });
    return { request: messages ? { ...request, messages } : request, transformations };
  }
}
