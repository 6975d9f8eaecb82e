import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import budgetPlugin, { replacements } from './index.js';
import readPlugin from '../tools/read/index.js';
import { applyResultBudget, toolResultChars } from './budget.js';
import type { Message, ToolResultBlock } from '../../kernel/index.js';
import { cleanupTempDirs, tempDir, toolKernel, useTempReinHome } from '../../testing/tools.js';

let dir: string;
beforeAll(() => {
  useTempReinHome();
  dir = tempDir();
});
afterAll(cleanupTempDirs);

const result = (id: string, size: number): ToolResultBlock => ({ type: 'tool_result', tool_use_id: id, content: [{ type: 'text', text: `${id}\n`.padEnd(size, 'z') }] });
const turn = (calls: [string, string, number][]): Message[] => [
  { role: 'assistant', content: calls.map(([id, name]) => ({ type: 'tool_use', id, name, input: {} })) },
  { role: 'user', content: calls.map(([id, , size]) => result(id, size)) },
];
const sizes = (m: Message) => m.content.map((b) => toolResultChars(b as ToolResultBlock));

describe('applyResultBudget', () => {
  it('replaces the largest results first until the message fits (150K + 60K + 10K → only the 150K one)', () => {
    const replaced = new Map<string, string>();
    const [, user] = turn([['a', 'X', 150_000], ['b', 'X', 60_000], ['c', 'X', 10_000]]);
    const r = applyResultBudget([user!], { maxChars: 200_000, sessionDir: dir, replaced });
    const s = sizes(r.messages[0]!);
    expect([...replaced.keys()]).toEqual(['a']);
    expect(s[1]).toBe(60_000);
    expect(s[2]).toBe(10_000);
    expect(s[0]).toBeLessThan(2_500);
    expect(r.charsFreed).toBe(150_000 - s[0]!);
  });

  it('keeps a replacement byte for byte on later passes, even when the message would now fit', () => {
    const replaced = new Map<string, string>();
    const [, user] = turn([['a', 'X', 150_000], ['b', 'X', 60_000]]);
    const first = applyResultBudget([user!], { maxChars: 200_000, sessionDir: dir, replaced }).messages[0]!;
    // The same message rebuilt from its original bytes, smaller now (b is gone): a stays replaced, identically.
    const shrunk: Message = { role: 'user', content: [result('a', 150_000)] };
    const again = applyResultBudget([shrunk], { maxChars: 200_000, sessionDir: dir, replaced }).messages[0]!;
    expect(JSON.stringify(again.content[0])).toBe(JSON.stringify(first.content[0]));
    // And a history already holding the replacement is returned untouched (same array).
    const same = [first];
    expect(applyResultBudget(same, { maxChars: 200_000, sessionDir: dir, replaced }).messages).toBe(same);
  });

  it('breaks ties by position, and never picks exempt or already persisted results', () => {
    const replaced = new Map<string, string>();
    const user: Message = { role: 'user', content: [result('p', 90_000), result('q', 90_000), result('r', 90_000), { type: 'tool_result', tool_use_id: 's', content: '<persisted-output>\nsaved\n</persisted-output>'.padEnd(95_000, ' ') }] };
    applyResultBudget([user], { maxChars: 200_000, sessionDir: dir, replaced, exempt: (id) => id === 'p' });
    expect([...replaced.keys()]).toEqual(['q', 'r']);
  });
});

describe('tool-result-budget plugin', () => {
  it('shapes the history at the first context stage, exempting Read, and a resumed kernel sends the same bytes', async () => {
    const k = await toolKernel({ cwd: dir, plugins: [{ plugin: readPlugin }, { plugin: budgetPlugin }] });
    const history = turn([...Array.from({ length: 9 }, (_, i) => [`t${i}`, 'Bash', 40_000] as [string, string, number]), ['read1', 'Read', 45_000]]);
    const ctx = k.runContext();
    const shaped = await k.hooks.context.promise({ messages: history, tokensFreed: 0 }, ctx);
    const user = shaped.messages[1]!;
    const s = sizes(user);
    expect(s.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(200_000);
    expect(s[9]).toBe(45_000); // Read is exempt
    expect(replacements(k).size).toBe(6);
    expect(shaped.tokensFreed).toBeGreaterThan(0);

    const resumed = await toolKernel({ cwd: dir, plugins: [{ plugin: readPlugin }, { plugin: budgetPlugin }], resume: k.sessionId });
    const again = await resumed.hooks.context.promise({ messages: history, tokensFreed: 0 }, resumed.runContext());
    expect(JSON.stringify(again.messages)).toBe(JSON.stringify(shaped.messages));
    expect(resumed.transcript.pluginData('tool-result-budget')).toHaveLength(6);
  });
});
