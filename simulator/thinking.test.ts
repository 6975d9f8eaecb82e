/**
 * Extended thinking as the Messages API handles it, one test per documented rule:
 * - https://platform.claude.com/docs/en/build-with-claude/context-windows (extended thinking):
 *   thinking blocks of previous turns are stripped and not counted; the turn in progress counts.
 * - https://platform.claude.com/docs/en/build-with-claude/extended-thinking: during tool use the
 *   thinking of the last assistant turn must be passed back and is kept; "Thinking block
 *   preservation in Claude Opus 4.5 and later": earlier-turn thinking stays in context by default.
 * - https://platform.claude.com/docs/en/build-with-claude/context-editing ("Thinking block
 *   clearing"): a `clear_thinking_20251015` edit decides instead; `keep: "all"` keeps every block.
 * - https://platform.claude.com/docs/en/build-with-claude/prompt-caching (caching with thinking
 *   blocks): changing the thinking parameters invalidates the messages part of the cache; tools and
 *   system stay cached.
 */
import { describe, expect, it } from 'vitest';
import { dropEarlierThinking } from './context-edits.js';
import { keepsEarlierThinking } from './models.js';
import { createSimulator } from './simulator.js';
import { EPHEMERAL, text } from './test-support.js';

const main = { 'x-rein-source': 'main_loop' };
const SYSTEM = [text(3000, 's', EPHEMERAL)];
const think = (t: string) => ({ type: 'thinking', thinking: t.repeat(800), signature: 'sig' });
const marked = <T extends object>(b: T) => ({ ...b, cache_control: EPHEMERAL });

/** A turn with a tool call and its result, then a final answer; both replies think first. */
function history(prompt2?: string) {
  const m: { role: string; content: unknown[] }[] = [
    { role: 'user', content: [text(200, 'p')] },
    { role: 'assistant', content: [think('a'), { type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'x' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'r'.repeat(4000) }] },
    { role: 'assistant', content: [think('b'), text(50, 'd')] },
  ];
  if (prompt2) m.push({ role: 'user', content: [marked(text(20, prompt2))] });
  return m;
}

function request(model: string, messages: unknown[], extra: Record<string, unknown> = {}) {
  return { model, max_tokens: 32_000, system: SYSTEM, thinking: { type: 'enabled', budget_tokens: 10_000 }, messages, ...extra };
}

/** The request just before the final answer: the tool loop, tool result marked as the tail. */
function toolLoopRequest(model: string) {
  const m = history().slice(0, 3);
  const r = m[2]!.content[0] as object;
  m[2] = { role: 'user', content: [marked(r)] };
  return request(model, m);
}

describe('extended thinking in the simulator', () => {
  it('models table: Opus 4.5+ and Sonnet 4.6+ keep earlier-turn thinking; Sonnet 4.5, Opus 4.1 and Haiku drop it (extended-thinking docs)', () => {
    for (const m of ['claude-opus-4-5-20251101', 'claude-opus-4-6', 'claude-sonnet-4-6', 'claude-opus-5']) expect(keepsEarlierThinking(m)).toBe(true);
    for (const m of ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-20250514', 'claude-opus-4-1', 'claude-haiku-4-5-20251001', 'claude-3-7-sonnet-20250219']) expect(keepsEarlierThinking(m)).toBe(false);
  });

  it('Sonnet 4.5: a new user prompt drops the earlier turn\'s thinking, before counting and caching (context-windows docs)', () => {
    const sim = createSimulator();
    const model = 'claude-sonnet-4-5';
    const loop = sim.handle(toolLoopRequest(model), { headers: main, now: 0 });
    const next = sim.handle(request(model, history('n')), { headers: main, now: 1000 });
    // Within the tool loop the turn's thinking counts: 800 × 'a' = 200 tokens.
    expect(loop.prefix!.blocks.some((b) => (b.block as { type?: string }).type === 'thinking')).toBe(true);
    // At the next prompt neither thinking block is in the prompt.
    expect(next.prefix!.blocks.some((b) => (b.block as { type?: string }).type === 'thinking')).toBe(false);
    // The cache breaks at the first dropped block: what is read is the system prompt only (the
    // first user message has no breakpoint of its own), and everything after it is written again.
    const u = next.message!.usage;
    expect(u.cache_read_input_tokens).toBe(3000);
    expect(u.cache_creation_input_tokens).toBe(next.prefix!.totalTokens - 3000);
    // count_tokens agrees: the dropped thinking is not input.
    const count = sim.countTokens(request(model, history('n')));
    expect((count.body as { input_tokens: number }).input_tokens).toBe(next.prefix!.totalTokens);
  });

  it('Sonnet 4.5: inside a tool-use loop the turn\'s thinking stays, so the previous prompt is read whole (extended-thinking docs, tool use)', () => {
    const sim = createSimulator();
    const model = 'claude-sonnet-4-5';
    const first = sim.handle(request(model, [{ role: 'user', content: [marked(text(200, 'p'))] }]), { headers: main, now: 0 });
    const loop = sim.handle(toolLoopRequest(model), { headers: main, now: 1000 });
    expect(loop.message!.usage.cache_read_input_tokens).toBe(first.prefix!.totalTokens);
    expect(loop.prefix!.blocks.filter((b) => (b.block as { type?: string }).type === 'thinking')).toHaveLength(1);
  });

  it('Opus 4.5 keeps earlier-turn thinking: the next prompt reads the whole previous prompt (extended-thinking docs, Opus 4.5 and later)', () => {
    const sim = createSimulator();
    const model = 'claude-opus-4-5';
    const big = [text(5000, 's', EPHEMERAL)];
    const loop = sim.handle({ ...toolLoopRequest(model), system: big }, { headers: main, now: 0 });
    const next = sim.handle({ ...request(model, history('n')), system: big }, { headers: main, now: 1000 });
    expect(next.prefix!.blocks.filter((b) => (b.block as { type?: string }).type === 'thinking')).toHaveLength(2);
    expect(next.message!.usage.cache_read_input_tokens).toBe(loop.prefix!.totalTokens);
  });

  it('a clear_thinking_20251015 edit with keep "all" overrides the default drop on Sonnet 4.5 (context-editing docs)', () => {
    const sim = createSimulator();
    const model = 'claude-sonnet-4-5';
    const headers = { ...main, 'anthropic-beta': 'context-management-2025-06-27' };
    const keepAll = { context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] } };
    const loop = sim.handle({ ...toolLoopRequest(model), ...keepAll }, { headers, now: 0 });
    const next = sim.handle(request(model, history('n'), keepAll), { headers, now: 1000 });
    expect(next.prefix!.blocks.filter((b) => (b.block as { type?: string }).type === 'thinking')).toHaveLength(2);
    expect(next.message!.usage.cache_read_input_tokens).toBe(loop.prefix!.totalTokens);
  });

  it('a change of the thinking parameters invalidates the messages part of the cache; tools and system stay cached (prompt-caching docs)', () => {
    const sim = createSimulator();
    const model = 'claude-opus-4-5';
    const big = [text(5000, 's', EPHEMERAL)];
    const messages = [{ role: 'user', content: [marked(text(300, 'p'))] }];
    sim.handle({ ...request(model, messages), system: big }, { headers: main, now: 0 });
    const same = sim.handle({ ...request(model, messages), system: big }, { headers: main, now: 1000 });
    expect(same.message!.usage.cache_read_input_tokens).toBe(5300);
    const changed = sim.handle({ ...request(model, messages, { thinking: { type: 'enabled', budget_tokens: 2000 } }), system: big }, { headers: main, now: 2000 });
    expect(changed.message!.usage.cache_read_input_tokens).toBe(5000);
    expect(changed.message!.usage.cache_creation_input_tokens).toBe(300);
  });

  it('dropEarlierThinking never mutates the request and returns it as is when nothing is dropped', () => {
    const req = { messages: history('n') };
    const before = JSON.stringify(req);
    const out = dropEarlierThinking(req);
    expect(JSON.stringify(req)).toBe(before);
    expect(out).not.toBe(req);
    const loop = { messages: history().slice(0, 3) };
    expect(dropEarlierThinking(loop)).toBe(loop);
  });
});
