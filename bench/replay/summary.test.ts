import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TOKEN_COUNTERS } from '../../lib/tokens/counter.js';
import { extractFacts } from '../metrics/recall.js';
import { extractiveSummary, MIN_SUMMARY_TOKENS, promptsIn, SUMMARY_SIZE, summaryBudget } from './summary.js';

const counter = TOKEN_COUNTERS.calibrated;
const prompts = ['Make the parser in src/parse/tokens.ts accept trailing commas', 'Also run the tests and fix what fails'];

/** A compaction request as the auto plugin sends it: a rendered transcript, then the instructions. */
function request(): { messages: { role: string; content: { type: string; text: string }[] }[]; max_tokens: number } {
  const files = Array.from({ length: 40 }, (_, i) => `src/module${i}/handler${i}.ts`);
  const transcript = [
    `[User]\n${prompts[0]}`,
    '[Assistant]\nReading src/parse/tokens.ts to see how readToken handles commas.',
    `[Read result]\n${files.map((f, i) => `import { helperFn${i} } from './${f}';`).join('\n')}`,
    '[Assistant]\nThe function readToken in src/parse/tokens.ts stops at a comma; changing parseList.',
    `[User]\n${prompts[1]}`,
    '[Bash result]\nFAIL test/parse.test.ts\nSyntaxError: Unexpected token , in JSON at position 14\nTests took 1840ms',
    '[Assistant]\nThe failure is the SyntaxError from parseList; I am changing skipTrailingComma now.',
  ].join('\n\n');
  return { max_tokens: 20_000, messages: [{ role: 'user', content: [{ type: 'text', text: `${transcript}\n\nWrite a handoff summary of the session above. Use sections.` }] }] };
}

describe('extractive summary', () => {
  it('is laid out in the nine sections, with the requests, files, errors and current work', () => {
    const s = extractiveSummary(request(), prompts, 2_000, counter);
    const titles = [...s.matchAll(/^(\d)\. [^:\n]+:$/gm)].map((m) => Number(m[1]));
    expect(titles).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(s).toContain(`Most recent request: "${prompts[1]}"`);
    expect(s).toContain(`- "${prompts[0]}"`);
    expect(s).toContain('- src/parse/tokens.ts');
    expect(s).toContain('SyntaxError: Unexpected token , in JSON at position 14');
    expect(s).toContain('skipTrailingComma');
    expect(s).toContain('1840ms');
    // The summariser's own instructions are not summarised.
    expect(s).not.toMatch(/handoff/);
    expect(extractiveSummary(request(), prompts, 2_000, counter)).toBe(s);
  });

  it('stays within its budget, and a larger budget keeps more of the facts', () => {
    const all = new Set(extractFacts(request().messages[0]!.content[0]!.text.split('Write a handoff')[0]!).map((f) => f.text));
    const kept = (budget: number) => {
      const s = extractiveSummary(request(), prompts, budget, counter);
      expect(counter.block(s, false)).toBeLessThanOrEqual(budget);
      return [...all].filter((f) => s.includes(f)).length;
    };
    const small = kept(150);
    const mid = kept(400);
    const large = kept(3_000);
    expect(small).toBeGreaterThan(0);
    expect(mid).toBeGreaterThan(small);
    expect(large).toBeGreaterThan(mid);
    // With a small budget the user's latest request still comes first.
    expect(extractiveSummary(request(), prompts, 150, counter)).toContain(prompts[1]);
  });

  it('takes the request’s max_tokens, capped by the size model', () => {
    expect(summaryBudget(20_000, 200_000)).toBe(Math.round(SUMMARY_SIZE.ratioHigh * 200_000));
    expect(summaryBudget(500, 200_000)).toBe(500);
    expect(summaryBudget(20_000, 10_000)).toBe(MIN_SUMMARY_TOKENS);
  });
});

describe('prompts a compaction request shows', () => {
  /** What `promptsIn` must equal: every prompt tested against the text. */
  const naive = (all: string, ps: readonly string[]) => ps.filter((p) => p.trim() && all.includes(p.trim().slice(0, 80)));

  it('are the prompts whose first 80 trimmed characters occur in the text, in order, duplicates kept', () => {
    const ps = ['  Fix readToken in src/a.ts now  ', 'Fix readToken in src/a.ts now', '   ', '', 'x', 'Please fix', `${'a'.repeat(79)} b tail`, 'not shown anywhere at all'];
    const all = `[User]\nFix readToken in src/a.ts now please\nPlease fix\n${'a'.repeat(79)} b\nx`;
    expect(promptsIn(all, ps)).toEqual(naive(all, ps));
    expect(promptsIn(all, ps)).toEqual([ps[0], ps[1], ps[4], ps[5], ps[6]]);
    // The same array again (its index is kept) against another text.
    expect(promptsIn('nothing here', ps)).toEqual([]);
    expect(promptsIn('Fix readToken in src/a.ts now', ps)).toEqual([ps[0], ps[1], ps[4]]);
  });

  it('agree with testing every prompt, on random prompts and texts', () => {
    // A small alphabet of word and non-word characters, so prompts and texts share words and
    // word boundaries fall everywhere, including at the 80-character cut.
    const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '_', '1', ' ', '.', '\n', '/', 'é'), maxLength: 120 });
    fc.assert(
      fc.property(fc.array(text, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 12 }), text, (ps, picks, noise) => {
        // The text holds some of the prompts (whole or cut) between random strings.
        const parts = picks.map((k, i) => { const p = ps.length ? ps[k % ps.length]! : ''; return i % 2 ? p.slice(0, 40 + (k % 60)) : p; });
        const all = [noise, ...parts, noise].join(picks.length % 2 ? '' : ' ');
        expect(promptsIn(all, ps)).toEqual(naive(all, ps));
      }),
      { numRuns: 2_000 },
    );
  });
});
