import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../load.js';
import { promptTokens, type Workload } from '../types.js';
import { importAtif } from './atif.js';
import { importClaudeCodeSession, importClaudeCodeStreamJson } from './claude-code.js';

const traces = fileURLToPath(new URL('../../../../shared/traces/', import.meta.url));
const ivh = join(traces, 'claude-code__ivh-claudecode_to_html');
const mc = join(traces, 'claude-code__M-Thisness-M-Claude');
const harbor = join(traces, 'claude-code-harbor__xdotli-harbor-datagen');
const authRun = join(harbor, 'auth_token_race_condition/agent');
const asyncRun = join(harbor, 'fix_async_worker_queue/agent');

function sums(w: Workload) {
  const t = { input: 0, read: 0, write: 0, output: 0 };
  for (const s of w.steps) {
    if (!s.usage) continue;
    t.input += s.usage.input; t.read += s.usage.cacheRead; t.write += s.usage.cacheWrite5m + s.usage.cacheWrite1h; t.output += s.usage.output;
  }
  return t;
}
const calls = (w: Workload) => w.steps.reduce((n, s) => n + s.reply.filter((b) => b.type === 'tool_use').length, 0);

describe('Claude Code session JSONL importer (real sessions)', () => {
  it('rebuilds one request per message.id with the final output_tokens of its last line', async () => {
    const file = join(ivh, 'a06171f9-5f33-4258-84e1-4dc70e84c6dd.jsonl');
    expect(await detectFormat(file)).toBe('claude-code');
    const w = await importClaudeCodeSession(file);
    // The traces README: 58 requests, 9 prompts, 50 tool calls, tokens 638 / 3.45M / 297k / 35.6k.
    expect(w.steps).toHaveLength(58);
    expect(calls(w)).toBe(50);
    expect(w.steps.filter((s) => s.prompt?.some((p) => p.typed)).length).toBe(9);
    const t = sums(w);
    expect(t.input).toBe(638);
    expect(t.read).toBeGreaterThan(3_440_000); expect(t.read).toBeLessThan(3_460_000);
    expect(t.write).toBeGreaterThan(296_000); expect(t.write).toBeLessThan(298_000);
    expect(t.output).toBeGreaterThan(35_500); expect(t.output).toBeLessThan(35_700);
    expect(w.steps[0]!.reply.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect(w.steps[0]!.toolResults).toHaveLength(1);
    expect(w.client).toBe('claude-code 2.0.50');
    // Re-opened on another machine: timestamps compressed, flagged as unusable for timing.
    expect(w.timed).toBe(false);
    expect(w.stats.malformed).toBe(0);
  });

  it('skips <synthetic> placeholders and counts client bookkeeping by reason', async () => {
    const w = await importClaudeCodeSession(join(mc, '0d510331-7c2a-45ab-850a-088f3499b4cc.jsonl'));
    expect(w.steps).toHaveLength(182);
    expect(calls(w)).toBe(174);
    expect(w.stats.skipped['client-side placeholder (<synthetic> or API error text): not a request']).toBe(2);
    expect(w.stats.skipped['client bookkeeping (file-history-snapshot)']).toBeGreaterThan(0);
    expect(w.timed).toBe(true);
  });

  it('keeps a manual compaction and its summary out of the prompts', async () => {
    const w = await importClaudeCodeSession(join(mc, '97b0ffde-ece9-4977-91cb-5c8cdeabdf3f.jsonl'));
    expect(w.steps).toHaveLength(62);
    expect(w.model).toBe('claude-opus-4-5-20251101');
    expect(w.stats.skipped['compaction summary (kept with the recorded compaction, not fed as a prompt)']).toBe(1);
    // The /compact comes after the last request; nothing follows it to replay.
    expect(w.notes.join(' ')).toMatch(/manual compaction after the last request/);
    expect(w.steps.some((s) => s.prompt?.some((p) => /This session is being continued/.test(JSON.stringify(p.block))))).toBe(false);
  });

  it('marks a subagent transcript as a sidechain with its agent id', async () => {
    const w = await importClaudeCodeSession(join(mc, 'agent-abc3cb6.jsonl'));
    expect(w.sidechain).toBe(true);
    expect(w.agentId).toBe('abc3cb6');
    expect(w.steps).toHaveLength(11);
    expect(calls(w)).toBe(39);
  });

  it('replays a warm-up stub with the Warmup prompt and says so', async () => {
    const w = await importClaudeCodeSession(join(authRun, 'sessions/projects/-workspace/agent-64fb32c9.jsonl'));
    expect(w.steps).toHaveLength(1);
    expect(w.steps[0]!.prompt![0]!.block).toEqual({ type: 'text', text: 'Warmup' });
    expect(w.notes.join(' ')).toMatch(/warm-up stub/);
  });

  it('reads the headless session with every request billed as the run reported', async () => {
    const w = await importClaudeCodeSession(join(authRun, 'sessions/projects/-workspace/c6eb83c9-dba7-4416-ab11-093a0df9a392.jsonl'));
    expect(w.steps).toHaveLength(34);
    expect(sums(w)).toEqual({ input: 35, read: 1_012_864, write: 27_767, output: 9_074 });
  });
});

describe('Claude Code stream-json importer (real captures)', () => {
  it('skips the 10 non-JSON lines of a stack trace and counts them as malformed', async () => {
    const file = join(asyncRun, 'claude-code.txt');
    expect(await detectFormat(file)).toBe('claude-code-stream-json');
    const [main] = await importClaudeCodeStreamJson(file);
    expect(main!.stats.malformed).toBe(10);
    expect(main!.steps).toHaveLength(21);
    expect(main!.sidechain).toBe(false);
    expect(main!.timed).toBe(false);
  });

  it('splits subagent traffic by parent_tool_use_id and matches the session file', async () => {
    const ws = await importClaudeCodeStreamJson(join(authRun, 'claude-code.txt'));
    const main = ws.find((w) => !w.sidechain)!;
    const session = await importClaudeCodeSession(join(authRun, 'sessions/projects/-workspace/c6eb83c9-dba7-4416-ab11-093a0df9a392.jsonl'));
    expect(main.steps.map((s) => s.responseId)).toEqual(session.steps.map((s) => s.responseId));
    expect(main.steps.map((s) => s.usage)).toEqual(session.steps.map((s) => s.usage));
    const subs = ws.filter((w) => w.sidechain);
    expect(subs.length).toBeGreaterThan(0);
    expect(subs.every((w) => w.parentToolUseId && w.steps.every((s) => s.model.includes('haiku')))).toBe(true);
  });
});

describe('Harbor ATIF importer (real trajectories)', () => {
  it('groups per-block steps into requests and agrees with the session file on usage', async () => {
    const file = join(asyncRun, 'trajectory.json');
    expect(await detectFormat(file)).toBe('harbor-atif');
    const w = await importAtif(file);
    const session = await importClaudeCodeSession(join(asyncRun, 'sessions/projects/-app/8dcd40c3-a8ee-41ee-ba1e-5573d4780784.jsonl'));
    expect(w.steps).toHaveLength(session.steps.length);
    expect(w.steps.map((s) => s.usage && promptTokens(s.usage))).toEqual(session.steps.map((s) => s.usage && promptTokens(s.usage)));
    expect(w.stats.skipped['subagent step (ATIF merges subagents by timestamp; their session files are replayed instead)']).toBeGreaterThan(0);
  });
});
