/**
 * SWE-agent and mini-swe-agent trajectory importer.
 *
 * SWE-agent (`*.traj`): `{ history: [{role, content, message_type?, tool_calls?, tool_call_ids?}],
 * trajectory: [...], info: {model_stats: {tokens_sent, tokens_received, api_calls, instance_cost}} }`.
 * Assistant messages are requests; with function calling they carry OpenAI-style `tool_calls`
 * (`{id, function: {name, arguments: "<json>"}}`) answered by `role: "tool"` messages naming
 * `tool_call_ids`; without it the action is text and the observation comes back as a user message.
 *
 * mini-swe-agent (`*.traj.json`, `trajectory_format: "mini-swe-agent-1"`): `{ messages: [{role,
 * content}], info: {model_stats: {instance_cost, api_calls}} }`, with bash actions in the assistant
 * text and observations as user messages.
 *
 * Neither format records per-request usage or timestamps: requests are spaced 1 s apart and only
 * the totals in `info.model_stats` are noted. The system message is left out (the preset under test
 * brings its own system prompt). These formats are not in the shared traces; the importer follows
 * the documented formats and is tested on small fixtures.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ContentBlock } from '../../../kernel/types.js';
import { StepBuilder } from '../builder.js';
import { newStats, skip, type Workload } from '../types.js';

type Obj = Record<string, any>;

/** Spacing given to requests of formats without timestamps, ms. */
export const UNTIMED_STEP_MS = 1_000;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (typeof b === 'string' ? b : b?.text ?? '')).join('\n');
  return '';
}

function parseArgs(raw: unknown): Record<string, unknown> {
  if (raw && typeof raw === 'object') return raw as Record<string, unknown>;
  if (typeof raw === 'string') {
    try {
      const v = JSON.parse(raw);
      return v && typeof v === 'object' ? v : { value: v };
    } catch {
      return { raw };
    }
  }
  return {};
}

/** Imports a SWE-agent or mini-swe-agent trajectory file. Throws for unreadable or non-JSON files. */
export async function importSweAgent(path: string): Promise<Workload> {
  const doc = JSON.parse(await readFile(path, 'utf8')) as Obj;
  const mini = Array.isArray(doc.messages) && !Array.isArray(doc.history);
  const history: Obj[] = mini ? doc.messages : Array.isArray(doc.history) ? doc.history : [];
  const stats = newStats();
  stats.lines = history.length;
  stats.entries = history.length;
  const builder = new StepBuilder(stats);
  let replayConfig: Obj | undefined = doc.replay_config;
  if (typeof replayConfig === 'string') { try { replayConfig = JSON.parse(replayConfig); } catch { replayConfig = undefined; } }
  const model = String(doc.info?.config?.model?.model_name ?? replayConfig?.agent?.model?.name ?? doc.info?.model ?? 'unknown');
  let request = 0;
  let firstUser = true;
  history.forEach((m, i) => {
    const at = request * UNTIMED_STEP_MS;
    switch (m?.role) {
      case 'system':
        skip(stats, 'system prompt (the preset under test brings its own)', i + 1);
        return;
      case 'user': {
        builder.inputAt(at);
        // The first user message is the task (SWE-agent files it as an observation too); later ones
        // are observations or format reminders.
        builder.prompt({ block: { type: 'text', text: textOf(m.content) }, typed: firstUser });
        firstUser = false;
        return;
      }
      case 'tool': {
        builder.inputAt(at);
        const ids: unknown[] = Array.isArray(m.tool_call_ids) ? m.tool_call_ids : m.tool_call_id ? [m.tool_call_id] : [];
        if (!ids.length) { skip(stats, 'tool message without tool_call_ids', i + 1); return; }
        builder.toolResult(String(ids[0]), [{ type: 'text', text: textOf(m.content) }], false, i + 1);
        return;
      }
      case 'assistant': {
        request++;
        const base = { responseId: `swe-${request}`, model, at: request * UNTIMED_STEP_MS };
        const text = textOf(m.content);
        const blocks: ContentBlock[] = [];
        if (m.thought && !text.includes(String(m.thought))) blocks.push({ type: 'text', text: String(m.thought) });
        if (text) blocks.push({ type: 'text', text });
        for (const c of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
          blocks.push({ type: 'tool_use', id: String(c.id), name: String(c.function?.name ?? c.name ?? 'tool'), input: parseArgs(c.function?.arguments ?? c.arguments) });
        }
        const hasTools = blocks.some((b) => b.type === 'tool_use');
        if (!blocks.length) builder.reply({ ...base, stopReason: 'end_turn' });
        for (const b of blocks) builder.reply({ ...base, block: b, stopReason: hasTools ? 'tool_use' : 'end_turn' });
        return;
      }
      default:
        skip(stats, `message role ${String(m?.role)}`, i + 1);
    }
  });
  const ms = doc.info?.model_stats;
  const notes = ['no per-request usage or timestamps in this format: requests are spaced 1 s apart'];
  if (ms) notes.push(`the run reported ${ms.api_calls ?? '?'} API calls, cost ${ms.instance_cost ?? '?'}${ms.tokens_sent !== undefined ? `, ${ms.tokens_sent} tokens sent, ${ms.tokens_received} received` : ''}`);
  return builder.finish({
    name: basename(path).replace(/\.traj(\.json)?$|\.json$/, ''),
    format: 'swe-agent',
    path,
    client: mini ? 'mini-swe-agent' : 'swe-agent',
    sidechain: false,
    timed: false,
    notes,
  });
}
