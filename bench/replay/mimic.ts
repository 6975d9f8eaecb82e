/**
 * Client mimics: a replay that sends the recording client's own fixed prefix instead of rein's.
 *
 * A preset with `bench: { mimic: claude-code | pi | opencode }` models that client. Its replay
 * sends, in that client's shape (../shared/spec/anchor-requests.md, the requests each client sends
 * on the wire):
 * - tools: the client's tool set (the tools the recording called, then the client's other tools by
 *   name), their definitions filled to the size the recording shows;
 * - system: Claude Code's three blocks (a billing header without a marker, the identity line with
 *   a marker, the main prompt with a marker); pi's and opencode's one block (with a marker);
 * - Claude Code's context in the first user message (what the recording's first prompt carried
 *   beyond its logged text), before the prompt;
 * - the client's restarts: the session-specific part of the system prompt (pi's ends with the
 *   current time, Claude Code's carries the environment) changes at each restart the recording
 *   shows, so the cache misses from there exactly as it did.
 * Markers on messages come from the preset's `cache/breakpoints` layout (Claude Code: `tail`; pi:
 * `tools+system+tail`; opencode: `system+last-two`), TTL, thinking, compaction and clearing from the
 * rest of the preset.
 *
 * Sizes come from the recording (events.ts `recordedPrefix`): the fixed prefix is the first
 * request's prompt total minus its messages; the part other sessions of the client kept cached (a
 * warm first request's cache read) is Claude Code's shared part (tools, billing header, identity),
 * and the replay keeps it cached all session, as those other sessions did; the level a Claude Code
 * session's cache falls back to when a turn start loses the messages (the most common such cache
 * read) ends its system prompt, and the rest is first-message context.
 */
import type { Kernel } from '../../kernel/kernel.js';
import type { ModelRequest } from '../../kernel/model/client.js';
import { definePlugin, type Plugin } from '../../kernel/plugin.js';
import type { TokenCounter } from '../../lib/tokens/counter.js';
import type { ToolDefinition } from '../../kernel/types.js';
import { isBreak } from '../metrics/breaks.js';
import type { ClientEvent, RecordedPrefix } from '../workloads/events.js';
import { promptTokens, type Workload } from '../workloads/types.js';
import type { StepCursor } from './client.js';

export type MimicClient = 'claude-code' | 'pi' | 'opencode';

/** What each client sends, from the captures in anchor-requests.md. */
interface ClientShape {
  /** Tool names the client ships (beyond the ones a recording calls). */
  tools: readonly string[];
  /** Share of tools in the fixed prefix (tools + system), from the captured byte counts. */
  toolShare: number;
  /** Fixed prefix when a recording cannot tell, tokens (the captures' estimates). */
  defaultPrefix: number;
  /** System blocks: Claude Code's three, or one. */
  systemBlocks: 'claude-code' | 'one';
}

export const CLIENT_SHAPES: Readonly<Record<MimicClient, ClientShape>> = Object.freeze({
  // 24 tools, 81 KB of 108 KB (tools + system) on the second capture; ~18.9k tokens of prefix on opus.
  'claude-code': {
    tools: ['Task', 'Bash', 'Glob', 'Grep', 'ExitPlanMode', 'Read', 'Edit', 'Write', 'NotebookEdit', 'WebFetch', 'TodoWrite', 'WebSearch', 'BashOutput', 'KillShell', 'Skill', 'SlashCommand'],
    toolShare: 0.75, defaultPrefix: 15_000, systemBlocks: 'claude-code',
  },
  // 4 tools of 2.9 KB, a 2.3 KB system prompt; ~1.3k tokens.
  pi: { tools: ['read', 'bash', 'edit', 'write'], toolShare: 0.55, defaultPrefix: 1_400, systemBlocks: 'one' },
  // 10 tools of 20.8 KB, a 9.3 KB system prompt; ~7.6k tokens.
  opencode: { tools: ['bash', 'edit', 'glob', 'grep', 'read', 'skill', 'task', 'todowrite', 'webfetch', 'write'], toolShare: 0.69, defaultPrefix: 7_600, systemBlocks: 'one' },
});

/** Token sizes of a mimic's fixed prefix. */
export interface MimicSizes {
  /** All tool definitions. */
  tools: number;
  /** Claude Code's billing header and identity line (with the tools: the part other sessions keep cached). */
  sharedSystem: number;
  /** The main (session-specific) system block. */
  system: number;
  /** Context at the start of the first user message. */
  firstMessage: number;
  /** Tokens other sessions keep cached (0: the session starts cold). */
  shared: number;
}

/** One replay's mimic: the client, its sizes, the tools it sends and the steps it restarts at. */
export interface MimicPlan {
  client: MimicClient;
  sizes: MimicSizes;
  toolNames: string[];
  /** Step indexes the client restarted at (its session system text changes there). */
  restarts: Set<number>;
  /** Where the recording's prefix came from. */
  source: string;
}

/** Billing header and identity line of Claude Code's system prompt (anchor-requests.md), tokens. */
const CC_HEADER_TOKENS = 40;

/**
 * The cache read a Claude Code session falls back to when a turn start loses its messages but keeps
 * its system prompt: the most common cache read at such breaks between the shared part and the
 * whole fixed prefix (rounded to 100 tokens to group equal reads), or undefined when none.
 */
function systemLevel(w: Workload, prefix: RecordedPrefix): number | undefined {
  const counts = new Map<number, { n: number; v: number }>();
  let prev: { read: number } | undefined;
  for (const s of w.steps) {
    if (!s.usage) continue;
    const read = s.usage.cacheRead;
    if (prev && s.prompt && !s.compactionBefore && isBreak(prev.read, read) && read > prefix.sharedTokens + 200 && read <= prefix.tokens + 200) {
      const k = Math.round(read / 100);
      const c = counts.get(k) ?? { n: 0, v: read };
      c.n++;
      counts.set(k, c);
    }
    prev = { read };
  }
  let best: { n: number; v: number } | undefined;
  for (const c of counts.values()) if (!best || c.n > best.n) best = c;
  return best?.v;
}

/** The mimic plan of a replay: sizes from the recording (or the client's defaults), restart steps from its events. */
export function mimicPlan(client: MimicClient, w: Workload, prefix: RecordedPrefix | undefined, events: readonly ClientEvent[]): MimicPlan {
  const shape = CLIENT_SHAPES[client];
  const recorded = prefix && prefix.tokens > 0;
  const total = recorded ? prefix.tokens : shape.defaultPrefix;
  let sizes: MimicSizes;
  if (shape.systemBlocks === 'claude-code') {
    const shared = recorded ? prefix.sharedTokens : 0;
    const level = recorded ? systemLevel(w, prefix) : undefined;
    const sys = Math.min(total, level ?? total);
    const tools = shared > CC_HEADER_TOKENS ? shared - CC_HEADER_TOKENS : Math.round(sys * shape.toolShare);
    sizes = { tools, sharedSystem: CC_HEADER_TOKENS, system: Math.max(1, sys - tools - CC_HEADER_TOKENS), firstMessage: Math.max(0, total - sys), shared };
  } else {
    const tools = Math.round(total * shape.toolShare);
    sizes = { tools, sharedSystem: 0, system: Math.max(1, total - tools), firstMessage: 0, shared: 0 };
  }
  const called: string[] = [];
  for (const s of w.steps) for (const b of s.reply) if (b.type === 'tool_use' && !called.includes((b as { name: string }).name)) called.push((b as { name: string }).name);
  const lower = new Set(called.map((n) => n.toLowerCase()));
  const toolNames = [...called, ...shape.tools.filter((n) => !lower.has(n.toLowerCase()))];
  const restarts = new Set(events.filter((e) => e.kind === 'restart').map((e) => e.step));
  const first = w.steps[0]?.usage;
  const source = recorded
    ? `fixed prefix ${total} tokens from the first request (prompt ${first ? promptTokens(first) : 0} minus its messages)${sizes.shared ? `, ${sizes.shared} of them kept cached by other sessions` : ''}`
    : `the client's default prefix (${total} tokens): the recording does not show it`;
  return { client, sizes, toolNames, restarts, source };
}

// ---------------------------------------------------------------------------------------------
// Filler text of an exact token size.

const WORDS = ('the agent reads files runs commands edits code and reports what changed when a tool fails it explains the error ' +
  'and tries another way it keeps answers short uses absolute paths checks tests before finishing and never invents output ' +
  'parameters are validated each call returns text results large outputs are truncated a session keeps its history').split(' ');

/**
 * Deterministic prose of a seed: `get(n)` is its first `n` words. The prose of fewer words is a
 * prefix of the prose of more, so one text serves every length a bisection tries (each a slice of
 * it) instead of a new text per try.
 */
class Prose {
  private text = '';
  /** `ends[n]`: characters of the first `n` words. */
  private readonly ends = [0];

  constructor(private readonly seed: number) {}

  get(words: number): string {
    const ends = this.ends;
    if (ends.length <= words) {
      const parts: string[] = this.text ? [this.text] : [];
      let chars = this.text.length;
      for (let i = ends.length - 1; i < words; i++) {
        const w = WORDS[(i * 7 + this.seed * 13) % WORDS.length]!;
        const word = i % 17 === 16 ? `${w}.` : w;
        parts.push(word);
        chars += (i ? 1 : 0) + word.length;
        ends.push(chars);
      }
      this.text = parts.join(' ');
    }
    return this.text.slice(0, ends[words]);
  }
}

/** The longest `make(text)` whose count is at most `tokens` (bisection on the word count). */
function sized<T>(tokens: number, seed: number, make: (text: string) => T, count: (x: T) => number): T {
  const prose = new Prose(seed);
  let lo = 0;
  let hi = Math.max(8, tokens * 2);
  while (count(make(prose.get(hi))) < tokens && hi < 4_000_000) hi *= 2;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (count(make(prose.get(mid))) <= tokens) lo = mid;
    else hi = mid - 1;
  }
  return make(prose.get(lo));
}

/** Tool definitions named `names`, together `tokens` tokens. */
export function fillerTools(names: readonly string[], tokens: number, counter: TokenCounter): ToolDefinition[] {
  const per = Math.max(1, Math.floor(tokens / Math.max(1, names.length)));
  return names.map((name, i) => sized(i === names.length - 1 ? tokens - per * (names.length - 1) : per, i + 1, (text) => ({
    name,
    description: text,
    input_schema: { type: 'object', properties: { input: { type: 'string', description: 'The input.' } }, additionalProperties: true },
  }) as ToolDefinition, (t) => counter.tool(t)));
}

/** A text block of `tokens` tokens that ends with `tail` (the session-specific line). */
function fillerText(tokens: number, seed: number, counter: TokenCounter, tail = ''): { type: 'text'; text: string } {
  return sized(tokens, seed, (text) => ({ type: 'text' as const, text: tail ? `${text}\n${tail}` : text }), (b) => counter.block(b, false));
}

// ---------------------------------------------------------------------------------------------
// The plugin.

const LAST = 1_000_000_000;
/** After the request params are set, before `cache/breakpoints` places its markers. */
const MIMIC_REQUEST_STAGE = 900;

/** Text of the line that changes at every restart (pi's system prompt ends with the current time). */
function sessionLine(at: number): string {
  return `Current date and time: ${new Date(at).toISOString()}`;
}

/** Where the mimic's shared part ends in a request's prefix (block index), when other sessions keep it cached. */
export function sharedBlockIndex(params: ModelRequest, plan: MimicPlan): number | undefined {
  if (!plan.sizes.shared || plan.client !== 'claude-code') return undefined;
  return (params.tools?.length ?? 0) + 1;
}

/** The mimic plugin of one replay. `cursor` says which recorded step the next request answers. */
export function mimicPlugin(plan: MimicPlan, cursor: StepCursor, counter: TokenCounter): Plugin {
  const tools = fillerTools(plan.toolNames, plan.sizes.tools, counter);
  const cc = { type: 'ephemeral' as const };
  const billing = { type: 'text' as const, text: 'x-anthropic-billing-header: cc_version=2.0.0; cc_entrypoint=cli;' };
  const identity = { type: 'text' as const, text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: cc };
  const firstContext = plan.sizes.firstMessage > 0 ? fillerText(plan.sizes.firstMessage, 97, counter) : undefined;
  let sessionAt = cursor.steps[0]?.at ?? 0;
  let system: Array<Record<string, unknown>> = [];
  const buildSystem = () => {
    const main = fillerText(plan.sizes.system, 3, counter, sessionLine(sessionAt));
    system = plan.client === 'claude-code' ? [billing, identity, { ...main, cache_control: cc }] : [main];
  };
  buildSystem();
  // The first user message as last sent, and its copy with the client's context in front.
  const withContext = new WeakMap<object, unknown[]>();
  return definePlugin({
    name: 'bench/mimic',
    description: `Sends ${plan.client}'s fixed prefix and replays its restarts.`,
    apply(kernel: Kernel) {
      kernel.hooks.toolDefinitions.tap({ name: 'bench/mimic', stage: LAST }, () => tools);
      kernel.hooks.request.tap({ name: 'bench/mimic', stage: MIMIC_REQUEST_STAGE }, (params) => {
        const next = cursor.upcoming();
        if (next && cursor.startingTurn && plan.restarts.has(next.index) && next.at !== sessionAt) {
          sessionAt = next.at;
          buildSystem();
        }
        const out: ModelRequest = { ...(params as ModelRequest), system: system as unknown as ModelRequest['system'] };
        if (firstContext && out.messages.length && out.messages[0]!.role === 'user') {
          const m0 = out.messages[0]!;
          const content = typeof m0.content === 'string' ? [{ type: 'text', text: m0.content }] : m0.content;
          let c = withContext.get(m0.content as object);
          if (!c) { c = [firstContext, ...content]; if (typeof m0.content !== 'string') withContext.set(m0.content as object, c); }
          out.messages = [{ ...m0, content: c as typeof m0.content }, ...out.messages.slice(1)];
        }
        return out;
      });
    },
  });
}
