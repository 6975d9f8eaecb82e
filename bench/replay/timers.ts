/**
 * The cache clock of a replay (`setCacheClock`): time is the recording's, and a timer a cache
 * plugin sets (a keep-alive before an entry expires) fires when the replay reaches its time, that
 * is, before the first main-loop request recorded after it. While a timer runs, the clock reads the
 * timer's time, and the replay client sends side requests at that time.
 */
import type { CacheClock } from '../../lib/index.js';

export class ReplayTimers {
  private readonly timers = new Map<number, { at: number; fn: () => unknown }>();
  private nextId = 1;
  /** The time of the timer running now, ms on the recording's clock. */
  firing: number | undefined;

  /** @param base the recording's time of the latest request sent, ms. */
  constructor(private readonly base: () => number) {}

  readonly clock: CacheClock = {
    now: () => this.firing ?? this.base(),
    setTimer: (fn, ms) => {
      const id = this.nextId++;
      this.timers.set(id, { at: this.clock.now() + Math.max(0, ms), fn });
      return id;
    },
    clear: (h) => { this.timers.delete(h as number); },
  };

  /** Runs, in time order, every timer due before `until` (ms), each awaited. */
  async runUntil(until: number): Promise<void> {
    for (;;) {
      let due: [number, { at: number; fn: () => unknown }] | undefined;
      for (const e of this.timers) if (e[1].at < until && (!due || e[1].at < due[1].at)) due = e;
      if (!due) return;
      this.timers.delete(due[0]);
      this.firing = due[1].at;
      try {
        await due[1].fn();
      } finally {
        this.firing = undefined;
      }
    }
  }
}
