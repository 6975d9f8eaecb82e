import { describe, expect, it } from 'vitest';
import { emptyUsage, type RunResult } from '../../kernel/index.js';
import { StreamFormatter, usageReport, type SessionInfo } from './format.js';

const result: RunResult = {
  sessionId: 's1', terminalReason: 'end_turn', isError: false, text: 'done', numTurns: 2, durationMs: 1200,
  usage: { ...emptyUsage(), input_tokens: 10, cache_creation_input_tokens: 2000, cache_read_input_tokens: 1500, output_tokens: 40 },
  sideUsage: { compact: { ...emptyUsage(), input_tokens: 300, output_tokens: 20 } },
  totalCostUsd: 0.10894, permissionDenials: [], numRequests: 2, model: 'claude-sonnet-4-6',
};

/** A formatter for session s1; `simulated` as rein's simulator or the API serves the run. */
function formatter(simulated?: boolean): StreamFormatter {
  const info: SessionInfo = {
    permissionMode: () => 'default', mcpServers: () => [], agents: () => [],
    limits: () => ({ contextWindow: 200_000, maxOutputTokens: 32_000 }), apiKeySource: 'none', version: '0.0.0', simulated,
  };
  return new StreamFormatter(() => 's1', info);
}

describe('printer figures', () => {
  it('a simulated run says so on every usage line and in the result object', () => {
    const text = usageReport(result, { simulated: true });
    expect(text).toContain('rein: simulated tokens: input 10,');
    expect(text).toContain('simulated cost $0.1089 at API prices (nothing was billed)');
    expect(text).toContain('rein: simulated side requests (compact): input 300, output 20');
    expect(formatter(true).result(result)).toMatchObject({ total_cost_usd: 0.10894, simulated: true });
    expect(formatter(true).line({ type: 'result', result })).toMatchObject({ type: 'result', session_id: 's1', simulated: true });
  });

  it('a run against the API prints its figures plainly, with no simulated field', () => {
    const text = usageReport(result);
    expect(text).not.toMatch(/simulated/);
    expect(text).toContain('cost $0.1089');
    expect(formatter().result(result)).not.toHaveProperty('simulated');
  });
});
