/**
 * Adaptive thinking, effort and preserved thinking as the Messages API documents them, one test per rule:
 * - https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking: `{type: "adaptive"}` only
 *   on the models that have it ("adaptive thinking is not supported on this model" elsewhere); on
 *   models that take only adaptive thinking a manual budget is refused; consecutive requests with
 *   adaptive thinking keep the cache, a switch between adaptive and a budget invalidates the messages
 *   part (as any change of the thinking parameters does:
 *   https://platform.claude.com/docs/en/build-with-claude/prompt-caching, "What invalidates the cache").
 * - https://platform.claude.com/docs/en/build-with-claude/effort: the levels each model takes
 *   (`xhigh` from Opus 4.7, none on Sonnet 4.5). The effort is not among the parameters the
 *   prompt-caching page lists as invalidating, so changing it alone keeps the cache.
 * - https://platform.claude.com/docs/en/build-with-claude/preserved-thinking and
 *   .../preserved-thinking/prefix-checks: on the models that run the prefix check, a thinking block
 *   whose prefix (tools, system, earlier messages) changed fails with a 400, or is dropped with
 *   every later thinking block under `prefix_mismatch_behavior: "drop_block"` (beta
 *   `thinking-binding-controls-2026-08-01`), listed in `input_transformations` and not billed; a
 *   change after a block leaves it valid; a block of a model the reader may not read is dropped
 *   without an error; `block_binding` without the beta is refused; count_tokens runs the same check.
 */
import { describe, expect, it } from 'vitest';
import { readsThinkingOf, runsPrefixCheck, THINKING_BINDING_BETA } from './preserved-thinking.js';
import type { Responder } from './responders/types.js';
import { createSimulator } from './simulator.js';
import { EPHEMERAL, text } from './test-support.js';

const main = { 'x-rein-source': 'main_loop' };
const beta = { ...main, 'anthropic-beta': THINKING_BINDING_BETA };
const SYSTEM = [text(3000, 's', EPHEMERAL)];
const FABLE = 'claude-fable-5-1';

/** Answers turn N with a thinking block `thought N` and a text block, as model `model` (default: the request's). */
function thinker(model?: string): Responder {
  return {
    respond: ({ mainTurn }) => ({
      reply: {
        ...(model ? { model } : {}),
        content: [{ type: 'thinking', thinking: `thought ${mainTurn} `.repeat(200), signature: `sig-${mainTurn}` }, { type: 'text', text: `answer ${mainTurn}` }],
      },
    }),
  };
}

type Msg = { role: string; content: unknown[] };
const ask = (t: string): Msg => ({ role: 'user', content: [{ type: 'text', text: t }] });
const body = (model: string, messages: Msg[], extra: Record<string, unknown> = {}) => ({ model, max_tokens: 8_000, system: SYSTEM, thinking: { type: 'adaptive' }, messages, ...extra });
const dropBlock = { thinking: { type: 'adaptive', block_binding: { prefix_mismatch_behavior: 'drop_block' } } };

/** Two turns on `model`: returns the simulator and the history with both assistant replies. */
function twoTurns(model = FABLE, responder = thinker()) {
  const sim = createSimulator({ responder });
  const h: Msg[] = [ask('first')];
  const r1 = sim.handle(body(model, h), { headers: main, now: 0 });
  h.push({ role: 'assistant', content: r1.message!.content }, ask('second'));
  const r2 = sim.handle(body(model, h), { headers: main, now: 1000 });
  h.push({ role: 'assistant', content: r2.message!.content }, ask('third'));
  return { sim, h };
}

describe('adaptive thinking and effort (adaptive-thinking and effort docs)', () => {
  it('adaptive thinking is refused on a model without it; a manual budget is refused on a model that takes only adaptive thinking', () => {
    const sim = createSimulator();
    const r = sim.handle(body('claude-sonnet-4-5', [ask('q')]), { headers: main });
    expect(r.status).toBe(400);
    expect(r.error!.error.message).toBe('adaptive thinking is not supported on this model');
    const manual = sim.handle(body('claude-opus-4-7', [ask('q')], { thinking: { type: 'enabled', budget_tokens: 4_000 } }), { headers: main });
    expect(manual.status).toBe(400);
    expect(manual.error!.error.message).toMatch(/^"thinking\.type\.enabled" is not supported for this model/);
    for (const model of ['claude-opus-4-6', 'claude-sonnet-4-6', 'claude-opus-4-7']) expect(sim.handle(body(model, [ask('q')]), { headers: main }).status).toBe(200);
    expect(sim.handle(body('claude-opus-4-6', [ask('q')], { thinking: { type: 'enabled', budget_tokens: 4_000 } }), { headers: main }).status).toBe(200);
  });

  it('effort levels by model: xhigh from Opus 4.7, max not on Opus 4.5, none on Sonnet 4.5', () => {
    const sim = createSimulator();
    const effort = (model: string, e: string, thinking: object = { type: 'adaptive' }) => sim.handle(body(model, [ask('q')], { thinking, output_config: { effort: e } }), { headers: main }).status;
    expect(effort('claude-opus-4-7', 'xhigh')).toBe(200);
    expect(effort('claude-opus-4-6', 'max')).toBe(200);
    expect(effort('claude-opus-4-6', 'xhigh')).toBe(400);
    const budget = { type: 'enabled', budget_tokens: 2_000 };
    expect(effort('claude-opus-4-5', 'high', budget)).toBe(200);
    expect(effort('claude-opus-4-5', 'max', budget)).toBe(400);
    expect(effort('claude-sonnet-4-5', 'low', budget)).toBe(400);
  });

  it('the cache: an effort change alone keeps it; a switch from adaptive to a budget invalidates the messages part (prompt-caching docs)', () => {
    const sim = createSimulator();
    const model = 'claude-opus-4-6';
    const big = [text(5000, 's', EPHEMERAL)];
    const messages = [{ role: 'user', content: [{ ...text(300, 'p'), cache_control: EPHEMERAL }] }];
    const send = (extra: Record<string, unknown>, now: number) => sim.handle({ ...body(model, messages as Msg[], extra), system: big }, { headers: main, now }).message!.usage;
    send({}, 0);
    expect(send({ output_config: { effort: 'low' } }, 1000).cache_read_input_tokens).toBe(5300);
    expect(send({ output_config: { effort: 'max' } }, 2000).cache_read_input_tokens).toBe(5300);
    const switched = send({ thinking: { type: 'enabled', budget_tokens: 2_000 } }, 3000);
    expect(switched.cache_read_input_tokens).toBe(5000);
    expect(switched.cache_creation_input_tokens).toBe(300);
  });
});

describe('preserved thinking (preserved-thinking and prefix-checks docs)', () => {
  it('which models run the prefix check, and which models read whose thinking', () => {
    for (const m of ['claude-fable-5-1', 'claude-fable-5-1-20260901', 'claude-mythos-5-1', 'claude-opus-5-5', 'claude-haiku-5-5']) expect(runsPrefixCheck(m)).toBe(true);
    for (const m of ['claude-fable-5', 'claude-opus-4-8', 'claude-sonnet-4-5', 'claude-opus-5']) expect(runsPrefixCheck(m)).toBe(false);
    expect(readsThinkingOf('claude-fable-5-1', 'claude-opus-5')).toBe(true);
    expect(readsThinkingOf('claude-fable-5-1', 'claude-opus-5-5')).toBe(true);
    expect(readsThinkingOf('claude-opus-5-5', 'claude-fable-5-1')).toBe(false);
    expect(readsThinkingOf('claude-opus-5-5', 'claude-haiku-5-5')).toBe(true);
  });

  it('history sent back as it was returned passes the check; input_transformations is [] with the beta, absent without', () => {
    const { sim, h } = twoTurns();
    const r = sim.handle(body(FABLE, h), { headers: beta, now: 2000 });
    expect(r.status).toBe(200);
    expect(r.message!.input_transformations).toEqual([]);
    // Without the beta nothing is reported.
    expect(sim.handle(body(FABLE, h), { headers: main, now: 3000 }).message!.input_transformations).toBeUndefined();
  });

  it('a changed system prompt: 400 naming the first block bound to the old prefix', () => {
    const { sim, h } = twoTurns();
    const r = sim.handle({ ...body(FABLE, h), system: [text(3000, 't', EPHEMERAL)] }, { headers: main, now: 2000 });
    expect(r.status).toBe(400);
    expect(r.error!.error.type).toBe('invalid_request_error');
    expect(r.error!.error.message).toMatch(/^messages\.1\.content\.0: Invalid `signature` in `thinking` block\. The block is bound to a different conversation\./);
    // count_tokens runs the same check.
    expect(sim.countTokens({ ...body(FABLE, h), system: [text(3000, 't')] }).status).toBe(400);
  });

  it('a message rewritten between two thinking blocks: the earlier block stays valid, the later ones are dropped under drop_block, listed and not billed', () => {
    const { sim, h } = twoTurns();
    const edited = h.map((m, i) => (i === 2 ? ask('second, reworded') : m));
    expect(sim.handle(body(FABLE, edited), { headers: main, now: 2000 }).status).toBe(400);
    const kept = sim.handle(body(FABLE, h, dropBlock), { headers: beta, now: 3000 });
    const r = sim.handle(body(FABLE, edited, dropBlock), { headers: beta, now: 4000 });
    expect(r.status).toBe(200);
    expect(r.message!.input_transformations).toEqual([{ type: 'thinking_dropped', path: 'messages.3.content.0', reason: 'prefix_binding_mismatch' }]);
    // The model read the request without the dropped block: 200 × "thought 2 " less than with it.
    const dropped = r.prefix!.blocks.filter((b) => (b.block as { type?: string }).type === 'thinking');
    expect(dropped).toHaveLength(1);
    expect(r.prefix!.totalTokens).toBeLessThan(kept.prefix!.totalTokens);
  });

  it('a thinking block of a model the reader may not read is dropped without an error', () => {
    // Turns answered by Opus 5.5, then sent to Fable 5.1 (which reads Opus 5.5) and to Sonnet 5.5 (which does not).
    const { sim, h } = twoTurns('claude-opus-5-5');
    const fable = sim.handle(body(FABLE, h), { headers: beta, now: 2000 });
    expect(fable.message!.input_transformations).toEqual([]);
    const sonnet = sim.handle(body('claude-sonnet-5-5', h), { headers: beta, now: 3000 });
    expect(sonnet.status).toBe(200);
    expect(sonnet.message!.input_transformations!.map((t) => [t.path, t.reason])).toEqual([
      ['messages.1.content.0', 'model_binding_mismatch'], ['messages.3.content.0', 'model_binding_mismatch'],
    ]);
  });

  it('models without the prefix check, and blocks the simulator never produced, are not checked', () => {
    const { sim, h } = twoTurns('claude-opus-4-8');
    expect(sim.handle({ ...body('claude-opus-4-8', h), system: [text(3000, 't')] }, { headers: main, now: 2000 }).status).toBe(200);
    const foreign: Msg[] = [ask('a'), { role: 'assistant', content: [{ type: 'thinking', thinking: 'elsewhere', signature: 'x' }, { type: 'text', text: 'b' }] }, ask('c')];
    expect(createSimulator().handle(body(FABLE, foreign), { headers: main }).status).toBe(200);
  });

  it('block_binding without the beta is refused', () => {
    const r = createSimulator().handle(body(FABLE, [ask('q')], dropBlock), { headers: main });
    expect(r.status).toBe(400);
    expect(r.error!.error.message).toBe('thinking.adaptive.block_binding: Extra inputs are not permitted');
  });
});
