/**
 * pi session importer (`~/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl`, the "v1" layout).
 *
 * One entry per line, except where pi appended a `compaction` entry to a file without a final
 * newline: two objects share a line, and the reader splits them. Each assistant message is one API
 * request; its `usage.input` is the uncached input, so the prompt is `input + cacheRead +
 * cacheWrite`. pi reports cache writes without a TTL split and uses the 5-minute TTL, so they count
 * as 5-minute writes. Aborted or failed requests with empty content and zero usage (the user pressed
 * Esc, or the request errored) are skipped and counted. Tool results come one message per call.
 */
import { basename } from 'node:path';
import type { ContentBlock } from '../../../kernel/types.js';
import { parseTime, StepBuilder, timestampsUsable } from '../builder.js';
import { readJsonl } from '../jsonl.js';
import { modelFacts } from '../../../lib/index.js';
import { newStats, skip, type RecordedEffort, type RecordedThinking, type RecordedUsage, type Workload } from '../types.js';

type Obj = Record<string, any>;

/** pi's stop reasons → the Messages API's. */
const STOP_REASONS: Record<string, string> = { toolUse: 'tool_use', stop: 'end_turn', length: 'max_tokens', aborted: 'aborted', error: 'error' };

/**
 * pi's thinking budgets by level (pi-ai's Anthropic defaults: minimal 1,024, low 2,048, medium
 * 8,192, high 16,384 tokens; `off` sends no thinking).
 */
export const PI_THINKING_BUDGETS: Readonly<Record<string, number>> = Object.freeze({ minimal: 1_024, low: 2_048, medium: 8_192, high: 16_384 });

/** The thinking parameter of a pi thinking level; undefined for an unknown level. `xhigh` takes the `high` budget (pi-ai clamps it). */
export function piThinking(level: unknown): RecordedThinking | undefined {
  if (level === 'off') return { type: 'disabled' };
  const budget = PI_THINKING_BUDGETS[level === 'xhigh' ? 'high' : String(level)];
  return budget ? { type: 'enabled', budget_tokens: budget } : undefined;
}

/**
 * What pi sends for a thinking level on a given model (pi-ai's Anthropic provider): on a model with
 * adaptive thinking, `thinking: {type: "adaptive"}` and an effort (minimal and low → `low`, medium →
 * `medium`, high → `high`, xhigh → `xhigh` where the model takes it, else `max`); on other models a
 * budget (piThinking) and no effort. undefined for an unknown level.
 */
export function piRequestThinking(model: string, level: unknown): { thinking: RecordedThinking; effort?: RecordedEffort } | undefined {
  const budget = piThinking(level);
  if (!budget) return undefined;
  const facts = modelFacts(model);
  if (budget.type === 'disabled' || !facts?.adaptiveThinking) return { thinking: budget };
  const effort: RecordedEffort = level === 'minimal' || level === 'low' ? 'low'
    : level === 'medium' ? 'medium'
      : level === 'xhigh' ? (facts.effort.includes('xhigh') ? 'xhigh' : 'max')
        : 'high';
  return { thinking: { type: 'adaptive' }, effort };
}

function piUsage(u: Obj | undefined): RecordedUsage | undefined {
  if (!u || typeof u.input !== 'number') return undefined;
  return { input: u.input, output: Number(u.output ?? 0), cacheRead: Number(u.cacheRead ?? 0), cacheWrite5m: Number(u.cacheWrite ?? 0), cacheWrite1h: 0 };
}

function piBlock(b: Obj): ContentBlock | undefined {
  switch (b?.type) {
    case 'text': return { type: 'text', text: String(b.text ?? '') };
    case 'thinking': return { type: 'thinking', thinking: String(b.thinking ?? ''), signature: String(b.thinkingSignature ?? '') } as ContentBlock;
    case 'toolCall': return { type: 'tool_use', id: String(b.id), name: String(b.name), input: b.arguments ?? {} };
    case 'image': return { type: 'image', source: { type: 'base64', media_type: String(b.mimeType ?? 'image/png'), data: String(b.data ?? '') } } as ContentBlock;
    default: return undefined;
  }
}

function contentBlocks(content: unknown): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.map(piBlock).filter((b): b is ContentBlock => b !== undefined);
}

/** Imports one pi session file. Never throws for bad content; throws only for I/O errors. */
export async function importPiSession(path: string): Promise<Workload> {
  const stats = newStats();
  const builder = new StepBuilder(stats);
  let header: Obj | undefined;
  let entryIndex = -1;
  // The thinking level from each step on: what pi sends for it depends on each request's model.
  const levels: { from: number; level: unknown }[] = [];
  const setLevel = (level: unknown) => {
    if (!piThinking(level)) return;
    builder.setThinking(piThinking(level));
    levels.push({ from: builder.steps.length, level });
  };
  for await (const e of readJsonl(path, (m) => { stats.malformed++; skip(stats, `malformed line (${m.error})`, m.line); }, () => { stats.lines++; })) {
    stats.entries++;
    entryIndex++;
    const v = e.value as Obj;
    if (!v || typeof v !== 'object' || Array.isArray(v)) { skip(stats, 'not a JSON object', e.line); continue; }
    switch (v.type) {
      case 'session':
        header = v;
        setLevel(v.thinkingLevel);
        continue;
      case 'compaction':
        builder.compaction({ trigger: 'auto', ...(typeof v.tokensBefore === 'number' ? { tokensBefore: v.tokensBefore } : {}), ...(typeof v.summary === 'string' ? { summary: v.summary } : {}) });
        continue;
      case 'thinking_level_change':
        // Applies to the requests that follow (what was sent is what counts, not each step of a cycle).
        setLevel(v.thinkingLevel);
        skip(stats, 'settings change (thinking_level_change: applied to the requests after it)', e.line);
        continue;
      case 'model_change':
        skip(stats, 'settings change (model_change: each request keeps the model that answered it)', e.line);
        continue;
      case 'message':
        break;
      default:
        skip(stats, `entry type ${String(v.type)}`, e.line);
        continue;
    }
    const m = v.message as Obj | undefined;
    if (!m) { skip(stats, 'message entry without message', e.line); continue; }
    const at = typeof m.timestamp === 'number' ? m.timestamp : parseTime(v.timestamp);
    switch (m.role) {
      case 'user': {
        builder.inputAt(at);
        for (const b of contentBlocks(m.content)) builder.prompt({ block: b, typed: true });
        break;
      }
      case 'bashExecution': {
        // A user-run `!command`: its output enters the context as user text.
        builder.inputAt(at);
        builder.prompt({ block: { type: 'text', text: `Ran \`${String(m.command ?? '')}\`\n\`\`\`\n${String(m.output ?? '')}\n\`\`\`` }, typed: false });
        break;
      }
      case 'toolResult': {
        builder.inputAt(at);
        builder.toolResult(String(m.toolCallId), contentBlocks(m.content), m.isError === true, e.line);
        break;
      }
      case 'assistant': {
        const usage = piUsage(m.usage);
        const blocks = contentBlocks(m.content);
        const zero = !usage || usage.input + usage.output + usage.cacheRead + usage.cacheWrite5m === 0;
        if ((m.stopReason === 'aborted' || m.stopReason === 'error') && zero && blocks.length === 0) {
          skip(stats, `${String(m.stopReason)} request with zero usage and no content (not replayed)`, e.line);
          builder.abortedRequest();
          break;
        }
        const base = {
          responseId: `pi-entry-${entryIndex}`,
          model: String(m.model ?? header?.modelId ?? 'unknown'),
          at,
          ...(usage && !zero ? { usage } : {}),
          stopReason: STOP_REASONS[String(m.stopReason)] ?? (m.stopReason ? String(m.stopReason) : null),
        };
        if (!blocks.length) builder.reply(base, e.line);
        for (const b of blocks) builder.reply({ ...base, block: b }, e.line);
        break;
      }
      default:
        skip(stats, `message role ${String(m.role)}`, e.line);
    }
  }
  // Each step gets what pi sent for its level on its model: adaptive thinking and an effort, or a budget.
  for (let i = 0, k = -1; i < builder.steps.length; i++) {
    while (k + 1 < levels.length && levels[k + 1]!.from <= i) k++;
    if (k < 0) continue;
    const step = builder.steps[i]!;
    const sent = piRequestThinking(step.model, levels[k]!.level);
    if (!sent) continue;
    step.thinking = sent.thinking;
    if (sent.effort) step.effort = sent.effort;
  }
  const notes: string[] = [];
  const compactions = builder.steps.filter((s) => s.compactionBefore).length;
  if (compactions) notes.push(`pi recorded ${compactions} compaction(s); pi does not record whether they were manual, so the replay leaves compaction to the preset`);
  const timed = timestampsUsable(builder.steps);
  return builder.finish({
    name: basename(path).replace(/\.jsonl$/, ''),
    format: 'pi',
    path,
    client: 'pi',
    sessionId: header?.id,
    cwd: header?.cwd,
    sidechain: false,
    timed,
    notes,
  });
}
