import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../load.js';
import { importPiSession } from './pi.js';

const pi = fileURLToPath(new URL('../../../../shared/traces/pi__badlogic-pi-mono/', import.meta.url));

describe('pi session importer (real sessions)', () => {
  it('reads the compaction that shares a line with a message (concatenated objects)', async () => {
    const file = join(pi, 'before-compaction.jsonl');
    expect(await detectFormat(file)).toBe('pi');
    const w = await importPiSession(file);
    expect(w.stats.malformed).toBe(0);
    // The traces README: 484 requests, 471 billed; the 13 aborted or failed ones have zero usage.
    expect(w.steps).toHaveLength(471);
    expect(w.stats.skipped['aborted request with zero usage and no content (not replayed)']).toBe(12);
    expect(w.stats.skipped['error request with zero usage and no content (not replayed)']).toBe(1);
    const compacted = w.steps.filter((s) => s.compactionBefore);
    expect(compacted.map((s) => s.compactionBefore!.tokensBefore)).toEqual([175_004, 185_014]);
    expect(compacted.every((s) => (s.compactionBefore!.summary ?? '').length > 1000)).toBe(true);
    expect(w.model).toBe('claude-opus-4-5');
  });

  it('maps toolCall, thinking and usage to the Messages API shapes', async () => {
    const w = await importPiSession(join(pi, 'session.jsonl'));
    expect(w.steps).toHaveLength(214);
    const first = w.steps[0]!;
    expect(first.prompt![0]!.typed).toBe(true);
    expect(first.reply[1]).toMatchObject({ type: 'tool_use', name: 'read', id: 'toolu_01Eiija7gxqTyYUmbwqxVfUJ' });
    expect(first.toolResults[0]!.toolUseId).toBe('toolu_01Eiija7gxqTyYUmbwqxVfUJ');
    expect(first.usage).toEqual({ input: 3, output: 88, cacheRead: 0, cacheWrite5m: 4442, cacheWrite1h: 0 });
    expect(w.steps.some((s) => s.reply.some((b) => b.type === 'thinking'))).toBe(true);
    // The one compaction is the last entry (on the line it shares with the message before it).
    expect(w.notes.join(' ')).toMatch(/compaction after the last request/);
    // pi's own per-message prices add up to the README's $19.97 with rein's table too.
    const tokens = w.steps.reduce((a, s) => a + (s.usage ? s.usage.input + s.usage.cacheRead + s.usage.cacheWrite5m : 0), 0);
    expect(tokens).toBe(1568 + 25_283_499 + 982_512);
  });

  it('counts thinking-level and model changes as settings entries, applied to the requests after them', async () => {
    const w = await importPiSession(join(pi, 'large-session.jsonl'));
    expect(w.steps).toHaveLength(439);
    expect(w.stats.skipped['settings change (thinking_level_change: applied to the requests after it)']).toBe(103);
    expect(w.stats.skipped['settings change (model_change: each request keeps the model that answered it)']).toBe(1);
  });
});
