import { describe, expect, it } from 'vitest';
import { CacheCostModel, tokenPrices } from './cost-model.js';
import { GapModel, normalCdf, survival, waitKindOf, type GapParamSet } from './gap-model.js';
import { GAP_PARAMS } from './gap-params.js';

const SONNET = 'claude-sonnet-4-6';
// Sonnet: $3 / MTok input, $15 output; 5m write 3.75, 1h write 6, read 0.3 (USD per MTok).
const IN = 3e-6, OUT = 15e-6, W5 = 3.75e-6, W1 = 6e-6, R = 0.3e-6;

/** Gaps whose median is exactly 5 minutes (ln 300), sigma 1, for both kinds. */
const HALF_EXPIRE: GapParamSet = { fittedOn: 'test', kinds: { user: { mu: Math.log(300), sigma: 1, n: 100 }, tool: { mu: Math.log(300), sigma: 1, n: 100 } } };

describe('gap model', () => {
  it('is log-normal: half the gaps outlast the median, 15.87% outlast median × e', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1)).toBeCloseTo(0.841345, 6);
    expect(normalCdf(-1.96)).toBeCloseTo(0.024998, 5);
    const p = { mu: Math.log(60), sigma: 1, n: 10 };
    expect(survival(p, 60)).toBeCloseTo(0.5, 7);
    expect(survival(p, 60 * Math.E)).toBeCloseTo(0.158655, 5);
    const m = new GapModel({ fittedOn: 'test', kinds: { user: p, tool: p } });
    // Conditional on having waited a minute already: 0.158655 / 0.5.
    expect(m.pOver('user', 60 * Math.E, 60)).toBeCloseTo(0.317311, 5);
    expect(m.pBetween('user', 60, 60 * Math.E)).toBeCloseTo(0.5 - 0.158655, 5);
  });

  it('learns from the session: the fit counts for at most priorWeight observations', () => {
    const m = new GapModel({ fittedOn: 'test', kinds: { user: { mu: 0, sigma: 1, n: 1000 }, tool: { mu: 0, sigma: 1, n: 1000 } } }, 20);
    for (let i = 0; i < 20; i++) m.observe('user', Math.exp(2));
    // mu = (20·0 + 20·2) / 40 = 1; E[l²] = (20·(1 + 0) + 20·4) / 40 = 2.5; sigma = √(2.5 − 1).
    const p = m.params('user');
    expect(p.mu).toBeCloseTo(1, 9);
    expect(p.sigma).toBeCloseTo(Math.sqrt(1.5), 9);
    expect(p.n).toBe(1020);
    expect(m.params('tool')).toEqual({ mu: 0, sigma: 1, n: 1000 });
  });

  it('falls back to the pooled tool kind for a tool it has seen fewer than 5 times', () => {
    const m = new GapModel(HALF_EXPIRE);
    expect(m.params('tool:runtests')).toEqual(m.params('tool'));
    for (let i = 0; i < 5; i++) m.observe('tool:runtests', 10);
    expect(m.params('tool:runtests')).toEqual({ mu: Math.log(10), sigma: 0.1, n: 5 });
    // The pooled kind learned the same five gaps: (20·ln 300 + 5·ln 10) / 25.
    expect(m.params('tool').mu).toBeCloseTo((20 * Math.log(300) + 5 * Math.log(10)) / 25, 9);
  });

  it('names the wait after a reply', () => {
    expect(waitKindOf([{ type: 'text', text: 'done' }], 'end_turn')).toBe('user');
    expect(waitKindOf([{ type: 'tool_use', name: 'Bash' }], 'tool_use')).toBe('tool:bash');
    expect(waitKindOf([{ type: 'tool_use', name: 'Read' }, { type: 'tool_use', name: 'Task' }], 'tool_use')).toBe('subagent');
    // A reply cut at max_tokens runs no tool: the client waits for a person.
    expect(waitKindOf([{ type: 'tool_use', name: 'Bash' }], 'max_tokens')).toBe('user');
  });

  it('ships parameters fitted on recorded sessions, end of turn much longer than a tool call', () => {
    expect(GAP_PARAMS.kinds.user!.n).toBeGreaterThan(50);
    expect(GAP_PARAMS.kinds.tool!.n).toBeGreaterThan(500);
    expect(Math.exp(GAP_PARAMS.kinds.user!.mu)).toBeGreaterThan(5 * Math.exp(GAP_PARAMS.kinds.tool!.mu));
  });
});

describe('cost model', () => {
  it('prices tokens from the pricing table', () => {
    const p = tokenPrices(SONNET);
    expect(p.input).toBeCloseTo(IN, 12);
    expect(p.output).toBeCloseTo(OUT, 12);
    expect(p.write5m).toBeCloseTo(W5, 12);
    expect(p.write1h).toBeCloseTo(W1, 12);
    expect(p.read).toBeCloseTo(R, 12);
  });

  it('a keep-alive at 4.5 minutes before a request at 6: one read and one output token instead of a re-write', () => {
    const m = new CacheCostModel(new GapModel(HALF_EXPIRE));
    // 10,000 × 0.3e-6 + 15e-6 = 0.003015
    expect(m.keepAliveCost(SONNET, 10_000)).toBeCloseTo(0.003015, 9);
    // With: 0.003015 + a read at 6 minutes (0.003); without: a write (0.0375). Difference −0.031485.
    expect(m.keepAliveOutcome(SONNET, { prefixTokens: 10_000, ttl: '5m', keepAliveAtSeconds: [270], nextRequestAtSeconds: 360 })).toBeCloseTo(-0.031485, 9);
    // A request within the TTL needs none: the keep-alive is pure cost.
    expect(m.keepAliveOutcome(SONNET, { prefixTokens: 10_000, ttl: '5m', keepAliveAtSeconds: [270], nextRequestAtSeconds: 280 })).toBeCloseTo(0.003015, 9);
    // A request after the refreshed entry expired too (at 270 + 300): the keep-alive bought nothing.
    expect(m.keepAliveOutcome(SONNET, { prefixTokens: 10_000, ttl: '5m', keepAliveAtSeconds: [270], nextRequestAtSeconds: 600 })).toBeCloseTo(0.003015, 9);
  });

  it('expects a keep-alive to pay by the chance the next request falls between the two expiries', () => {
    const m = new CacheCostModel(new GapModel(HALF_EXPIRE));
    const e = m.keepAlive(SONNET, { prefixTokens: 10_000, ttl: '5m', elapsedSeconds: 270, kind: 'user' });
    const s = (x: number) => 1 - normalCdf(Math.log(x / 300));
    const pNeeded = (s(300) - s(570)) / s(270);
    expect(e.pNeeded).toBeCloseTo(pNeeded, 9);
    expect(e.savingUsd).toBeCloseTo(pNeeded * 10_000 * (W5 - R), 12);
    expect(e.netUsd).toBeCloseTo(pNeeded * 10_000 * (W5 - R) - 0.003015, 12);
  });

  it('prices a rewrite: free when the cache is cold, the rewritten suffix at write − read when warm', () => {
    const m = new CacheCostModel(new GapModel(HALF_EXPIRE));
    // Cold: nothing extra to write; the 10,000 removed tokens are not written now (10,000 × 3.75e-6).
    expect(m.rewrite(SONNET, { tokensRewritten: 50_000, tokensRemoved: 10_000, remainingRequests: 0, cold: true })).toEqual({ costUsd: 0, savingUsd: expect.closeTo(0.0375, 9), netUsd: expect.closeTo(0.0375, 9) });
    // Warm: 50,000 × (3.75 − 0.3)e-6 = 0.1725 now; saving 10,000 × 0.3e-6 now plus, on 2 later
    // requests, a read each and a re-write after each expiry (p = 0.5): 20,000 × (0.3 + 0.5 × 3.45)e-6.
    const warm = m.rewrite(SONNET, { tokensRewritten: 50_000, tokensRemoved: 10_000, remainingRequests: 2, cold: false });
    expect(warm.costUsd).toBeCloseTo(0.1725, 9);
    expect(warm.savingUsd).toBeCloseTo(0.003 + 0.0405, 9);
    expect(warm.netUsd).toBeCloseTo(-0.129, 9);
  });

  it('chooses a 1-hour TTL when enough gaps are expected past 5 minutes and within the hour', () => {
    const m = new CacheCostModel(new GapModel(HALF_EXPIRE));
    // p5 = 0.5; p1 = 1 − Φ(ln 12) ≈ 0.006479. Extra now: 10,000 × 2.25e-6 = 0.0225.
    const p1 = 1 - normalCdf(Math.log(12));
    expect(p1).toBeCloseTo(0.006479, 5);
    const one = m.ttl(SONNET, { tokens: 10_000, kind: 'user', remainingGaps: 1 });
    expect(one.costUsd).toBeCloseTo(0.0225, 9);
    expect(one.savingUsd).toBeCloseTo(10_000 * (0.5 * 3.45e-6 - p1 * 5.7e-6), 9);
    expect(one.choose).toBe('5m'); // 0.01725 − 0.00037 < 0.0225
    expect(m.ttl(SONNET, { tokens: 10_000, kind: 'user', remainingGaps: 2 }).choose).toBe('1h'); // 0.0338 > 0.0225
    // Tool calls of a few seconds never outlive 5 minutes: 1h only costs.
    const quick = new CacheCostModel(new GapModel({ fittedOn: 'test', kinds: { user: HALF_EXPIRE.kinds.user!, tool: { mu: Math.log(5), sigma: 0.5, n: 100 } } }));
    expect(quick.ttl(SONNET, { tokens: 10_000, kind: 'tool', remainingGaps: 50 }).choose).toBe('5m');
  });

  it('expects the rest of a session to be as long as what has passed, at least 4 requests', () => {
    const m = new CacheCostModel();
    expect(m.expectedRemainingRequests(1)).toBe(4);
    expect(m.expectedRemainingRequests(30)).toBe(30);
  });
});
