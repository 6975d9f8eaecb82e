import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../kernel/index.js';
import { isBreak, judge, MIN_ABSOLUTE_DROP_TOKENS, MIN_RELATIVE_DROP, type DetectorState } from './detect.js';
import { createFingerprinter, compareFingerprints, fingerprint } from './fingerprint.js';

const o = { minRelativeDrop: MIN_RELATIVE_DROP, minAbsoluteDropTokens: MIN_ABSOLUTE_DROP_TOKENS };

function req(over: Partial<ModelRequest> & Record<string, unknown> = {}): ModelRequest {
  return {
    model: 'claude-sonnet-4-6',
    max_tokens: 1000,
    system: [{ type: 'text', text: 'static part', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'dynamic part' }],
    tools: [
      { name: 'Read', description: 'reads', input_schema: { type: 'object' } },
      { name: 'Grep', description: 'greps', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } },
    ],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
    ...over,
  } as ModelRequest;
}

describe('isBreak', () => {
  it('needs a drop of more than 5% and at least 2,000 tokens', () => {
    expect(isBreak(100_000, 96_000)).toBe(false);
    expect(isBreak(30_000, 27_000)).toBe(true);
    expect(isBreak(10_000, 8_500)).toBe(false);
    expect(isBreak(100_000, 94_000)).toBe(true);
  });
});

describe('compareFingerprints', () => {
  it('names a TTL flip alone as a cache_control change', () => {
    const a = fingerprint(req());
    const b = fingerprint(req({ system: [{ type: 'text', text: 'static part', cache_control: { type: 'ephemeral', ttl: '1h' } }, { type: 'text', text: 'dynamic part' }] }));
    expect(compareFingerprints(a, b).map((c) => c.text)).toEqual(['cache_control changed (TTL 5m → 1h)']);
  });
  it('does not name the marker flip separately when the system text changed too', () => {
    const a = fingerprint(req());
    const b = fingerprint(req({ system: [{ type: 'text', text: 'static part!', cache_control: { type: 'ephemeral', ttl: '1h' } }, { type: 'text', text: 'dynamic part' }] }));
    expect(compareFingerprints(a, b).map((c) => c.part)).toEqual(['system']);
    expect(compareFingerprints(a, b)[0]!.text).toBe('system prompt changed (+1 chars)');
  });
  it('names the one tool whose definition changed, and MCP tools as mcp', () => {
    const a = fingerprint(req());
    const tools = [{ name: 'Read', description: 'reads files', input_schema: { type: 'object' } }, { name: 'Grep', description: 'greps', input_schema: { type: 'object' } }];
    expect(compareFingerprints(a, fingerprint(req({ tools } as never)))[0]!.text).toBe('tools changed (definition changed: Read)');
    const more = [...(req().tools as object[]), { name: 'mcp__srv__secret_path', description: 'x', input_schema: { type: 'object' } }];
    expect(compareFingerprints(a, fingerprint(req({ tools: more } as never)))[0]!.text).toBe('tools changed (+mcp)');
  });
  it('ignores a moving tail marker and conversation growth, but not a rewritten message', () => {
    const a = fingerprint(req({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hello', cache_control: { type: 'ephemeral' } }] }] }));
    const grown = fingerprint(req({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }, { role: 'assistant', content: [{ type: 'text', text: 'hi' }] }, { role: 'user', content: [{ type: 'text', text: 'more', cache_control: { type: 'ephemeral' } }] }] }));
    expect(compareFingerprints(a, grown)).toEqual([]);
    const rewritten = fingerprint(req({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hello!' }] }, { role: 'assistant', content: [{ type: 'text', text: 'hi' }] }, { role: 'user', content: [{ type: 'text', text: 'more' }] }] }));
    expect(compareFingerprints(grown, rewritten)).toEqual([{ part: 'messages', index: 0, text: 'messages changed from message 0 (user) on: the history was rewritten' }]);
  });
  it('a previous request whose last message alone differs: that request\'s own form of it, not a rewrite (also from a record)', () => {
    const msgs = (last: string) => [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }, { role: 'assistant', content: [{ type: 'text', text: 'hi' }] }, { role: 'user', content: [{ type: 'text', text: last }] }];
    const fp = createFingerprinter();
    const withNote = fp(req({ messages: msgs('results\n\nthe last turn: answer now') } as never));
    const recorded = { ...withNote, messages: undefined, messageCount: 3, messagesDigest: fp.digest, messagesPrefixDigest: fp.prefixDigest };
    const after = fingerprint(req({ messages: [...msgs('results'), { role: 'assistant', content: [{ type: 'text', text: 'answer' }] }] } as never));
    const text = 'message 2 (user) differs from the previous request\'s last message: that request sent it in a form of its own (such as a note for that request only), or it was rewritten since';
    expect(compareFingerprints(fingerprint(req({ messages: msgs('results\n\nthe last turn: answer now') } as never)), after)).toEqual([{ part: 'messages', index: 2, text }]);
    expect(compareFingerprints(recorded, after)).toEqual([{ part: 'messages', index: 2, text }]);
    // A record without the prefix digest (written before it was kept): the old wording.
    const { messagesPrefixDigest: _p, ...older } = recorded;
    expect(compareFingerprints(older, after)).toEqual([{ part: 'messages', text: 'messages changed since the last recorded request: the history was rewritten' }]);
  });
  it('names model, betas, thinking and effort changes', () => {
    const a = fingerprint(req({ betas: ['b1'] }));
    const b = fingerprint(req({ model: 'claude-opus-4-6', betas: ['b2'], thinking: { type: 'adaptive' }, output_config: { effort: 'low' } } as never));
    expect(compareFingerprints(a, b).map((c) => c.part)).toEqual(['model', 'betas', 'thinking', 'effort']);
    expect(compareFingerprints(a, b)[1]!.text).toBe('betas changed (+b2 −b1)');
  });
});

describe('judge', () => {
  const fp = fingerprint(req());
  const base: DetectorState = { prev: fp, prevCached: 30_000, prevAt: 1_000_000 };
  it('reports no break for a small drop, a break for a large one', () => {
    expect(judge(base, { fp, read: 29_000, written: 0, sentAt: 1_010_000, serverCleared: 0 }, o)).toEqual({ kind: 'ok' });
    expect(judge(base, { fp, read: 27_000, written: 0, sentAt: 1_010_000, serverCleared: 0 }, o)).toMatchObject({ kind: 'break', cause: 'server', drop: 3_000 });
  });
  it('blames a client change when a part changed', () => {
    const changed = fingerprint(req({ model: 'claude-opus-4-6' }));
    expect(judge(base, { fp: changed, read: 0, written: 0, sentAt: 1_010_000, serverCleared: 0 }, o)).toMatchObject({ kind: 'break', cause: 'client', reason: 'model changed (claude-sonnet-4-6 → claude-opus-4-6)' });
  });
  it('attributes an unchanged prompt to TTL expiry by the gap and the TTL of the markers', () => {
    expect(judge(base, { fp, read: 0, written: 0, sentAt: 1_000_000 + 7 * 60_000, serverCleared: 0 }, o)).toMatchObject({ cause: 'ttl', reason: '5-minute TTL expired (prompt unchanged, 7.0 min since the previous response)' });
    expect(judge(base, { fp, read: 0, written: 0, sentAt: 1_000_000 + 2 * 60_000, serverCleared: 0 }, o)).toMatchObject({ cause: 'server' });
    const hour = fingerprint(req({ system: [{ type: 'text', text: 'static part', cache_control: { type: 'ephemeral', ttl: '1h' } }, { type: 'text', text: 'dynamic part' }] }));
    const s1h: DetectorState = { prev: hour, prevCached: 30_000, prevAt: 0 };
    expect(judge(s1h, { fp: hour, read: 0, written: 0, sentAt: 30 * 60_000, serverCleared: 0 }, o)).toMatchObject({ cause: 'server' });
    expect(judge(s1h, { fp: hour, read: 0, written: 0, sentAt: 70 * 60_000, serverCleared: 0 }, o)).toMatchObject({ cause: 'ttl', reason: expect.stringMatching(/^1-hour TTL expired/) });
  });
  it('does not report announced drops: compaction resets, deletion and server edits are expected', () => {
    expect(judge({ ...base, pending: { kind: 'compaction', source: 'compaction/auto' } }, { fp, read: 0, written: 0, sentAt: 1_001_000, serverCleared: 0 }, o)).toMatchObject({ kind: 'expected' });
    expect(judge({ ...base, pending: { kind: 'deletion', source: 'compaction/microcompact' } }, { fp, read: 0, written: 0, sentAt: 1_001_000, serverCleared: 0 }, o)).toMatchObject({ kind: 'expected', reason: 'content cleared by compaction/microcompact' });
    expect(judge(base, { fp, read: 0, written: 0, sentAt: 1_001_000, serverCleared: 5_000 }, o)).toMatchObject({ kind: 'expected' });
    expect(judge({ prevCached: null }, { fp, read: 0, written: 0, sentAt: 0, serverCleared: 0 }, o)).toEqual({ kind: 'first' });
  });
});
