import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REQUEST_STAGE } from '../../kernel/hooks.js';
import type { ModelRequest } from '../../kernel/model/client.js';
import { definePlugin } from '../../kernel/plugin.js';
import { createSimulator } from '../../simulator/simulator.js';
import { Transcript } from '../../lib/session/transcript.js';
import { runCli } from '../../testing/support.js';
import { httpClient, plannedResponder, runPrompt, strategyKernel, writeAgentsMd, writeLines } from '../../testing/strategy.js';
import breakDetector from '../../plugins/cache/break-detector/index.js';
import breakpoints from '../../plugins/cache/breakpoints/index.js';
import memoryFiles from '../../plugins/memory-files/index.js';
import { explainTranscript, renderExplanation } from './cache.js';
import { useTestEnv } from '../../testing/index.js';

// A fresh working folder and REIN_HOME for every test, removed after it.
const env = useTestEnv({ prefix: 'rein-explain-' });
let dir: string;
let home: string;
beforeEach(() => {
  dir = env.dir;
  home = env.home;
});
afterEach(() => {
  vi.useRealTimers();
});

/** Changes the system prompt on the 4th request: a client-side cache break. */
const driftingSystem = definePlugin({
  name: 'test/drifting-system',
  apply(kernel) {
    let n = 0;
    kernel.hooks.request.tap({ name: 'test/drifting-system', stage: REQUEST_STAGE.PARAMS }, (p) => {
      n++;
      const params = p as ModelRequest;
      return { ...params, system: [{ type: 'text', text: n >= 4 ? 'You are a helpful agent. Now: 12:01.' : 'You are a helpful agent. Now: 12:00.' }] };
    });
  },
});

describe('rein cache explain', () => {
  it('explains each request: first write, reads, a client break naming the part, a TTL expiry', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-06-01T09:00:00Z'));
    writeAgentsMd(dir);
    for (let i = 0; i < 4; i++) writeLines(dir, `f${i}.txt`, 150, `f${i}`);
    const turns = [0, 1, 2, 3].map((i) => [{ type: 'text' as const, text: `Reading f${i}.` }, { type: 'tool_use' as const, name: 'Read', input: { file_path: `f${i}.txt` } }]);
    const simulator = createSimulator({ responder: plannedResponder([...turns, [{ type: 'text', text: 'Done.' }], [{ type: 'text', text: 'Back.' }]]) });
    const { client } = await httpClient(simulator);
    const kernel = await strategyKernel({
      cwd: dir, client, sessionId: 'explain-1',
      plugins: [{ plugin: memoryFiles, options: { userDirs: [home] } }, { plugin: driftingSystem }, { plugin: breakpoints }, { plugin: breakDetector }],
    });
    try {
      await runPrompt(kernel, 'Read four files.');
      vi.setSystemTime(new Date('2026-06-01T09:10:00Z'));
      await runPrompt(kernel, 'Still there?');
    } finally {
      await kernel.close();
    }
    const t = Transcript.open('explain-1', { cwd: dir });
    const x = explainTranscript(t);
    expect(x.requests).toHaveLength(6);
    expect(x.requests[0]!.why).toMatch(/^first request observed: wrote \d[\d,]* new tokens to the cache$/);
    expect(x.requests[1]!.why).toMatch(/^read [\d,]+ cached tokens; wrote [\d,]+ new tokens to the cache$/);
    expect(x.requests[3]!.breakCause).toBe('client');
    expect(x.requests[3]!.why).toMatch(/^CACHE BREAK, cause client: system prompt changed \(\+0 chars\); read [\d,]+ of the [\d,]+ tokens the previous request cached/);
    expect(x.requests[5]!.breakCause).toBe('ttl');
    expect(x.requests[5]!.why).toMatch(/5-minute TTL expired \(prompt unchanged, 10\.0 min since the previous response\)/);
    expect(x.totals.breaks).toEqual({ client: 1, ttl: 1 });
    expect(x.totals.costUsd).toBeCloseTo(x.requests.reduce((n, q) => n + q.costUsd, 0), 10);
    const text = renderExplanation(x);
    // The HTTP simulator answered: every figure says it is simulated.
    expect(text.split('\n')[0]).toBe('session explain-1 (simulated: rein\'s simulator answered, so its usage and cost are the simulation\'s; nothing was billed)');
    expect(text).toMatch(/; simulated cost \$\d+\.\d{4}\n/);
    expect(text).toContain('breaks: client 1, ttl 1; compactions: 0');

    // The real CLI reads the same transcript by path.
    vi.useRealTimers();
    const cli = await runCli(['cache', 'explain', t.file], { cwd: dir, env: { REIN_HOME: home } });
    expect(cli.code).toBe(0);
    expect(cli.stdout).toBe(text);
    const json = await runCli(['cache', 'explain', t.file, '--json'], { cwd: dir, env: { REIN_HOME: home } });
    expect(JSON.parse(json.stdout).totals.breaks).toEqual({ client: 1, ttl: 1 });
    const missing = await runCli(['cache', 'explain', 'no-such-session'], { cwd: dir, env: { REIN_HOME: home } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^rein: no session no-such-session/);
  });
});

describe('rein cache explain after a resume on the simulator', () => {
  it('calls the simulator\'s empty cache what it is, not a server-side break', async () => {
    writeAgentsMd(dir);
    writeLines(dir, 'README.md', 40, 'readme');
    const env = { REIN_HOME: home };
    const first = await runCli(['run', '--preset', 'default', '--output-format', 'json', 'What is in this directory?'], { cwd: dir, env });
    expect(first.code).toBe(0);
    const { session_id: id } = JSON.parse(first.stdout);
    const again = await runCli(['run', '--continue', '--output-format', 'json', 'And now?'], { cwd: dir, env });
    expect(again.code).toBe(0);
    const x = JSON.parse((await runCli(['cache', 'explain', id, '--json'], { cwd: dir, env })).stdout);
    // The demo makes three requests per run; the fourth is the first after the resume.
    const resumed = x.requests[3];
    expect(resumed.read).toBe(0);
    expect(resumed.why).toMatch(/^expected drop \(resumed on rein's simulator, which starts each process with an empty prompt cache/);
    expect(JSON.stringify(x)).not.toMatch(/server side/);
    expect(x.totals.breaks).toEqual({});
  });
});

describe('rein cache explain on a Claude Code session file', () => {
  /** A line of a Claude Code session file (~/.claude/projects/<cwd>/<id>.jsonl). */
  const cc = (over: Record<string, unknown>) => JSON.stringify({ parentUuid: null, isSidechain: false, userType: 'external', cwd: dir, sessionId: 'cc-1', version: '2.0.50', ...over });
  const assistant = (id: string, at: string, usage: Record<string, number>, block: Record<string, unknown> = { type: 'text', text: 'ok' }, over: Record<string, unknown> = {}) =>
    cc({ type: 'assistant', timestamp: at, message: { id, model: 'claude-sonnet-4-5', role: 'assistant', content: [block], usage: { input_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, ...usage } }, ...over });

  it('reads every billed response once (a response spans lines), names TTL breaks from the timestamps, and keeps placeholders out', async () => {
    const lines = [
      JSON.stringify({ type: 'file-history-snapshot', messageId: 'x', snapshot: {} }),
      cc({ type: 'user', timestamp: '2026-01-05T10:00:00.000Z', message: { role: 'user', content: 'fix the bug' } }),
      // One response written as two lines: the second has the final output_tokens.
      assistant('msg_1', '2026-01-05T10:00:01.000Z', { cache_creation_input_tokens: 20_000 }, { type: 'thinking', thinking: 'hm', signature: 's' }),
      assistant('msg_1', '2026-01-05T10:00:01.000Z', { cache_creation_input_tokens: 20_000, output_tokens: 250 }),
      assistant('msg_2', '2026-01-05T10:00:20.000Z', { cache_read_input_tokens: 20_000, cache_creation_input_tokens: 500, output_tokens: 40 }),
      // An API error placeholder the client wrote: not a request.
      assistant('msg_err', '2026-01-05T10:00:30.000Z', { output_tokens: 0 }, { type: 'text', text: 'API Error: 500' }, { isApiErrorMessage: true }),
      cc({ type: 'user', timestamp: '2026-01-05T10:12:00.000Z', message: { role: 'user', content: 'and the tests?' } }),
      // 11.7 minutes later: the 5-minute cache expired.
      assistant('msg_3', '2026-01-05T10:12:02.000Z', { cache_creation_input_tokens: 20_600, output_tokens: 30 }),
      cc({ type: 'system', subtype: 'compact_boundary', timestamp: '2026-01-05T10:13:00.000Z', content: 'Conversation compacted' }),
      assistant('msg_4', '2026-01-05T10:13:05.000Z', { cache_creation_input_tokens: 6_000, output_tokens: 20 }),
      assistant('msg_5', '2026-01-05T10:13:09.000Z', { cache_creation_input_tokens: 900, output_tokens: 10 }, undefined, { isSidechain: true }),
    ];
    const file = join(dir, 'cc-1.jsonl');
    writeFileSync(file, lines.join('\n') + '\n');
    const r = await runCli(['cache', 'explain', file, '--json'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const x = JSON.parse(r.stdout);
    expect(x.sessionId).toBe('cc-1');
    expect(x.requests.map((q: { output: number }) => q.output)).toEqual([250, 40, 30, 20, 10]);
    expect(x.requests.map((q: { turn: number }) => q.turn)).toEqual([1, 1, 2, 2, 2]);
    expect(x.requests[1].why).toBe('read 20,000 cached tokens; wrote 500 new tokens to the cache; 3 uncached after the last marker');
    expect(x.requests[2]).toMatchObject({ breakCause: 'ttl' });
    expect(x.requests[2].why).toMatch(/^CACHE BREAK, cause ttl: 11\.7 min since the previous response, longer than the 5-minute TTL; read 0 of the 20,500 tokens the previous request cached; /);
    expect(x.requests[3].why).toMatch(/^after a compaction: /);
    expect(x.requests[4].source).toBe('subagent');
    expect(x.totals).toMatchObject({ requests: 5, compactions: 1, breaks: { ttl: 1 } });
    expect(x.simulated).toBeUndefined();
    const text = await runCli(['cache', 'explain', file], { cwd: dir });
    expect(text.stdout.split('\n')[0]).toBe('session cc-1');
  });

  it('reads `claude -p --output-format stream-json` output the same way, and says what it cannot name', async () => {
    const stream = [
      JSON.stringify({ type: 'system', subtype: 'init', session_id: 'cc-2', model: 'claude-sonnet-4-5', tools: [] }),
      JSON.stringify({ type: 'assistant', message: { id: 'msg_a', model: 'claude-sonnet-4-5', content: [], usage: { input_tokens: 3, cache_creation_input_tokens: 100, cache_read_input_tokens: 9_000, output_tokens: 8 } }, parent_tool_use_id: null, session_id: 'cc-2' }),
      JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] }, parent_tool_use_id: null, session_id: 'cc-2' }),
      JSON.stringify({ type: 'assistant', message: { id: 'msg_b', model: 'claude-sonnet-4-5', content: [], usage: { input_tokens: 3, cache_creation_input_tokens: 9_100, cache_read_input_tokens: 0, output_tokens: 8 } }, parent_tool_use_id: null, session_id: 'cc-2' }),
      JSON.stringify({ type: 'result', subtype: 'success', session_id: 'cc-2', total_cost_usd: 0.1 }),
    ];
    const file = join(dir, 'run.stream.jsonl');
    writeFileSync(file, stream.join('\n') + '\n');
    const r = await runCli(['cache', 'explain', file, '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    const x = JSON.parse(r.stdout);
    expect(x.sessionId).toBe('cc-2');
    expect(x.requests).toHaveLength(2);
    expect(x.requests[1]).toMatchObject({ breakCause: 'unknown' });
    expect(x.requests[1].why).toMatch(/^CACHE BREAK, cause unknown \(a Claude Code session file does not record what each request sent, so the changed part cannot be named\): read 0 of the 9,100 tokens the previous request cached; /);
  });

  it('a JSONL file that is neither is a clear error', async () => {
    const file = join(dir, 'other.jsonl');
    writeFileSync(file, '{"hello":"world"}\n');
    const r = await runCli(['cache', 'explain', file], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`rein: ${file} is neither a rein transcript (its first line is no session header) nor a Claude Code session file or stream-json output (no assistant line with usage)\n`);
  });
});
