/**
 * The in-process model client of a replay: every request goes to the simulator engine's `handle()`
 * (the same validation and prompt-cache accounting as `rein sim serve` over HTTP), on the
 * recording's clock, and main-loop requests are answered with the recorded replies in order.
 *
 * The step cursor decides which recorded step answers a request: the first request of a run takes
 * the step whose prompt started it; later requests take the next step as long as it continues the
 * same turn (no prompt of its own). A request the recording does not have (the preset asked for
 * more, e.g. a stop hook forced another turn) gets a short synthetic reply and is flagged.
 */
import type { ModelClient, ModelRequest, SendOptions, SendResult } from '../../kernel/model/client.js';
import { ModelRequestError } from '../../kernel/model/client.js';
import { isPromptTooLong } from '../../lib/model/errors.js';
import type { SimResponse, Simulator } from '../../simulator/simulator.js';
import type { DraftBlock, Reply, Responder } from '../../simulator/responders/types.js';
import type { ApiMessage, QuerySource } from '../../kernel/types.js';
import type { Workload, WorkloadStep } from '../workloads/types.js';

/** Text of the reply given to a request the recording does not have. */
export const SYNTHETIC_REPLY_TEXT = '(no recorded reply)';

/** Which recorded step answers the next main-loop request. */
export class StepCursor {
  /** Index of the next unconsumed step. */
  pos = 0;
  /** The recording's clock: time of the latest request sent, ms. */
  now: number;
  /** Set by the driver before it starts a run: the next request is the first of a turn. */
  startingTurn = false;
  private tookStarting = false;

  constructor(readonly steps: readonly WorkloadStep[]) {
    this.now = steps[0]?.at ?? 0;
  }

  peek(): WorkloadStep | undefined {
    return this.steps[this.pos];
  }

  /** True when the step at `pos` begins a new turn (a prompt, a manual compaction) or there is none. */
  turnEndsHere(): boolean {
    const next = this.peek();
    return !next || next.prompt !== undefined || next.compactionBefore?.trigger === 'manual';
  }

  /**
   * The recording's time as the agent should see it now: the time of the request about to be sent
   * when one is due (a turn is starting, or the next step continues the turn), else the time of the
   * latest request sent.
   */
  clock(): number {
    const next = this.peek();
    return next && (this.startingTurn || !this.turnEndsHere()) && next.at > this.now ? next.at : this.now;
  }

  /** The step `take()` would return now, without taking it. */
  upcoming(): WorkloadStep | undefined {
    const next = this.peek();
    return next && (this.startingTurn || !this.turnEndsHere()) ? next : undefined;
  }

  /** The step for the next main-loop request, or undefined when the recording has none for it. */
  take(): WorkloadStep | undefined {
    const next = this.peek();
    if (!next) return undefined;
    if (this.startingTurn || !this.turnEndsHere()) {
      this.tookStarting = this.startingTurn;
      this.startingTurn = false;
      this.pos++;
      if (next.at > this.now) this.now = next.at;
      return next;
    }
    return undefined;
  }

  /** Gives back the step just taken (its request failed and may be retried). */
  untake(step: WorkloadStep): void {
    if (this.steps[this.pos - 1] === step) { this.pos--; this.startingTurn = this.tookStarting; }
  }
}

/** One request and its answer, as the client saw them. */
export interface Exchange {
  params: ModelRequest;
  source: QuerySource;
  response: SimResponse;
  /** The recorded step that answered it (main requests). */
  step?: WorkloadStep;
  /** A main request the recording did not have. */
  synthetic: boolean;
  /** Request time on the recording's clock, ms. */
  now: number;
}

function draft(b: Record<string, any>): DraftBlock | undefined {
  switch (b.type) {
    case 'text': return { type: 'text', text: String(b.text ?? '') };
    case 'tool_use': return { type: 'tool_use', id: String(b.id), name: String(b.name), input: (b.input ?? {}) as Record<string, unknown> };
    case 'thinking': return { type: 'thinking', thinking: String(b.thinking ?? ''), signature: String(b.signature ?? '') };
    case 'redacted_thinking': return { type: 'redacted_thinking', data: String(b.data ?? '') };
    default: return undefined;
  }
}

/**
 * The reply for a step. The stop reason follows the content (tool_use when it calls a tool, else
 * end_turn) so the loop's turn structure follows the recording: a recorded max_tokens stop would
 * otherwise make the kernel resend the request, which the recording does not have.
 */
export function replyFor(step: WorkloadStep | undefined): Reply {
  if (!step) return { content: [{ type: 'text', text: SYNTHETIC_REPLY_TEXT }], stop_reason: 'end_turn' };
  const content = step.reply.map((b) => draft(b as Record<string, any>)).filter((b): b is DraftBlock => b !== undefined);
  const hasTool = content.some((b) => b.type === 'tool_use');
  const reply: Reply = { content: content.length ? content : [{ type: 'text', text: '' }], stop_reason: hasTool ? 'tool_use' : 'end_turn' };
  if (step.usage) reply.usage = { output_tokens: step.usage.output };
  return reply;
}

/**
 * A responder that answers main requests with whatever reply the client set just before calling
 * `handle()`, and compaction requests with `summary(body)` when it gives one (else the simulator's
 * default summary).
 */
export function pendingResponder(get: () => Reply, summary: (body: Record<string, any>) => Reply | undefined = () => undefined): Responder {
  return {
    respond: () => ({ reply: get() }),
    respondSide: (req) => {
      if (req.source !== 'compact') return undefined;
      const s = summary(req.body);
      return s ? { reply: s } : undefined;
    },
  };
}

export class ReplayClient implements ModelClient {
  readonly kind = 'simulator' as const;
  readonly baseURL = 'rein-simulator:in-process';

  /** Called with each main request's body just before the simulator sees it (a mimic pins its shared prefix). */
  beforeMain?: (body: Record<string, unknown>, now: number) => void;
  /** When set, side requests are sent at this time (a cache timer's) instead of the latest request's. */
  sideAt: (() => number | undefined) | undefined;
  /** Summaries to answer compaction requests with, in order (the recording's own), while any are left. */
  summaries: string[] = [];

  /**
   * @param slot where the reply for the request being handled is put for the simulator's responder;
   *   a live child's client shares its parent's (the simulator's `handle()` is synchronous, so one
   *   slot serves every client of a simulator)
   */
  constructor(
    private readonly sim: Simulator,
    readonly cursor: StepCursor,
    private readonly onExchange: (x: Exchange) => void,
    readonly slot: { pending: Reply } = { pending: replyFor(undefined) },
  ) {}

  /** The reply `handle()` should give (read by the responder). */
  current(): Reply {
    return this.slot.pending;
  }

  /** The recording's next summary as a compaction reply, or undefined when none is left. */
  nextSummary(): Reply | undefined {
    const s = this.summaries[0];
    return s === undefined ? undefined : { content: [{ type: 'text', text: `<summary>\n${s}\n</summary>` }], stop_reason: 'end_turn' };
  }

  async send(params: ModelRequest, options: SendOptions): Promise<SendResult> {
    const main = options.source === 'main_loop' || options.source === 'subagent';
    const step = main ? this.cursor.take() : undefined;
    this.slot.pending = main ? replyFor(step) : replyFor(undefined);
    const now = (main ? undefined : this.sideAt?.()) ?? this.cursor.now;
    const { betas, ...body } = params;
    if (main) this.beforeMain?.(body as Record<string, unknown>, now);

    const headers: Record<string, string> = { 'x-rein-source': options.source };
    if (betas?.length) headers['anthropic-beta'] = betas.join(',');
    const response = this.sim.handle(body, { headers, now });
    if (response.status !== 200 || !response.message) {
      if (step) this.cursor.untake(step);
      const message = response.error?.error.message ?? `simulator answered HTTP ${response.status}`;
      throw new ModelRequestError({ kind: 'http', status: response.status, type: response.error?.error.type, message, promptTooLong: isPromptTooLong(response.status, message) });
    }
    if (options.source === 'compact' && this.summaries.length) this.summaries.shift();
    this.onExchange({ params, source: options.source, response, ...(step ? { step } : {}), synthetic: main && !step, now });
    return { message: response.message as unknown as ApiMessage, requestId: response.requestId };
  }

  async countTokens(params: ModelRequest): Promise<number> {
    const { betas, ...body } = params;
    const r = this.sim.countTokens(body, betas?.length ? { headers: { 'anthropic-beta': betas.join(',') } } : {});
    if (r.status !== 200 || !('input_tokens' in r.body)) throw new ModelRequestError({ kind: 'http', status: r.status, message: 'count_tokens failed' });
    return r.body.input_tokens;
  }

  async close(): Promise<void> {}
}

/** The model a replay sends: the recording's unless overridden. */
export function replayModel(w: Workload, override?: string): string {
  return override ?? w.model;
}
