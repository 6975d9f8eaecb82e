/**
 * The spending gate of a run and the child agents that share its budget (`limits.maxBudgetUsd`):
 * every main-loop request of the parent and of all its children passes one gate, and each child's
 * cost reaches the parent's run as it is paid (`Kernel.shareBudget`). No request starts once the
 * total reached the budget; concurrent requests are admitted together only while the total plus
 * the largest request cost seen so far for each stays under it, else one at a time. So the total
 * passes the budget by about one request's cost however many children run, as a single agent's
 * does; the run then ends with `budget_exhausted` (`error_max_budget_usd` in the CLI's result, as
 * Claude Code's `--max-budget-usd`: https://code.claude.com/docs/en/cli-reference).
 *
 * The gate sits at the end of the `context` hook (after every strategy, right before the request
 * is built): it waits there, or ends the run with `budget_exhausted`; the request's `response`
 * (its cost) or its `turnEnd` (it failed: 0) releases it.
 */
import { CONTEXT_STAGE, createKernelState, type Kernel } from '../../../kernel/index.js';

/** After every other `context` stage: the gate admits the request that is about to be built. */
export const BUDGET_GATE_STAGE = CONTEXT_STAGE.NOTIFICATIONS + 100;

/** What `admit` decided. */
export type BudgetAdmission = 'go' | 'exhausted' | 'aborted';

export class BudgetGate {
  private inflight = 0;
  /** Largest cost of one request so far, USD. */
  private largest = 0;
  private waiters: (() => void)[] = [];

  /**
   * @param spent what the run has spent so far, USD
   * @param max the budget, USD (Infinity: none)
   */
  constructor(private readonly spent: () => number, readonly max: number) {}

  /** True once the total reached the budget. */
  exhausted(): boolean {
    return this.spent() >= this.max;
  }

  /** The budget and what was spent, for a terminal detail: `spent $0.0312 of $0.03`. */
  describe(): string {
    return `spent $${this.spent().toFixed(4)} of $${this.max}`;
  }

  /** Waits until a request may start; after `go`, call `done` once with its cost (0 when it failed). */
  async admit(signal: AbortSignal): Promise<BudgetAdmission> {
    for (;;) {
      if (signal.aborted) return 'aborted';
      const spent = this.spent();
      if (spent >= this.max) return 'exhausted';
      if (this.inflight === 0 || spent + (this.inflight + 1) * this.largest < this.max) {
        this.inflight++;
        return 'go';
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal.removeEventListener('abort', wake);
          resolve();
        };
        this.waiters.push(wake);
        signal.addEventListener('abort', wake, { once: true });
      });
    }
  }

  /** An admitted request ended, costing `costUsd`. */
  done(costUsd: number): void {
    this.inflight = Math.max(0, this.inflight - 1);
    if (costUsd > this.largest) this.largest = costUsd;
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

const budgetState = createKernelState('tools/task/budget', () => ({
  /** This kernel's own gate for its current run. */
  gate: undefined as BudgetGate | undefined,
  /** The kernel whose run's gate this one's requests pass (set by `shareBudgetWith`). */
  parent: undefined as Kernel | undefined,
  /** The gate that admitted this kernel's request in flight, until it is released. */
  admitted: undefined as BudgetGate | undefined,
  tapped: false,
}));

/** The gate a request of `kernel` passes: its parent run's (when it shares one and that run is on), else its own. */
function gateOf(kernel: Kernel): BudgetGate | undefined {
  const b = budgetState(kernel);
  return (b.parent && gateOf(b.parent)) || b.gate;
}

/** What aborted the run, when the abort gave a reason of its own. */
function abortDetail(signal: AbortSignal): string | undefined {
  const r: unknown = signal.reason;
  return r instanceof Error && r.name !== 'AbortError' && r.message ? r.message : undefined;
}

/** Makes every main-loop request of `kernel` pass its gate (its own run's, or its parent run's). Once per kernel. */
export function gateRequests(kernel: Kernel): void {
  const b = budgetState(kernel);
  if (b.tapped) return;
  b.tapped = true;
  const release = (cost: number) => {
    b.admitted?.done(cost);
    b.admitted = undefined;
  };
  kernel.hooks.runStart.tap('tools/task/budget', () => {
    b.gate = new BudgetGate(() => kernel.runCostUsd() ?? 0, kernel.preset.limits?.maxBudgetUsd ?? Infinity);
  });
  kernel.hooks.runEnd.tap('tools/task/budget', () => {
    release(0);
    b.gate = undefined;
  });
  kernel.hooks.context.tapPromise({ name: 'tools/task/budget', stage: BUDGET_GATE_STAGE }, async (state, ctx) => {
    const gate = gateOf(kernel);
    if (!gate || state.terminal) return state;
    const admission = await gate.admit(ctx.signal);
    if (admission === 'go') {
      b.admitted = gate;
      return state;
    }
    const detail = admission === 'exhausted' ? gate.describe() : abortDetail(ctx.signal);
    return { ...state, terminal: { reason: admission === 'exhausted' ? 'budget_exhausted' : 'aborted', ...(detail ? { detail } : {}) } };
  });
  kernel.hooks.response.tap('tools/task/budget', (info) => {
    if (info.source === 'main_loop') release(kernel.services.costUsd(info.message.model ?? info.request.model, info.usage));
  });
  kernel.hooks.turnEnd.tap('tools/task/budget', () => release(0));
}

/**
 * Makes `child` spend from `parent`'s run: its usage is added to the parent run as it is paid, and
 * its requests pass the parent run's gate. Call before the child's run starts.
 */
export function shareBudgetWith(child: Kernel, parent: Kernel): void {
  child.shareBudget(parent);
  budgetState(child).parent = parent;
  gateRequests(parent);
  gateRequests(child);
}
