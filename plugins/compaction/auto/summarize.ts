/**
 * The summary side request, with the retry for a summary request that is itself too long: drop the
 * oldest API rounds and try again, at most 3 times (Claude Code behaviour: drop enough
 * rounds to cover the token gap the error names, else a fifth of them).
 */
import {
  type RunContext, type Kernel, ModelRequestError, type ModelRequest, type ApiMessage,
  type Message,
} from '../../../kernel/index.js';
import { type TokenCounter } from '../../../lib/index.js';
import { groupByRound, renderTranscript, type RenderOptions } from '../shared/history.js';
import { formatSummary, SUMMARIZER_SYSTEM, summaryPrompt } from './prompt.js';

/** Retries after a too-long summary request (Claude Code's MAX_PTL_RETRIES = 3). */
export const MAX_PROMPT_TOO_LONG_RETRIES = 3;
/** Share of rounds dropped when the error names no token gap (Claude Code: 20%). */
export const FALLBACK_DROP_FRACTION = 0.2;

/** A compaction attempt that did not produce a usable summary. Counts toward the circuit breaker. */
export class CompactionFailure extends Error {
  override name = 'CompactionFailure';
}

/** The token gap in a "prompt is too long: 210000 tokens > 200000 maximum" message, or undefined. */
export function tokenGap(message: string): number | undefined {
  const m = /(\d[\d,]*)\s*tokens?\s*>\s*(\d[\d,]*)/i.exec(message);
  if (!m) return undefined;
  const a = Number(m[1]!.replace(/,/g, ''));
  const b = Number(m[2]!.replace(/,/g, ''));
  return a > b ? a - b : undefined;
}

/**
 * How many of the oldest groups to drop: enough to cover `gap` tokens, or a fifth (at least one) when
 * the gap is unknown. Returns `groups.length` or more when nothing would be left.
 */
export function roundsToDrop(groupTokens: readonly number[], gap: number | undefined): number {
  if (gap === undefined) return Math.max(1, Math.floor(groupTokens.length * FALLBACK_DROP_FRACTION));
  let sum = 0;
  for (let i = 0; i < groupTokens.length; i++) {
    sum += groupTokens[i]!;
    if (sum >= gap) return i + 1;
  }
  return groupTokens.length;
}

export interface SummarizeInput {
  kernel: Kernel;
  ctx: RunContext;
  counter: TokenCounter;
  /** The messages to summarise (pinned ones already left out). */
  messages: Message[];
  instructions: string[];
  maxTokens: number;
  render: RenderOptions;
  model?: string;
}

/**
 * The summary request as a continuation of the last main-loop request: the same model, tools,
 * system, betas, thinking and context edits, its messages exactly as sent (markers included), the
 * messages added since, then the instructions. The cached prefix of the conversation is read at the
 * cache-read price instead of the conversation being sent again. Tools are sent only because they
 * are part of that prefix; the instructions forbid calling them and a tool call fails the compaction.
 * Returns undefined when the history is not a continuation of the last request (it was rewritten
 * since, or there was none), or another model is asked for.
 */
export function cachedPrefixRequest(history: readonly Message[], counter: TokenCounter, prompt: string, maxTokens: number, model?: string): ModelRequest | undefined {
  const last = counter.lastRequest;
  const sentFrom = counter.lastRequestHistory;
  if (!last || !sentFrom || (model && model !== last.model)) return undefined;
  if (history.length < sentFrom.length || sentFrom.some((m, i) => history[i] !== m)) return undefined;
  const added = history.slice(sentFrom.length).map((m) => ({ role: m.role, content: m.content }));
  const { max_tokens: _m, ...rest } = last;
  return {
    ...rest,
    max_tokens: Math.max(maxTokens, thinkingBudget(last) + 1),
    messages: [...last.messages, ...added, { role: 'user', content: [{ type: 'text', text: prompt }] }],
  } as ModelRequest;
}

function thinkingBudget(r: ModelRequest): number {
  const t = r.thinking as { type?: string; budget_tokens?: number } | undefined;
  return t?.type === 'enabled' ? t.budget_tokens ?? 0 : 0;
}

export interface SummarizeOutput {
  summary: string;
  /** Rounds dropped because the request was too long. */
  droppedRounds: number;
  /** Requests sent (1 + retries). */
  requests: number;
}

function replyText(message: ApiMessage): string {
  return (message.content as { type: string; text?: string }[]).filter((b) => b.type === 'text').map((b) => b.text ?? '').join('');
}

/**
 * Sends the summary request and returns the cleaned summary. Throws CompactionFailure when the model
 * calls a tool, writes nothing, or the request stays too long after the retries; rethrows other
 * request errors (they count as failures too).
 */
export async function summarize(i: SummarizeInput, cached?: ModelRequest): Promise<SummarizeOutput> {
  let indices = i.messages.map((_, k) => k);
  let dropped = 0;
  const prompt = summaryPrompt(i.instructions);
  if (cached) {
    try {
      const reply = await i.kernel.sideRequest(cached, 'compact', i.ctx);
      return { summary: checkReply(reply), droppedRounds: 0, requests: 1 };
    } catch (err) {
      // Too long as a continuation: the transcript (with clipped tool output) is much smaller.
      if (!(err instanceof ModelRequestError) || !err.info.promptTooLong) throw err;
      i.kernel.emit({ type: 'notice', level: 'info', source: 'compaction/auto', message: 'the summary request on the cached prefix is too long; summarising a clipped transcript instead' });
    }
  }
  for (let attempt = 0; ; attempt++) {
    const kept = indices.map((k) => i.messages[k]!);
    const transcript = renderTranscript(kept, i.render);
    let reply: ApiMessage;
    try {
      reply = await i.kernel.sideRequest({
        max_tokens: i.maxTokens,
        system: [{ type: 'text', text: SUMMARIZER_SYSTEM }],
        messages: [{ role: 'user', content: [{ type: 'text', text: transcript }, { type: 'text', text: prompt }] }],
        ...(i.model ? { model: i.model } : {}),
      }, 'compact', i.ctx);
    } catch (err) {
      if (!(err instanceof ModelRequestError) || !err.info.promptTooLong) throw err;
      if (attempt >= MAX_PROMPT_TOO_LONG_RETRIES) {
        throw new CompactionFailure(`the summary request is still too long after ${MAX_PROMPT_TOO_LONG_RETRIES} retries (${err.info.message})`);
      }
      const groups = groupByRound(indices, i.messages);
      const drop = roundsToDrop(groups.map((g) => i.counter.messagesTokens(g.map((k) => i.messages[k]!))), tokenGap(err.info.message));
      if (drop >= groups.length) throw new CompactionFailure(`the summary request is too long even with only the latest round (${err.info.message})`);
      dropped += drop;
      indices = groups.slice(drop).flat();
      i.kernel.emit({ type: 'notice', level: 'info', source: 'compaction/auto', message: `summary request too long; dropping the ${drop} oldest round${drop === 1 ? '' : 's'} and retrying (${attempt + 1} of ${MAX_PROMPT_TOO_LONG_RETRIES})` });
      continue;
    }
    return { summary: checkReply(reply), droppedRounds: dropped, requests: attempt + 1 + (cached ? 1 : 0) };
  }
}

/** The cleaned summary of a reply; throws CompactionFailure for a tool call or an empty summary. */
function checkReply(reply: ApiMessage): string {
  if ((reply.content as { type: string }[]).some((b) => b.type === 'tool_use')) {
    throw new CompactionFailure('the summary reply called a tool instead of writing a summary');
  }
  const summary = formatSummary(replyText(reply));
  if (!summary) throw new CompactionFailure('the summary reply was empty');
  return summary;
}
