import { describe, expect, it } from 'vitest';
import { ReplayTimers } from './timers.js';

describe('ReplayTimers', () => {
  it('fires a cache timer when the replay reaches its time on the recording\'s clock, reading the timer\'s time while it runs', async () => {
    let base = 1_000_000;
    const timers = new ReplayTimers(() => base);
    const seen: number[] = [];
    timers.clock.setTimer(() => { seen.push(timers.clock.now()); }, 270_000);
    timers.clock.setTimer(() => { seen.push(timers.clock.now()); }, 100_000);
    const cleared = timers.clock.setTimer(() => { seen.push(-1); }, 50_000);
    timers.clock.clear(cleared);
    await timers.runUntil(base + 200_000);
    expect(seen).toEqual([1_100_000]);
    base = 1_360_000;
    await timers.runUntil(base);
    expect(seen).toEqual([1_100_000, 1_270_000]);
    expect(timers.firing).toBeUndefined();
    expect(timers.clock.now()).toBe(1_360_000);
  });

  it('runs a timer set by a timer (the next refresh) in the same pass when it is due', async () => {
    const timers = new ReplayTimers(() => 0);
    const seen: number[] = [];
    const refresh = () => { seen.push(timers.clock.now()); if (seen.length < 3) timers.clock.setTimer(refresh, 270_000); };
    timers.clock.setTimer(refresh, 270_000);
    await timers.runUntil(700_000);
    expect(seen).toEqual([270_000, 540_000]);
  });
});
