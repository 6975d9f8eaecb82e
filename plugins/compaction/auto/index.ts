/**
 * `compaction/auto`: summarises the conversation when the context nears the window.
 *
 * When: before each request (the `context` hook, at CONTEXT_STAGE.AUTOCOMPACT) the context is counted
 * (lib/tokens/accounting.ts); at the threshold (default `window − min(max output, 20,000) −
 * 13,000`, or `triggerTokens` / `triggerRatio`) a compaction runs through `runCompaction`, which fires
 * `preCompact` / `compact` / `postCompact`. A warning event comes 20,000 tokens earlier; at the
 * blocking limit (`effective window − 3,000`) the run ends with `blocking_limit` rather than send a
 * request the API would refuse.
 *
 * How (this plugin's `compact` tap, also used by manual `kernel.compact(instructions)` and by the
 * loop's reactive compaction after a "prompt is too long"): the history, as a plain-text transcript
 * with large tool results clipped, goes to a summary side request with no tools and rein's structured
 * prompt. The new history is: the pinned messages (memory files, verbatim, first), the user's latest
 * prompt (verbatim), the summary, the most recently read files read again from disk (at most 5, 5,000
 * tokens each, 50,000 in all and 30% of the threshold; left out when they would make the compaction
 * fail) and the list of tools.
 *
 * Failures (the request failed, the reply called a tool or was empty, the request stayed too long
 * after 3 retries that drop the oldest rounds, or the new history is not at least 5% smaller), and
 * compactions that leave the context over the threshold (no progress), count toward a circuit
 * breaker: after 3 in a row auto-compaction stops for the rest of the session, with an event saying
 * so. `enabled: false` means never: no automatic and no reactive
 * compaction (a too-long prompt then ends the run); manual compaction still works unless
 * `manual: false`.
 */
import { z } from 'zod';
import {
  type CompactRequest, type CompactResult, type PreCompact, type RunContext, CONTEXT_STAGE, type Kernel,
  type KernelPreset, DEFAULT_MAX_TOKENS, runCompaction, createKernelState, definePlugin,
  type PluginProblem, type ContentBlock, type Message,
} from '../../../kernel/index.js';
import { tokenCounter } from '../../../lib/index.js';
import { isPinned, latestUserPromptIndex } from '../shared/history.js';
import { RESTORED_FILES_PREAMBLE, summaryMessageText, summaryPrompt } from './prompt.js';
import { MAX_FILES_TO_RESTORE, MAX_TOKENS_PER_FILE, RESTORE_TOKEN_BUDGET, restoreFiles } from './restore.js';
import { cachedPrefixRequest, CompactionFailure, summarize } from './summarize.js';
import {
  AUTOCOMPACT_BUFFER_TOKENS, BLOCKING_OFFSET_TOKENS, computeThresholds, DEFAULT_CONTEXT_WINDOW, SUMMARY_RESERVE_TOKENS,
  WARNING_OFFSET_TOKENS, type Thresholds,
} from '../shared/threshold.js';

export const PLUGIN_NAME = 'compaction/auto';

/** The files `memory-files` loaded (it shares them under its name): they are in the pinned memory message already. */
const memoryFiles = createKernelState<{ files: readonly { path: string }[] }>('memory-files', () => ({ files: [] }));

/** Consecutive failures before auto-compaction stops for the session (Claude Code: 3). */
export const MAX_CONSECUTIVE_FAILURES = 3;
/** A compaction must free at least this share of the history, or it counts as a failure (opencode's 95% rule). */
export const MIN_FREED_RATIO = 0.05;
/**
 * Files restored after a compaction may take at most this share of the threshold, tokens (Claude
 * Code's 50,000-token restore budget is 30% of its 167,000-token threshold on a 200k window), so
 * on a small window the restore cannot refill the context it just emptied.
 */
export const RESTORE_THRESHOLD_SHARE = 0.3;

export const autoCompactOptions = z.object({
  /** false: never compact automatically, neither at the threshold nor after a "prompt is too long". */
  enabled: z.boolean().default(true).register(z.globalRegistry, { description: 'false: never compact automatically, neither at the threshold nor after a "prompt is too long" error (a too-long prompt then ends the run).' }),
  /** Allow manual `kernel.compact(instructions)`. */
  manual: z.boolean().default(true).register(z.globalRegistry, { description: 'Allow manual compaction (`kernel.compact(instructions)`), even when `enabled` is false.' }),
  /** Fire at this many context tokens instead of the default formula. */
  triggerTokens: z.number().int().positive().optional().register(z.globalRegistry, { description: 'Compact when the context reaches this many tokens, instead of the default threshold (window − min(output cap, summaryReserveTokens) − bufferTokens); not with triggerRatio.' }),
  /** Fire at this share of the context window instead of the default formula (0.835 ≈ the default on 200k). */
  triggerRatio: z.number().gt(0).max(1).optional().register(z.globalRegistry, { description: 'Compact when the context reaches this share of the context window, instead of the default threshold (0.835 ≈ the default on a 200k window); not with triggerTokens.' }),
  /** Context window, tokens. Default: the preset's `model.contextWindow`, else 200,000. */
  contextWindow: z.number().int().positive().optional().register(z.globalRegistry, { description: 'Context window, tokens; default: the preset\'s `model.contextWindow`, else 200,000.' }),
  /** Output reserved for the summary, tokens (capped by the model's output limit). */
  summaryReserveTokens: z.number().int().min(0).default(SUMMARY_RESERVE_TOKENS).register(z.globalRegistry, { description: 'Output reserved for the summary, tokens: the effective window is the context window minus the smaller of this and the model\'s output cap (Claude Code: 20,000).' }),
  /** Gap between the effective window and the default threshold, tokens. */
  bufferTokens: z.number().int().min(0).default(AUTOCOMPACT_BUFFER_TOKENS).register(z.globalRegistry, { description: 'Gap between the effective window and the default threshold, tokens (Claude Code: 13,000).' }),
  /** The warning comes this many tokens before the threshold. */
  warningOffsetTokens: z.number().int().min(0).default(WARNING_OFFSET_TOKENS).register(z.globalRegistry, { description: 'A warning notice comes this many tokens before the threshold (Claude Code: 20,000).' }),
  /** The blocking limit sits this many tokens below the effective window. */
  blockingOffsetTokens: z.number().int().min(0).default(BLOCKING_OFFSET_TOKENS).register(z.globalRegistry, { description: 'The blocking limit sits this many tokens below the effective window (Claude Code: 3,000).' }),
  /** End the run with `blocking_limit` instead of sending a request over the blocking limit. */
  blocking: z.boolean().default(true).register(z.globalRegistry, { description: 'End the run with `blocking_limit` instead of sending a request whose context is over the blocking limit.' }),
  /** Failures in a row before auto-compaction stops for the session. */
  maxConsecutiveFailures: z.number().int().min(1).default(MAX_CONSECUTIVE_FAILURES).register(z.globalRegistry, { description: 'Failed or no-progress compactions in a row before auto-compaction stops for the rest of the session (Claude Code: 3).' }),
  /** Least share of the history a compaction must free to count as a success. */
  minFreedRatio: z.number().min(0).max(1).default(MIN_FREED_RATIO).register(z.globalRegistry, { description: 'Least share of the history a compaction must free to count as a success (opencode\'s 5% rule).' }),
  /** Output cap of the summary request, tokens. Default: the reserve. */
  summaryMaxTokens: z.number().int().positive().optional().register(z.globalRegistry, { description: '`max_tokens` of the summary request, tokens; default: the summary reserve (the smaller of summaryReserveTokens and the model\'s output cap).' }),
  /** Model for the summary request. Default: the session's model. */
  model: z.string().min(1).optional().register(z.globalRegistry, { description: 'Model of the summary request; default: the session\'s model.' }),
  /** Extra instructions for every summary (appended after rein's prompt). */
  instructions: z.union([z.string(), z.array(z.string())]).optional().register(z.globalRegistry, { description: 'Extra instructions for every summary, appended after rein\'s summary prompt.' }),
  /** Confirm a crossing with an exact count (`count_tokens`) before compacting. */
  exactCount: z.boolean().default(false).register(z.globalRegistry, { description: 'Confirm a threshold crossing with an exact count (`count_tokens` request) before compacting.' }),
  /** Tool results longer than this are clipped in the summary's transcript, characters. */
  toolResultChars: z.number().int().min(100).default(2_000).register(z.globalRegistry, { description: 'Tool results longer than this are clipped in the transcript sent for the summary, characters.' }),
  /** Tool inputs longer than this are clipped in the summary's transcript, characters. */
  toolInputChars: z.number().int().min(100).default(1_000).register(z.globalRegistry, { description: 'Tool inputs longer than this are clipped in the transcript sent for the summary, characters.' }),
  /** Files read back after a compaction. */
  restore: z.object({
    maxFiles: z.number().int().min(0).default(MAX_FILES_TO_RESTORE).register(z.globalRegistry, { description: 'Most files restored (Claude Code: 5).' }),
    perFileTokens: z.number().int().min(100).default(MAX_TOKENS_PER_FILE).register(z.globalRegistry, { description: 'Most tokens of one restored file; a longer file is cut to its first part (Claude Code: 5,000).' }),
    totalTokens: z.number().int().min(0).default(RESTORE_TOKEN_BUDGET).register(z.globalRegistry, { description: 'Most tokens of all restored files together; a file that does not fit is skipped (Claude Code: 50,000).' }),
    /** …and at most this share of the compaction threshold. */
    thresholdShare: z.number().min(0).max(1).default(RESTORE_THRESHOLD_SHARE).register(z.globalRegistry, { description: 'Restored files also take at most this share of the compaction threshold, so a small window is not refilled (0.3: Claude Code\'s 50,000 of its 167,000-token threshold).' }),
    /** Tools whose `file_path` input counts as reading a file. */
    readTools: z.array(z.string()).default(['Read']).register(z.globalRegistry, { description: 'Tools whose `file_path` (or `path`) input counts as reading a file.' }),
  }).strict().default({ maxFiles: MAX_FILES_TO_RESTORE, perFileTokens: MAX_TOKENS_PER_FILE, totalTokens: RESTORE_TOKEN_BUDGET, thresholdShare: RESTORE_THRESHOLD_SHARE, readTools: ['Read'] }).register(z.globalRegistry, { description: 'Files read again from disk after a compaction and put in the summary message, most recently read first.' }),
  /** Name the available tools after a compaction. */
  announceTools: z.boolean().default(true).register(z.globalRegistry, { description: 'Name the available tools in the summary message.' }),
  /**
   * Keep the most recent messages of about this many tokens verbatim after the summary (pi keeps
   * 20,000); 0 keeps only the latest prompt. The kept part starts at an assistant message or a
   * prompt, never at a tool result whose call was summarised.
   */
  keepRecentTokens: z.number().int().min(0).default(0).register(z.globalRegistry, { description: 'Keep the most recent messages of about this many tokens verbatim after the summary (pi keeps 20,000); 0 keeps only the latest prompt.' }),
  /**
   * `transcript`: the history as clipped plain text, no tools sent. `cached-prefix`: continue the
   * last main-loop request (same tools and prefix, read from cache; tools forbidden by the prompt),
   * falling back to `transcript` when the history was rewritten since or the request is too long.
   */
  summaryRequest: z.enum(['transcript', 'cached-prefix']).default('transcript').register(z.globalRegistry, { description: '`transcript`: the history as clipped plain text, no tools sent; `cached-prefix`: continue the last main-loop request as sent, read from the prompt cache, falling back to `transcript` when the history was rewritten since or the request would be too long.' }),
}).strict().refine((o) => o.triggerTokens === undefined || o.triggerRatio === undefined, { message: 'set triggerTokens or triggerRatio, not both' });

export type AutoCompactOptions = z.output<typeof autoCompactOptions>;

/** Characters (code points) of the kept tail's first text quoted in `keptTailInstruction`. */
const TAIL_QUOTE_CHARS = 80;

/**
 * The sentence that tells a summary request continuing the whole conversation where the verbatim
 * tail starts: the first words of the first non-empty text of its first message (at most 80 code
 * points, whitespace folded, quoted as a JSON string, so never half a surrogate pair), else the
 * tool that message calls, else the number of messages kept. Throws a RangeError for an empty tail.
 */
export function keptTailInstruction(kept: readonly Message[]): string {
  const first = kept[0];
  if (!first) throw new RangeError('keptTailInstruction needs at least one kept message');
  const text = first.content.map((b) => (b.type === 'text' ? b.text.replace(/\s+/g, ' ').trim() : '')).find(Boolean);
  const call = first.content.find((b) => b.type === 'tool_use') as { name: string } | undefined;
  const what = text
    ? `the ${first.role} message that begins ${JSON.stringify([...text].slice(0, TAIL_QUOTE_CHARS).join(''))}`
    : call ? `the ${first.role} message that calls ${call.name}` : `the last ${kept.length === 1 ? 'message' : `${kept.length} messages`}`;
  return `The conversation from ${what} onwards stays verbatim after your summary: summarise what came before it in full, and the rest only as far as the summary needs it to read on.`;
}

/**
 * Index of the first message kept verbatim: the most recent messages that fit in `tokens`, moved
 * forward to an assistant message or a user message that is more than tool results (a tool
 * result without its call is not a valid history). `messages.length` when nothing is kept.
 */
export function keptFrom(messages: readonly Message[], tokens: number, count: (m: Message) => number): number {
  if (tokens <= 0) return messages.length;
  let cut = messages.length;
  let sum = 0;
  while (cut > 0 && sum + count(messages[cut - 1]!) <= tokens) sum += count(messages[--cut]!);
  const onlyResults = (m: Message) => m.role === 'user' && m.content.every((b) => b.type === 'tool_result');
  while (cut < messages.length && onlyResults(messages[cut]!)) cut++;
  // Something must remain to summarise.
  return cut === 0 ? messages.length : cut;
}

/** What the plugin records in the transcript. */
export interface AutoCompactRecord {
  /** The breaker tripped: no more automatic compaction in this session. */
  breakerOpen?: boolean;
  /** A compaction that happened: trigger, tokens before and after, files restored. */
  compaction?: { trigger: string; tokensBefore: number; tokensAfter: number; restoredFiles: number; summaryRequests: number };
}

/** Counters for reports and the benchmark. */
export interface AutoCompactStats {
  thresholds: Thresholds;
  compactions: number;
  failures: number;
  consecutiveFailures: number;
  breakerOpen: boolean;
  summaryRequests: number;
  /** Compactions skipped because the breaker was open while the context was over the threshold. */
  skippedByBreaker: number;
  /** Compactions that left the context over the threshold (each counts toward the breaker). */
  noProgress: number;
  /** Compactions whose restored files were dropped because, with them, the compaction would have failed. */
  restoresDropped: number;
}

const stats = new WeakMap<Kernel, AutoCompactStats>();

/** Where post-compaction restoration reads files from, instead of the disk. */
export interface RestoreFileSource {
  /** The file's text, or undefined when the file is not known. */
  readFile(path: string): string | undefined;
  /** More tools whose calls count as reading a file (besides the `restore.readTools` option). */
  readTools?: readonly string[];
}

const fileSources = new WeakMap<Kernel, RestoreFileSource>();

/**
 * Makes post-compaction file restoration in `kernel` read files through `source` instead of from
 * disk (a benchmark replay gives the recorded session's files as of the current step).
 */
export function setRestoreFileSource(kernel: Kernel, source: RestoreFileSource): void {
  fileSources.set(kernel, source);
}

function restoreSource(source: RestoreFileSource | undefined, readTools: readonly string[]): { readFile?: RestoreFileSource['readFile']; readTools?: readonly string[] } {
  if (!source) return {};
  return { readFile: (p) => source.readFile(p), readTools: [...new Set([...readTools, ...(source.readTools ?? [])])] };
}

/** The plugin's counters for a kernel. */
export function autoCompactStats(kernel: Kernel): AutoCompactStats | undefined {
  return stats.get(kernel);
}

/** The thresholds a preset and these options give. */
export function thresholdsFor(preset: KernelPreset, o: AutoCompactOptions): Thresholds {
  return computeThresholds({
    contextWindow: o.contextWindow ?? preset.model?.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    maxOutputTokens: preset.model?.maxTokens ?? DEFAULT_MAX_TOKENS,
    threshold: o.triggerTokens !== undefined ? { tokens: o.triggerTokens } : o.triggerRatio !== undefined ? { ratio: o.triggerRatio } : undefined,
    summaryReserveTokens: o.summaryReserveTokens,
    bufferTokens: o.bufferTokens,
    warningOffsetTokens: o.warningOffsetTokens,
    blockingOffsetTokens: o.blockingOffsetTokens,
  });
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * Why these thresholds can never compact, with the option to change, or none: a threshold above
 * the blocking limit is never reached (the run ends `blocking_limit` first), and one at or below
 * zero compacts before every request. The messages are built only for a problem: this check runs
 * at every start-up, and the first `toLocaleString` loads ICU's locale data (~15 ms).
 */
export function thresholdProblems(t: Thresholds, o: AutoCompactOptions): PluginProblem[] {
  if (!o.enabled) return [];
  const above = t.threshold > t.blocking;
  if (!above && t.threshold > 0) return [];
  const path = o.triggerTokens !== undefined ? ['triggerTokens'] : o.triggerRatio !== undefined ? ['triggerRatio'] : ['bufferTokens'];
  const how = o.triggerTokens !== undefined ? `${fmt(t.threshold)} tokens`
    : o.triggerRatio !== undefined ? `${fmt(t.threshold)} tokens: ${o.triggerRatio} × the ${fmt(t.contextWindow)}-token window`
      : `${fmt(t.threshold)} tokens: the ${fmt(t.contextWindow)}-token window − ${fmt(t.reserve)} of output reserve − ${fmt(o.bufferTokens)} of buffer`;
  if (above) {
    const fix = o.triggerTokens !== undefined ? `use a triggerTokens of at most ${fmt(t.blocking)}`
      : o.triggerRatio !== undefined ? `use a triggerRatio of at most ${Math.floor((t.blocking / t.contextWindow) * 100) / 100}`
        : `set triggerTokens or triggerRatio, or a bufferTokens of at least ${fmt(o.blockingOffsetTokens)}`;
    return [{ path, message: `the compaction threshold (${how}) is above the blocking limit (${fmt(t.blocking)} tokens: the window − ${fmt(t.reserve)} of output reserve − ${fmt(o.blockingOffsetTokens)}), so compaction would never run and the session would end with blocking_limit; ${fix}` }];
  }
  return [{ path, message: `the compaction threshold (${how}) is not above zero, so every request would compact; the window is too small for these settings (set triggerRatio or triggerTokens)` }];
}

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'summary compaction at a token threshold (warning and blocking levels, circuit breaker, file restore, pinned and latest messages kept)',
  options: autoCompactOptions,
  check: (options, { preset }) => thresholdProblems(thresholdsFor(preset, options), options),
  apply(kernel, options) {
    const counter = tokenCounter(kernel);
    // Plugin.check refused a threshold that can never fire, from a preset file or a kernel built in code.
    const t = thresholdsFor(kernel.preset, options);
    const s: AutoCompactStats = { thresholds: t, compactions: 0, failures: 0, consecutiveFailures: 0, breakerOpen: false, summaryRequests: 0, skippedByBreaker: 0, noProgress: 0, restoresDropped: 0 };
    stats.set(kernel, s);
    const extra = options.instructions === undefined ? [] : Array.isArray(options.instructions) ? options.instructions : [options.instructions];
    let announced = false;
    let warned = false;
    let cancelled = false;
    let lastFailure = '';

    const record = (data: AutoCompactRecord) => kernel.transcript.append({ type: 'plugin', plugin: PLUGIN_NAME, data });
    const notice = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => kernel.emit({ type: 'notice', level, source: PLUGIN_NAME, message });

    kernel.hooks.sessionStart.tap(PLUGIN_NAME, () => {
      if (kernel.transcript.pluginData<AutoCompactRecord>(PLUGIN_NAME).some((r) => r.breakerOpen)) s.breakerOpen = true;
    });

    // Watch the final preCompact answer: a cancelled compaction is not a failure.
    kernel.hooks.preCompact.tap({ name: PLUGIN_NAME, stage: 100_000 }, (pre: PreCompact) => {
      cancelled = pre.cancel !== undefined;
      return pre;
    });

    const fail = (why: string) => {
      s.failures++;
      s.consecutiveFailures++;
      if (s.consecutiveFailures >= options.maxConsecutiveFailures && !s.breakerOpen) {
        s.breakerOpen = true;
        record({ breakerOpen: true });
        notice('warn', `auto-compaction stopped for this session after ${s.consecutiveFailures} failures in a row (last: ${why}); the context will not be compacted automatically again`);
      }
    };

    kernel.hooks.context.tapPromise({ name: PLUGIN_NAME, stage: CONTEXT_STAGE.AUTOCOMPACT }, async (state, ctx) => {
      await counter.prime(ctx);
      if (!announced) {
        announced = true;
        // Routine: the thresholds of every run (text output never prints it).
        notice('debug', options.enabled
          ? `auto-compaction at ${t.threshold} tokens (warning at ${t.warning}, blocking at ${t.blocking}, window ${t.contextWindow})`
          : `auto-compaction is off (blocking at ${t.blocking} tokens, window ${t.contextWindow})`);
      }
      let count = counter.count(state.messages).tokens;
      if (options.enabled && count >= t.threshold) {
        if (s.breakerOpen) {
          s.skippedByBreaker++;
        } else {
          let go = true;
          if (options.exactCount) {
            const exact = await counter.exact(state.messages, ctx).catch(() => undefined);
            if (exact !== undefined && exact < t.threshold) go = false;
          }
          if (go) {
            const before = counter.messagesTokens(state.messages);
            cancelled = false;
            lastFailure = '';
            const r = await runCompaction(kernel, 'auto', ctx, undefined, state.messages);
            if (r) {
              state = { ...state, messages: kernel.messages, tokensFreed: state.tokensFreed + Math.max(0, before - r.tokensAfter) };
              count = counter.count(state.messages).tokens;
              if (r.tokensAfter > before * (1 - options.minFreedRatio)) {
                fail(`${r.strategy} freed less than ${Math.round(options.minFreedRatio * 100)}%`);
              } else if (count >= t.threshold) {
                // Still over the threshold: the next request would compact again, every turn. That
                // is no progress, and counts toward the breaker like a failure.
                s.noProgress++;
                fail(`the context is still ${fmt(count)} tokens after the compaction, over the threshold of ${fmt(t.threshold)}`);
              } else {
                s.consecutiveFailures = 0;
              }
            } else if (!cancelled) {
              fail(lastFailure || 'no strategy produced a summary');
            }
          }
        }
      }
      if (count < t.warning) warned = false;
      else if (!warned && count < t.threshold) {
        warned = true;
        // A warning only when nothing will compact before the blocking limit; else routine information.
        const willCompact = options.enabled && !s.breakerOpen;
        notice(willCompact ? 'info' : 'warn', `context at ${count} of ${t.contextWindow} tokens; auto-compaction ${willCompact ? `at ${t.threshold}` : 'will not run'}, blocking at ${t.blocking}`);
      }
      if (options.blocking && count >= t.blocking) {
        return { ...state, terminal: { reason: 'blocking_limit', detail: `the context is ${count} tokens, over the blocking limit of ${t.blocking} (window ${t.contextWindow} minus the output reserve and a safety margin)` } };
      }
      return state;
    });

    kernel.hooks.compact.tapPromise(PLUGIN_NAME, async (req, ctx) => {
      if (req.trigger === 'manual' ? !options.manual : !options.enabled) return undefined;
      try {
        return await compact(req, ctx);
      } catch (err) {
        lastFailure = (err as Error).message;
        throw err;
      }
    });

    const compact = async (req: CompactRequest, ctx: RunContext): Promise<CompactResult> => {
      const all = req.messages;
      const before = counter.messagesTokens(all);
      const cut = keptFrom(all, options.keepRecentTokens, (m) => counter.messagesTokens([m]));
      const kept = all.slice(cut).filter((m) => !isPinned(m));
      const messages = all.slice(0, cut);
      const pinned = all.filter(isPinned);
      const li = kept.length ? -1 : latestUserPromptIndex(messages);
      const latest = li >= 0 ? messages[li]! : undefined;
      const toSummarize = messages.filter((m) => !isPinned(m));
      if (!toSummarize.some((m) => m !== latest)) {
        throw new CompactionFailure('there is nothing to summarise besides the pinned messages and the latest prompt');
      }
      const instructions = [...extra, ...(req.instructions ? [req.instructions] : [])];
      const maxTokens = options.summaryMaxTokens ?? t.reserve;
      // The cached-prefix request continues the last request whole (a request cut before the kept
      // tail would share no cache entry with it), and is told the tail stays, so the summary says
      // little of it.
      const cached = options.summaryRequest === 'cached-prefix'
        ? cachedPrefixRequest(all, counter, summaryPrompt(kept.length ? [...instructions, keptTailInstruction(kept)] : instructions), maxTokens, options.model)
        : undefined;
      const out = await summarize({
        kernel, ctx, counter, messages: toSummarize, instructions, maxTokens,
        render: { toolResultChars: options.toolResultChars, toolInputChars: options.toolInputChars },
        ...(options.model ? { model: options.model } : {}),
      }, cached);
      s.summaryRequests += out.requests;

      const exclude = new Set(memoryFiles(kernel).files.map((f) => f.path));
      // The restore shares the threshold: on a small window 5 files × 5,000 tokens would refill it.
      const restoreBudget = Math.min(options.restore.totalTokens, Math.floor(options.restore.thresholdShare * t.threshold));
      let restored = options.restore.maxFiles > 0 && restoreBudget > 0
        ? restoreFiles(toSummarize, { cwd: kernel.cwd, resolve: (p) => kernel.services.resolvePath(p, kernel.cwd).written, ...options.restore, totalTokens: restoreBudget, exclude, ...restoreSource(fileSources.get(kernel), options.restore.readTools) })
        : [];
      const latestIsLast = li === messages.length - 1;
      const build = (): Message[] => {
        const content: ContentBlock[] = [{ type: 'text', text: summaryMessageText(out.summary) }];
        if (restored.length) content.push({ type: 'text', text: `${RESTORED_FILES_PREAMBLE}\n\n${restored.map((r) => r.text).join('\n\n')}` });
        if (options.announceTools) {
          const names = counter.lastRequest?.tools?.map((x) => String((x as { name?: unknown }).name)) ?? kernel.tools.names();
          if (names.length) content.push({ type: 'text', text: `Tools available in this session: ${names.join(', ')}.` });
        }
        const summaryMessage: Message = { role: 'user', content, meta: { meta: true, compactSummary: true, source: PLUGIN_NAME, at: Date.now() } };
        return [
          ...pinned,
          ...(latest && !latestIsLast ? [latest] : []),
          summaryMessage,
          ...(latest && latestIsLast ? [latest] : []),
          ...kept,
        ];
      };
      const tooBig = (n: number) => n > before * (1 - options.minFreedRatio);
      let next = build();
      let tokensAfter = counter.messagesTokens(next);
      if (restored.length && (tooBig(tokensAfter) || counter.count(next).tokens >= t.threshold)) {
        // The files put back are a convenience; they must never be what makes a compaction fail.
        notice('info', `the ${restored.length} restored file${restored.length === 1 ? '' : 's'} would leave the compacted context too large; compacting without them`);
        s.restoresDropped++;
        restored = [];
        next = build();
        tokensAfter = counter.messagesTokens(next);
      }
      if (tooBig(tokensAfter)) {
        throw new CompactionFailure(`the compacted history (${tokensAfter} tokens) is not at least ${Math.round(options.minFreedRatio * 100)}% smaller than the history (${before} tokens)`);
      }
      s.compactions++;
      record({ compaction: { trigger: req.trigger, tokensBefore: before, tokensAfter, restoredFiles: restored.length, summaryRequests: out.requests } });
      return { messages: next, tokensAfter, strategy: PLUGIN_NAME, summary: out.summary };
    };
  },
});
