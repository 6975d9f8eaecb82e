/**
 * The Claude Agent SDK drives rein: `query()` with `pathToClaudeCodeExecutable` at the built
 * `bin/rein.js`, `ANTHROPIC_BASE_URL` at rein's simulator playing a scripted scenario. Every
 * assertion is on the SDK's own typed messages (SDKMessage), so these tests also type-check that
 * rein's lines are what the SDK's callers read.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  createSdkMcpServer, query, tool,
  type Options, type SDKMessage, type SDKResultMessage, type SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
import { cleanEnv, REPO, serveScenario, tempDir, type SimHarness } from '../testing/support.js';

const REIN = join(REPO, 'bin/rein.js');

let tmp: ReturnType<typeof tempDir>;
let sim: SimHarness | undefined;

beforeAll(() => {
  if (!existsSync(join(REPO, 'dist/bundle/rein.cjs'))) throw new Error('build rein first: npm run build');
});
beforeEach(() => {
  tmp = tempDir('rein-sdk-');
  // A small preset: no system-prompt plugin (no git commands), the tools each test needs.
  writeFileSync(join(tmp.dir, 'agent.yaml'), [
    'name: sdk-test',
    'model: { name: claude-sonnet-4-6 }',
    'tools: [Read, Write]',
    'permissions: { mode: default }',
  ].join('\n'));
});
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  tmp.cleanup();
});

/** Options that point the SDK at rein and rein at the simulator. */
async function options(scenario: string, extra: Partial<Options> = {}): Promise<Options> {
  sim = await serveScenario(scenario, tmp.dir);
  return {
    pathToClaudeCodeExecutable: REIN,
    cwd: tmp.dir,
    env: { ...cleanEnv(), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: sim.server.url, REIN_HOME: join(tmp.dir, 'home') },
    extraArgs: { preset: './agent.yaml', 'no-layers': null },
    ...extra,
  };
}

async function all(q: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const m of q) out.push(m);
  return out;
}

function results(messages: SDKMessage[]): SDKResultMessage[] {
  return messages.filter((m): m is SDKResultMessage => m.type === 'result');
}

/** The tool_result blocks of the user messages, by tool_use id. */
function toolResults(messages: SDKMessage[]): Map<string, { content: unknown; is_error?: boolean }> {
  const out = new Map<string, { content: unknown; is_error?: boolean }>();
  for (const m of messages) {
    if (m.type !== 'user' || !Array.isArray(m.message.content)) continue;
    for (const b of m.message.content) if (b.type === 'tool_result') out.set(b.tool_use_id, { content: b.content, is_error: b.is_error });
  }
  return out;
}

const text = (content: unknown) => (Array.isArray(content) ? content.map((b: { text?: string }) => b.text ?? '').join('') : String(content));

/** A prompt stream the test feeds by hand (streaming input keeps the session open). */
function inputQueue() {
  const waiting: ((v: IteratorResult<SDKUserMessage>) => void)[] = [];
  const ready: SDKUserMessage[] = [];
  let done = false;
  return {
    push(content: string) {
      const m: SDKUserMessage = { type: 'user', message: { role: 'user', content }, parent_tool_use_id: null, session_id: '' };
      const w = waiting.shift();
      if (w) w({ value: m, done: false }); else ready.push(m);
    },
    end() {
      done = true;
      for (const w of waiting.splice(0)) w({ value: undefined, done: true });
    },
    iterable: {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise<IteratorResult<SDKUserMessage>>((resolve) => {
          const m = ready.shift();
          if (m) resolve({ value: m, done: false });
          else if (done) resolve({ value: undefined, done: true });
          else waiting.push(resolve);
        }),
      }),
    } as AsyncIterable<SDKUserMessage>,
  };
}

describe('the Agent SDK drives rein', () => {
  it('a text answer: system/init, the assistant message with its API id, a success result', async () => {
    const messages = await all(query({ prompt: 'Say hello.', options: await options('turns:\n  - reply: [{ text: "Hello from rein." }]\n') }));
    const init = messages[0]!;
    expect(init.type === 'system' && init.subtype === 'init').toBe(true);
    if (init.type !== 'system' || init.subtype !== 'init') return;
    expect(init.model).toBe('claude-sonnet-4-6');
    expect(init.tools).toEqual(expect.arrayContaining(['Read', 'Write']));
    expect(init.permissionMode).toBe('default');
    expect(init.apiKeySource).toBe('ANTHROPIC_API_KEY');
    const assistant = messages.find((m) => m.type === 'assistant');
    expect(assistant?.type).toBe('assistant');
    if (assistant?.type !== 'assistant') return;
    expect(assistant.message.id).toMatch(/^msg_sim_/);
    expect(assistant.message.content).toEqual([{ type: 'text', text: 'Hello from rein.', citations: null }]);
    expect(assistant.parent_tool_use_id).toBeNull();
    expect(assistant.session_id).toBe(init.session_id);
    const [result] = results(messages);
    expect(result?.subtype).toBe('success');
    if (result?.subtype !== 'success') return;
    expect(result.result).toBe('Hello from rein.');
    expect(result.is_error).toBe(false);
    expect(result.num_turns).toBe(1);
    expect(result.stop_reason).toBe('end_turn');
    expect(result.duration_api_ms).toBeGreaterThan(0);
    expect(result.modelUsage['claude-sonnet-4-6']?.outputTokens).toBe(result.usage.output_tokens);
    expect(new Set(messages.map((m) => m.uuid)).size).toBe(messages.length);
    // The typed prompt is not echoed (no --replay-user-messages).
    expect(messages.filter((m) => m.type === 'user')).toEqual([]);
  });

  it('a tool session whose ask is answered by canUseTool', async () => {
    const asked: { tool: string; input: Record<string, unknown>; toolUseID: string }[] = [];
    const q = query({
      prompt: 'Write the note.',
      options: {
        ...(await options([
          'turns:',
          '  - reply: [{ text: "Writing it." }, { tool_use: { name: Write, input: { file_path: note.txt, content: "from the SDK" } } }]',
          '  - reply: [{ text: "Done." }]',
        ].join('\n'))),
        canUseTool: async (toolName, input, { toolUseID }) => {
          asked.push({ tool: toolName, input, toolUseID });
          return { behavior: 'allow', updatedInput: input };
        },
      },
    });
    const messages = await all(q);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ tool: 'Write', input: { file_path: 'note.txt', content: 'from the SDK' } });
    expect(readFileSync(join(tmp.dir, 'note.txt'), 'utf8')).toBe('from the SDK');
    const r = toolResults(messages).get(asked[0]!.toolUseID);
    expect(r?.is_error).toBeFalsy();
    const [result] = results(messages);
    expect(result?.subtype === 'success' && result.result).toBe('Done.');
    expect(result?.permission_denials).toEqual([]);
  });

  it('an SDK PreToolUse hook denies a call', async () => {
    const seen: { hook_event_name: string; tool_name?: string }[] = [];
    const messages = await all(query({
      prompt: 'Write the note.',
      options: {
        ...(await options([
          'turns:',
          '  - reply: [{ tool_use: { name: Write, input: { file_path: note.txt, content: "x" } } }]',
          '  - reply: [{ text: "It was blocked." }]',
        ].join('\n'))),
        permissionMode: 'acceptEdits',
        hooks: {
          PreToolUse: [{
            matcher: 'Write',
            hooks: [async (input) => {
              seen.push(input as { hook_event_name: string; tool_name?: string });
              return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no writes in this test' } };
            }],
          }],
        },
      },
    }));
    expect(seen).toEqual([expect.objectContaining({ hook_event_name: 'PreToolUse', tool_name: 'Write' })]);
    expect(existsSync(join(tmp.dir, 'note.txt'))).toBe(false);
    const [result] = results(messages);
    expect(result?.permission_denials.map((d) => d.tool_name)).toEqual(['Write']);
    const [denied] = [...toolResults(messages).values()];
    expect(denied?.is_error).toBe(true);
    expect(text(denied?.content)).toContain('no writes in this test');
  });

  it('an in-process SDK MCP tool called by the model', async () => {
    const calls: { a: number; b: number }[] = [];
    const calc = createSdkMcpServer({
      name: 'calc',
      version: '1.0.0',
      tools: [tool('add', 'Adds two numbers.', { a: z.number(), b: z.number() }, async ({ a, b }) => {
        calls.push({ a, b });
        return { content: [{ type: 'text', text: String(a + b) }] };
      })],
    });
    const messages = await all(query({
      prompt: 'What is 2 + 3?',
      options: {
        ...(await options([
          'turns:',
          '  - reply: [{ tool_use: { name: mcp__calc__add, input: { a: 2, b: 3 } } }]',
          '  - reply: [{ text: "2 + 3 = 5." }]',
        ].join('\n'))),
        mcpServers: { calc },
        allowedTools: ['mcp__calc__add'],
      },
    }));
    const init = messages.find((m) => m.type === 'system' && m.subtype === 'init');
    expect(init?.type === 'system' && init.subtype === 'init' && init.tools).toContain('mcp__calc__add');
    expect(init?.type === 'system' && init.subtype === 'init' && init.mcp_servers).toEqual([{ name: 'calc', status: 'connected' }]);
    expect(calls).toEqual([{ a: 2, b: 3 }]);
    const [r] = [...toolResults(messages).values()];
    // rein tags text from outside the session with where it came from.
    expect(text(r?.content)).toMatch(/^<external-content source="mcp__calc__add">\s*5\s*<\/external-content>$/);
    expect(results(messages)[0]?.subtype).toBe('success');
    // The model saw the tool under its MCP name.
    const first = sim!.requests()[0]!.body;
    expect(first.tools.map((t: { name: string }) => t.name)).toContain('mcp__calc__add');
  });

  it('interrupt() mid-turn ends the turn at once; the session takes the next message', async () => {
    const input = inputQueue();
    const q = query({
      prompt: input.iterable,
      options: {
        ...(await options([
          'turns:',
          // The stream stalls after 3 events for 30 s: only an interrupt ends it sooner.
          '  - fault: { idle: { afterEvents: 3, ms: 30000 } }',
          '    reply: [{ text: "A long answer that never finishes streaming." }]',
          '  - reply: [{ text: "Back again." }]',
        ].join('\n'))),
        includePartialMessages: true,
      },
    });
    input.push('Tell me a long story.');
    const messages: SDKMessage[] = [];
    const started = Date.now();
    let interrupted = false;
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'stream_event' && !interrupted) {
        interrupted = true;
        await q.interrupt();
      }
      if (m.type === 'result') {
        if (results(messages).length === 1) input.push('Are you there?');
        else input.end();
      }
    }
    const [first, second] = results(messages);
    expect(interrupted).toBe(true);
    expect(first?.subtype).toBe('error_during_execution');
    expect(first?.is_error).toBe(true);
    expect(first?.terminal_reason).toBe('aborted_streaming');
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(second?.subtype === 'success' && second.result).toBe('Back again.');
    expect(second?.session_id).toBe(first?.session_id);
  });
});

describe('a multi-turn streaming-input session, then its resume', () => {
  let sessionId = '';
  const home = tempDir('rein-sdk-home-');

  it('two user messages in one process: two results in one session', async () => {
    const input = inputQueue();
    const q = query({
      prompt: input.iterable,
      options: {
        ...(await options('turns:\n  - reply: [{ text: "First answer." }]\n  - reply: [{ text: "Second answer." }]\n')),
        env: { ...cleanEnv(), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: sim!.server.url, REIN_HOME: home.dir },
        cwd: home.dir,
        extraArgs: { preset: join(tmp.dir, 'agent.yaml'), 'no-layers': null },
      },
    });
    input.push('First question.');
    const messages: SDKMessage[] = [];
    for await (const m of q) {
      messages.push(m);
      if (m.type === 'result') {
        if (results(messages).length === 1) input.push('Second question.');
        else input.end();
      }
    }
    const rs = results(messages);
    expect(rs.map((r) => r.subtype === 'success' && r.result)).toEqual(['First answer.', 'Second answer.']);
    expect(rs[0]!.session_id).toBe(rs[1]!.session_id);
    sessionId = rs[0]!.session_id;
    // The second request carries the first exchange.
    const second = sim!.requests()[1]!.body;
    expect(second.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('resume: the next query goes on in the same session with its history', async () => {
    expect(sessionId).not.toBe('');
    const messages = await all(query({
      prompt: 'Third question.',
      options: {
        ...(await options('turns:\n  - reply: [{ text: "I remember." }]\n')),
        env: { ...cleanEnv(), ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: sim!.server.url, REIN_HOME: home.dir },
        cwd: home.dir,
        extraArgs: { preset: join(tmp.dir, 'agent.yaml'), 'no-layers': null },
        resume: sessionId,
      },
    }));
    const [result] = results(messages);
    expect(result?.subtype === 'success' && result.result).toBe('I remember.');
    expect(result?.session_id).toBe(sessionId);
    const init = messages.find((m) => m.type === 'system' && m.subtype === 'init');
    expect(init?.session_id).toBe(sessionId);
    const body = sim!.requests()[0]!.body;
    expect(body.messages.map((m: { content: unknown }) => text(m.content))).toEqual(['First question.', 'First answer.', 'Second question.', 'Second answer.', 'Third question.']);
    home.cleanup();
  });
});
