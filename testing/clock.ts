/**
 * A virtual clock for cache tests: time moves only when a test (or a scripted tool) calls
 * `advance`, and the timers due on the way fire in order, each awaited, at their own time. Install
 * it with `setCacheClock(kernel, clock)` and give the simulator `clock: () => clock.now()`: a
 * six-minute tool call then takes milliseconds.
 */
import type { CacheClock } from '../lib/index.js';

export interface VirtualClock extends CacheClock {
  /** Moves the clock forward by `ms`, running every timer due on the way (and awaiting what they start). */
  advance(ms: number): Promise<void>;
}

/** A virtual clock starting at `start` (ms since the epoch). */
export function virtualClock(start = Date.UTC(2026, 0, 1)): VirtualClock {
  let now = start;
  let nextId = 1;
  const timers = new Map<number, { at: number; fn: () => unknown }>();
  const clock: VirtualClock = {
    now: () => now,
    setTimer(fn, ms) {
      const id = nextId++;
      timers.set(id, { at: now + Math.max(0, ms), fn });
      return id;
    },
    clear(h) { timers.delete(h as number); },
    async advance(ms) {
      const target = now + ms;
      for (;;) {
        let due: [number, { at: number; fn: () => unknown }] | undefined;
        for (const e of timers) if (e[1].at <= target && (!due || e[1].at < due[1].at)) due = e;
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        // What the timer started (a keep-alive request) finishes before time moves on.
        await due[1].fn();
      }
      now = target;
    },
  };
  return clock;
}
