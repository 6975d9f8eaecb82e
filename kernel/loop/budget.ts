/**
 * The spending gate of a run and its child agents (`limits.maxBudgetUsd`).
 *
 * A run owns one gate; child agents that share the run's budget (`Kernel.shareBudget`) use their
 * parent's, so every main-loop request of the parent and of all its children passes through the
 * same gate, and each request's cost reaches the parent's run as it is paid (the children's usage is
 * forwarded response by response, not when a child ends).
 *
 * No request starts once the total has reached the budget. Requests that run at the same time (a
 * parent's parallel or background children) are admitted together only while the total, plus the
 * largest request cost seen so far for each of them, stays under the budget; nearer the limit they go
 * one at a time. So the total passes the budget by at most about one request's cost (the last one
 * admitted), however many children run, as a single agent's does; the run then ends with
 * `budget_exhausted` (`error_max_budget_usd` in the CLI's result, as Claude Code's `--max-budget-usd`:
 * https://code.claude.com/docs/en/cli-reference).
 */

/** What `admit` decided: the request may start, the budget is spent, or the run was aborted while waiting. */
export type BudgetAdmission = 'go' | 'exhausted' | 'aborted';

export class BudgetGate {
  private inflight = 0;
  /** Largest cost of one request admitted by this gate so far, USD. */
  private largest = 0;
  private waiters: (() => void)[] = [];

  /**
   * @param spent what the run has spent so far, USD (its own requests, its side requests and its children's)
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

  /**
   * Waits until a request may start. After `go`, the caller must call `done` once (with the
   * request's cost, 0 when it failed).
   */
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

  /** A request admitted by `admit` ended; `costUsd` is what it cost (0 when it failed). */
  done(costUsd: number): void {
    this.inflight = Math.max(0, this.inflight - 1);
    if (costUsd > this.largest) this.largest = costUsd;
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}
