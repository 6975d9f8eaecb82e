/**
 * The billed requests of a Claude Code session, for `rein cache explain`: the session JSONL Claude
 * Code keeps under `~/.claude/projects/<cwd>/`, or the stdout of `claude -p --output-format
 * stream-json --verbose`. Both write each assistant response as one line per content block, all
 * with the response's `message.id` and its `usage` (the last line has the final `output_tokens`).
 *
 * This reads every response that was billed, in the order they came, including those on branches
 * the user rewound past. The benchmark's importer (which rebuilds the conversation to replay it)
 * keeps only the final thread, so it would leave paid requests out of a cost explanation.
 * `<synthetic>` lines and API-error placeholders are text the client wrote, not requests.
 */
import { readFileSync } from 'node:fs';
import type { Usage } from '../../kernel/types.js';

/** One billed response. */
export interface RecordedResponse {
  /** `msg_…` */
  id: string;
  model: string;
  usage: Usage;
  /** ms since the epoch of the first line of the response (the session file's timestamp), when recorded. */
  at?: number;
  /** `main_loop`, or `subagent` for sidechain lines (a Task tool's subagent). */
  source: 'main_loop' | 'subagent';
  /** 1-based count of the user prompts up to this response. */
  turn: number;
  /** A compaction happened since the previous response. */
  afterCompaction: boolean;
}

export interface ClaudeCodeRecording {
  sessionId: string;
  responses: RecordedResponse[];
  compactions: number;
}

type Obj = Record<string, any>;

function lines(text: string): Obj[] {
  const out: Obj[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Obj);
    } catch {
      // A line that is not JSON (a stack trace printed into a stream) holds no response.
    }
  }
  return out;
}

/** Whether a parsed line is a Claude Code assistant response with usage. */
function isResponse(v: Obj): boolean {
  return v.type === 'assistant' && typeof v.message?.id === 'string' && typeof v.message?.usage?.input_tokens === 'number';
}

/** Whether the text of a JSONL file looks like a Claude Code session or stream (an assistant line with usage). */
export function isClaudeCodeRecording(text: string): boolean {
  return lines(text).some(isResponse);
}

function usageOf(u: Obj): Usage {
  const usage: Usage = {
    input_tokens: Number(u.input_tokens ?? 0),
    output_tokens: Number(u.output_tokens ?? 0),
    cache_creation_input_tokens: Number(u.cache_creation_input_tokens ?? 0),
    cache_read_input_tokens: Number(u.cache_read_input_tokens ?? 0),
  };
  if (u.cache_creation && typeof u.cache_creation === 'object') {
    usage.cache_creation = {
      ephemeral_5m_input_tokens: Number(u.cache_creation.ephemeral_5m_input_tokens ?? 0),
      ephemeral_1h_input_tokens: Number(u.cache_creation.ephemeral_1h_input_tokens ?? 0),
    };
  }
  return usage;
}

/** Whether a user line is a prompt (typed or injected text), not only tool results. */
function isPrompt(v: Obj): boolean {
  const c = v.message?.content;
  if (typeof c === 'string') return true;
  return Array.isArray(c) && c.some((b: Obj) => b?.type !== 'tool_result');
}

/** Reads a Claude Code session file (or stream-json output). Throws when it cannot be read. */
export function readClaudeCodeRecording(file: string): ClaudeCodeRecording {
  const entries = lines(readFileSync(file, 'utf8'));
  const byId = new Map<string, RecordedResponse>();
  let sessionId = '';
  let turn = 0;
  let compactions = 0;
  let pendingCompaction = false;
  for (const v of entries) {
    sessionId ||= String(v.sessionId ?? v.session_id ?? '');
    if (v.type === 'system' && v.subtype === 'compact_boundary') {
      compactions++;
      pendingCompaction = true;
      continue;
    }
    if (v.type === 'user' && isPrompt(v) && v.isMeta !== true && v.isSidechain !== true && (v.parent_tool_use_id ?? null) === null) turn++;
    if (!isResponse(v) || v.message.model === '<synthetic>' || v.isApiErrorMessage === true) continue;
    const id = String(v.message.id);
    const seen = byId.get(id);
    if (seen) {
      // Later lines of the same response carry the final output_tokens.
      seen.usage = usageOf(v.message.usage);
      continue;
    }
    const at = typeof v.timestamp === 'string' ? Date.parse(v.timestamp) : NaN;
    byId.set(id, {
      id, model: String(v.message.model ?? 'unknown'), usage: usageOf(v.message.usage),
      ...(Number.isFinite(at) ? { at } : {}),
      source: v.isSidechain === true || (v.parent_tool_use_id ?? null) !== null ? 'subagent' : 'main_loop',
      turn: Math.max(1, turn),
      afterCompaction: pendingCompaction,
    });
    pendingCompaction = false;
  }
  return { sessionId, responses: [...byId.values()], compactions };
}
