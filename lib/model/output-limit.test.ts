/**
 * Every `max_tokens` rein sends is capped at the model's output limit (lib/model/models.ts): the
 * escalation after a reply cut by max_tokens, a preset's own maxTokens, and side requests. The
 * simulator refuses a larger value as the API does, so an uncapped request fails these runs.
 */
import { describe, expect, it } from 'vitest';
import { startAgent } from '../../testing/agent.js';
import { useTestEnv } from '../../testing/env.js';
import { fitRequestToModel, maxOutputTokens } from './models.js';

const env = useTestEnv({ prefix: 'rein-maxout-' });

const CUT_THEN_DONE = `
turns:
  - reply: [{ text: "A long answer that was cut" }]
    stop_reason: max_tokens
  - reply: [{ text: "The whole answer." }]
`;

describe('max_tokens and the model output limit', () => {
  it('the escalation after a reply cut by max_tokens goes to the model limit (32,000 for Opus 4.1), not 64,000', async () => {
    const rig = await startAgent({ cwd: env.dir, preset: { name: 'opus41', model: { name: 'claude-opus-4-1', maxTokens: 8000 } }, scenario: CUT_THEN_DONE });
    try {
      const { events, result } = await rig.run('Write it all.');
      expect(result.terminalReason).toBe('end_turn');
      expect(result.text).toBe('The whole answer.');
      expect(rig.requests().map((r) => r.body.max_tokens)).toEqual([8000, 32000]);
      expect(events).toContainEqual(expect.objectContaining({ type: 'transition', transition: expect.objectContaining({ reason: 'max_output_tokens_escalate', detail: 'max_tokens 8000 → 32000' }) }));
    } finally {
      await rig.close();
    }
  });

  it('a preset maxTokens above the limit is sent as the limit, and no escalation follows a cut at the limit', async () => {
    const rig = await startAgent({ cwd: env.dir, preset: { name: 'haiku35', model: { name: 'claude-3-5-haiku-20241022', maxTokens: 100_000 } }, scenario: CUT_THEN_DONE });
    try {
      const { events, result } = await rig.run('Write it all.');
      expect(result.terminalReason).toBe('end_turn');
      // The cut reply is kept and resumed (no escalation: the request was already at the limit).
      expect(rig.requests().map((r) => r.body.max_tokens)).toEqual([8192, 8192]);
      expect(events).toContainEqual({ type: 'notice', level: 'info', source: 'model', message: "max_tokens 100000 is over claude-3-5-haiku-20241022's output limit: sending 8192" });
      expect(events.some((e) => e.type === 'transition' && e.transition.reason === 'max_output_tokens_escalate')).toBe(false);
    } finally {
      await rig.close();
    }
  });

  it('side requests are capped too: a 20,000-token summary request to Haiku 3 is sent with 4,096', async () => {
    const rig = await startAgent({
      cwd: env.dir,
      preset: { name: 'haiku3', model: { name: 'claude-3-haiku-20240307', maxTokens: 4096 }, plugins: { 'compaction/auto': { summaryMaxTokens: 20_000 } } },
      scenario: 'turns:\n  - reply: [{ text: "First answer." }]\n  - reply: [{ text: "Second answer." }]\n',
    });
    try {
      await rig.run('Tell me something.');
      await rig.run('And something else.');
      // (The history is too short for the summary to save anything; the request is what counts here.)
      await rig.agent.kernel.compact();
      const compact = rig.requests().find((r) => r.source === 'compact')!;
      expect(compact.status).toBe(200);
      expect(compact.body.max_tokens).toBe(4096);
    } finally {
      await rig.close();
    }
  });

  it('the table: unknown models are sent as configured; effort and adaptive thinking are fitted', () => {
    expect(maxOutputTokens('claude-opus-4-1-20250805')).toBe(32_000);
    expect(maxOutputTokens('some-other-model')).toBeUndefined();
    const unknown = { model: 'some-other-model', max_tokens: 500_000, messages: [] };
    expect(fitRequestToModel(unknown).params).toBe(unknown);
    const opus45 = fitRequestToModel({ model: 'claude-opus-4-5', max_tokens: 1000, messages: [], thinking: { type: 'adaptive' }, output_config: { effort: 'max' } } as never);
    expect(opus45.params).toEqual({ model: 'claude-opus-4-5', max_tokens: 1000, messages: [], output_config: { effort: 'high' } });
    const sonnet45 = fitRequestToModel({ model: 'claude-sonnet-4-5', max_tokens: 1000, messages: [], output_config: { effort: 'high' } } as never);
    expect(sonnet45.params).toEqual({ model: 'claude-sonnet-4-5', max_tokens: 1000, messages: [] });
  });
});
