import { describe, expect, it } from 'vitest';
import { timeoutSignal } from './abort.js';

describe('timeoutSignal', () => {
  it('aborts after the time limit and says it timed out', async () => {
    const d = timeoutSignal(new AbortController().signal, 20);
    await new Promise((resolve) => d.signal.addEventListener('abort', resolve, { once: true }));
    expect(d.timedOut()).toBe(true);
    d.clear();
  });

  it('aborts with the parent, without counting as a timeout', () => {
    const parent = new AbortController();
    const d = timeoutSignal(parent.signal, 60_000);
    parent.abort(new Error('stop'));
    expect(d.signal.aborted).toBe(true);
    expect(d.timedOut()).toBe(false);
    d.clear();
  });

  it('starts aborted when the parent already is, and clear() stops the timer', async () => {
    const parent = new AbortController();
    parent.abort();
    expect(timeoutSignal(parent.signal, 10).signal.aborted).toBe(true);
    const d = timeoutSignal(new AbortController().signal, 10);
    d.clear();
    await new Promise((r) => setTimeout(r, 30));
    expect(d.signal.aborted).toBe(false);
  });
});
