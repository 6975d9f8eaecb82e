import { describe, expect, it } from 'vitest';
import { costUsd, priceFor } from './pricing.js';

describe('price table', () => {
  it('matches date-suffixed ids by prefix and derives the cache columns', () => {
    expect(priceFor('claude-sonnet-4-5-20250929')).toMatchObject({ family: 'sonnet-4', known: true, price: { input: 3, output: 15, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.3 } });
    expect(priceFor('claude-opus-4-1-20250805').price.input).toBe(15);
    expect(priceFor('claude-opus-4-5-20251101').price).toMatchObject({ input: 5, output: 25 });
    expect(priceFor('claude-opus-4-8[1m]').family).toBe('opus-4.5+');
    expect(priceFor('claude-haiku-4-5-20251001').price).toMatchObject({ input: 1, output: 5 });
    expect(priceFor('claude-3-5-haiku-20241022').price).toMatchObject({ input: 0.8, output: 4 });
  });

  it('costs each usage class at its rate', () => {
    const c = costUsd('claude-sonnet-4-5', {
      input_tokens: 1_000_000, output_tokens: 100_000,
      cache_creation_input_tokens: 300_000, cache_read_input_tokens: 2_000_000,
      cache_creation: { ephemeral_5m_input_tokens: 200_000, ephemeral_1h_input_tokens: 100_000 },
    });
    // 3 + 1.5 + 0.75 + 0.6 + 0.6, but the total exceeds 200K input tokens: long-context rates (input ×2, output ×1.5).
    expect(c.longContext).toBe(true);
    const expected = { input: 6, output: 2.25, cacheWrite5m: 1.5, cacheWrite1h: 1.2, cacheRead: 1.2 };
    for (const [k, v] of Object.entries(expected)) expect(c.breakdown[k as keyof typeof expected]).toBeCloseTo(v, 10);
    expect(c.usd).toBeCloseTo(12.15, 10);
  });

  it('without the 5m/1h split every write is a 5-minute write; short prompts use base rates', () => {
    const c = costUsd('claude-haiku-4-5', { input_tokens: 10_000, output_tokens: 1_000, cache_creation_input_tokens: 20_000, cache_read_input_tokens: 50_000 });
    const expected = { input: 0.01, output: 0.005, cacheWrite5m: 0.025, cacheWrite1h: 0, cacheRead: 0.005 };
    for (const [k, v] of Object.entries(expected)) expect(c.breakdown[k as keyof typeof expected]).toBeCloseTo(v, 12);
    expect(c.longContext).toBe(false);
  });

  it('unknown models are priced as Sonnet and flagged', () => {
    const c = costUsd('gpt-9', { input_tokens: 1_000_000, output_tokens: 0 });
    expect(c).toMatchObject({ known: false, family: 'unknown', usd: 3 });
  });
});
