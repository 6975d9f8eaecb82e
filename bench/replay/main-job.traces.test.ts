/**
 * The main job on real input, end to end: a real public Claude Code session (Harbor's headless
 * `fix_async_worker_queue` run) replayed as the scripted model behind `rein sim serve`, and
 * `rein run --preset <extends default>` driving it through the real SDK, real tools and real bash
 * in a copy of the session's workspace rebuilt from the session itself.
 *
 * The session: one prompt, 21 requests, 33 tool calls in `/app` (Read, Glob, TodoWrite, Edit, Bash,
 * and the background-shell tools BashOutput / KillShell: rein has them, but the background command
 * is an ask nobody answers here, so each of their calls names a shell this session does not have). The
 * recording stops after the results of its 21st reply (the harness cut the run off), so one closing
 * turn is appended to let the run end with `end_turn`.
 *
 * Checked: every tool_use has exactly one tool_result; what the permission rules allow ran (the
 * file on disk is the original with the recorded edits applied, and after each edit rein's snippet
 * agrees with the one the recording shows; bash ran and logged); what they do not allow was denied
 * with a reason and changed nothing; the context budget (a small `model.contextWindow`) forced an automatic
 * compaction whose summary request reached the server, and every request fits the budget; the
 * reported usage is the sum of the per-request usage and the cost is what lib/pricing.ts gives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { importClaudeCodeSession } from '../workloads/importers/claude-code.js';
import type { Workload } from '../workloads/types.js';
import { cleanEnv, REIN_BIN, runCli, tempDir, type CliResult } from '../../testing/support.js';
import { costUsd } from '../../lib/pricing.js';
import { computeThresholds } from '../../plugins/compaction/shared/threshold.js';
import { estimateMessageTokens } from '../../lib/tokens/estimate.js';
import {
  fileFromReadListing, numberedLines, reconstructFiles, recordedCalls, recordedPrompt, resultText, scenarioFromSession, type RecordedCall,
} from './trace-scenario.js';

const SESSION = fileURLToPath(new URL(
  '../../../shared/traces/claude-code-harbor__xdotli-harbor-datagen/fix_async_worker_queue/agent/sessions/projects/-app/8dcd40c3-a8ee-41ee-ba1e-5573d4780784.jsonl',
  import.meta.url,
));
/** The recorded workspace root (the session's `cwd`). */
const RECORDED_ROOT = '/app';
const EDITED_FILE = 'worker_queue.py';

/**
 * The budget: a 44,000-token window with a 16,000-token output cap puts the default
 * auto-compaction threshold at 44,000 − 16,000 − 13,000 = 15,000 tokens and the blocking limit at
 * 25,000. The run starts near 9,000 (rein's system prompt, tools and the prompt) and, uncompacted,
 * grows to about 20,000 (edits, todos and tool results), so it must cross the threshold partway.
 */
const CONTEXT_WINDOW = 44_000;
const MAX_TOKENS = 16_000;
const LEVELS = computeThresholds({ contextWindow: CONTEXT_WINDOW, maxOutputTokens: MAX_TOKENS });

/**
 * Permissions, chosen so the session's calls split three ways in `default` mode, headless:
 * read-only tools (Read, Glob) run by the mode; TodoWrite by the default preset's allow rule; Edit
 * of the one source file and bare `sleep` by the rules below; every `curl` call (alone, piped into
 * `python -m json.tool`, after `sleep 1 &&`, or in a `for` loop) is covered by no rule, so it is an
 * ask nobody answers: a recorded denial.
 */
const PRESET = {
  name: 'main-job-trace',
  extends: 'default',
  model: { maxTokens: MAX_TOKENS, contextWindow: CONTEXT_WINDOW },
  permissions: { mode: 'default', allow: [`Edit(./${EDITED_FILE})`, 'Bash(sleep:*)'] },
};

/** Appended after the recorded replies (the recording has no final reply): our own words. */
const CLOSING_TEXT = 'The worker queue fixes are in place in worker_queue.py; the live server checks could not run here.';

type Json = Record<string, any>;

let tmp: ReturnType<typeof tempDir>;
let ws: string;
let home: string;
let workload: Workload;
let calls: RecordedCall[];
let original: Record<string, string>;
let run: CliResult;
let lines: Json[];
let result: Json;
let log: Json[];
let transcript: Json[];

function serve(args: string[], cwd: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [REIN_BIN, 'sim', 'serve', ...args], { cwd, env: cleanEnv() });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.stderr!.on('data', (d) => { err += d; });
    child.on('exit', (code) => reject(new Error(`rein sim serve exited ${code}: ${err}`)));
  });
}

const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=rein test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd: ws, encoding: 'utf8' });

beforeAll(async () => {
  tmp = tempDir('rein-main-job-');
  ws = join(tmp.dir, 'app');
  home = join(tmp.dir, 'home');
  mkdirSync(ws);
  mkdirSync(home);

  workload = await importClaudeCodeSession(SESSION);
  calls = recordedCalls(workload, RECORDED_ROOT, ws);

  // The workspace: the files the session read in full, as they were before it edited them, committed.
  original = reconstructFiles(workload, RECORDED_ROOT);
  for (const [rel, content] of Object.entries(original)) writeFileSync(join(ws, rel), content);
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'the workspace as the session found it');

  const scenario = scenarioFromSession(workload, { from: RECORDED_ROOT, to: ws, closing: [{ reply: [{ text: CLOSING_TEXT }], stop_reason: 'end_turn' }] });
  writeFileSync(join(tmp.dir, 'scenario.yaml'), stringify(scenario));
  writeFileSync(join(tmp.dir, 'agent.yaml'), stringify(PRESET));

  const { child, url } = await serve(['--port', '0', '--scenario', join(tmp.dir, 'scenario.yaml'), '--log', join(tmp.dir, 'requests.jsonl')], tmp.dir);
  try {
    const prompt = recordedPrompt(workload).replaceAll(`${RECORDED_ROOT}/`, `${ws}/`);
    run = await runCli(['run', '--preset', join(tmp.dir, 'agent.yaml'), '-p', prompt, '--output-format', 'stream-json', '--no-layers'], {
      cwd: ws,
      env: { ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'test', REIN_HOME: home, HOME: home },
      timeoutMs: 90_000,
    });
  } finally {
    child.kill('SIGTERM');
  }
  lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
  result = lines.at(-1)!;
  log = readFileSync(join(tmp.dir, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.path?.startsWith('/v1/messages') && !e.path.includes('count_tokens'));
  const projectDir = join(home, 'sessions', ws.replace(/[^A-Za-z0-9]/g, '-'));
  transcript = readFileSync(join(projectDir, `${result.session_id}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}, 120_000);

afterAll(() => tmp?.cleanup());

/** The built-in tools of the default preset. */
const DEFAULT_TOOLS = ['Read', 'Write', 'Edit', 'Bash', 'BashOutput', 'KillShell', 'Glob', 'Grep', 'TodoWrite', 'WebFetch', 'Task'];

type Outcome = 'ran' | 'denied' | 'invalid input' | 'no such tool' | 'no such shell';

/** What the preset's rules (see PRESET) and rein's tools make of each recorded call. */
function expectedOutcome(c: RecordedCall): Outcome {
  if (!DEFAULT_TOOLS.includes(c.name)) return 'no such tool';
  // The background start (`python worker_queue.py &`) is covered by no rule: denied, so no shell exists
  // for the recorded id (Claude Code's c4c77d) that BashOutput and KillShell name.
  if (c.name === 'Bash' && c.input.run_in_background === true) return 'denied';
  if (c.name === 'BashOutput' || c.name === 'KillShell') return 'no such shell';
  if (c.name === 'Bash' && /\bcurl\b/.test(String(c.input.command))) return 'denied';
  return 'ran';
}

function blocksOf(line: Json): Json[] {
  return Array.isArray(line.message?.content) ? line.message.content : [];
}

function textOfResult(b: Json): string {
  return typeof b.content === 'string' ? b.content : (b.content as Json[]).map((x) => x.text ?? '').join('\n');
}

/** tool_use id → its tool_result block, from the stream. */
function resultsById(): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const l of lines) if (l.type === 'user') for (const b of blocksOf(l)) if (b.type === 'tool_result') out.set(b.tool_use_id, b);
  return out;
}

function actualOutcome(c: RecordedCall, b: Json): string {
  const text = textOfResult(b);
  if (b.is_error !== true) return 'ran';
  if (text.startsWith(`No such tool: ${c.name}.`)) return 'no such tool';
  if (text.startsWith(`InputValidationError: ${c.name} was called with invalid input`)) return 'invalid input';
  if (text.startsWith(`No background shell with id ${String(c.input.bash_id ?? c.input.shell_id)}.`)) return 'no such shell';
  if (text.startsWith(`Permission to use ${c.name} was denied`)) return 'denied';
  return `unexpected: ${text.slice(0, 200)}`;
}

const promptOf = (u: Json) => u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
const mainLog = () => log.filter((e) => e.source === 'main_loop');

describe('rein run on a real Claude Code session (harbor fix_async_worker_queue)', () => {
  it('replays the recorded replies to end_turn through the real server and SDK', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', cwd: ws, simulated: false });
    // default's tools, and the ToolSearch tool its deferred ones come with.
    expect([...lines[0]!.tools].sort()).toEqual([...DEFAULT_TOOLS, 'ToolSearch'].sort());
    // 21 recorded replies and the appended closing one, each one main-loop request.
    expect(workload.steps).toHaveLength(21);
    expect(calls).toHaveLength(33);
    expect(result).toMatchObject({
      type: 'result', subtype: 'success', is_error: false, rein_terminal_reason: 'end_turn', result: CLOSING_TEXT,
      num_turns: workload.steps.length + 1, num_requests: workload.steps.length + 1,
    });
    expect(mainLog()).toHaveLength(workload.steps.length + 1);
    // Every request was accepted: the server refuses unpaired tool_use / tool_result with a 400.
    expect(log.map((e) => e.status)).toEqual(log.map(() => 200));
  });

  it('answers every tool_use with exactly one tool_result, in the stream and in the transcript', () => {
    const uses = lines.filter((l) => l.type === 'assistant').flatMap((l) => blocksOf(l).filter((b) => b.type === 'tool_use').map((b) => b.id as string));
    expect(uses).toEqual(calls.map((c) => c.id));
    const resultIds = lines.filter((l) => l.type === 'user').flatMap((l) => blocksOf(l).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id as string));
    expect([...resultIds].sort()).toEqual([...uses].sort());
    // Each result comes after its call.
    const at = (id: string, type: string) => lines.findIndex((l) => l.type === type && blocksOf(l).some((b) => b.id === id || b.tool_use_id === id));
    for (const id of uses) expect(at(id, 'user')).toBeGreaterThan(at(id, 'assistant'));
    // The transcript records the same calls and results.
    const messages = transcript.filter((e) => e.type === 'message').map((e) => e.message as Json);
    const tUses = messages.filter((m) => m.role === 'assistant').flatMap((m) => (m.content as Json[]).filter((b) => b.type === 'tool_use').map((b) => b.id));
    const tResults = messages.filter((m) => m.role === 'user').flatMap((m) => (m.content as Json[]).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id));
    expect(tUses).toEqual(uses);
    expect([...tResults].sort()).toEqual([...uses].sort());
  });

  it('runs, denies or refuses each recorded call exactly as the rules and the tool set say', () => {
    const results = resultsById();
    const expected = Object.fromEntries(calls.map((c) => [c.id, `${c.name}: ${expectedOutcome(c)}`]));
    const actual = Object.fromEntries(calls.map((c) => [c.id, `${c.name}: ${actualOutcome(c, results.get(c.id)!)}`]));
    expect(actual).toEqual(expected);
    const count = (o: Outcome) => calls.filter((c) => expectedOutcome(c) === o).length;
    expect({ ran: count('ran'), denied: count('denied'), invalid: count('invalid input'), missing: count('no such tool'), noShell: count('no such shell') }).toEqual({ ran: 19, denied: 7, invalid: 0, missing: 0, noShell: 7 });
  });

  it('lists every denied call in permission_denials with its input and reason, and runs none of them', () => {
    const denied = calls.filter((c) => expectedOutcome(c) === 'denied');
    expect(result.permission_denials.map((d: Json) => d.tool_use_id)).toEqual(denied.map((c) => c.id));
    for (const [i, d] of (result.permission_denials as Json[]).entries()) {
      expect(d).toMatchObject({ tool_name: 'Bash', tool_input: denied[i]!.input });
      // The reason names the part of the (often compound) command no rule covers: the curl, or the background server.
      expect(d.reason).toMatch(/^ask with no answer: no allow rule covers "(curl |python worker_queue\.py)/);
    }
    const events = lines.filter((l) => l.type === 'system' && l.subtype === 'permission_denied');
    expect(events.map((e) => e.tool_use_id)).toEqual(denied.map((c) => c.id));
    // Bash keeps a log per command it ran: there is one for each allowed `sleep` and none for the rest.
    const bashDir = join(home, 'sessions', ws.replace(/[^A-Za-z0-9]/g, '-'), result.session_id, 'bash');
    const ranBash = calls.filter((c) => c.name === 'Bash' && expectedOutcome(c) === 'ran');
    expect(ranBash.map((c) => c.input.command)).toEqual(['sleep 3', 'sleep 3', 'sleep 2']);
    expect(readdirSync(bashDir).sort()).toEqual(ranBash.map((c) => `${c.id}.log`).sort());
    for (const c of calls.filter((x) => x.name === 'Bash' && expectedOutcome(x) !== 'ran')) expect(existsSync(join(bashDir, `${c.id}.log`))).toBe(false);
  });

  it('leaves the workspace as the recorded edits make it, and changes nothing else', () => {
    // The recorded edits applied by hand to the reconstructed original.
    let expected = original[EDITED_FILE]!;
    const edits = calls.filter((c) => c.name === 'Edit');
    expect(edits).toHaveLength(5);
    for (const e of edits) {
      const { old_string: oldString, new_string: newString } = e.input as { old_string: string; new_string: string };
      expect(expected.split(oldString)).toHaveLength(2);
      expected = expected.replace(oldString, () => newString);
    }
    expect(readFileSync(join(ws, EDITED_FILE), 'utf8')).toBe(expected);
    expect(git('status', '--porcelain').trimEnd().split('\n')).toEqual([` M ${EDITED_FILE}`]);

    // After each edit, rein's snippet and the snippet Claude Code showed in the recording agree on
    // every line number both show: the file went through the same states.
    const results = resultsById();
    for (const e of edits) {
      const ours = numberedLines(textOfResult(results.get(e.id)!));
      const recorded = numberedLines(resultText(e.result));
      const shared = [...recorded.keys()].filter((n) => ours.has(n));
      expect(shared.length).toBeGreaterThan(5);
      for (const n of shared) expect(`${n}: ${ours.get(n)}`).toBe(`${n}: ${recorded.get(n)}`);
    }

    // The read saw the file the recording saw, and the globs found what the recording found.
    const read = calls.find((c) => c.name === 'Read')!;
    expect(fileFromReadListing(textOfResult(results.get(read.id)!))).toBe(original[EDITED_FILE]);
    for (const g of calls.filter((c) => c.name === 'Glob')) {
      const ours = textOfResult(results.get(g.id)!);
      const recorded = resultText(g.result);
      if (recorded === 'No files found') expect(ours).toBe('No files found');
      else expect(ours.split('\n').map((p) => join(ws, p))).toEqual(recorded.split('\n').map((p) => p.replace(`${RECORDED_ROOT}/`, `${ws}/`)));
    }
  });

  it('compacts automatically where the context crosses the budget, and every request fits it', () => {
    const notice = lines.find((l) => l.subtype === 'notice' && l.source === 'compaction/auto');
    expect(notice?.message).toContain(`auto-compaction at ${LEVELS.threshold} tokens`);
    expect(notice?.message).toContain(`blocking at ${LEVELS.blocking}`);

    const boundaries = lines.filter((l) => l.type === 'system' && l.subtype === 'compact_boundary');
    const compactRequests = log.filter((e) => e.source === 'compact');
    expect(boundaries.length).toBeGreaterThanOrEqual(1);
    // Each compaction's summary request reached the server, as a request of its own kind. The
    // default preset's summary request continues the last main-loop request (summaryRequest:
    // cached-prefix), so it carries that request's tools and system and all of its messages, and
    // reads them from the prompt cache.
    expect(compactRequests).toHaveLength(boundaries.length);
    for (const r of compactRequests) {
      const before = log[log.indexOf(r) - 1]!;
      expect(r.body.tools).toEqual(before.body.tools);
      expect(r.body.system).toEqual(before.body.system);
      expect(r.body.messages.length).toBeGreaterThan(before.body.messages.length);
      expect(r.usage.cache_read_input_tokens).toBeGreaterThan(0);
    }

    // No main-loop request was sent at or over the threshold.
    for (const e of mainLog()) expect(promptOf(e.usage)).toBeLessThan(LEVELS.threshold);

    for (const [i, b] of boundaries.entries()) {
      const k = log.indexOf(compactRequests[i]!);
      const before = log[k - 1]!;
      const after = log[k + 1]!;
      expect(before.source).toBe('main_loop');
      expect(after.source).toBe('main_loop');
      // Partway: after some requests, before the last.
      expect(mainLog().indexOf(before)).toBeGreaterThan(0);
      expect(after).not.toBe(mainLog().at(-1));
      // The Agent SDK's compact_metadata, with rein's strategy beside it on the boundary line.
      expect(b).toMatchObject({ compact_metadata: { trigger: 'auto' }, strategy: 'compaction/auto' });
      // It fired because the budget demanded it: the context the next request would have carried
      // (the last response's prompt and output plus the tool results since) reached the threshold.
      const resultsLine = lines.slice(0, lines.indexOf(b)).findLast((l) => l.type === 'user' || l.type === 'assistant')!;
      expect(resultsLine.type).toBe('user');
      const wouldBe = promptOf(before.usage) + before.usage.output_tokens + estimateMessageTokens({ content: resultsLine.message.content });
      expect(b.compact_metadata.pre_tokens).toBe(wouldBe);
      expect(b.compact_metadata.pre_tokens).toBeGreaterThanOrEqual(LEVELS.threshold);
      // Afterwards the context fits: the next request carries what the boundary reports, under the threshold.
      expect(b.compact_metadata.post_tokens).toBe(promptOf(after.usage));
      expect(b.compact_metadata.post_tokens).toBeLessThan(LEVELS.threshold);
      // The new history: the recorded prompt verbatim, then the summary with the edited file read back.
      const history = after.body.messages as Json[];
      expect(history.length).toBeLessThan(before.body.messages.length);
      expect(JSON.stringify(history[0])).toContain('Fix the broken asynchronous worker queue system.');
      expect(JSON.stringify(history)).toContain('<summary>');
      expect(JSON.stringify(history)).toContain(EDITED_FILE);
      // The rewritten history breaks the message-level cache: only the unchanged prefix (tools,
      // system, the prompt) is read back.
      expect(after.usage.cache_read_input_tokens).toBeGreaterThan(0);
      expect(after.usage.cache_read_input_tokens).toBeLessThanOrEqual(promptOf(mainLog()[0]!.usage));
    }
    expect(result.side_usage.compact).toBeDefined();
  });

  it('reports usage that is the sum of the per-request usage, and the cost lib/pricing.ts gives', () => {
    const sum = (entries: Json[]) => {
      const u = { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 } };
      for (const e of entries) {
        u.input_tokens += e.usage.input_tokens;
        u.cache_creation_input_tokens += e.usage.cache_creation_input_tokens;
        u.cache_read_input_tokens += e.usage.cache_read_input_tokens;
        u.output_tokens += e.usage.output_tokens;
        u.cache_creation.ephemeral_5m_input_tokens += e.usage.cache_creation?.ephemeral_5m_input_tokens ?? 0;
        u.cache_creation.ephemeral_1h_input_tokens += e.usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
      }
      return u;
    };
    // The server's log and the transcript's `response` entries agree request by request.
    const responses = transcript.filter((e) => e.type === 'response');
    const pick = (u: Json) => ({ input_tokens: u.input_tokens, cache_creation_input_tokens: u.cache_creation_input_tokens, cache_read_input_tokens: u.cache_read_input_tokens, output_tokens: u.output_tokens });
    expect(responses.map((e) => [e.source, pick(e.usage)])).toEqual(log.map((e) => [e.source, pick(e.usage)]));

    // The result's usage has the Messages API's other fields too (service_tier, server_tool_use, ...).
    expect(result.usage).toMatchObject(sum(mainLog()));
    expect(Object.keys(result.side_usage)).toEqual(['compact']);
    expect(result.side_usage.compact).toMatchObject(sum(log.filter((e) => e.source === 'compact')));
    // The prompt cache did its job on a real session: most input was read from it.
    expect(result.usage.cache_read_input_tokens / promptOf(result.usage)).toBeGreaterThan(0.8);

    const cost = responses.reduce((n, e) => n + costUsd(e.model, e.usage).usd, 0);
    expect(responses.every((e) => e.model === 'claude-sonnet-4-6')).toBe(true);
    expect(result.total_cost_usd).toBe(Number(cost.toFixed(6)));
    // By hand at Sonnet 4.6's listed prices (USD per MTok: input 3, output 15, 5m write 3.75, read 0.30).
    const all = sum(log);
    expect(result.total_cost_usd).toBeCloseTo((all.input_tokens * 3 + all.output_tokens * 15 + all.cache_creation_input_tokens * 3.75 + all.cache_read_input_tokens * 0.3) / 1e6, 6);
  });
});
