/**
 * Turns a recorded Claude Code session into what an end-to-end run of rein needs:
 *
 * - the recorded prompt and the recorded assistant replies, in order, as a simulator scenario (the
 *   replies become the scripted model; tool_use blocks keep their recorded names, ids and inputs);
 * - the files the session worked on, rebuilt from its own full `Read` results, so the run acts on
 *   a copy of the recorded workspace rather than on an invented one;
 * - the recorded workspace root (Claude Code's `cwd`, `/app` in the Harbor runs) rewritten to a
 *   local directory wherever it appears, so `Read`/`Edit`/`Bash` act on that copy.
 *
 * The recording itself comes from the benchmark's importer (bench/workloads/importers), which
 * already rebuilds one step per request with its reply and tool results.
 */
import type { ContentBlock } from '../../kernel/types.js';
import type { Scenario, ScenarioReplyBlock, ScenarioTurn } from '../../simulator/scenario.js';
import { promptText } from '../workloads/importers/claude-code.js';
import type { RecordedToolResult, Workload } from '../workloads/types.js';

/** One recorded tool call with the result the recording client got. */
export interface RecordedCall {
  /** 0-based step (request) whose reply made the call. */
  step: number;
  id: string;
  name: string;
  /** The input with the workspace root rewritten. */
  input: Record<string, unknown>;
  /** The recorded result, when the recording has it. */
  result?: RecordedToolResult;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Replaces the path `from` (a directory, no trailing slash) with `to` in every string of `value`:
 * `/app/x.py` → `<to>/x.py` and a bare `/app` → `<to>`, but not `/application` or `/apps/x`.
 */
export function rewriteRoot<T>(value: T, from: string, to: string): T {
  const re = new RegExp(`${escape(from)}(?=/|$|[\\s"'\`),;:])`, 'g');
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace(re, to);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** Text of a recorded tool result. */
export function resultText(r: RecordedToolResult | undefined): string {
  return (r?.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('\n');
}

/**
 * A file's content from Claude Code's `Read` output: every line is `<padded number>→<text>`
 * (cat -n style), followed by a `<system-reminder>` the client appends. Returns undefined when the
 * text is not such a listing (an error, an empty-file warning, a partial or truncated read).
 * The listing does not say whether the file ended with a newline; a final newline is assumed, as
 * source files almost always have one.
 */
export function fileFromReadListing(text: string): string | undefined {
  const body = text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '').replace(/\n+$/, '');
  if (!body) return undefined;
  const numbered = numberedLines(body);
  const count = body.split('\n').length;
  // Every line numbered, 1, 2, 3, ...: anything else is an offset read or not a listing at all.
  if (numbered.size !== count) return undefined;
  const lines: string[] = [];
  for (let n = 1; n <= count; n++) {
    const line = numbered.get(n);
    if (line === undefined) return undefined;
    lines.push(line);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The numbered lines of a listing (line number → text): Claude Code's `<n>→<text>` and rein's
 * `<n>\t<text>` (Read output and Edit snippets), leading padding allowed. Other lines are ignored.
 */
export function numberedLines(text: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)(?:→|\t)(.*)$/.exec(line);
    if (m) out.set(Number(m[1]), m[2]!);
  }
  return out;
}

/** Every tool call of the recording, in order, with its recorded result and rewritten input. */
export function recordedCalls(w: Workload, from: string, to: string): RecordedCall[] {
  return w.steps.flatMap((s) => (s.reply.filter((b) => b.type === 'tool_use') as Extract<ContentBlock, { type: 'tool_use' }>[]).map((b) => ({
    step: s.index,
    id: b.id,
    name: b.name,
    input: rewriteRoot(b.input as Record<string, unknown>, from, to),
    result: s.toolResults.find((r) => r.toolUseId === b.id),
  })));
}

/**
 * The workspace as it was before the session changed anything: for each file under `root` that a
 * recorded `Read` returned in full before any `Edit`/`Write` touched it, its content
 * (path relative to `root` → text). Files the session never read in full are not known and left out.
 */
export function reconstructFiles(w: Workload, root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const touched = new Set<string>();
  for (const call of recordedCalls(w, root, root)) {
    const path = call.input.file_path;
    if (typeof path !== 'string' || !path.startsWith(`${root}/`)) continue;
    const rel = path.slice(root.length + 1);
    if (call.name === 'Read' && call.input.offset === undefined && call.input.limit === undefined && !touched.has(rel) && !(rel in files) && call.result && !call.result.isError) {
      const content = fileFromReadListing(resultText(call.result));
      if (content !== undefined) files[rel] = content;
    }
    if (call.name === 'Edit' || call.name === 'Write' || call.name === 'MultiEdit') touched.add(rel);
  }
  return files;
}

/** The typed prompt of the session's first step (the headless `-p` prompt). Throws when there is none. */
export function recordedPrompt(w: Workload): string {
  const parts = w.steps[0]?.prompt?.filter((p) => p.typed);
  if (!parts?.length) throw new Error(`${w.name}: the first request has no typed prompt`);
  return promptText(parts);
}

function scenarioBlock(b: ContentBlock, from: string, to: string): ScenarioReplyBlock | undefined {
  switch (b.type) {
    case 'text': return { text: rewriteRoot(b.text, from, to) };
    case 'tool_use': return { tool_use: { name: b.name, id: b.id, input: rewriteRoot(b.input as Record<string, unknown>, from, to) } };
    case 'thinking': return { thinking: { thinking: b.thinking, signature: b.signature } };
    default: return undefined;
  }
}

/**
 * A scenario whose main turns are the recorded replies, in order: recorded blocks (root
 * rewritten) and recorded stop_reason. `closing` turns are appended after them (a recording cut off
 * before its last reply needs one to end the run with `end_turn`).
 *
 * `recordedOutputTokens: true` forces each turn's `output_tokens` to the recorded figure. Off by
 * default: the simulator counts a reply with its own estimator when it comes back as input, so
 * estimated output keeps a response's output and the next request's input consistent, and a
 * client's context count (last usage + estimate of the tail) matches what the server then counts.
 */
export function scenarioFromSession(w: Workload, opts: { from: string; to: string; closing?: ScenarioTurn[]; recordedOutputTokens?: boolean }): Scenario {
  const turns: ScenarioTurn[] = w.steps.map((s) => {
    const reply = s.reply.map((b) => scenarioBlock(b, opts.from, opts.to)).filter((b): b is ScenarioReplyBlock => b !== undefined);
    const turn: ScenarioTurn = { reply };
    if (s.stopReason === 'end_turn' || s.stopReason === 'tool_use' || s.stopReason === 'max_tokens') turn.stop_reason = s.stopReason;
    if (opts.recordedOutputTokens && s.usage) turn.usage = { output_tokens: s.usage.output };
    return turn;
  });
  return { turns: [...turns, ...(opts.closing ?? [])] };
}
