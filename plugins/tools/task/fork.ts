/**
 * Fork mode: a child that continues the parent's own conversation, so that its requests start with
 * exactly the bytes the parent last sent and read them from the prompt cache.
 *
 * The child's first request is the parent's last request (system prompt, tool array, messages,
 * parameters: byte for byte, cache markers included) followed by the parent's last assistant message
 * (the one holding the Task calls) and one user message: a placeholder `tool_result` for every
 * `tool_use` of that message, all with the same text, then the child's directive. Siblings forked
 * from one message therefore differ only in the directive, the last block. Claude Code builds its
 * forks the same way (https://code.claude.com/docs/en/sub-agents).
 *
 * A fork cannot fork again: the child kernel carries a mark (kernel state, not a message, so a
 * compaction of the child's history cannot remove it), and its Task tool refuses every call.
 */
import { createKernelState, type ContentBlock, type Kernel, type Message, type MessageRequest } from '../../../kernel/index.js';

/** Text of every placeholder tool_result (Claude Code's wording). */
export const FORK_PLACEHOLDER = 'Fork started — processing in background';

/** What the child is told before its directive: the same for every sibling. */
export const FORK_BOILERPLATE = '<fork-boilerplate>You are a forked copy of the agent above, running on your own. The Task calls of the last message are handled elsewhere. Do only the directive below with the tools you have, without forking again, and end with a complete report of what you found or did: the agent that forked you reads that report and nothing else.</fork-boilerplate>';

/** The refusal a fork's Task tool gives. */
export const FORK_GUARD_MESSAGE = 'Fork is not available inside a forked worker: do the work yourself with your other tools.';

/** Stage of the request taps: after every other one (cache markers included), so they see and set the final bytes. */
export const FINAL_REQUEST_STAGE = 100_000;

interface ForkState {
  /** The parent side: the last main-loop request this kernel sent, as sent. */
  lastRequest?: MessageRequest;
  /** The child side: set on a fork child. */
  isFork?: boolean;
}

const forkState = createKernelState<ForkState>('tools/task/fork', () => ({}));

/** True for a fork child's kernel. */
export function isForkChild(kernel: Kernel): boolean {
  return forkState(kernel).isFork === true;
}

/** Remembers the parent's last main-loop request (each request replaces the one before). */
export function recordRequests(kernel: Kernel): void {
  kernel.hooks.request.tap({ name: 'tools/task', stage: FINAL_REQUEST_STAGE }, (params, ctx) => {
    if (!ctx.agent) forkState(kernel).lastRequest = params;
    return params;
  });
}

/** The parent's last request, or undefined before its first. */
export function lastRequestOf(kernel: Kernel): MessageRequest | undefined {
  return forkState(kernel).lastRequest;
}

/**
 * The fork child's start: a user message with a placeholder result for every tool_use of
 * `assistant` (it goes into the child's history, so the run finds no call unanswered), and the
 * directive, its prompt. Its requests join the two into one user message (makeFork).
 */
export function forkStart(assistant: Message, directive: string): { placeholders: Message; prompt: string } {
  const uses = assistant.content.filter((b): b is Extract<ContentBlock, { type: 'tool_use' }> => b.type === 'tool_use');
  const placeholders: Message = {
    role: 'user',
    content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: [{ type: 'text' as const, text: FORK_PLACEHOLDER }] })),
    meta: { meta: true, source: 'tools/task/fork', at: Date.now() },
  };
  return { placeholders, prompt: `${FORK_BOILERPLATE}\n\n${directive}` };
}

type ApiMessageParam = MessageRequest['messages'][number];

/** Consecutive messages of one role joined into one (the placeholders and the directive). */
function joinRoles(messages: ApiMessageParam[]): ApiMessageParam[] {
  const out: ApiMessageParam[] = [];
  for (const m of messages) {
    const prev = out[out.length - 1];
    const blocks = (c: ApiMessageParam['content']) => (typeof c === 'string' ? [{ type: 'text' as const, text: c }] : c);
    if (prev && prev.role === m.role) out[out.length - 1] = { role: m.role, content: [...blocks(prev.content), ...blocks(m.content)] } as ApiMessageParam;
    else out.push(m);
  }
  return out;
}

/** `cache_control` markers in a request part. */
function markers(v: unknown): number {
  return (JSON.stringify(v ?? null).match(/"cache_control":/g) ?? []).length;
}

/** The API's limit on cache breakpoints per request. */
const MAX_MARKERS = 4;

/**
 * Makes `child` a fork of the parent whose last request was `parentRequest` and whose tool call is
 * `toolUseId`: marks it, and rewrites each of its requests to start with that request.
 */
export function makeFork(child: Kernel, parentRequest: MessageRequest, toolUseId: string): void {
  forkState(child).isFork = true;
  child.hooks.request.tap({ name: 'tools/task/fork', stage: FINAL_REQUEST_STAGE }, (params) => {
    // The child's own messages from the forking assistant message on (what the parent has not sent).
    const at = params.messages.findIndex((m) => m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_use' && b.id === toolUseId));
    if (at < 0) return params;
    const tail = joinRoles(params.messages.slice(at).map((m) => JSON.parse(JSON.stringify(m, (k, v) => (k === 'cache_control' ? undefined : v))) as ApiMessageParam));
    // One marker on the child's last block, when the limit allows, so its own later turns are cached too.
    const last = tail[tail.length - 1]!;
    if (markers(parentRequest.system) + markers(parentRequest.tools) + markers(parentRequest.messages) < MAX_MARKERS && Array.isArray(last.content) && last.content.length) {
      const blocks = [...last.content];
      blocks[blocks.length - 1] = { ...blocks[blocks.length - 1]!, cache_control: { type: 'ephemeral' } } as (typeof blocks)[number];
      tail[tail.length - 1] = { ...last, content: blocks } as typeof last;
    }
    const out: MessageRequest = { ...parentRequest, messages: [...parentRequest.messages, ...tail] };
    return out;
  });
}
