/**
 * The spending gate of a run and the child agents that share its budget (`limits.maxBudgetUsd`,
 * `Kernel.shareBudget`): every main-loop request of all of them passes it. None starts once the
 * total reached the budget; concurrent requests are admitted together only while the total plus the
 * largest request cost seen so far for each stays under it, else one at a time. So the total passes
 * the budget by about one request, however many children run.
 */

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
