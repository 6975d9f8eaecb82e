/**
 * The loop end to end: the real SDK against the simulator on loopback, scripted turns, and the
 * transitions, transcript entries and requests each path must produce.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { definePlugin } from '../kernel/plugin.js';
import { defineTool } from '../kernel/tool.js';
import retry from '../plugins/retry/index.js';
import { collect, serveScenario, simKernel, transitions, type SimHarness } from '../testing/support.js';
import { useTestEnv } from '../testing/index.js';
import type { Message } from '../kernel/types.js';

// A fresh working folder and REIN_HOME for every test, removed after it.
const env = useTestEnv();
let sim: SimHarness | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** A `Note` tool reading a file of the working directory; read-only and concurrency-safe. */
const notePlugin = definePlugin({
  name: 'test/note',
  apply(kernel) {
    kernel.tools.register(defineTool({
      name: 'Note',
      description: 'Reads a note file.',
      inputSchema: z.object({ file_path: z.string() }).strict(),
      isReadOnly: () => true,
      isConcurrencySafe: () => true,
      call: async ({ file_path }, ctx) => readFileSync(join(ctx.cwd, file_path), 'utf8'),
    }), 'test/note');
  },
});

/** Retry with 1 ms delays so fault tests do not wait. */
const fastRetry = { plugin: retry, options: { baseDelayMs: 1, maxDelayMs: 5 } };

describe('the loop', () => {
  it('runs a tool call and ends the turn: one tool_results transition, then end_turn', async () => {
    writeFileSync(join(env.dir, 'notes.txt'), 'buy milk');
    sim = await serveScenario(`
turns:
  - reply: [{ text: "Reading it." }, { tool_use: { name: Note, input: { file_path: notes.txt } } }]
  - reply: [{ text: "It says: buy milk." }]
`, env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir, plugins: [{ plugin: notePlugin }, fastRetry] });
    const { events, result } = await collect(kernel, 'read notes.txt');
    expect(transitions(events)).toEqual(['continue:tool_results', 'terminal:end_turn']);
    expect(result).toMatchObject({ terminalReason: 'end_turn', isError: false, text: 'It says: buy milk.', numTurns: 2, numRequests: 2 });
    const second = sim.requests()[1]!.body;
    const toolResult = second.messages[2].content[0];
    expect(toolResult).toMatchObject({ type: 'tool_result', content: [{ type: 'text', text: 'buy milk' }] });
    expect(toolResult.tool_use_id).toBe(second.messages[1].content[1].id);
    // Usage is the simulator's, summed over both requests.
    const served = sim.requests().map((r) => (r as unknown as { usage: Record<string, number> }).usage);
    expect(served).toHaveLength(2);
    for (const k of ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const) {
      expect(result.usage[k]).toBe(served[0]![k]! + served[1]![k]!);
    }
    expect(result.usage.output_tokens).toBeGreaterThan(0);
  });

  it('writes every message and transition to the transcript before acting on it', async () => {
    writeFileSync(join(env.dir, 'notes.txt'), 'x');
    sim = await serveScenario(`
turns:
  - reply: [{ tool_use: { name: Note, input: { file_path: notes.txt } } }]
  - reply: [{ text: "done" }]
`, env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir, plugins: [{ plugin: notePlugin }] });
    await collect(kernel, 'go');
    const lines = readFileSync(kernel.transcript.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type === 'transition' ? `${l.type}:${l.transition.reason}` : l.type)).toEqual([
      'session', 'message', 'response', 'message', 'message', 'transition:tool_results', 'response', 'message', 'transition:end_turn',
    ]);
  });

  it('returns invalid tool input to the model as an is_error result naming the field', async () => {
    sim = await serveScenario(`
turns:
  - reply: [{ tool_use: { name: Note, input: { path: notes.txt } } }]
  - reply: [{ text: "sorry" }]
`, env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir, plugins: [{ plugin: notePlugin }] });
    const { result } = await collect(kernel, 'go');
    expect(result.terminalReason).toBe('end_turn');
    const block = sim.requests()[1]!.body.messages[2].content[0];
    expect(block.is_error).toBe(true);
    expect(block.content[0].text).toMatch(/^InputValidationError: Note was called with invalid input: .*file_path/);
  });

  it('stops at maxTurns with max_turns', async () => {
    writeFileSync(join(env.dir, 'n'), 'x');
    sim = await serveScenario(`
turns:
  - reply: [{ tool_use: { name: Note, input: { file_path: n } } }]
  - reply: [{ tool_use: { name: Note, input: { file_path: n } } }]
  - reply: [{ text: never }]
`, env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir, preset: { limits: { maxTurns: 1 } }, plugins: [{ plugin: notePlugin }] });
    const { events, result } = await collect(kernel, 'go');
    expect(transitions(events)).toEqual(['terminal:max_turns']);
    expect(result).toMatchObject({ terminalReason: 'max_turns', isError: true, numTurns: 1 });
    // The tool_use still got its result before the run stopped.
    expect(kernel.messages.at(-1)!.content[0]).toMatchObject({ type: 'tool_result' });
  });

  it('stops with budget_exhausted once the spend reaches maxBudgetUsd', async () => {
    writeFileSync(join(env.dir, 'n'), 'x');
    sim = await serveScenario(`
turns:
  - reply: [{ tool_use: { name: Note, input: { file_path: n } } }]
    usage: { input_tokens: 1000000 }
  - reply: [{ text: never }]
`, env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir, preset: { model: { name: 'claude-sonnet-4-6' }, limits: { maxBudgetUsd: 1 } }, plugins: [{ plugin: notePlugin }] });
    const { result } = await collect(kernel, 'go');
    expect(result.terminalReason).toBe('budget_exhausted');
    expect(result.totalCostUsd).toBeGreaterThanOrEqual(1);
    expect(sim.requests()).toHaveLength(1);
  });

  it('ends the run at a reply cut by max_tokens when no outputCut tap answers, keeping what was written', async () => {
    sim = await serveScenario('turns:\n  - reply: [{ text: "part" }, { tool_use: { name: Nope, input: {} } }]\n    stop_reason: max_tokens\n', env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir, preset: { model: { name: 'claude-sonnet-4-6', maxTokens: 8000 } } });
    const { events, result } = await collect(kernel, 'write a lot');
    expect(transitions(events)).toEqual(['terminal:max_output_tokens']);
    expect(result.terminalDetail).toBe('the reply was cut at max_tokens 8000');
    expect(result.text).toBe('part');
    expect(kernel.messages.at(-1)!.content).toEqual([{ type: 'text', text: 'part' }]);
  });

  it('compacts once on prompt-too-long and retries the turn', async () => {
    sim = await serveScenario(`
turns:
  - fault: { status: 400, body: "prompt is too long: 210000 tokens > 200000 maximum" }
  - reply: [{ text: "fits now" }]
`, env.dir);
    const summarizer = definePlugin({
      name: 'test/summarizer',
      apply(kernel) {
        kernel.hooks.compact.tap('test/summarizer', (req) => ({
          messages: [{ role: 'user', content: [{ type: 'text', text: `summary of ${req.messages.length} messages` }] }] as Message[],
          tokensAfter: 5, strategy: 'test',
        }));
      },
    });
    const kernel = await simKernel(sim, { cwd: env.dir, plugins: [{ plugin: summarizer }, fastRetry] });
    const { events, result } = await collect(kernel, 'a very long prompt');
    expect(transitions(events)).toEqual(['continue:reactive_compact', 'terminal:end_turn']);
    expect(events.find((e) => e.type === 'compact')).toMatchObject({ trigger: 'reactive', strategy: 'test' });
    expect(sim.requests()[1]!.body.messages[0].content[0].text).toBe('summary of 1 messages');
    expect(result.terminalReason).toBe('end_turn');
  });

  it('ends with prompt_too_long when no strategy can compact', async () => {
    sim = await serveScenario(`
turns:
  - fault: { status: 400, body: "prompt is too long: 210000 tokens > 200000 maximum" }
`, env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir, plugins: [fastRetry] });
    const { result } = await collect(kernel, 'x');
    expect(result.terminalReason).toBe('prompt_too_long');
    expect(sim.requests()).toHaveLength(1);
  });

  it('lets a stop hook force one more turn, then ends', async () => {
    sim = await serveScenario(`
turns:
  - reply: [{ text: "done?" }]
  - reply: [{ text: "now done" }]
`, env.dir);
    const seen: boolean[] = [];
    const gate = definePlugin({
      name: 'test/gate',
      apply(kernel) {
        kernel.hooks.stop.tap('test/gate', (info) => {
          seen.push(info.stopHookActive);
          return info.stopHookActive ? undefined : { action: 'block', reason: 'run the tests first' };
        });
      },
    });
    const kernel = await simKernel(sim, { cwd: env.dir, plugins: [{ plugin: gate }] });
    const { events, result } = await collect(kernel, 'x');
    expect(transitions(events)).toEqual(['continue:stop_hook_blocked', 'terminal:end_turn']);
    expect(seen).toEqual([false, true]);
    expect(sim.requests()[1]!.body.messages.at(-1).content[0].text).toBe('run the tests first');
    expect(result.text).toBe('now done');
  });

  it('keeps thinking blocks and their signatures verbatim in the history', async () => {
    sim = await serveScenario(`
turns:
  - reply: [{ thinking: { thinking: "let me see", signature: "sig-abc" } }, { tool_use: { name: Note, input: { file_path: n } } }]
  - reply: [{ text: "ok" }]
`, env.dir);
    writeFileSync(join(env.dir, 'n'), 'x');
    const kernel = await simKernel(sim, { cwd: env.dir, preset: { model: { name: 'claude-sonnet-4-6', thinking: { type: 'enabled', budget_tokens: 2000 } } }, plugins: [{ plugin: notePlugin }] });
    await collect(kernel, 'x');
    const second = sim.requests()[1]!.body;
    expect(second.thinking).toEqual({ type: 'enabled', budget_tokens: 2000 });
    expect(second.messages[1].content[0]).toEqual({ type: 'thinking', thinking: 'let me see', signature: 'sig-abc' });
  });

  it('gives every tool_use a result when the run is aborted during a tool', async () => {
    sim = await serveScenario(`
turns:
  - reply: [{ tool_use: { name: Slow, input: {} } }, { tool_use: { name: Slow, input: {} } }]
  - reply: [{ text: never }]
`, env.dir);
    const controller = new AbortController();
    const slow = definePlugin({
      name: 'test/slow',
      apply(kernel) {
        kernel.tools.register(defineTool({
          name: 'Slow', description: 'waits until aborted', inputSchema: z.object({}).strict(),
          call: (_i, ctx) => new Promise((_r, reject) => {
            controller.abort();
            if (ctx.signal.aborted) reject(new Error('aborted'));
            else ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
          }),
        }));
        kernel.hooks.permission.tap('test/slow', () => ({ behavior: 'allow' }));
      },
    });
    const kernel = await simKernel(sim, { cwd: env.dir, plugins: [{ plugin: slow }] });
    const { result } = await collect(kernel, 'x', controller.signal);
    expect(result.terminalReason).toBe('aborted');
    const last = kernel.messages.at(-1)!;
    expect(last.content.map((b) => b.type)).toEqual(['tool_result', 'tool_result']);
    expect(last.content.every((b) => (b as { is_error?: boolean }).is_error)).toBe(true);
    expect(sim.requests()).toHaveLength(1);
  });

  it('ends with model_error, naming the cause, when the server is unreachable', async () => {
    sim = await serveScenario('turns: []\n', env.dir);
    const url = sim.server.url;
    await sim.close();
    sim = undefined;
    const { createKernel } = await import('../agent/kernel.js');
    const { createAnthropicClient } = await import('../lib/model/anthropic.js');
    const kernel = await createKernel({ preset: {}, cwd: env.dir, client: createAnthropicClient({ baseURL: url, apiKey: 't' }), plugins: [{ plugin: retry, options: { maxRetries: 1, baseDelayMs: 1 } }] });
    const { result, events } = await collect(kernel, 'x');
    expect(result.terminalReason).toBe('model_error');
    expect(events.filter((e) => e.type === 'api_retry')).toHaveLength(1);
    const terminal = events.find((e) => e.type === 'transition');
    expect(terminal && terminal.type === 'transition' && terminal.transition.detail).toMatch(/^cannot reach 127\.0\.0\.1:\d+: connection refused \(ECONNREFUSED\) \(gave up after 2 tries\)$/);
  });
});
