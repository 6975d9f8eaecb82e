/**
 * Reading a history for compaction: which messages are pinned, which is the user's latest prompt,
 * how messages group into API rounds, and the history as plain text for the summariser.
 */
import type { ContentBlock, Message, ToolUseBlock } from '../../../kernel/index.js';

type Obj = Record<string, unknown>;

/** True when the message holds at least one tool_result block. */
export function hasToolResults(m: Message): boolean {
  return m.role === 'user' && m.content.some((b) => b.type === 'tool_result');
}

/** True for a message compaction must keep verbatim. */
export function isPinned(m: Message): boolean {
  return m.meta?.pinned === true;
}

/**
 * Index of the user's latest prompt: the last user message that a person wrote (not pinned, not
 * injected by the system, not tool results), or -1.
 */
export function latestUserPromptIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user' && !m.meta?.meta && !isPinned(m) && !hasToolResults(m)) return i;
  }
  return -1;
}

/**
 * Groups message indices by API round: a group starts at each assistant message and takes the user
 * messages after it (its tool results), so a tool_use never leaves its tool_result behind. Messages
 * before the first assistant message form the first group.
 */
export function groupByRound(indices: readonly number[], messages: readonly Message[]): number[][] {
  const groups: number[][] = [];
  for (const i of indices) {
    if (messages[i]!.role === 'assistant' || groups.length === 0) groups.push([i]);
    else groups[groups.length - 1]!.push(i);
  }
  return groups;
}

/** Every tool_use of the history by id. */
export function toolUses(messages: readonly Message[]): Map<string, { name: string; input: Obj; message: number }> {
  const out = new Map<string, { name: string; input: Obj; message: number }>();
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    for (const b of m.content) if (b.type === 'tool_use') out.set((b as ToolUseBlock).id, { name: (b as ToolUseBlock).name, input: (b as ToolUseBlock).input as Obj, message: i });
  });
  return out;
}

/** The file a file tool's call names: its `file_path` (Claude Code) or `path` (other agents' tools) input. */
export function filePathOf(input: Obj): string | undefined {
  const p = input.file_path ?? input.path;
  return typeof p === 'string' && p ? p : undefined;
}

/** Text of a tool_result's content. */
export function toolResultText(block: ContentBlock): string {
  const c = (block as { content?: unknown }).content;
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c.map((x: Obj) => (x.type === 'text' ? String(x.text) : `[${String(x.type)}]`)).join('\n');
}

/** Keeps the head and the tail of a long text, saying how much was left out. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.75);
  const tail = max - head;
  return `${text.slice(0, head)}\n… [${text.length - max} characters left out] …\n${text.slice(text.length - tail)}`;
}

export interface RenderOptions {
  /** Longest tool result kept, characters (longer ones keep their head and tail). */
  toolResultChars: number;
  /** Longest tool input kept, characters. */
  toolInputChars: number;
}

/**
 * The history as a plain-text transcript for the summariser (no tool blocks, so the request needs
 * no tools). Large tool results and inputs are clipped, so the summary request stays far smaller
 * than the context it summarises; thinking is left out.
 */
export function renderTranscript(messages: readonly Message[], o: RenderOptions): string {
  const uses = toolUses(messages);
  const lines: string[] = [];
  for (const m of messages) {
    const who = m.role === 'assistant' ? 'Assistant' : m.meta?.compactSummary ? 'Earlier summary' : m.meta?.meta ? 'System note' : 'User';
    const parts: string[] = [];
    for (const b of m.content) {
      const x = b as unknown as Obj;
      switch (b.type) {
        case 'text':
          if (x.text) parts.push(String(x.text));
          break;
        case 'tool_use':
          parts.push(`[called ${String(x.name)} ${clip(JSON.stringify(x.input ?? {}), o.toolInputChars)}]`);
          break;
        case 'tool_result': {
          const use = uses.get(String(x.tool_use_id));
          const label = `[${use?.name ?? 'tool'} result${x.is_error ? ' (error)' : ''}]`;
          parts.push(`${label}\n${clip(toolResultText(b), o.toolResultChars)}`);
          break;
        }
        case 'image':
        case 'document':
          parts.push(`[${b.type}]`);
          break;
        default:
          break;
      }
    }
    if (parts.length) lines.push(`${who}:\n${parts.join('\n')}`);
  }
  return `<transcript>\n${lines.join('\n\n')}\n</transcript>`;
}
