import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../kernel/index.js';
import { buildPrefix } from '../../../simulator/index.js';
import { cacheControlFor, countMarkers, LAYOUTS, markedCopy, placeMarkers, type Layout } from './layout.js';
import { sortToolDefinitions } from './index.js';

const CC = cacheControlFor('5m');

function request(): ModelRequest {
  return {
    model: 'claude-sonnet-4-6',
    max_tokens: 100,
    tools: [{ name: 'A', input_schema: { type: 'object' } }, { name: 'B', input_schema: { type: 'object' } }],
    system: [{ type: 'text', text: 'static' }, { type: 'text', text: 'dynamic' }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }, { type: 'tool_use', id: 't1', name: 'A', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'r' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }, { type: 'thinking', thinking: 'hmm', signature: 's' }] },
    ],
  } as ModelRequest;
}

function where(layout: Layout, p = request(), prev?: { index: number; content: unknown }) {
  return placeMarkers({ layout, cacheControl: CC, staticSystemBlocks: 1, previousTail: prev }, p);
}

describe('placeMarkers', () => {
  it('puts each layout’s markers where it says', () => {
    expect(where('none').placed).toEqual([]);
    expect(where('system').placed).toEqual(['system.0']);
    expect(where('tools+system').placed).toEqual(['tools.1', 'system.0']);
    // The last block of the last message is a thinking block, which cannot carry a marker.
    expect(where('tools+system+tail').placed).toEqual(['tools.1', 'system.0', 'messages.3.content.0']);
    // Only the tail (a system prompt that marks itself); opencode's system block and last two messages.
    expect(where('tail').placed).toEqual(['messages.3.content.0']);
    expect(where('system+last-two').placed).toEqual(['system.0', 'messages.2.content.0', 'messages.3.content.0']);
    expect(where('auto').placed).toEqual(['request']);
    expect((where('auto').params as unknown as { cache_control: unknown }).cache_control).toEqual({ type: 'ephemeral' });
  });

  it('two-tail keeps a marker where the previous request’s tail was', () => {
    const p = request();
    const first = where('two-tail', { ...p, messages: p.messages.slice(0, 1) });
    expect(first.placed).toEqual(['tools.1', 'system.0', 'messages.0.content.0']);
    const second = where('two-tail', p, first.tail);
    expect(second.placed).toEqual(['tools.1', 'system.0', 'messages.0.content.0', 'messages.3.content.0']);
  });

  it('never mutates the request it was given, and never exceeds 4 markers with others’ markers counted', () => {
    const p = request();
    const before = JSON.stringify(p);
    const r = where('two-tail', p, { index: 0, content: p.messages[0]!.content });
    expect(JSON.stringify(p)).toBe(before);
    expect(r.params.messages[3]).not.toBe(p.messages[3]);
    expect(r.params.messages[1]).toBe(p.messages[1]);
    // Someone else already placed two markers: only two of ours fit.
    const crowded = { ...p, messages: p.messages.map((m, i) => (i === 1 ? { ...m, content: [{ type: 'text', text: 'ok', cache_control: CC }, { type: 'tool_use', id: 't1', name: 'A', input: {}, cache_control: CC }] } : m)) } as ModelRequest;
    const c = where('tools+system+tail', crowded);
    expect(c.placed).toEqual(['tools.1', 'system.0']);
    expect(c.skipped).toEqual(['messages.3.content.0']);
    expect(countMarkers(c.params)).toBe(4);
    for (const layout of LAYOUTS) expect(countMarkers(where(layout, p, { index: 0, content: p.messages[0]!.content }).params)).toBeLessThanOrEqual(4);
  });

  it('writes 1-hour markers with ttl, and the simulator accepts every layout', () => {
    const r = placeMarkers({ layout: 'tools+system+tail', cacheControl: cacheControlFor('1h'), staticSystemBlocks: 1 }, request());
    expect(r.params.system![0]).toEqual({ type: 'text', text: 'static', cache_control: { type: 'ephemeral', ttl: '1h' } });
    for (const layout of LAYOUTS) expect(() => buildPrefix(where(layout).params as never)).not.toThrow();
  });
});

describe('marked copies', () => {
  it('are the same object each time an unchanged block is marked the same way, and new when it changed', () => {
    const block = { type: 'text', text: 'a' };
    const a = markedCopy(block, CC);
    expect(a).toEqual({ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } });
    expect(a).not.toBe(block);
    expect(block).toEqual({ type: 'text', text: 'a' });
    expect(markedCopy(block, CC)).toBe(a);
    const hour = markedCopy(block, cacheControlFor('1h'));
    expect(hour).toEqual({ type: 'text', text: 'a', cache_control: { type: 'ephemeral', ttl: '1h' } });
    (block as { text: string }).text = 'b';
    expect(markedCopy(block, cacheControlFor('1h'))).toEqual({ type: 'text', text: 'b', cache_control: { type: 'ephemeral', ttl: '1h' } });
  });

  it('make two requests over the same history share their marked tool, tail block and content array', () => {
    const p = request();
    const first = where('two-tail', { ...p, messages: p.messages.slice(0, 3) });
    const second = where('two-tail', p, first.tail);
    expect(second.params.tools![1]).toBe(first.params.tools![1]);
    // The first request's tail (message 2) is the second's previous tail: the same marked content.
    expect(second.params.messages[2]!.content).toBe(first.params.messages[2]!.content);
    expect(second.params.messages[2]).not.toBe(p.messages[2]);
    expect(JSON.stringify(second.params.messages[2]!.content)).toBe(JSON.stringify([{ type: 'tool_result', tool_use_id: 't1', content: 'r', cache_control: CC }]));
  });
});

describe('sortToolDefinitions', () => {
  it('orders built-in tools by name, then MCP tools by name', () => {
    const names = sortToolDefinitions([{ name: 'mcp__b__x' }, { name: 'Write' }, { name: 'mcp__a__y' }, { name: 'Bash' }, { name: 'Read' }] as never).map((t) => t.name);
    expect(names).toEqual(['Bash', 'Read', 'Write', 'mcp__a__y', 'mcp__b__x']);
  });
});
