import { describe, expect, it } from 'vitest';
import { CALIBRATED_COUNTER } from '../../lib/tokens/counter.js';
import { detectEvents, recordedBreakCauses, recordedPrefix, RECORDED_CAUSES } from './events.js';
import { newStats, type RecordedUsage, type Workload, type WorkloadStep } from './types.js';

const T0 = Date.UTC(2025, 10, 1);
const S = 1000;

/** One recorded request: its prompt (when it starts a turn), usage and time. */
function step(index: number, at: number, u: Partial<RecordedUsage> & { prompt?: string }, extra: Partial<WorkloadStep> = {}): WorkloadStep {
  return {
    index, at: T0 + at, model: 'claude-sonnet-4-5', stopReason: 'end_turn', toolResults: [],
    reply: [{ type: 'text', text: 'ok' }],
    ...(u.prompt ? { prompt: [{ block: { type: 'text', text: u.prompt }, typed: true }] } : {}),
    usage: { input: u.input ?? 0, output: 10, cacheRead: u.cacheRead ?? 0, cacheWrite5m: u.cacheWrite5m ?? 0, cacheWrite1h: 0 },
    ...extra,
  };
}

function workload(steps: WorkloadStep[], timed = true): Workload {
  return { name: 'w', format: 'pi', model: 'claude-sonnet-4-5', sidechain: false, timed, notes: [], stats: newStats(), steps };
}

describe('recorded prefix', () => {
  it('is the first prompt total minus its messages; a warm first request shows the shared part', () => {
    const w = workload([step(0, 0, { prompt: 'hi', cacheRead: 12_000, cacheWrite5m: 3_000 })]);
    const p = recordedPrefix(w, CALIBRATED_COUNTER)!;
    const message = CALIBRATED_COUNTER.block({ type: 'text', text: 'hi' }, true);
    expect(p.tokens).toBe(15_000 - message);
    expect(p.sharedTokens).toBe(12_000);
  });
});

describe('client events', () => {
  it('finds a restart: a turn start within the TTL whose cache read fell to 0 below the fixed prefix (pi)', () => {
    const w = workload([
      step(0, 0, { prompt: 'a', cacheWrite5m: 2_000 }),
      step(1, 5 * S, { cacheRead: 2_000, cacheWrite5m: 8_000 }),
      step(2, 60 * S, { prompt: 'b', cacheWrite5m: 10_300 }),
      step(3, 65 * S, { cacheRead: 10_300, cacheWrite5m: 400 }),
    ]);
    const events = detectEvents(w, recordedPrefix(w, CALIBRATED_COUNTER));
    expect(events.map((e) => [e.step, e.kind])).toEqual([[2, 'restart']]);
    expect(recordedBreakCauses(w, events).get(2)).toBe(RECORDED_CAUSES.restart);
  });

  it('does not call a miss after a gap longer than the TTL a restart: that is the TTL', () => {
    const w = workload([
      step(0, 0, { prompt: 'a', cacheWrite5m: 2_000 }),
      step(1, 5 * S, { cacheRead: 2_000, cacheWrite5m: 8_000 }),
      step(2, 400 * S, { prompt: 'b', cacheWrite5m: 10_300 }),
    ]);
    const events = detectEvents(w, recordedPrefix(w, CALIBRATED_COUNTER));
    expect(events).toEqual([]);
    expect(recordedBreakCauses(w, events).get(2)).toBe('idle > 5 min (TTL)');
  });

  it('keeps a Claude Code turn start that lost only its messages apart from a restart: earlier thinking dropped', () => {
    const think = [{ type: 'thinking', thinking: 'hmm', signature: 's' }, { type: 'tool_use', id: 't', name: 'Bash', input: {} }];
    const w = workload([
      // The shared prefix (12k) was cached by other sessions; the session's system prompt ends at 14k.
      step(0, 0, { prompt: 'a', cacheRead: 12_000, cacheWrite5m: 3_000 }, { reply: think as never }),
      step(1, 5 * S, { cacheRead: 18_000, cacheWrite5m: 5_000 }),
      step(2, 30 * S, { prompt: 'b', cacheRead: 14_000, cacheWrite5m: 10_000 }),
      step(3, 40 * S, { prompt: 'c', cacheRead: 12_000, cacheWrite5m: 12_500 }),
    ]);
    const events = detectEvents(w, recordedPrefix(w, CALIBRATED_COUNTER));
    expect(events.map((e) => [e.step, e.kind])).toEqual([[3, 'restart']]);
    const causes = recordedBreakCauses(w, events);
    expect(causes.get(2)).toBe(RECORDED_CAUSES.thinkingDropped);
    expect(causes.get(3)).toBe(RECORDED_CAUSES.restart);
  });

  it('names model switches, thinking changes, a cleared context and aborted requests at their steps', () => {
    const w = workload([
      step(0, 0, { prompt: 'a', cacheWrite5m: 30_000 }),
      step(1, 5 * S, { cacheRead: 30_000, cacheWrite5m: 100 }, { model: 'claude-opus-4-5' }),
      step(2, 10 * S, { prompt: 'b', cacheRead: 5_000, cacheWrite5m: 26_000 }, { model: 'claude-opus-4-5', thinking: { type: 'enabled', budget_tokens: 2048 } }),
      step(3, 15 * S, { cacheRead: 31_000, cacheWrite5m: 200 }, { model: 'claude-opus-4-5', thinking: { type: 'enabled', budget_tokens: 2048 } }),
      step(4, 20 * S, { prompt: 'c', cacheRead: 2_000, cacheWrite5m: 1_000 }, { model: 'claude-opus-4-5', thinking: { type: 'enabled', budget_tokens: 2048 }, abortedBefore: 2 }),
    ]);
    const events = detectEvents(w, recordedPrefix(w, CALIBRATED_COUNTER));
    expect(events.map((e) => [e.step, e.kind])).toEqual([[1, 'model switch'], [2, 'thinking change'], [4, 'aborted request'], [4, 'context cleared']]);
    expect(events[0]!.detail).toBe('claude-sonnet-4-5 → claude-opus-4-5');
    const causes = recordedBreakCauses(w, events);
    expect(causes.get(2)).toBe(RECORDED_CAUSES.thinkingChange);
    expect(causes.get(4)).toBe(RECORDED_CAUSES.cleared);
  });

  it('leaves a miss with no cause it can model unexplained', () => {
    const w = workload([
      step(0, 0, { prompt: 'a', cacheWrite5m: 20_000 }),
      step(1, 5 * S, { cacheRead: 20_000, cacheWrite5m: 500 }),
      step(2, 10 * S, { cacheRead: 10_000, cacheWrite5m: 11_000 }),
    ]);
    const events = detectEvents(w, recordedPrefix(w, CALIBRATED_COUNTER));
    expect(events).toEqual([]);
    expect(recordedBreakCauses(w, events).get(2)).toBe(RECORDED_CAUSES.unexplained);
  });
});
