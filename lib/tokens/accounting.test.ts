import { beforeEach, describe, expect, it } from 'vitest';
import { createSimulator } from '../../testing/index.js';
import type { Message } from '../../kernel/index.js';
import { httpClient, plannedResponder, runPrompt, strategyKernel, writeLines } from '../../testing/strategy.js';
import { defaultEstimator, tokenCounter, usageTotal } from './accounting.js';
import { estimateMessageTokens, estimateToolTokens } from './estimate.js';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, unusedClient, useTestEnv } from '../../testing/index.js';

// A fresh working folder and REIN_HOME for every test, removed after it.
const env = useTestEnv({ prefix: 'rein-acct-' });
let dir: string;
beforeEach(() => {
  dir = env.dir;
});

describe('usageTotal', () => {
  it('adds input, cache write, cache read and output; missing cache fields count 0', () => {
    expect(usageTotal({ input_tokens: 1_000, cache_creation_input_tokens: 500, cache_read_input_tokens: 20_000, output_tokens: 300 })).toBe(21_800);
    expect(usageTotal({ input_tokens: 10, output_tokens: 5 })).toBe(15);
  });
});

describe('tokenCounter', () => {
  it('is the last usage plus an estimate of what came after it; parallel results count once; rewrites apply their difference', async () => {
    writeLines(dir, 'a.txt', 50, 'a');
    writeLines(dir, 'b.txt', 80, 'b');
    const turns = [
      [{ type: 'text' as const, text: 'Both at once.' }, { type: 'tool_use' as const, name: 'Read', input: { file_path: 'a.txt' } }, { type: 'tool_use' as const, name: 'Read', input: { file_path: 'b.txt' } }],
      [{ type: 'text' as const, text: 'Done.' }],
    ];
    const { client } = await httpClient(createSimulator({ responder: plannedResponder(turns) }));
    const kernel = await strategyKernel({ cwd: dir, client, plugins: [] });
    const counter = tokenCounter(kernel);
    const seen: { count: number; basis: string; usage?: number }[] = [];
    kernel.hooks.context.tap({ name: 'test', stage: 10_000 }, (state) => {
      const c = counter.count(state.messages);
      seen.push({ count: c.tokens, basis: c.basis, usage: counter.lastUsage ? usageTotal(counter.lastUsage) : undefined });
      return state;
    });
    try {
      await runPrompt(kernel, 'Read both.');
      const tools = kernel.tools.definitions().reduce((n, t) => n + estimateToolTokens(t), 0);
      // Before the first response: everything estimated (tools + the prompt).
      expect(seen[0]).toEqual({ count: tools + estimateMessageTokens(kernel.messages[0]!), basis: 'estimate', usage: undefined });
      // Before the second: the first response's usage plus the one message with both tool results.
      const results = kernel.messages[2]!;
      expect(results.content.filter((b) => b.type === 'tool_result')).toHaveLength(2);
      expect(seen[1]).toEqual({ count: seen[1]!.usage! + estimateMessageTokens(results), basis: 'usage', usage: seen[1]!.usage });
      // The simulator uses the same estimator, so the count equals what the next request is billed.
      const after = counter.lastUsage!;
      expect(seen[1]!.count).toBe(after.input_tokens + after.cache_creation_input_tokens + after.cache_read_input_tokens);
      // A rewrite of an earlier message (a cleared result) lowers the count by the estimated difference.
      const cleared: Message = { role: 'user', content: [{ type: 'tool_result', tool_use_id: (results.content[0] as { tool_use_id: string }).tool_use_id, content: 'gone' }, results.content[1]!] };
      const rewritten = [...kernel.messages.slice(0, 2), cleared, ...kernel.messages.slice(3)];
      expect(counter.count(kernel.messages).tokens - counter.count(rewritten).tokens).toBe(defaultEstimator.message(results) - defaultEstimator.message(cleared));
      // count_tokens through the simulator agrees with the estimate of the same request.
      expect(await counter.exact(kernel.messages)).toBe(tools + kernel.messages.reduce((n, m) => n + estimateMessageTokens(m), 0));
    } finally {
      await kernel.close();
    }
  });

  // A plugin a preset loads by path imports the built package, a second copy of this module: the
  // kernel still has one counter (one set of taps, one running total), whichever copy asks first.
  it('is one per kernel across copies of rein (a plugin file importing the built package)', async () => {
    const built = await import(pathToFileURL(join(REPO, 'dist/index.js')).href) as { tokenCounter: typeof tokenCounter };
    expect(built.tokenCounter).not.toBe(tokenCounter);
    const kernel = await strategyKernel({ cwd: dir, client: unusedClient, plugins: [] });
    try {
      const theirs = built.tokenCounter(kernel);
      expect(tokenCounter(kernel)).toBe(theirs);
      expect(kernel.hooks.request.taps.filter((t) => t.name === 'tokens')).toHaveLength(1);
    } finally {
      await kernel.close();
    }
  });

  it('takes a custom estimator', async () => {
    const { client } = await httpClient(createSimulator());
    const kernel = await strategyKernel({ cwd: dir, client, plugins: [] });
    try {
      const counter = tokenCounter(kernel);
      counter.setEstimator({ message: () => 7, request: () => 0 });
      expect(counter.messagesTokens([{ role: 'user', content: [] }, { role: 'user', content: [] }])).toBe(14);
    } finally {
      await kernel.close();
    }
  });
});
