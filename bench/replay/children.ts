/**
 * Live children in a replay. A scripted workload can say that a Task call of one of its steps starts
 * a child agent live (`Workload.children`): the replay then runs the preset's own Task tool for that
 * call, and the child's requests go to the same simulator as the parent's, so they meet the
 * parent's prompt cache as they would against the API. Each child is answered with its own scripted
 * steps, in order, and its tool calls get their recorded results (nothing runs).
 *
 * What the report shows for each child (`LiveChildRun`): its requests and their summary, its first
 * request's cache reads against the prompt of the parent request that started it (for a fork, the
 * parent's prefix it inherits), and whether siblings started by one reply sent first requests that
 * are identical but for their directive.
 */
import type { Kernel, SubagentFactory } from '../../kernel/kernel.js';
import { subagents as agentSubagents } from '../../agent/agent.js';
import { isForkChild } from '../../plugins/tools/task/index.js';
import type { Simulator } from '../../simulator/simulator.js';
import { actualInputCost, requestCost } from '../metrics/efficiency.js';
import { summarize } from '../metrics/summary.js';
import type { RequestMetrics, RunSummary } from '../metrics/types.js';
import type { LiveChild, Workload } from '../workloads/types.js';
import { ReplayClient, StepCursor, type Exchange } from './client.js';
import { installRecordedTools } from './tools.js';

/** One live child's part of a replay. */
export interface LiveChildRun {
  /** The Task call's description (or its tool_use id). */
  name: string;
  toolUseId: string;
  /** True when the child was a fork of the parent (fork mode). */
  fork: boolean;
  requests: RequestMetrics[];
  summary: RunSummary;
  /** The child's first request, tokens: read from the cache, and its whole prompt. */
  first: { cacheRead: number; prompt: number };
  /** Prompt of the parent request whose reply started the child, tokens (a fork's inherited prefix). */
  parentPrefix: number;
  /**
   * For a child with siblings (other live children started by the same reply): true when their
   * first request bodies are identical once each one's directive (its Task prompt) is taken out.
   */
  siblingsIdentical?: boolean;
}

interface Tracked {
  child: LiveChild;
  /** The step whose reply holds the Task call. */
  step: number;
  directive: string;
  kernel?: Kernel;
  requests: RequestMetrics[];
  firstBody?: string;
}

/** Stands for a child's directive when siblings' first requests are compared. */
const DIRECTIVE = '<directive>';

/** The live children of one replay: the subagent factory the replay's kernel uses, and their results. */
export class LiveChildren {
  private readonly byId = new Map<string, Tracked>();

  /**
   * @param w the workload (its `children` and the steps holding their Task calls)
   * @param sim the replay's simulator: the children's requests share its prompt cache
   * @param parentClient the parent's client (the children's clients answer through its responder slot)
   * @param parentPrompt prompt tokens of the parent's request answered by step `index`, once sent
   */
  constructor(w: Workload, private readonly sim: Simulator, private readonly parentClient: ReplayClient, private readonly parentPrompt: (step: number) => number | undefined) {
    for (const child of w.children ?? []) {
      const step = w.steps.find((s) => s.reply.some((b) => b.type === 'tool_use' && b.id === child.toolUseId));
      const use = step?.reply.find((b) => b.type === 'tool_use' && b.id === child.toolUseId) as { input?: { prompt?: unknown } } | undefined;
      this.byId.set(child.toolUseId, { child, step: step?.index ?? -1, directive: typeof use?.input?.prompt === 'string' ? use.input.prompt : '', requests: [] });
    }
  }

  /** The tool_use ids whose Task calls run live. */
  ids(): Set<string> {
    return new Set(this.byId.keys());
  }

  /**
   * The factory for the replay's kernel: rein's own (createAgent without layers), with each child
   * answered by its steps on the shared simulator and its tools replaced by recorded-result twins.
   * Throws for a child the workload does not script.
   */
  factory(): SubagentFactory {
    return {
      ...agentSubagents,
      create: async (o) => {
        const t = this.byId.get(o.parent.toolUseId);
        if (!t) throw new Error(`the workload has no steps for the child started by ${o.parent.toolUseId}`);
        const cursor = new StepCursor(t.child.steps);
        cursor.startingTurn = true;
        const client = new ReplayClient(this.sim, cursor, (x) => this.exchange(t, x), this.parentClient.slot);
        const handle = await agentSubagents.create({ ...o, client });
        t.kernel = handle.kernel;
        installRecordedTools(handle.kernel, { steps: t.child.steps });
        return handle;
      },
    };
  }

  private exchange(t: Tracked, x: Exchange): void {
    const u = x.response.message!.usage;
    const usage = { input: u.input_tokens, cacheRead: u.cache_read_input_tokens, cacheWrite5m: u.cache_creation.ephemeral_5m_input_tokens, cacheWrite1h: u.cache_creation.ephemeral_1h_input_tokens, output: u.output_tokens };
    if (!t.requests.length) {
      const { betas: _betas, ...body } = x.params;
      // The directive's last occurrence is the child's own prompt (the parent's Task calls hold all of them).
      const text = JSON.stringify(body);
      const d = JSON.stringify(t.directive).slice(1, -1);
      const at = d ? text.lastIndexOf(d) : -1;
      t.firstBody = at < 0 ? text : text.slice(0, at) + DIRECTIVE + text.slice(at + d.length);
    }
    t.requests.push({
      n: t.requests.length + 1, source: 'subagent', ...(x.step ? { step: x.step.index } : {}), ...(x.synthetic ? { synthetic: true } : {}),
      at: x.now, model: x.params.model, ...usage, promptTokens: x.response.prefix!.totalTokens, seenTokens: 0,
      costUsd: requestCost(x.params.model, usage), inputCostUsd: actualInputCost(x.params.model, usage), idealInputCostUsd: 0,
    });
  }

  /** Every child that sent a request, in the workload's order. */
  results(): LiveChildRun[] {
    const all = [...this.byId.values()].filter((t) => t.requests.length);
    return all.map((t) => {
      const siblings = all.filter((s) => s.step === t.step);
      const first = t.requests[0]!;
      return {
        name: t.child.name,
        toolUseId: t.child.toolUseId,
        fork: t.kernel ? isForkChild(t.kernel) : false,
        requests: t.requests,
        summary: summarize(t.requests),
        first: { cacheRead: first.cacheRead, prompt: first.promptTokens },
        parentPrefix: this.parentPrompt(t.step) ?? 0,
        ...(siblings.length > 1 ? { siblingsIdentical: siblings.every((s) => s.firstBody === t.firstBody) } : {}),
      };
    });
  }
}
