import { describe, expect, it } from 'vitest';
import { BREAK_CAUSES, replayBreakCause, ttlCause, type PromptShape } from './breaks.js';

const MINUTE = 60_000;

function shape(at: number, hashes: number[], ttl?: '5m' | '1h'): PromptShape {
  return { model: 'claude-sonnet-4-5', at, blocks: hashes.map((hash, i) => ({ hash, level: i < 2 ? 'tools' : 'messages' })), ...(ttl ? { ttl } : {}) };
}

describe('break causes of a replay', () => {
  it('an idle gap is a TTL cause only when it exceeds the TTL the previous prompt was cached with', () => {
    expect(ttlCause(10 * MINUTE)).toBe(BREAK_CAUSES.ttl5m);
    expect(ttlCause(10 * MINUTE, '5m')).toBe(BREAK_CAUSES.ttl5m);
    expect(ttlCause(10 * MINUTE, '1h')).toBeUndefined();
    expect(ttlCause(61 * MINUTE, '1h')).toBe(BREAK_CAUSES.ttl1h);
    expect(ttlCause(4 * MINUTE, '5m')).toBeUndefined();
  });

  it('a miss after 10 idle minutes with 1-hour markers, the prompt only grown, is the lookback, not the TTL', () => {
    const prev = shape(0, [1, 2, 3, 4], '1h');
    const cur = shape(10 * MINUTE, [1, 2, 3, 4, 5, 6], '1h');
    expect(replayBreakCause(prev, cur, { compaction: false, contextEdit: false })).toBe(BREAK_CAUSES.lookback);
    const prev5m = shape(0, [1, 2, 3, 4], '5m');
    expect(replayBreakCause(prev5m, cur, { compaction: false, contextEdit: false })).toBe(BREAK_CAUSES.ttl5m);
  });

  it('a changed message is a context edit, compaction or history change whatever the gap', () => {
    const prev = shape(0, [1, 2, 3, 4], '5m');
    const cur = shape(10 * MINUTE, [1, 2, 3, 9, 5], '5m');
    expect(replayBreakCause(prev, cur, { compaction: false, contextEdit: true })).toBe(BREAK_CAUSES.contextEdit);
    expect(replayBreakCause(prev, cur, { compaction: true, contextEdit: false })).toBe(BREAK_CAUSES.compaction);
    expect(replayBreakCause(prev, cur, { compaction: false, contextEdit: false })).toBe(BREAK_CAUSES.history);
  });
});
