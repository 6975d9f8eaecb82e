/**
 * OpenHands history importer: the event stream of a conversation, as a JSON array (the
 * `/api/conversations/<id>/events` answer or a saved trajectory, also `{events: [...]}`) or as
 * JSON Lines, one event per line.
 *
 * Events: actions (`action`: message, run, read, edit, think, finish, ...) and observations
 * (`observation`: run, read, edit, ..., with `cause` naming the action). Agent actions made through
 * function calling carry `tool_call_metadata {function_name, tool_call_id, model_response, ...}`;
 * the actions of one LLM response share `model_response.id`, which makes them one request, and the
 * response's `usage` (LiteLLM's OpenAI-style shape: `prompt_tokens` including cached tokens,
 * `cache_read_input_tokens` / `prompt_tokens_details.cached_tokens`, `cache_creation_input_tokens`)
 * is the provider usage. Observations answering a `tool_call_id` are tool results. User `message`
 * actions are prompts. Everything else (state changes, system info, recalls) is skipped and counted.
 *
 * These histories are not in the shared traces; the importer follows the documented event format
 * and is tested on small fixtures.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ContentBlock } from '../../../kernel/types.js';
import { parseTime, StepBuilder, timestampsUsable } from '../builder.js';
import { readJsonl } from '../jsonl.js';
import { newStats, skip, type ImportStats, type RecordedUsage, type Workload } from '../types.js';

type Obj = Record<string, any>;

function ohUsage(u: Obj | undefined): RecordedUsage | undefined {
  if (!u || typeof u.prompt_tokens !== 'number') return undefined;
  const read = Number(u.cache_read_input_tokens ?? u.prompt_tokens_details?.cached_tokens ?? 0);
  const write = Number(u.cache_creation_input_tokens ?? 0);
  return { input: Math.max(0, u.prompt_tokens - read - write), output: Number(u.completion_tokens ?? 0), cacheRead: read, cacheWrite5m: write, cacheWrite1h: 0 };
}

async function readEvents(path: string, stats: ImportStats): Promise<{ line: number; value: Obj }[]> {
  const head = (await readFile(path, { encoding: 'utf8', flag: 'r' })).trimStart();
  if (head.startsWith('[') || (head.startsWith('{') && /^\{\s*"events"\s*:/.test(head))) {
    const doc = JSON.parse(head);
    const events: unknown[] = Array.isArray(doc) ? doc : Array.isArray(doc?.events) ? doc.events : [];
    stats.lines = events.length;
    stats.entries = events.length;
    return events.map((value, i) => ({ line: i + 1, value: value as Obj }));
  }
  const out: { line: number; value: Obj }[] = [];
  for await (const e of readJsonl(path, (m) => { stats.malformed++; skip(stats, `malformed line (${m.error})`, m.line); }, () => { stats.lines++; })) {
    stats.entries++;
    out.push({ line: e.line, value: e.value as Obj });
  }
  return out;
}

/** Imports an OpenHands event history. Throws for unreadable files or a JSON document that does not parse. */
export async function importOpenHands(path: string): Promise<Workload> {
  const stats = newStats();
  const events = await readEvents(path, stats);
  const builder = new StepBuilder(stats);
  let model: string | undefined;
  for (const { line, value: ev } of events) {
    if (!ev || typeof ev !== 'object') { skip(stats, 'not a JSON object', line); continue; }
    const at = parseTime(ev.timestamp);
    const meta = ev.tool_call_metadata as Obj | undefined;
    if (ev.action !== undefined) {
      if (ev.source === 'user' && ev.action === 'message') {
        builder.inputAt(at);
        builder.prompt({ block: { type: 'text', text: String(ev.args?.content ?? ev.message ?? '') }, typed: true });
        continue;
      }
      if (ev.source !== 'agent') { skip(stats, `action ${String(ev.action)} from ${String(ev.source)}`, line); continue; }
      if (ev.action === 'system' || ev.action === 'recall' || ev.action === 'change_agent_state') { skip(stats, `agent bookkeeping (${String(ev.action)})`, line); continue; }
      const response = meta?.model_response as Obj | undefined;
      const responseId = String(response?.id ?? `openhands-event-${String(ev.id ?? line)}`);
      model ??= response?.model;
      const base = { responseId, model: String(response?.model ?? 'unknown'), at, usage: ohUsage(response?.usage) };
      const isNew = builder.steps[builder.steps.length - 1]?.responseId !== responseId;
      if (isNew) {
        const text = response?.choices?.[0]?.message?.content;
        const thought = typeof text === 'string' && text ? text : typeof ev.args?.thought === 'string' ? ev.args.thought : '';
        if (thought) builder.reply({ ...base, block: { type: 'text', text: thought } });
      }
      if (meta?.tool_call_id) {
        const call = (response?.choices?.[0]?.message?.tool_calls as Obj[] | undefined)?.find((c) => c.id === meta.tool_call_id);
        let input: unknown = ev.args ?? {};
        if (call?.function?.arguments) { try { input = JSON.parse(call.function.arguments); } catch { /* keep args */ } }
        builder.reply({ ...base, block: { type: 'tool_use', id: String(meta.tool_call_id), name: String(meta.function_name ?? ev.action), input }, stopReason: 'tool_use' });
      } else if (ev.action === 'message' || ev.action === 'finish') {
        const text = String(ev.args?.content ?? ev.args?.final_thought ?? ev.message ?? '');
        if (isNew || text) builder.reply({ ...base, ...(text && !isNew ? { block: { type: 'text', text } as ContentBlock } : {}), stopReason: 'end_turn' });
      } else {
        skip(stats, `agent action ${String(ev.action)} without a tool call`, line);
      }
      continue;
    }
    if (ev.observation !== undefined) {
      if (meta?.tool_call_id) {
        builder.inputAt(at);
        const isError = ev.observation === 'error' || (typeof ev.extras?.exit_code === 'number' && ev.extras.exit_code !== 0 && ev.observation !== 'run');
        builder.toolResult(String(meta.tool_call_id), [{ type: 'text', text: String(ev.content ?? '') }], isError, line);
      } else {
        skip(stats, `observation ${String(ev.observation)} not answering a tool call`, line);
      }
      continue;
    }
    skip(stats, 'event that is neither an action nor an observation', line);
  }
  const timed = timestampsUsable(builder.steps);
  return builder.finish({
    name: basename(path).replace(/\.jsonl?$/, ''),
    format: 'openhands',
    path,
    client: 'openhands',
    sidechain: false,
    timed,
    ...(model ? { model } : {}),
    notes: [],
  });
}
