/**
 * Open-loop replay of a workload through a preset. At each recorded step the preset builds its own
 * request from its own context (its compaction and cache plugins at work, in the real kernel); the
 * simulator accounts it on the recording's clock; the recorded reply and tool results go back in.
 * Every turn of the recording is one `kernel.run()` with the recorded prompt.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_TOKENS, type Kernel, type KernelPreset } from '../../kernel/kernel.js';
import { createKernel } from '../../agent/kernel.js';
import { resolvePath, setCacheClock } from '../../lib/index.js';
import { estimateContentTokens } from '../../lib/tokens/estimate.js';
import { TOKEN_COUNTERS, type TokenCounter } from '../../lib/tokens/counter.js';
import type { Plugin } from '../../kernel/plugin.js';
import { loadPreset } from '../../agent/preset/index.js';
import { createSimulator } from '../../simulator/simulator.js';
import type { ContentBlock } from '../../kernel/types.js';
import { isBreak, replayBreakCause, type PromptShape } from '../metrics/breaks.js';
import { actualInputCost, applyIdealCosts, requestCost } from '../metrics/efficiency.js';
import { instructionKey } from '../metrics/retention.js';
import { neededAnchors, neededFacts, recallTester, StringIndex, type NeededFacts } from '../metrics/recall.js';
import { chargeRefetch } from '../metrics/refetch.js';
import { summarize } from '../metrics/summary.js';
import type { CompactionMetrics, RequestMetrics, RunSummary } from '../metrics/types.js';
import type { Workload, WorkloadStep } from '../workloads/types.js';
import { pendingResponder, ReplayClient, StepCursor, type Exchange } from './client.js';
import { ReplayTimers } from './timers.js';
import { mimicPlan, mimicPlugin, sharedBlockIndex, type MimicClient, type MimicPlan } from './mimic.js';
import { replayPlugin } from './plugin.js';
import { READ_TOOLS, VirtualWorkspace } from './workspace.js';
import { extractiveSummary, summaryBudget } from './summary.js';
import { setRestoreFileSource } from '../../plugins/compaction/auto/index.js';
import { buildPrefix } from '../../simulator/prefix.js';
import { detectEvents, recordedPrefix, type ClientEvent } from '../workloads/events.js';
import { LiveChildren, type LiveChildRun } from './children.js';
import { RowSpill } from './spill.js';
import { strategyActivity, type StrategyActivity } from './activity.js';
import { gitState } from '../../plugins/system-prompt/user-context.js';

/**
 * The git state of the temp folder replays run in, asked once per process: each replay's folder is
 * a fresh empty one in it, so the system prompt's git state is the same for all, and the replays
 * need not spawn git twice each (`system-prompt`'s `gitState` option).
 */
let tempGitState: Promise<string> | undefined;

/** The prompt used when a recorded step must start a turn but the recording has no prompt for it. */
export const CONTINUE_PROMPT = 'Continue.';

/** A preset ready to replay: loaded once, used for many workloads. */
export interface LoadedPreset {
  /** The file or built-in name it was loaded from. */
  source: string;
  name: string;
  preset: KernelPreset;
  baseDir: string;
  plugins: { plugin: Plugin; options: unknown; origin: string }[];
}

/** Loads a preset file or built-in name without the user/project layers (benchmarks must not depend on them). */
export async function loadBenchPreset(source: string, cwd = process.cwd()): Promise<LoadedPreset> {
  const r = await loadPreset({ preset: source, cwd, layers: false });
  return {
    source,
    name: String((r.preset as { name?: unknown }).name ?? source),
    preset: r.preset as KernelPreset,
    baseDir: r.baseDir,
    plugins: r.plugins.map((p) => ({ plugin: p.plugin, options: p.options, origin: p.origin })),
  };
}

export interface ReplayOptions {
  /** Model to send instead of the recording's. */
  model?: string;
  /**
   * Folder the replay's own folder is made in (default: the OS temp folder). `rein bench` gives one
   * folder per run, so a run stopped by a signal removes every replay's folder at once.
   */
  tmpDir?: string;
  /** Called after each request with (requests so far, steps in the workload). */
  onProgress?: (done: number, total: number) => void;
  /** How the simulator counts tokens: `calibrated` (fitted on provider usage, the default) or `bytes`. */
  tokenCounter?: 'calibrated' | 'bytes';
  /**
   * Send the client's fixed prefix in its shape (mimic.ts). Default: the preset's `bench.mimic`;
   * `false` sends the preset's own tools and system prompt whatever the preset says.
   */
  mimic?: MimicClient | false;
  /**
   * Measure needed-later recall and charge re-fetches of lost facts (metrics/recall.ts, refetch.ts).
   * Default true; false leaves `recall` null and the closed-loop cost equal to the open-loop cost.
   */
  recall?: boolean;
}

export interface ReplayResult {
  workload: string;
  preset: string;
  model: string;
  requests: RequestMetrics[];
  compactions: CompactionMetrics[];
  summary: RunSummary;
  /** Recorded steps never sent, because the kernel ended a turn early (with why). */
  skippedSteps: number;
  /**
   * Set when the run lost recorded steps: how many, why (the terminal reason of the turn that lost
   * them: prompt_too_long, blocking_limit, model_error, ...) and the first few step indexes. Such a
   * run is incomplete: its cost covers less work than the recording, so reports never rank it.
   */
  incomplete?: Incomplete;
  /** Turns started with CONTINUE_PROMPT because their first step had no prompt. */
  syntheticPrompts: number;
  /** How the kernel's runs ended. */
  terminals: Record<string, number>;
  /** Tools the recording called that the preset lacks (added with a minimal schema). */
  addedTools: string[];
  /** Problems worth showing (a turn ended by a model error, a warning or error notice; not routine information), at most 20. */
  problems: string[];
  /** Wall time of the replay, ms. */
  durationMs: number;
  /** The client events of the recording the replay acted on (context cleared, model and thinking changes; restarts for a mimic). */
  events: ClientEvent[];
  /** The mimic's fixed prefix and where its sizes came from, when the preset models a client. */
  mimic?: { client: MimicClient; sizes: MimicPlan['sizes']; source: string };
  /** The workload's live children (children.ts), each beside the parent request that started it. */
  children?: LiveChildRun[];
  /** The preset's strategy plugins and how often each acted (activity.ts). */
  strategies: StrategyActivity[];
}

const MAX_PROBLEMS = 20;

/** What an incomplete run lost. */
export interface Incomplete {
  /** Recorded steps not sent. */
  steps: number;
  /** Steps lost by the reason their turn ended. */
  reasons: Record<string, number>;
  /** The first lost step indexes (at most 20). */
  firstSteps: number[];
}
/** Terminal reasons after which the replay goes on with the next recorded step. */
const NORMAL_ENDS = new Set(['end_turn', 'hook_stopped', 'stop_hook_prevented', 'max_turns']);

/**
 * Replays `w` through `preset`. Throws only for a preset whose plugins fail to load; a request the
 * simulator rejects ends that turn (counted in `terminals` and `problems`) and the replay goes on
 * with the next recorded prompt.
 */
export async function replayWorkload(w: Workload, preset: LoadedPreset, options: ReplayOptions = {}): Promise<ReplayResult> {
  const started = performance.now();
  const root = await replayDir(options.tmpDir);
  // The agent's working folder and its home: the recording's cwd and `~` stand for them.
  const dir = join(root, 'work');
  const home = join(root, 'home');
  await Promise.all([mkdir(dir), mkdir(home)]);
  const model = options.model ?? w.model;
  const cursor = new StepCursor(w.steps);
  // Prompt tokens of the latest main-loop or subagent request that had any: a summary's budget.
  let lastContext = 0;
  const compactions: CompactionMetrics[] = [];
  const typedPrompts = typedPromptKeys(w);

  const counterName = options.tokenCounter ?? 'calibrated';
  const counter = TOKEN_COUNTERS[counterName];
  const prefixOfRecording = recordedPrefix(w, counter);
  const events = detectEvents(w, prefixOfRecording);
  const cleared = new Set(events.filter((e) => e.kind === 'context cleared').map((e) => e.step));
  const mimicClient = options.mimic === false ? undefined : options.mimic ?? (preset.preset as { bench?: { mimic?: MimicClient } }).bench?.mimic;
  const plan = mimicClient ? mimicPlan(mimicClient, w, prefixOfRecording, events) : undefined;

  let prevMain: { shape: PromptShape; read: number } | undefined;
  let compactedSince = false;
  let editedSince = false;
  const needs: NeededFacts | undefined = options.recall === false ? undefined : neededFacts(w);
  const testRecall = recallTester(needs ? new StringIndex(undefined, neededAnchors(needs)) : undefined);
  // Sources re-fetched since the last summary compaction (refetch.ts: charged once until then).
  const refetched = new Set<number>();
  let apiCleared = 0;
  // Prompt tokens of the main request each step answered: a live child's first request is set beside it.
  const promptOfStep = new Map<number, number>();

  const onExchange = (x: Exchange) => {
    const msg = x.response.message!;
    const u = msg.usage;
    const usage = {
      input: u.input_tokens,
      cacheRead: u.cache_read_input_tokens,
      cacheWrite5m: u.cache_creation.ephemeral_5m_input_tokens,
      cacheWrite1h: u.cache_creation.ephemeral_1h_input_tokens,
      output: u.output_tokens,
    };
    const body = x.params;
    // The prompt as the simulator accounted it (after its context edits): hashing it again here
    // would double the replay's hashing work for the same blocks.
    const prefix = x.response.prefix!;
    if (x.step) promptOfStep.set(x.step.index, prefix.totalTokens);
    const r: RequestMetrics = {
      n: spill.length + 1,
      source: x.source,
      ...(x.step ? { step: x.step.index } : {}),
      ...(x.synthetic ? { synthetic: true } : {}),
      at: x.now,
      model: body.model,
      ...usage,
      promptTokens: prefix.totalTokens,
      seenTokens: 0,
      costUsd: requestCost(body.model, usage),
      inputCostUsd: actualInputCost(body.model, usage),
      idealInputCostUsd: 0,
    };
    if (x.source === 'main_loop' || x.source === 'subagent') {
      if (compactedSince) refetched.clear();
      const edits = msg.context_management?.applied_edits ?? [];
      const clearedUses = edits.reduce((n, e) => n + ('cleared_tool_uses' in e ? e.cleared_tool_uses : 0), 0);
      if (clearedUses > apiCleared) r.apiClearing = true;
      apiCleared = clearedUses;
      const need = needs && x.step ? needs.byStep.get(x.step.index) : undefined;
      if (need) {
        // What the model read: after the API's context edits when the request asked for them.
        const sent = (x.response.edited ?? body) as Parameters<typeof testRecall>[1];
        const got = testRecall(need, sent);
        r.recall = { needed: got.needed, recalled: got.recalled };
        const charge = got.lost.length ? chargeRefetch(got.lost, needs!.sources, prefix.totalTokens, body.model, refetched, counter) : undefined;
        if (charge) r.refetch = charge;
      }
      const ttl = prefix.breakpoints[prefix.breakpoints.length - 1]?.ttl;
      const shape: PromptShape = { model: body.model, at: x.now, blocks: prefix.blocks, params: prefix.params, ...(ttl ? { ttl } : {}) };
      if (prevMain && isBreak(prevMain.read, usage.cacheRead)) {
        r.breakCause = replayBreakCause(prevMain.shape, shape, { compaction: compactedSince, contextEdit: editedSince, cleared: !!x.step && cleared.has(x.step.index) });
        r.breakTokens = prevMain.read - usage.cacheRead;
      }
      prevMain = { shape, read: usage.cacheRead };
      compactedSince = false;
      editedSince = false;
    }
    if ((x.source === 'main_loop' || x.source === 'subagent') && r.promptTokens) lastContext = r.promptTokens;
    spill.push(r);
    options.onProgress?.(spill.length, w.steps.length);
  };

  // A compaction is answered with an extractive summary of what the request summarises, within the
  // request's max_tokens capped by the size model (summary.ts). A mimic, which models the recording's
  // client, first gets the recording's own summaries, in order.
  const typedTexts = w.steps.flatMap((s) => (s.prompt ?? []).filter((p) => p.typed && p.block.type === 'text').map((p) => (p.block as { text: string }).text));
  let lastSummary: { tokens: number; budget: number } | undefined;
  const summaryFor = (body: Record<string, any>) => {
    const recorded = client.nextSummary();
    if (recorded) return recorded;
    const budget = summaryBudget(Number(body.max_tokens) || DEFAULT_MAX_TOKENS, lastContext);
    const text = extractiveSummary(body, typedTexts, budget, counter);
    lastSummary = { tokens: counter.block(text, false), budget };
    return { content: [{ type: 'text' as const, text: `<summary>\n${text}\n</summary>` }], stop_reason: 'end_turn' as const };
  };
  const sim = createSimulator({ responder: pendingResponder(() => client.current(), summaryFor), clock: () => cursor.now, tokenCounter: counter });
  const client: ReplayClient = new ReplayClient(sim, cursor, onExchange);
  if (plan) {
    client.summaries = w.steps.map((s) => s.compactionBefore?.summary).filter((x): x is string => !!x);
    // Other sessions of the client keep its shared prefix cached: so does the replay.
    let pinned = false;
    client.beforeMain = (body, now) => {
      if (pinned) return;
      pinned = true;
      const i = sharedBlockIndex(body as never, plan);
      if (i === undefined) return;
      const p = buildPrefix(body as never, undefined, counter);
      const b = p.blocks[i];
      if (b) sim.cache.pin(b.hash, b.prefixTokens, now);
    };
  }
  const addedTools: string[] = [];
  const live = w.children?.length ? new LiveChildren(w, sim, client, (step) => promptOfStep.get(step)) : undefined;
  // Post-compaction file restoration reads the recorded session's files as of the current step.
  const workspace = new VirtualWorkspace(w, dir, home);
  const plugin = replayPlugin(w, cursor, typedPrompts, {
    requestCount: () => spill.length,
    compaction: (c) => {
      if (c.restoredFiles) {
        for (const f of c.restoredFiles) {
          f.step = workspace.get(f.path)?.step ?? null;
          f.path = workspace.recordedPath(f.path);
        }
      }
      if (c.kind === 'compaction' && lastSummary) { c.summaryTokens = lastSummary.tokens; c.summaryBudget = lastSummary.budget; }
      lastSummary = undefined;
      compactions.push(c);
      if (c.kind === 'compaction') compactedSince = true;
      else editedSince = true;
    },
  }, addedTools, { model: !options.model, resultsAsRecorded: plan !== undefined, ...(live ? { live: live.ids() } : {}) });

  // Every recorded reply must fit the request's max_tokens, or the simulator would cut it short
  // (stop_reason max_tokens) and the kernel would ask again for a reply the recording does not have.
  // max_tokens is not part of the cached prefix, so raising it changes no accounting.
  const longestReply = longestReplyTokens(w, counter);
  const maxTokens = Math.max(preset.preset.model?.maxTokens ?? DEFAULT_MAX_TOKENS, longestReply + 1);
  const kernelPreset: KernelPreset = {
    ...preset.preset,
    model: { ...(preset.preset.model ?? {}), name: model, maxTokens },
    session: { ...(preset.preset.session ?? {}), dir: join(root, 'sessions') },
  };
  delete kernelPreset.limits;

  const gitText = await (tempGitState ??= gitState(tmpdir()));
  // The per-request rows wait on disk in the replay's folder (beside the agent's cwd, not in it)
  // until the replay ends (spill.ts).
  const spill = new RowSpill<RequestMetrics>(join(root, 'requests.jsonl'));
  // The agent sees the recording's clock: strategies that measure idle time (Date.now() against the
  // last response or a message's timestamp) see the recorded gaps. Restored when the replay ends;
  // replays in one thread run one at a time.
  const realNow = Date.now;
  Date.now = () => cursor.clock();

  const outcome: TurnsOutcome = { terminals: {}, problems: [], skippedSteps: 0, lost: { steps: 0, reasons: {}, firstSteps: [] }, syntheticPrompts: 0 };
  const { terminals, problems, lost } = outcome;
  let requests: RequestMetrics[];
  try {
    const kernel = await createKernel({
      preset: kernelPreset,
      presetDir: preset.baseDir,
      cwd: dir,
      client,
      // `~` is the stand-in home, so a path the recording names under the user's home (pi's
      // `~/.pi/…`) resolves, for the tools and for the post-compaction file restore, where the
      // workspace keeps that file.
      services: { resolvePath: (p: string, cwd: string) => resolvePath(p, cwd, home) },
      plugins: [...preset.plugins.map((p) => withGitState(p, gitText)), { plugin, options: {}, origin: 'bench replay' }, ...(plan ? [{ plugin: mimicPlugin(plan, cursor, counter), options: {}, origin: 'bench mimic' }] : [])],
      sessionId: `bench-${process.pid}-${Math.floor(started)}`,
      ...(live ? { subagents: live.factory() } : {}),
      // A subagent's recording replays as a child agent, so its requests are attributed to the child (`subagent`).
      ...(w.sidechain ? { parent: { sessionId: w.sessionId ?? 'recorded-parent', toolUseId: w.parentToolUseId ?? w.agentId ?? 'recorded-subagent' } } : {}),
    });
    setRestoreFileSource(kernel, {
      readFile: (path) => {
        workspace.advanceTo(cursor.pos);
        return workspace.get(path)?.content;
      },
      // The recording's own read tools (pi's `read`) count too: the replay keeps their names.
      readTools: READ_TOOLS,
    });
    // Cache timers (keep-alive) run on the recording's clock and fire when the replay reaches them.
    const timers = new ReplayTimers(() => cursor.now);
    setCacheClock(kernel, timers.clock);
    // Before anything else builds the next request (microcompact's idle check, keep-alive's own
    // cancel), the timers due before it fire.
    kernel.hooks.context.tapPromise({ name: 'bench/replay-timers', stage: -1_000_000 }, async (state) => {
      await timers.runUntil(cursor.upcoming()?.at ?? cursor.now);
      return state;
    });
    client.sideAt = () => timers.firing;
    try {
      await replayTurns(kernel, cursor, cleared, outcome);
    } finally {
      await kernel.close();
    }
    requests = spill.readAll();
  } finally {
    Date.now = realNow;
    spill.close(true);
    await rm(root, { recursive: true, force: true });
  }
  applyIdealCosts(requests);
  recallPerEvent(requests, compactions);
  return {
    workload: w.name,
    preset: preset.name,
    model,
    requests,
    compactions,
    summary: summarize(requests, compactions),
    skippedSteps: outcome.skippedSteps,
    ...(lost.steps ? { incomplete: lost } : {}),
    syntheticPrompts: outcome.syntheticPrompts,
    terminals,
    addedTools,
    problems,
    durationMs: performance.now() - started,
    events: events.filter((e) => e.kind !== 'restart' || plan),
    ...(plan ? { mimic: { client: plan.client, sizes: plan.sizes, source: plan.source } } : {}),
    ...(live ? { children: live.results() } : {}),
    strategies: strategyActivity(preset.plugins, kernelPreset, requests, compactions),
  };
}

/*
 * The loops over a workload's steps that a replay runs once before its turns live in these small
 * functions, not in `replayWorkload`: V8 counts the bytecode a function runs in its loops towards
 * optimising it, so with them inline the one-call-per-job `replayWorkload` was optimised after a
 * dozen jobs (tens of ms of compiler time for a long function) and thrown away again at the next
 * object shape it had not seen (`node --trace-opt --trace-deopt`).
 */

/** The instruction keys (`instructionKey`) of the prompts the user typed in `w`. */
function typedPromptKeys(w: Workload): Set<string> {
  const keys = new Set<string>();
  for (const s of w.steps) for (const p of s.prompt ?? []) if (p.typed && p.block.type === 'text') keys.add(instructionKey((p.block as { text: string }).text));
  return keys;
}

/** Tokens of the longest recorded reply of `w`: the larger of `counter`'s count and the estimate. */
function longestReplyTokens(w: Workload, counter: TokenCounter): number {
  let longest = 0;
  for (const s of w.steps) {
    // Read once: a generated workload makes the reply each time it is read.
    const reply = s.reply;
    let n = 0;
    for (const b of reply) n += counter.block(b, false);
    longest = Math.max(longest, n, estimateContentTokens(reply));
  }
  return longest;
}

/** What the turns of a replay came to (`replayTurns` fills it in). */
interface TurnsOutcome {
  terminals: Record<string, number>;
  problems: string[];
  skippedSteps: number;
  lost: Incomplete;
  syntheticPrompts: number;
}

/**
 * Runs every recorded turn left in `cursor` through `kernel`, one `kernel.run()` per turn. Kept
 * apart from `replayWorkload`, whose one call per replay sets everything up: V8 optimises this loop
 * while it runs (on-stack replacement), and optimising it inside that long function recompiled the
 * whole set-up with it, tens of ms each time, several times per worker.
 */
async function replayTurns(kernel: Kernel, cursor: StepCursor, cleared: ReadonlySet<number>, outcome: TurnsOutcome): Promise<void> {
  while (cursor.peek()) {
    const step = cursor.peek()!;
    // The user cleared the conversation here (or the client started a new one): so does the replay.
    if (cleared.has(step.index)) kernel.messages = [];
    if (step.compactionBefore?.trigger === 'manual') await kernel.compact();
    const posBefore = cursor.pos;
    cursor.startingTurn = true;
    const reason = await replayTurn(kernel, step, turnPrompt(step, outcome), outcome);
    cursor.startingTurn = false;
    if (cursor.pos === posBefore) loseStep(cursor, reason, outcome);
    // A turn the kernel ended on an error leaves the steps that continue it unreachable: skip
    // them. After a normal end, a recorded request with no prompt of its own (a client retry)
    // starts the next turn with CONTINUE_PROMPT.
    if (!NORMAL_ENDS.has(reason)) while (cursor.peek() && !cursor.turnEndsHere()) loseStep(cursor, reason, outcome);
  }
}

/** The prompt a turn starts with: the step's recorded prompt, or CONTINUE_PROMPT (counted) when it has none. */
function turnPrompt(step: WorkloadStep, outcome: TurnsOutcome): ContentBlock[] {
  if (step.prompt?.length) return step.prompt.map((p) => p.block);
  outcome.syntheticPrompts++;
  return [{ type: 'text', text: CONTINUE_PROMPT }];
}

/** Runs one turn and notes how it ended; returns the terminal reason ('' when the run gave no result). */
async function replayTurn(kernel: Kernel, step: WorkloadStep, prompt: ContentBlock[], outcome: TurnsOutcome): Promise<string> {
  const { terminals, problems } = outcome;
  let reason = '';
  for await (const ev of kernel.run({ prompt, maxTurns: Number.MAX_SAFE_INTEGER })) {
    if (ev.type === 'result') {
      reason = ev.result.terminalReason;
      terminals[reason] = (terminals[reason] ?? 0) + 1;
      if (ev.result.isError && reason !== 'hook_stopped' && problems.length < MAX_PROBLEMS) problems.push(`step ${step.index}: turn ended with ${reason}`);
    } else if (ev.type === 'notice' && (ev.level === 'warn' || ev.level === 'error') && problems.length < MAX_PROBLEMS) {
      problems.push(`step ${step.index}: ${ev.source}: ${ev.message}`);
    }
  }
  return reason;
}

/** Skips the next recorded step, lost because its turn ended with `reason`. */
function loseStep(cursor: StepCursor, reason: string, outcome: TurnsOutcome): void {
  const { lost } = outcome;
  const r = reason || 'no request sent';
  lost.reasons[r] = (lost.reasons[r] ?? 0) + 1;
  if (lost.firstSteps.length < 20) lost.firstSteps.push(cursor.peek()!.index);
  lost.steps++;
  cursor.pos++;
  outcome.skippedSteps++;
}

/** The `system-prompt` plugin told the git state (unless its options say otherwise); other plugins as they are. */
function withGitState(p: LoadedPreset['plugins'][number], text: string): LoadedPreset['plugins'][number] {
  if (p.plugin.name !== 'system-prompt') return p;
  const options = p.options === undefined || p.options === null || p.options === true ? {} : p.options;
  if (typeof options !== 'object' || 'gitState' in options) return p;
  return { ...p, options: { ...options, gitState: text } };
}

/**
 * Sets each compaction's or rewrite's recall: over the main requests after it, up to the next one.
 */
export function recallPerEvent(requests: readonly RequestMetrics[], compactions: CompactionMetrics[]): void {
  const order = compactions.map((c, i) => ({ c, i })).sort((a, b) => a.c.afterRequest - b.c.afterRequest || a.i - b.i);
  for (let k = 0; k < order.length; k++) {
    const from = order[k]!.c.afterRequest;
    const to = order[k + 1]?.c.afterRequest ?? Infinity;
    let needed = 0;
    let recalled = 0;
    for (const r of requests) if (r.n > from && r.n <= to && r.recall) { needed += r.recall.needed; recalled += r.recall.recalled; }
    if (needed) order[k]!.c.recall = { needed, recalled };
  }
}

/**
 * A fresh folder for one replay, under the OS temp folder, whose name differs between replays only in
 * lowercase letters. It holds the agent's cwd (`work/`, which the system prompt shows), its stand-in
 * home (`home/`), the session files and the spilled request rows. The calibrated
 * token counter counts character classes (letters, digits, case changes), so with a name of one
 * class every replay of a workload counts the same prompt, whichever process or worker runs it.
 * `parent`: where (default: the OS temp folder). Throws what mkdir throws other than EEXIST.
 */
export async function replayDir(parent = tmpdir()): Promise<string> {
  for (;;) {
    const name = `rein-bench-${Array.from(randomBytes(12), (b) => String.fromCharCode(97 + (b % 26))).join('')}`;
    const dir = join(parent, name);
    try {
      await mkdir(dir);
      return dir;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
