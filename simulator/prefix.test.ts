import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPrefix, sameJson, type PrefixRequest, type PromptPrefix } from './prefix.js';
import { assistant, marked, text, tool, user } from './test-support.js';

const model = 'claude-sonnet-4-5';

/** A conversation of `turns` assistant/user pairs over shared block objects. */
function conversation(turns: number) {
  const tools = [tool('A', 300), tool('B', 300)];
  const system = [text(500, 's')];
  const messages: { role: 'user' | 'assistant'; content: object[] }[] = [user(text(50, 'q'))];
  for (let i = 0; i < turns; i++) {
    messages.push(assistant(text(20, String.fromCharCode(97 + (i % 26))), { type: 'tool_use', id: `t${i}`, name: 'A', input: { i } }));
    messages.push(user({ type: 'tool_result', tool_use_id: `t${i}`, content: `result ${i} `.repeat(40) }));
  }
  return { tools, system, messages };
}

/** A request as an agent sends it: the last tool and the system block marked (fresh copies), the tail marked. */
type Req = PrefixRequest & { messages: { role: string; content: object[] }[] };

function request(c: ReturnType<typeof conversation>, upTo: number): Req {
  const messages = c.messages.slice(0, upTo).map((m) => ({ role: m.role, content: m.content }));
  const last = messages[messages.length - 1]!;
  last.content = [...last.content.slice(0, -1), marked(last.content[last.content.length - 1]!)];
  return {
    model,
    tools: [c.tools[0]!, marked(c.tools[1]!)],
    system: [marked(c.system[0]!)],
    messages,
  };
}

function hashes(p: PromptPrefix): number[] {
  return p.blocks.map((b) => b.hash);
}

describe('buildPrefix with the previous prefix', () => {
  it('gives the same hashes and totals as building from scratch, for any growth, edit or marker copy', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 12 }), fc.option(fc.integer({ min: 1, max: 20 })), (a, grow, edit) => {
      const c = conversation(24);
      const first = buildPrefix(request(c, 2 * a + 1));
      const next = request(c, 2 * (a + grow) + 1);
      if (edit !== null && edit < next.messages.length) {
        // An older message rewritten (a new block object with other content).
        const m = next.messages[edit]!;
        next.messages[edit] = { ...m, content: [{ type: 'text', text: `rewritten ${edit}` }] };
      }
      const reused = buildPrefix(next, first);
      const fresh = buildPrefix(next);
      expect(hashes(reused)).toEqual(hashes(fresh));
      expect(reused.blocks.map((b) => b.prefixTokens)).toEqual(fresh.blocks.map((b) => b.prefixTokens));
      expect(reused.totalTokens).toBe(fresh.totalTokens);
      expect(reused.breakpoints).toEqual(fresh.breakpoints);
    }), { numRuns: 60 });
  });

  it('reuses the history\'s entries past a marked copy of an unchanged block (the last tool, the system block)', () => {
    const c = conversation(10);
    const first = buildPrefix(request(c, 11));
    // New marked copies of the last tool and the system block; the history blocks are the same objects.
    const second = buildPrefix(request(c, 15), first);
    const firstMessage = first.blocks.findIndex((b) => b.level === 'messages');
    // Every history block before the old tail (a marked copy then, the plain block now) is the very same entry.
    for (let i = firstMessage; i < first.blocks.length - 1; i++) expect(second.blocks[i]).toBe(first.blocks[i]);
    // The marked copies are entries for the new objects, with the old chain.
    expect(second.blocks[1]!.block).not.toBe(first.blocks[1]!.block);
    expect(second.blocks[1]!.hash).toBe(first.blocks[1]!.hash);
  });

  it('sees a block whose field was replaced in place, and chains everything after it again', () => {
    const c = conversation(6);
    const first = buildPrefix(request(c, 13));
    const block = c.messages[4]!.content[0] as { type: string; tool_use_id: string; content: string };
    block.content = 'replaced in place';
    const second = buildPrefix(request(c, 13), first);
    const fresh = buildPrefix(request(c, 13));
    expect(hashes(second)).toEqual(hashes(fresh));
    const at = second.blocks.findIndex((b) => b.block === block);
    expect(second.blocks[at]!.hash).not.toBe(first.blocks[at]!.hash);
    expect(second.blocks[at]!.tokens).toBeLessThan(first.blocks[at]!.tokens);
  });

  it('a marker on a copy does not change the cached bytes: the copy hashes as the original', () => {
    const c = conversation(2);
    const plain = buildPrefix({ model, tools: c.tools, system: c.system, messages: c.messages } as PrefixRequest);
    const withMarkers = buildPrefix(request(c, c.messages.length));
    expect(hashes(withMarkers)).toEqual(hashes(plain));
    expect(withMarkers.breakpoints.map((b) => b.ttl)).toEqual(['5m', '5m', '5m']);
  });
});

describe('buildPrefix on bodies parsed from HTTP (new objects every request)', () => {
  const parsed = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

  it('gives the same hashes, tokens and breakpoints as the same requests as objects, for any growth or edit', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 12 }), fc.option(fc.integer({ min: 1, max: 20 })), (a, grow, edit) => {
      const c = conversation(24);
      const first = request(c, 2 * a + 1);
      const next = request(c, 2 * (a + grow) + 1);
      if (edit !== null && edit < next.messages.length) next.messages[edit] = { ...next.messages[edit]!, content: [{ type: 'text', text: `rewritten ${edit}` }] };
      const overHttp = buildPrefix(parsed(next), buildPrefix(parsed(first)));
      const fresh = buildPrefix(next);
      expect(hashes(overHttp)).toEqual(hashes(fresh));
      expect(overHttp.blocks.map((b) => b.prefixTokens)).toEqual(fresh.blocks.map((b) => b.prefixTokens));
      expect(overHttp.breakpoints).toEqual(fresh.breakpoints);
    }), { numRuns: 60 });
  });

  it('takes the previous entry for a parsed copy of an unchanged block, and chains a changed one again', () => {
    const c = conversation(8);
    const first = buildPrefix(parsed(request(c, 13)));
    const again = parsed(request(c, 17));
    const second = buildPrefix(again, first);
    const firstMessage = first.blocks.findIndex((b) => b.level === 'messages');
    // The history's blocks (all but the old tail, a marked copy then) keep their entries' chain.
    for (let i = firstMessage; i < first.blocks.length - 1; i++) {
      expect(second.blocks[i]!.hash).toBe(first.blocks[i]!.hash);
      expect(second.blocks[i]!.block).toBe(again.messages[second.blocks[i]!.index]!.content[second.blocks[i]!.blockIndex]);
    }
    const edited = parsed(request(c, 17));
    (edited.messages[4]!.content[0] as { content: string }).content = 'changed over the wire';
    const third = buildPrefix(edited, second);
    const at = third.blocks.findIndex((b) => b.level === 'messages' && b.index === 4);
    expect(third.blocks[at]!.hash).not.toBe(second.blocks[at]!.hash);
    expect(hashes(third)).toEqual(hashes(buildPrefix(edited)));
  });
});

describe('sameJson', () => {
  it('is JSON equality with cache_control and undefined values dropped at any depth, keys in order', () => {
    expect(sameJson({ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'a' })).toBe(true);
    expect(sameJson({ type: 'tool_result', content: [{ type: 'text', text: 'x', cache_control: {} }] }, { type: 'tool_result', content: [{ type: 'text', text: 'x' }] })).toBe(true);
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameJson({ a: [1, 2] }, { a: [1, 2, 3] })).toBe(false);
    expect(sameJson({ a: '1' }, { a: 1 })).toBe(false);
    expect(sameJson([1], { 0: 1 })).toBe(false);
    expect(sameJson({ a: null }, { a: {} })).toBe(false);
  });
});
