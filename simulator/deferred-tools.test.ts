import { describe, expect, it } from 'vitest';
import { BYTE_COUNTER } from '../lib/index.js';
import { SimulatorApiError } from './errors.js';
import { buildPrefix } from './prefix.js';
import { assistant, text, tool, user } from './test-support.js';
import { validateRequest } from './validate.js';

const model = 'claude-sonnet-4-6';
const loaded = tool('Read', 300);
const deferred = { ...tool('TodoWrite', 400), defer_loading: true };

/** A conversation where the model searched and got a reference to TodoWrite. */
function referenced(def: object) {
  return {
    model,
    max_tokens: 100,
    tools: [loaded, def],
    system: [text(200, 's')],
    messages: [
      user(text(40, 'q')),
      assistant({ type: 'tool_use', id: 't1', name: 'ToolSearch', input: { query: 'select:TodoWrite' } }),
      user({ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'tool_reference', tool_name: 'TodoWrite' }] }),
    ],
  };
}

describe('deferred tools in the simulated prompt', () => {
  it('leave the tools prefix out, and count the definition where a tool_reference names it', () => {
    const p = buildPrefix(referenced(deferred) as never);
    const tools = p.blocks.filter((b) => b.level === 'tools');
    expect(tools.map((b) => (b.block as { name: string }).name)).toEqual(['Read']);
    const ref = p.blocks.at(-1)!;
    const { defer_loading: _d, ...def } = deferred;
    expect(ref.tokens).toBeGreaterThanOrEqual(BYTE_COUNTER.tool(def));
    expect(BYTE_COUNTER.tool(def)).toBeGreaterThan(100);
  });

  it('a changed deferred definition keeps the prefix before the reference and changes the reference block', () => {
    const a = buildPrefix(referenced(deferred) as never);
    const b = buildPrefix(referenced({ ...deferred, description: 'Another text.' }) as never);
    const last = a.blocks.length - 1;
    expect(b.blocks.slice(0, last).map((x) => x.hash)).toEqual(a.blocks.slice(0, last).map((x) => x.hash));
    expect(b.blocks[last]!.hash).not.toBe(a.blocks[last]!.hash);
  });

  it('the API refuses a tool_reference to a tool that is not deferred, and a request whose every tool is deferred', () => {
    const bad = referenced(deferred);
    (bad.messages[2]!.content[0] as { content: { tool_name: string }[] }).content[0]!.tool_name = 'Read';
    expect(() => validateRequest(bad)).toThrow(SimulatorApiError);
    expect(() => validateRequest(bad)).toThrow(/tool_reference names "Read"/);
    const allDeferred = { ...referenced(deferred), tools: [{ ...loaded, defer_loading: true }, deferred] };
    expect(() => validateRequest(allDeferred)).toThrow(/at least one tool must be loaded/);
    expect(() => validateRequest(referenced(deferred))).not.toThrow();
  });
});
