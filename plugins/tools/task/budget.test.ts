import { describe, expect, it } from 'vitest';
import { BudgetGate } from './budget.js';

describe('BudgetGate', () => {
  it('admits requests together while their largest cost fits, one at a time near the budget, none once it is spent', async () => {
    let spent = 0;
    const gate = new BudgetGate(() => spent, 1);
    const signal = new AbortController().signal;
    expect(await gate.admit(signal)).toBe('go');
    spent += 0.3;
    gate.done(0.3);
    // 0.3 spent, largest 0.3: two requests fit (0.3 + 2 × 0.3 < 1), a third would not.
    expect(await gate.admit(signal)).toBe('go');
    expect(await gate.admit(signal)).toBe('go');
    let third = false;
    const waiting = gate.admit(signal).then((a) => { third = true; return a; });
    await Promise.resolve();
    expect(third).toBe(false);
    spent += 0.3;
    gate.done(0.3);
    // 0.6 spent, one in flight: 0.6 + 2 × 0.3 ≥ 1, still waiting.
    await Promise.resolve();
    expect(third).toBe(false);
    spent += 0.3;
    gate.done(0.3);
    expect(await waiting).toBe('go');
    spent += 0.3;
    gate.done(0.3);
    expect(gate.exhausted()).toBe(true);
    expect(await gate.admit(signal)).toBe('exhausted');
    expect(gate.describe()).toBe('spent $1.2000 of $1');
  });

  it('stops waiting when the run is aborted', async () => {
    const gate = new BudgetGate(() => 0.5, 1);
    const ac = new AbortController();
    expect(await gate.admit(ac.signal)).toBe('go');
    gate.done(0.4);
    expect(await gate.admit(ac.signal)).toBe('go');
    const waiting = gate.admit(ac.signal);
    ac.abort();
    expect(await waiting).toBe('aborted');
  });
});
