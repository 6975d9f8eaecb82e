/**
 * Harbor ATIF trajectory importer (`agent/trajectory.json`, `schema_version: "ATIF-v1.x"`).
 *
 * ATIF is derived from a Claude Code session: steps are per content block, and the steps of one
 * response repeat the same metrics, so consecutive agent steps with identical input metrics form one
 * request. `prompt_tokens` there is `input + cache_read` (without cache writes), so the uncached
 * input is `prompt_tokens − cache_read_input_tokens`. Subagent and warm-up steps are merged in by
 * timestamp and flagged `is_sidechain`; they are skipped and counted (their own session files are
 * the better source). Tool-call steps carry a placeholder message ("Executed <Tool> <id>"), which
 * is not model text and is left out.
 */
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { ContentBlock } from '../../../kernel/types.js';
import { parseTime, StepBuilder } from '../builder.js';
import { newStats, skip, type RecordedUsage, type Workload } from '../types.js';

type Obj = Record<string, any>;

function atifUsage(m: Obj | undefined): RecordedUsage | undefined {
  if (!m || typeof m.prompt_tokens !== 'number') return undefined;
  const x = m.extra ?? {};
  const read = Number(x.cache_read_input_tokens ?? m.cached_tokens ?? 0);
  const write = Number(x.cache_creation_input_tokens ?? 0);
  const w1h = Number(x.cache_creation?.ephemeral_1h_input_tokens ?? 0);
  return { input: Math.max(0, m.prompt_tokens - read), output: Number(m.completion_tokens ?? 0), cacheRead: read, cacheWrite5m: Math.max(0, write - w1h), cacheWrite1h: w1h };
}

function metricsKey(s: Obj): string {
  const m = s.metrics ?? {};
  return JSON.stringify([s.model_name, m.prompt_tokens, m.cached_tokens, m.extra?.cache_creation_input_tokens, m.extra?.cache_read_input_tokens]);
}

/** Imports the main thread of an ATIF trajectory. Throws for unreadable files or JSON that does not parse. */
export async function importAtif(path: string): Promise<Workload> {
  const doc = JSON.parse(await readFile(path, 'utf8')) as Obj;
  const stats = newStats();
  const steps: Obj[] = Array.isArray(doc.steps) ? doc.steps : [];
  stats.lines = steps.length;
  stats.entries = steps.length;
  const builder = new StepBuilder(stats);
  let request = 0;
  let lastKey = '';
  for (const s of steps) {
    const at = parseTime(s.timestamp);
    if (s.extra?.is_sidechain === true) { skip(stats, 'subagent step (ATIF merges subagents by timestamp; their session files are replayed instead)', s.step_id); continue; }
    if (s.source === 'user') {
      builder.inputAt(at);
      builder.prompt({ block: { type: 'text', text: String(s.message ?? '') }, typed: true });
      lastKey = '';
      continue;
    }
    if (s.source !== 'agent') { skip(stats, `step source ${String(s.source)}`, s.step_id); continue; }
    const key = metricsKey(s);
    if (key !== lastKey) { request++; lastKey = key; }
    const id = `atif-request-${request}`;
    const base = { responseId: id, model: String(s.model_name ?? doc.agent?.model_name ?? 'unknown'), at, usage: atifUsage(s.metrics), stopReason: s.extra?.stop_reason ?? null };
    const calls: Obj[] = Array.isArray(s.tool_calls) ? s.tool_calls : [];
    const message = typeof s.message === 'string' ? s.message : '';
    const placeholder = calls.length > 0 && /^Executed \S+ \S+$/.test(message.trim());
    if (message && !placeholder) builder.reply({ ...base, block: { type: 'text', text: message } });
    if (s.reasoning_content) builder.reply({ ...base, block: { type: 'thinking', thinking: String(s.reasoning_content), signature: '' } as ContentBlock });
    for (const c of calls) builder.reply({ ...base, block: { type: 'tool_use', id: String(c.tool_call_id), name: String(c.function_name), input: c.arguments ?? {} } });
    if (!message && !calls.length) builder.reply(base);
    for (const r of s.observation?.results ?? []) {
      builder.inputAt(at);
      const content: ContentBlock[] = typeof r.content === 'string' ? [{ type: 'text', text: r.content }] : [];
      builder.toolResult(String(r.source_call_id), content, false, s.step_id);
    }
  }
  return builder.finish({
    name: `${basename(dirname(dirname(path)))}:${basename(path).replace(/\.json$/, '')}`,
    format: 'harbor-atif',
    path,
    client: doc.agent?.name ? `${doc.agent.name} ${doc.agent.version ?? ''}`.trim() : undefined,
    sessionId: doc.session_id,
    sidechain: false,
    notes: ['ATIF is derived from the Claude Code session file; is_error flags of tool results are not in ATIF'],
  });
}
