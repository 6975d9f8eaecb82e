import { describe, expect, it } from 'vitest';
import { TOKEN_COUNTERS } from '../../lib/tokens/counter.js';
import type { ContentBlock } from '../../kernel/types.js';
import type { Workload, WorkloadStep } from '../workloads/types.js';
import { requestCost } from './efficiency.js';
import { extractFacts, factsIn, neededFacts, recallTester, sourceTokens, StringIndex } from './recall.js';
import { chargeRefetch } from './refetch.js';
import { generateWorkload } from '../workloads/generator.js';

const counter = TOKEN_COUNTERS.calibrated;
const t0 = Date.UTC(2025, 0, 1);

function step(index: number, s: Partial<WorkloadStep>): WorkloadStep {
  return { index, at: t0 + index * 1000, model: 'claude-sonnet-4-5', stopReason: 'end_turn', reply: [], toolResults: [], ...s };
}
function workload(name: string, steps: WorkloadStep[]): Workload {
  return { name, format: 'scenario', model: 'claude-sonnet-4-5', sidechain: false, timed: true, notes: [], stats: { lines: 0, entries: 0, malformed: 0, skipped: {}, examples: [] }, steps };
}
const text = (t: string): ContentBlock => ({ type: 'text', text: t });

/**
 * A conversation whose answer is known: the user names a file; the agent reads it (the result holds
 * a function name, an error and a timing); later the agent uses the file path (from the prompt), the
 * function name and the error (from the tool result), and one name it made up itself.
 */
function known(): Workload {
  const file = 'function computeTotal(items) {\n  if (!items) throw new RangeError("bad total");\n}\n// last run took 250ms\n';
  return workload('known', [
    step(0, {
      prompt: [{ block: text('Fix the crash in src/billing/total.ts please'), typed: true }],
      reply: [text('Reading it.'), { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'src/billing/total.ts' } } as ContentBlock],
      stopReason: 'tool_use',
      toolResults: [{ toolUseId: 'toolu_1', toolName: 'Read', content: [text(file)], isError: false }],
    }),
    step(1, {
      reply: [text('`computeTotal` throws RangeError: bad total when items is missing; it took 250ms. I will add brandNewHelper.'),
        { type: 'tool_use', id: 'toolu_2', name: 'Edit', input: { file_path: 'src/billing/total.ts', old_string: 'if (!items)', new_string: 'if (!items?.length)' } } as ContentBlock],
      stopReason: 'tool_use',
      toolResults: [{ toolUseId: 'toolu_2', toolName: 'Edit', content: [text('ok')], isError: false }],
    }),
  ]);
}

describe('fact extractor', () => {
  it('finds paths, URLs, identifiers, numbers with units, quoted strings and errors', () => {
    const facts = extractFacts('See https://docs.example.com/a/b. In ./src/app.ts:12:3 the call fetchUser() failed with TypeError: x is not a function after 1.5s; "retry later" said the log; commit 3f9a2c1d; port 8080; ENOENT');
    const by = (k: string) => facts.filter((f) => f.kind === k).map((f) => f.text);
    expect(by('url')).toEqual(['https://docs.example.com/a/b']);
    expect(by('path')).toContain('./src/app.ts');
    expect(by('identifier')).toEqual(expect.arrayContaining(['fetchUser', '3f9a2c1d']));
    expect(by('number')).toEqual(expect.arrayContaining(['1.5s', '8080']));
    expect(by('quoted')).toEqual(['retry later']);
    expect(by('error')).toContain('ENOENT');
    // The error's name alone is a fact too (found first as a PascalCase identifier).
    expect(facts.map((f) => f.text)).toContain('TypeError');
    expect(by('error').find((e) => e.startsWith('TypeError:'))).toHaveLength(80);
  });

  it('skips prose words, short names and single digits', () => {
    expect(extractFacts('We should then run it again, maybe 3 times, on the main page.')).toEqual([]);
  });
});

describe('memoised fact extractor', () => {
  it('gives what extractFacts gives, and the same array again for the same text', () => {
    const t = 'See https://example.com/a and src/app/main.ts; computeTotal threw RangeError: bad total after 250ms';
    const first = factsIn(t);
    expect(first).toEqual(extractFacts(t));
    // Another string with the same characters (as a slice makes) hits the memo too.
    expect(factsIn(`x${t}`.slice(1))).toBe(first);
    expect(factsIn('no facts here')).toEqual([]);
  });
});

describe('needed-later facts', () => {
  it('keeps the facts a reply used that entered earlier, with their first source', () => {
    const n = neededFacts(known());
    // Step 0 used only its own prompt's path: nothing needed from earlier.
    expect(n.byStep.has(0)).toBe(false);
    const needed = n.byStep.get(1)!;
    const sourceKind = (f: string) => n.sources[needed.find((x) => x.text === f)!.source]!.kind;
    expect(needed.map((f) => f.text).sort()).toEqual(['250ms', 'RangeError', 'computeTotal', 'src/billing/total.ts']);
    expect(sourceKind('computeTotal')).toBe('tool_result');
    expect(sourceKind('250ms')).toBe('tool_result');
    expect(sourceKind('RangeError')).toBe('tool_result');
    expect(sourceKind('src/billing/total.ts')).toBe('prompt');
    // A name the agent made up is not needed; neither is the error message the tool result words
    // differently (its name is).
    expect(needed.some((f) => f.text === 'brandNewHelper' || f.text.startsWith('RangeError:'))).toBe(false);
  });

  it('finds the same facts and sources in a generated workload, whose replies and results are made when read, as in its stored copy', () => {
    const spec = 'gen:turns=1000,parallel=2,results=2000,seed=5';
    const made = neededFacts(generateWorkload(spec));
    const stored = neededFacts({ ...JSON.parse(JSON.stringify(generateWorkload(spec))), name: `${spec} stored` } as Workload);
    expect(made.byStep.size).toBeGreaterThan(100);
    expect([...made.byStep]).toEqual([...stored.byStep]);
    expect(made.sources.map((s) => [s.id, s.step, s.kind])).toEqual(stored.sources.map((s) => [s.id, s.step, s.kind]));
    for (const i of [0, 1, 2, 100, made.sources.length - 1]) {
      expect(made.sources[i]!.block).toEqual(stored.sources[i]!.block);
      expect(made.sources[i]!.ask).toEqual(stored.sources[i]!.ask);
    }
    expect(made.sources.some((s) => s.kind === 'tool_result' && s.ask)).toBe(true);
  });

  it('counts what the sent context still holds, tool-result content included', () => {
    const w = known();
    const need = neededFacts(w).byStep.get(1)!;
    const test = recallTester();
    const result = w.steps[0]!.toolResults[0]!;
    const full = {
      system: 'You are an agent.',
      messages: [
        { role: 'user', content: w.steps[0]!.prompt!.map((p) => p.block) },
        { role: 'assistant', content: w.steps[0]!.reply },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: result.content }] },
      ],
    };
    expect(test(need, full)).toMatchObject({ needed: need.length, recalled: need.length, lost: [] });
    const cleared = { ...full, messages: [full.messages[0]!, full.messages[1]!, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '[Old tool result content cleared]' }] }] };
    const r = test(need, cleared);
    expect(r.lost.map((f) => f.text).sort()).toEqual(['250ms', 'RangeError', 'computeTotal']);
    expect(r.recalled).toBe(need.length - 3);
    // A summary that keeps the literal keeps the fact.
    const summarised = { messages: [{ role: 'user', content: [text('<summary>computeTotal in src/billing/total.ts took 250ms (RangeError)</summary>')] }] };
    expect(test(need, summarised).recalled).toBe(need.length);
  });
});

describe('string index', () => {
  it('tests presence by word run and substring, and keeps the word sets of the last strings only', () => {
    const index = new StringIndex(2);
    const fact = { text: 'src/a.ts', anchor: 'ts' };
    expect(index.has('read src/a.ts today', fact)).toBe(true);
    expect(index.has('read src/a.tsx today', fact)).toBe(false);
    const first = index.wordsOf('alpha beta');
    expect(index.wordsOf('alpha beta')).toBe(first);
    for (const s of ['one', 'two', 'three', 'four']) index.wordsOf(s);
    const again = index.wordsOf('alpha beta');
    expect(again).not.toBe(first);
    expect([...again]).toEqual(['alpha', 'beta']);
  });
});

describe('re-fetch charge', () => {
  it('charges one request per lost source at the step’s context size, once until the next compaction', () => {
    const n = neededFacts(known());
    const lost = n.byStep.get(1)!.filter((f) => f.text === 'computeTotal' || f.text === '250ms');
    const charged = new Set<number>();
    const c = chargeRefetch(lost, n.sources, 40_000, 'claude-sonnet-4-5', charged, counter)!;
    const src = sourceTokens(n.sources[lost[0]!.source]!, counter);
    expect(c.requests).toBe(1);
    expect(c.tokens).toBe(src.tokens);
    expect(src.askTokens).toBeGreaterThan(0);
    expect(c.costUsd).toBeCloseTo(requestCost('claude-sonnet-4-5', { input: 0, cacheRead: 40_000, cacheWrite5m: src.tokens, cacheWrite1h: 0, output: src.askTokens! }), 12);
    expect(chargeRefetch(lost, n.sources, 41_000, 'claude-sonnet-4-5', charged, counter)).toBeUndefined();
    charged.clear();
    expect(chargeRefetch(lost, n.sources, 41_000, 'claude-sonnet-4-5', charged, counter)!.requests).toBe(1);
  });
});
