import { describe, expect, it } from 'vitest';
import { applyContextManagement, CLEARED_TOOL_RESULT_TEXT, CONTEXT_MANAGEMENT_BETA } from './context-edits.js';
import { SimulatorApiError } from './errors.js';
import { createSimulator } from './simulator.js';
import { assistant, EPHEMERAL, text, user } from './test-support.js';
import { estimateBlockTokens } from '../lib/index.js';

const BETA = new Set([CONTEXT_MANAGEMENT_BETA]);
const headers = { 'anthropic-beta': `${CONTEXT_MANAGEMENT_BETA},other-beta` };

/** A tool_use of Read with a 10-token input, and its result of `tokens` tokens. */
function toolTurn(id: string, tokens: number, name = 'Read') {
  return [
    assistant({ type: 'tool_use', id, name, input: { file_path: `/f/${id}.txt` } }),
    user({ type: 'tool_result', tool_use_id: id, content: [text(tokens, id[0])] }),
  ];
}

const placeholderTokens = estimateBlockTokens({ type: 'tool_result', tool_use_id: 'x', content: [{ type: 'text', text: CLEARED_TOOL_RESULT_TEXT }] });

function conversation() {
  return [user(text(50)), ...toolTurn('a1', 1000), ...toolTurn('b2', 2000), ...toolTurn('c3', 3000), ...toolTurn('d4', 500, 'Edit'), assistant(text(5, 'z'))];
}

describe('clear_tool_uses_20250919', () => {
  it('the placeholder costs 14 tokens', () => {
    expect(placeholderTokens).toBe(14);
  });

  it('clears results older than the kept tool uses and reports cleared uses and tokens', () => {
    const req = { messages: conversation(), context_management: { edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 5000 }, keep: { type: 'tool_uses', value: 2 } }] } };
    const r = applyContextManagement(req, BETA);
    // a1 (1000) and b2 (2000) are cleared; c3 and d4 are kept.
    expect(r.appliedEdits).toEqual([{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 2, cleared_input_tokens: 3000 - 2 * placeholderTokens }]);
    const results = r.request.messages.flatMap((m) => (m.content as any[]).filter((b) => b.type === 'tool_result'));
    expect(results.map((b) => b.content[0].text === CLEARED_TOOL_RESULT_TEXT)).toEqual([true, true, false, false]);
    // The caller's request is untouched.
    expect((req.messages[2]!.content[0] as any).content[0].text).toHaveLength(4000);
  });

  it('does nothing below the trigger', () => {
    const req = { messages: conversation(), context_management: { edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 1_000_000 } }] } };
    const r = applyContextManagement(req, BETA);
    expect(r.appliedEdits).toEqual([]);
    expect(r.request).toBe(req);
  });

  it('defaults: trigger 100,000 input tokens, keep 3 tool uses', () => {
    const big = [user(text(10)), ...toolTurn('a1', 60_000), ...toolTurn('b2', 30_000), ...toolTurn('c3', 10_000), ...toolTurn('d4', 1000), assistant(text(1))];
    const r = applyContextManagement({ messages: big, context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] } }, BETA);
    expect(r.appliedEdits).toEqual([{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 1, cleared_input_tokens: 60_000 - placeholderTokens }]);
  });

  it('a tool_uses trigger counts tool uses', () => {
    const edit = (value: number) => ({ messages: conversation(), context_management: { edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'tool_uses', value }, keep: { type: 'tool_uses', value: 3 } }] } });
    expect(applyContextManagement(edit(4), BETA).appliedEdits).toEqual([]);
    expect(applyContextManagement(edit(3), BETA).appliedEdits[0]).toMatchObject({ cleared_tool_uses: 1 });
  });

  it('clear_at_least: not applied when it would free less', () => {
    const mk = (value: number) => ({ messages: conversation(), context_management: { edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 100 }, keep: { type: 'tool_uses', value: 2 }, clear_at_least: { type: 'input_tokens', value } }] } });
    expect(applyContextManagement(mk(3000), BETA).appliedEdits).toEqual([]);
    expect(applyContextManagement(mk(2000), BETA).appliedEdits).toHaveLength(1);
  });

  it('exclude_tools keeps those uses; clear_tool_inputs empties cleared inputs', () => {
    const req = {
      messages: conversation(),
      context_management: { edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 100 }, keep: { type: 'tool_uses', value: 0 }, exclude_tools: ['Edit'], clear_tool_inputs: ['Read'] }] },
    };
    const r = applyContextManagement(req, BETA);
    const inputTokens = estimateBlockTokens({ type: 'tool_use', id: 'a1', name: 'Read', input: { file_path: '/f/a1.txt' } }) - estimateBlockTokens({ type: 'tool_use', id: 'a1', name: 'Read', input: {} });
    expect(r.appliedEdits).toEqual([{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 3, cleared_input_tokens: 6000 - 3 * placeholderTokens + 3 * inputTokens }]);
    const uses = r.request.messages.flatMap((m) => (m.content as any[]).filter((b) => b.type === 'tool_use'));
    expect(uses.map((u) => u.input)).toEqual([{}, {}, {}, { file_path: '/f/d4.txt' }]);
  });
});

describe('clear_thinking_20251015', () => {
  const thinkingTurn = (n: number) => [
    { role: 'assistant' as const, content: [{ type: 'thinking', thinking: 't'.repeat(400), signature: `s${n}` }, { type: 'tool_use', id: `t${n}`, name: 'Read', input: {} }] },
    user({ type: 'tool_result', tool_use_id: `t${n}`, content: 'ok' }),
  ];
  const messages = [user(text(10)), ...thinkingTurn(1), ...thinkingTurn(2), ...thinkingTurn(3)];

  it('keeps the last thinking turn by default and reports the rest', () => {
    const r = applyContextManagement({ messages, context_management: { edits: [{ type: 'clear_thinking_20251015' }] } }, BETA);
    expect(r.appliedEdits).toEqual([{ type: 'clear_thinking_20251015', cleared_thinking_turns: 2, cleared_input_tokens: 200 }]);
    expect(r.request.messages.map((m) => (m.content as any[]).filter((b) => b.type === 'thinking').length)).toEqual([0, 0, 0, 0, 0, 1, 0]);
  });

  it("keep 'all' and keep {thinking_turns: 3} clear nothing", () => {
    for (const keep of ['all', { type: 'thinking_turns', value: 3 }]) {
      expect(applyContextManagement({ messages, context_management: { edits: [{ type: 'clear_thinking_20251015', keep }] } }, BETA).appliedEdits).toEqual([]);
    }
  });

  it('must come first', () => {
    const req = { messages, context_management: { edits: [{ type: 'clear_tool_uses_20250919' }, { type: 'clear_thinking_20251015' }] } };
    expect(() => applyContextManagement(req, BETA)).toThrow(/clear_thinking_20251015 must be the first edit/);
  });
});

describe('context management in the engine', () => {
  it('needs the beta header', () => {
    const sim = createSimulator();
    const r = sim.handle({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: conversation().slice(0, 3), context_management: { edits: [] } });
    expect(r.status).toBe(400);
    expect(r.error?.error.message).toContain(CONTEXT_MANAGEMENT_BETA);
    expect(() => applyContextManagement({ messages: [], context_management: {} }, new Set())).toThrow(SimulatorApiError);
  });

  it('accounts the edited prompt and reports applied_edits on the message and in message_delta', () => {
    const sim = createSimulator();
    const messages = [...conversation().slice(0, -1), user(text(20, 'q', EPHEMERAL))];
    const body = {
      model: 'claude-sonnet-4-5', max_tokens: 100, system: [text(2000, 's')], messages,
      context_management: { edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 5000 }, keep: { type: 'tool_uses', value: 2 } }] },
    };
    const r = sim.handle(body, { headers, now: 0 });
    expect(r.status).toBe(200);
    const cleared = 3000 - 2 * placeholderTokens;
    expect(r.message!.context_management).toEqual({ applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 2, cleared_input_tokens: cleared }] });
    const full = sim.countTokens({ ...body, context_management: undefined }, { headers });
    const total = (full.body as { input_tokens: number }).input_tokens;
    expect(r.message!.usage.cache_creation_input_tokens).toBe(total - cleared);
    expect(r.message!.usage.input_tokens).toBe(0);
    const delta = r.events.find((e) => e.event === 'message_delta')!;
    expect(delta.data.context_management).toEqual(r.message!.context_management);
    const counted = sim.countTokens(body, { headers });
    expect(counted.body).toEqual({ input_tokens: total - cleared, context_management: { original_input_tokens: total } });
  });
});
