import { describe, expect, it } from 'vitest';
import { emptyUsage, type RunResult } from '../../kernel/index.js';
import { resultJson, streamJson, usageReport } from './format.js';

const result: RunResult = {
  sessionId: 's1', terminalReason: 'end_turn', isError: false, text: 'done', numTurns: 2, durationMs: 1200,
  usage: { ...emptyUsage(), input_tokens: 10, cache_creation_input_tokens: 2000, cache_read_input_tokens: 1500, output_tokens: 40 },
  sideUsage: { compact: { ...emptyUsage(), input_tokens: 300, output_tokens: 20 } },
  totalCostUsd: 0.10894, permissionDenials: [], numRequests: 2, model: 'claude-sonnet-4-6',
};

describe('printer figures', () => {
  it('a simulated run says so on every usage line and in the result object', () => {
    const text = usageReport(result, { simulated: true });
    expect(text).toContain('rein: simulated tokens: input 10,');
    expect(text).toContain('simulated cost $0.1089 at API prices (nothing was billed)');
    expect(text).toContain('rein: simulated side requests (compact): input 300, output 20');
    expect(resultJson(result, { simulated: true })).toMatchObject({ total_cost_usd: 0.10894, simulated: true });
    expect(streamJson({ type: 'result', result }, 's1', { simulated: true })).toMatchObject({ type: 'result', simulated: true });
  });

  it('a run against the API prints its figures plainly, with no simulated field', () => {
    const text = usageReport(result);
    expect(text).not.toMatch(/simulated/);
    expect(text).toContain('cost $0.1089');
    expect(resultJson(result)).not.toHaveProperty('simulated');
  });
});
