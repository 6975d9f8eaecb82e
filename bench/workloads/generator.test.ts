import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateWorkload, parseGeneratorSpec, prng, resultText, skipResultText } from './generator.js';

describe('generator', () => {
  it('makes exactly `turns` requests split over `prompts`, with parallel calls and their results', () => {
    const w = generateWorkload('gen:turns=30,prompts=3,parallel=2,results=500,seed=7');
    expect(w.steps).toHaveLength(30);
    expect(w.steps.filter((s) => s.prompt).length).toBe(3);
    const withCalls = w.steps.filter((s) => s.stopReason === 'tool_use');
    expect(withCalls.length).toBe(27);
    for (const s of withCalls) {
      const ids = s.reply.filter((b) => b.type === 'tool_use').map((b) => (b as { id: string }).id);
      expect(ids).toHaveLength(2);
      expect(s.toolResults.map((r) => r.toolUseId)).toEqual(ids);
      for (const r of s.toolResults) {
        const len = (r.content[0] as { text: string }).text.length;
        expect(len).toBeGreaterThanOrEqual(250);
        expect(len).toBeLessThanOrEqual(750);
      }
    }
  });

  it('is deterministic for a spec and differs by seed', () => {
    expect(JSON.stringify(generateWorkload('gen:turns=20,seed=3'))).toBe(JSON.stringify(generateWorkload('gen:turns=20,seed=3')));
    expect(JSON.stringify(generateWorkload('gen:turns=20,seed=3'))).not.toBe(JSON.stringify(generateWorkload('gen:turns=20,seed=4')));
  });

  it('makes results when read: the same text every time, in JSON and in a structured clone, as when they were stored', () => {
    const w = generateWorkload('gen:turns=40,parallel=2,results=800,seed=11');
    const r = w.steps[3]!.toolResults[1]!;
    expect(r.content).not.toBe(r.content);
    expect(r.content).toEqual(r.content);
    expect(Object.keys(r)).toEqual(['toolUseId', 'toolName', 'content', 'isError']);
    expect(structuredClone(w)).toEqual(JSON.parse(JSON.stringify(w)));
    // The digest of this spec's JSON when every reply and result was made up front and stored.
    expect(createHash('sha256').update(JSON.stringify(w)).digest('hex')).toBe('d8a23b9291f2a101a97b81c72483a994ecbe2145532be65f7e1ebec941838b92');
  });

  it('makes replies when read: the same blocks every time, their calls those of the results, and a replaced reply stays', () => {
    const w = generateWorkload('gen:turns=40,parallel=2,results=800,seed=11');
    const s = w.steps[5]!;
    expect(s.reply).not.toBe(s.reply);
    expect(s.reply).toEqual(s.reply);
    expect(Object.keys(s)).toEqual(['index', 'reply', 'stopReason', 'model', 'toolResults', 'at']);
    const uses = s.reply.filter((b) => b.type === 'tool_use') as { id: string; name: string; input: Record<string, unknown> }[];
    expect(uses.map((u) => [u.id, u.name])).toEqual(s.toolResults.map((r) => [r.toolUseId, r.toolName]));
    expect(Object.keys(uses[0]!.input).length).toBeGreaterThan(0);
    expect((s.reply[0] as { text: string }).text).toHaveLength(300);
    s.reply = [{ type: 'text', text: 'replaced' }];
    expect(s.reply).toBe(s.reply);
    expect(JSON.parse(JSON.stringify(s)).reply).toEqual([{ type: 'text', text: 'replaced' }]);
  });

  it('moves past a result with the same draws as making its text', () => {
    for (const [seed, chars] of [[1, 1], [2, 40], [3, 2000], [4, 7777], [5, 60_000]] as const) {
      const made = prng(seed);
      const skipped = prng(seed);
      expect(resultText(made, chars).length).toBeGreaterThanOrEqual(chars - 1);
      skipResultText(skipped, chars);
      expect(skipped.state()).toBe(made.state());
    }
  });

  it('puts idle gaps before prompts and the step time between requests', () => {
    const w = generateWorkload('gen:turns=4,prompts=2,gap=600,step=3');
    const at = w.steps.map((s) => s.at - w.steps[0]!.at);
    expect(at).toEqual([0, 3000, 603_000, 606_000]);
  });

  it('follows the tool mix', () => {
    const w = generateWorkload('gen:turns=40,tools=Glob:1');
    const names = new Set(w.steps.flatMap((s) => s.toolResults.map((r) => r.toolName)));
    expect([...names]).toEqual(['Glob']);
  });

  it('rejects unknown keys and bad values with a message naming them', () => {
    expect(() => parseGeneratorSpec('gen:turns=0')).toThrow(/turns must be an integer ≥ 1/);
    expect(() => parseGeneratorSpec('gen:turn=5')).toThrow(/unknown key "turn"/);
    expect(() => parseGeneratorSpec('gen:tools=Read:x')).toThrow(/bad tool mix entry/);
  });
});
