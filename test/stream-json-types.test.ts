/**
 * rein's stream-json lines against the Claude Agent SDK's message types, checked by the TypeScript
 * compiler: real output of `rein run --output-format stream-json` (a tool session with partial
 * messages and hook events), and the formatter's lines for events a short run does not produce
 * (compaction, a retry, a denial, error results), are written into a TypeScript file as
 * `<line> satisfies SDKMessage` and type-checked. Any field of the wrong type, or a field the SDK
 * does not know that is not one of rein's documented extras, fails the test.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { StreamFormatter } from '../plugins/printer/format.js';
import { emptyUsage, type RunResult } from '../kernel/index.js';
import { REPO, runBuilt, serveScenario, tempDir, type SimHarness } from '../testing/support.js';

/** Fields rein adds that the SDK's types do not have (the README lists them). */
const REIN_EXTRAS = new Set([
  'simulated', 'resumed', 'rein_version', 'rein_terminal_reason', 'side_usage', 'num_requests', 'model',
  'tool_input', 'error_message', 'source', 'rein_trigger', 'strategy', 'reason',
]);

let tmp: ReturnType<typeof tempDir>;
let sim: SimHarness | undefined;
beforeAll(() => {
  if (!existsSync(join(REPO, 'dist/bundle/rein.cjs'))) throw new Error('build rein first: npm run build');
});
beforeEach(() => { tmp = tempDir('rein-types-'); });
afterEach(async () => { await sim?.close(); tmp.cleanup(); });

const rein = (args: string[], env: NodeJS.ProcessEnv, cwd: string) => runBuilt(args, { cwd, env });

/** Type-checks each line as `SDKMessage`; returns the errors that are not rein's documented extras. */
function typeErrors(lines: Record<string, unknown>[]): string[] {
  const file = join(tmp.dir, 'lines.ts');
  writeFileSync(file, [
    "import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';",
    ...lines.map((l, i) => `export const line${i} = ${JSON.stringify(l)} satisfies SDKMessage;`),
  ].join('\n'));
  const program = ts.createProgram([file], {
    strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    baseUrl: REPO, typeRoots: [join(REPO, 'node_modules/@types')], types: ['node'],
    paths: { '@anthropic-ai/claude-agent-sdk': [join(REPO, 'node_modules/@anthropic-ai/claude-agent-sdk/sdk.d.ts')] },
  });
  const out: string[] = [];
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const msg = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    // TS2353: "Object literal may only specify known properties, and 'x' does not exist in type ..."
    const extra = d.code === 2353 ? /'"?([^'"]+)"?' does not exist/.exec(msg)?.[1] : undefined;
    if (extra && REIN_EXTRAS.has(extra)) continue;
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    out.push(`line ${line}: ${msg.split('\n')[0]} :: ${line > 1 ? JSON.stringify(lines[line - 2]).slice(0, 300) : ''}`);
  }
  return out;
}

/** The formatter's lines for events a short run does not produce. */
function formatterLines(): Record<string, unknown>[] {
  const f = new StreamFormatter(() => 'ses-1', {
    permissionMode: () => 'default', mcpServers: () => [], agents: () => [], apiKeySource: 'none', version: '0.1.0',
    limits: () => ({ contextWindow: 200_000, maxOutputTokens: 16_000 }),
  });
  const result = (over: Partial<RunResult>): RunResult => ({
    sessionId: 'ses-1', terminalReason: 'end_turn', isError: false, text: 'ok', numTurns: 1, durationMs: 5, usage: emptyUsage(), sideUsage: { compact: emptyUsage() },
    totalCostUsd: 0.01, permissionDenials: [{ tool_name: 'Bash', tool_use_id: 'toolu_1', tool_input: { command: 'rm -rf /' }, reason: 'denied by a rule' }], numRequests: 1, model: 'claude-sonnet-4-6', ...over,
  });
  f.response('claude-sonnet-4-6', { ...emptyUsage(), input_tokens: 10, output_tokens: 3 }, 40);
  const lines = [
    f.line({ type: 'compact', trigger: 'reactive', tokensBefore: 180_000, tokensAfter: 9_000, strategy: 'compaction/auto' }),
    f.line({ type: 'api_retry', attempt: 1, delayMs: 500, status: 529, error: 'overloaded', source: 'main_loop', maxRetries: 10 }),
    f.line({ type: 'permission_denied', denial: { tool_name: 'Bash', tool_use_id: 'toolu_1', tool_input: {}, reason: 'denied by a rule' } }),
    f.line({ type: 'user_message', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } }, { replayUserMessages: true }),
    f.result(result({ structuredOutput: { ok: true } })),
    f.result(result({ terminalReason: 'max_turns', isError: true })),
    f.result(result({ terminalReason: 'budget_exhausted', isError: true, terminalDetail: 'spent $1.0000 of $1' })),
    f.result(result({ terminalReason: 'model_error', isError: true, terminalDetail: '500 from the API' })),
    f.result(result({ terminalReason: 'refusal', isError: true })),
  ];
  return lines.filter((l): l is Record<string, unknown> => l !== undefined);
}

describe('stream-json lines are the Agent SDK\'s message types', () => {
  it('the formatter gives each event its SDK subtype and the result its error subtypes', () => {
    const lines = formatterLines();
    expect(lines.map((l) => l.subtype)).toEqual(['compact_boundary', 'api_retry', 'permission_denied', undefined, 'success', 'error_max_turns', 'error_max_budget_usd', 'error_during_execution', 'error_during_execution']);
    expect(lines[0]).toMatchObject({ compact_metadata: { trigger: 'auto', pre_tokens: 180_000, post_tokens: 9_000 }, rein_trigger: 'reactive' });
    expect(lines[3]).toMatchObject({ type: 'user', isReplay: true });
    expect(lines[4]).toMatchObject({ structured_output: { ok: true }, terminal_reason: 'completed', duration_api_ms: 40, total_cost_usd: 0.01 });
    expect(lines[5]).toMatchObject({ total_cost_usd: 0.02 }); // a running total across the session's turns
    expect(lines[8]).toMatchObject({ errors: ['refusal'], rein_terminal_reason: 'refusal' });
    expect(lines[8]!.terminal_reason).toBeUndefined(); // the SDK has no word for a refusal
  });

  it('a real tool session (partial messages, hook events) and every formatter line type-check as SDKMessage; a wrong line does not', async () => {
    sim = await serveScenario([
      'turns:',
      '  - reply: [{ text: "Reading it." }, { tool_use: { name: Read, input: { file_path: notes.txt } } }]',
      '  - reply: [{ text: "It says: buy milk." }]',
    ].join('\n'), tmp.dir);
    writeFileSync(join(tmp.dir, 'notes.txt'), 'buy milk\n');
    writeFileSync(join(tmp.dir, 'agent.yaml'), [
      'model: { name: claude-sonnet-4-6 }',
      'tools: [Read]',
      'hooks:',
      '  PostToolUse:',
      '    - hooks: [{ type: command, command: "echo checked" }]',
    ].join('\n'));
    const r = await rein(['-p', '--output-format', 'stream-json', '--verbose', '--include-partial-messages', '--include-hook-events', '--preset', './agent.yaml', '--no-layers', 'Read notes.txt'],
      { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: sim.server.url, REIN_HOME: join(tmp.dir, 'home') }, tmp.dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const kinds = new Set(lines.map((l) => `${l.type}${l.subtype ? `/${l.subtype}` : ''}`));
    for (const k of ['system/init', 'assistant', 'user', 'stream_event', 'system/hook_started', 'system/hook_response', 'result/success']) expect(kinds).toContain(k);
    // rein-only lines (transitions, notices) keep the envelope but are not SDK messages.
    const sdkLines = lines.filter((l) => !(l.type === 'system' && (l.subtype === 'transition' || l.subtype === 'notice')));
    const good = [...sdkLines, ...formatterLines()];
    const bad = [{ type: 'result', subtype: 'success', is_error: 'no' }, { type: 'system', subtype: 'init', cwd: 1, unknown_field: true }];
    // One compile for all (the SDK's declarations are large): errors may only point at the bad lines.
    const errors = typeErrors([...good, ...bad]);
    // File line n holds lines[n - 2] (line 1 is the import).
    const index = (e: string) => Number(/^line (\d+)/.exec(e)?.[1]) - 2;
    expect(errors.filter((e) => index(e) < good.length)).toEqual([]);
    expect(new Set(errors.map(index))).toEqual(new Set([good.length, good.length + 1]));
  }, 90_000);
});
