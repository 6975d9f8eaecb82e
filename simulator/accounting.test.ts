import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountRequest, LOOKBACK_BLOCKS } from './accounting.js';
import { PromptCache } from './cache.js';
import { SimulatorApiError } from './errors.js';
import { minCacheableTokens } from './models.js';
import type { PrefixRequest } from './prefix.js';
import { assistant, EPHEMERAL, marked, ONE_HOUR, text, tool, user } from './test-support.js';

const MIN = 1024; // claude-sonnet-4-5
const MINUTE = 60_000;

function run(cache: PromptCache, req: PrefixRequest, now = 0, min = MIN) {
  return accountRequest(cache, req, { now, minCacheableTokens: min });
}

function usage(u: { input: number; write5m?: number; write1h?: number; read?: number }) {
  const w5 = u.write5m ?? 0;
  const w1 = u.write1h ?? 0;
  return {
    input_tokens: u.input,
    cache_creation_input_tokens: w5 + w1,
    cache_read_input_tokens: u.read ?? 0,
    cache_creation: { ephemeral_5m_input_tokens: w5, ephemeral_1h_input_tokens: w1 },
  };
}

const model = 'claude-sonnet-4-5';

describe('cache accounting: writes and reads', () => {
  it('writes the prefix up to a breakpoint, then reads it; input_tokens is what follows the breakpoint', () => {
    const cache = new PromptCache();
    const req: PrefixRequest = { model, system: [text(2000, 's', EPHEMERAL)], messages: [user(text(10))] };
    expect(run(cache, req).usage).toEqual(usage({ input: 10, write5m: 2000 }));
    expect(run(cache, req, 1000).usage).toEqual(usage({ input: 10, read: 2000 }));
  });

  it('with no breakpoint nothing is cached and everything is input', () => {
    const cache = new PromptCache();
    const req: PrefixRequest = { model, system: [text(3000)], messages: [user(text(10))] };
    expect(run(cache, req).usage).toEqual(usage({ input: 3010 }));
    expect(run(cache, req).usage).toEqual(usage({ input: 3010 }));
  });

  it('a string system prompt and string content are one block each', () => {
    const cache = new PromptCache();
    const req: PrefixRequest = { model, system: 'x'.repeat(8000), messages: [{ role: 'user', content: 'y'.repeat(40) }] };
    const r = run(cache, req);
    expect(r.totalTokens).toBe(2010);
    expect(r.blockCount).toBe(2);
  });
});

describe('breakpoint limit', () => {
  const five = (auto: boolean): PrefixRequest => ({
    model,
    tools: [tool('A', 100, EPHEMERAL), tool('B', 100, EPHEMERAL)],
    system: [text(100, 's', EPHEMERAL)],
    messages: [user(text(100, 'u', EPHEMERAL), text(100, 'v', auto ? undefined : EPHEMERAL))],
    ...(auto ? { cache_control: EPHEMERAL } : {}),
  });

  it('five explicit breakpoints are a 400 invalid_request_error', () => {
    const err = (() => { try { run(new PromptCache(), five(false)); } catch (e) { return e; } })();
    expect(err).toBeInstanceOf(SimulatorApiError);
    expect((err as SimulatorApiError).status).toBe(400);
    expect((err as SimulatorApiError).errorType).toBe('invalid_request_error');
    expect((err as SimulatorApiError).message).toBe('A maximum of 4 blocks with cache_control may be provided. Found 5.');
  });

  it('four explicit plus automatic caching is five, also a 400', () => {
    expect(() => run(new PromptCache(), five(true))).toThrow('Found 5.');
  });

  it('four explicit breakpoints are accepted', () => {
    const req = five(false);
    (req.messages[0]!.content as any[])[1] = text(100, 'v');
    expect(run(new PromptCache(), req).breakpoints).toHaveLength(4);
  });
});

describe('20-block lookback', () => {
  // system (no marker) 2000 tokens; first request caches system + 1 message block at block 1.
  const base = [text(100, 'u', EPHEMERAL)];
  const first: PrefixRequest = { model, system: [text(2000)], messages: [user(...base)] };
  const extended = (extra: number): PrefixRequest => {
    const blocks = [text(100, 'u'), ...Array.from({ length: extra }, (_, i) => text(10, String.fromCharCode(98 + (i % 20))))];
    blocks[blocks.length - 1] = marked(blocks[blocks.length - 1]!);
    return { model, system: [text(2000)], messages: [user(...blocks)] };
  };

  it(`a breakpoint ${LOOKBACK_BLOCKS} blocks after the cached prefix finds it`, () => {
    const cache = new PromptCache();
    expect(run(cache, first).usage).toEqual(usage({ input: 0, write5m: 2100 }));
    const r = run(cache, extended(20));
    expect(r.readBlock).toBe(1);
    expect(r.usage).toEqual(usage({ input: 0, read: 2100, write5m: 200 }));
  });

  it(`a breakpoint ${LOOKBACK_BLOCKS + 1} blocks after the cached prefix misses it`, () => {
    const cache = new PromptCache();
    run(cache, first);
    const r = run(cache, extended(21));
    expect(r.readBlock).toBeNull();
    expect(r.usage).toEqual(usage({ input: 0, write5m: 2310 }));
  });

  it('an intermediate breakpoint rescues a wide turn', () => {
    const cache = new PromptCache();
    run(cache, first);
    const req = extended(30);
    const blocks = req.messages[0]!.content as any[];
    blocks[15] = marked(blocks[15]); // 14 blocks after the cached block 1
    const r = run(cache, req);
    expect(r.usage).toEqual(usage({ input: 0, read: 2100, write5m: 300 }));
  });
});

describe('minimum cacheable prefix', () => {
  it('uses the per-model table', () => {
    expect(minCacheableTokens('claude-sonnet-4-5-20250929')).toBe(1024);
    expect(minCacheableTokens('claude-opus-4-1')).toBe(1024);
    expect(minCacheableTokens('claude-opus-4-5')).toBe(4096);
    expect(minCacheableTokens('claude-haiku-4-5-20251001')).toBe(4096);
    expect(minCacheableTokens('claude-3-5-haiku-20241022')).toBe(2048);
  });

  it('a prefix under the minimum is neither written nor read, without error', () => {
    const cache = new PromptCache();
    const req: PrefixRequest = { model, system: [text(1000, 's', EPHEMERAL)], messages: [user(text(10))] };
    const r = run(cache, req);
    expect(r.usage).toEqual(usage({ input: 1010 }));
    expect(r.breakpoints[0]!.belowMinimum).toBe(true);
    expect(run(cache, req).usage).toEqual(usage({ input: 1010 }));
  });

  it('exactly the minimum is cached', () => {
    const cache = new PromptCache();
    const req: PrefixRequest = { model, system: [text(1024, 's', EPHEMERAL)], messages: [user(text(10))] };
    expect(run(cache, req).usage).toEqual(usage({ input: 10, write5m: 1024 }));
  });

  it('haiku 4.5 needs 4096 tokens: 4000 is not cached', () => {
    const cache = new PromptCache();
    const min = minCacheableTokens('claude-haiku-4-5');
    const req: PrefixRequest = { model: 'claude-haiku-4-5', system: [text(4000, 's', EPHEMERAL)], messages: [user(text(10))] };
    expect(run(cache, req, 0, min).usage).toEqual(usage({ input: 4010 }));
  });

  it('a short first breakpoint is ignored while a later long one is written', () => {
    const cache = new PromptCache();
    const req: PrefixRequest = { model, tools: [tool('A', 500, EPHEMERAL)], system: [text(1500, 's', EPHEMERAL)], messages: [user(text(10))] };
    const r = run(cache, req);
    expect(r.usage).toEqual(usage({ input: 10, write5m: 2000 }));
    expect(r.breakpoints.map((b) => b.belowMinimum)).toEqual([true, false]);
  });
});

describe('TTL', () => {
  const req: PrefixRequest = { model, system: [text(2000, 's', EPHEMERAL)], messages: [user(text(10))] };

  it('a 5-minute entry expires 5 minutes after its last use, and each hit restarts the clock', () => {
    const cache = new PromptCache();
    expect(run(cache, req, 0).usage.cache_creation_input_tokens).toBe(2000);
    const t1 = 5 * MINUTE - 1;
    expect(run(cache, req, t1).usage.cache_read_input_tokens).toBe(2000);
    const t2 = t1 + 5 * MINUTE - 1; // 9m58s after the write: alive only because the hit refreshed it
    expect(run(cache, req, t2).usage.cache_read_input_tokens).toBe(2000);
    const t3 = t2 + 5 * MINUTE; // exactly 5 minutes idle: gone
    expect(run(cache, req, t3).usage).toEqual(usage({ input: 10, write5m: 2000 }));
  });

  it('a 1-hour entry survives 59 minutes idle and not 60', () => {
    const cache = new PromptCache();
    const oneHour: PrefixRequest = { model, system: [text(2000, 's', ONE_HOUR)], messages: [user(text(10))] };
    expect(run(cache, oneHour, 0).usage).toEqual(usage({ input: 10, write1h: 2000 }));
    expect(run(cache, oneHour, 59 * MINUTE).usage).toEqual(usage({ input: 10, read: 2000 }));
    expect(run(cache, oneHour, 119 * MINUTE).usage).toEqual(usage({ input: 10, write1h: 2000 }));
  });

  it('1h then 5m breakpoints split the write; after 6 minutes only the 1h part is read', () => {
    const cache = new PromptCache();
    const mixed: PrefixRequest = {
      model,
      tools: [tool('A', 1500, ONE_HOUR)],
      system: [text(1500, 's', EPHEMERAL)],
      messages: [user(text(10))],
    };
    expect(run(cache, mixed, 0).usage).toEqual(usage({ input: 10, write1h: 1500, write5m: 1500 }));
    expect(run(cache, mixed, 6 * MINUTE).usage).toEqual(usage({ input: 10, read: 1500, write5m: 1500 }));
  });

  it('a 1h breakpoint after a 5m one is a 400', () => {
    const bad: PrefixRequest = { model, tools: [tool('A', 1500, EPHEMERAL)], system: [text(1500, 's', ONE_HOUR)], messages: [user(text(10))] };
    expect(() => run(new PromptCache(), bad)).toThrow(/ttl '1h' at system\.0 comes after a cache_control with ttl '5m' at tools\.0/);
  });
});

describe('what invalidates which level', () => {
  // tools 1200 (marker) → system 1000 (marker, prefix 2200) → messages 300 + 200 (marker on the last, prefix 2700).
  const build = (o: { toolFill?: string; sysFill?: string; msgFill?: string; toolChoice?: unknown; model?: string } = {}): PrefixRequest => ({
    model: o.model ?? model,
    tools: [tool(o.toolFill ?? 'Read', 1200, EPHEMERAL)],
    system: [text(1000, o.sysFill ?? 's', EPHEMERAL)],
    messages: [user(text(300, 'u')), assistant(text(100, 'r')), user(text(100, o.msgFill ?? 'm', EPHEMERAL))],
    ...(o.toolChoice ? { tool_choice: o.toolChoice } : {}),
  });
  const warm = () => {
    const cache = new PromptCache();
    expect(run(cache, build()).usage).toEqual(usage({ input: 0, write5m: 2700 }));
    return cache;
  };

  it('the same request reads everything', () => {
    expect(run(warm(), build(), 1).usage).toEqual(usage({ input: 0, read: 2700 }));
  });

  it('a changed message: tools and system still read', () => {
    expect(run(warm(), build({ msgFill: 'z' }), 1).usage).toEqual(usage({ input: 0, read: 2200, write5m: 500 }));
  });

  it('a changed system prompt: the tools level still reads (it has its own breakpoint)', () => {
    expect(run(warm(), build({ sysFill: 'q' }), 1).usage).toEqual(usage({ input: 0, read: 1200, write5m: 1500 }));
  });

  it('changed tools: everything misses', () => {
    expect(run(warm(), build({ toolFill: 'Grep' }), 1).usage).toEqual(usage({ input: 0, write5m: 2700 }));
  });

  it('a changed tool_choice invalidates the messages level only', () => {
    expect(run(warm(), build({ toolChoice: { type: 'any' } }), 1).usage).toEqual(usage({ input: 0, read: 2200, write5m: 500 }));
  });

  it('another model misses everything', () => {
    expect(run(warm(), build({ model: 'claude-sonnet-4-5-20250929' }), 1).usage).toEqual(usage({ input: 0, write5m: 2700 }));
  });

  it('moving a marker does not change the cached bytes', () => {
    const cache = warm();
    const req = build();
    // Same content, marker moved from the last message to the one before plus a new last turn.
    req.messages = [user(text(300, 'u')), assistant(text(100, 'r')), user(text(100, 'm')), assistant(text(50, 'k')), user(text(50, 'n', EPHEMERAL))];
    expect(run(cache, req, 1).usage).toEqual(usage({ input: 0, read: 2700, write5m: 100 }));
  });
});

describe('automatic caching (top-level cache_control)', () => {
  it('places the breakpoint on the last block and moves it as the conversation grows', () => {
    const cache = new PromptCache();
    const r1: PrefixRequest = { model, cache_control: EPHEMERAL, system: [text(2000)], messages: [user(text(100))] };
    const a = run(cache, r1);
    expect(a.breakpoints).toMatchObject([{ block: 1, automatic: true, ttl: '5m' }]);
    expect(a.usage).toEqual(usage({ input: 0, write5m: 2100 }));
    const r2: PrefixRequest = { ...r1, messages: [user(text(100)), assistant(text(40, 'r')), user(text(60, 'v'))] };
    expect(run(cache, r2, 1).usage).toEqual(usage({ input: 0, read: 2100, write5m: 100 }));
  });

  it('skips trailing thinking blocks and takes the 1h TTL when asked', () => {
    const r: PrefixRequest = {
      model, cache_control: ONE_HOUR, system: [text(2000)],
      messages: [user(text(100)), { role: 'assistant', content: [text(10, 'r'), { type: 'thinking', thinking: 'hmm', signature: 'sig' }] }],
    };
    const a = run(new PromptCache(), r);
    expect(a.breakpoints).toMatchObject([{ block: 2, automatic: true, ttl: '1h' }]);
    expect(a.usage).toEqual(usage({ input: 1, write1h: 2110 }));
  });

  it('combines with explicit breakpoints', () => {
    const cache = new PromptCache();
    const r: PrefixRequest = { model, cache_control: EPHEMERAL, system: [text(2000, 's', EPHEMERAL)], messages: [user(text(100))] };
    const a = run(cache, r);
    expect(a.breakpoints.map((b) => [b.block, b.automatic])).toEqual([[0, false], [1, true]]);
    expect(a.usage).toEqual(usage({ input: 0, write5m: 2100 }));
  });
});

describe('invariants (property test)', () => {
  it('input + cache writes + cache reads always equal the prompt; an identical request right after reads all that was written', () => {
    const blockArb = fc.record({ tokens: fc.integer({ min: 1, max: 900 }), fill: fc.constantFrom('a', 'b', 'c'), mark: fc.constantFrom(undefined, EPHEMERAL, ONE_HOUR) });
    fc.assert(fc.property(fc.array(fc.tuple(fc.array(blockArb, { minLength: 1, maxLength: 30 }), fc.integer({ min: 0, max: 400_000 })), { minLength: 1, maxLength: 6 }), (requests) => {
      const cache = new PromptCache();
      let now = 0;
      for (const [spec, gap] of requests) {
        now += gap;
        // At most 4 markers, 1h ones first: drop the rest.
        let marks = 0;
        let seen5m = false;
        const blocks = spec.map((b) => {
          let mark = b.mark;
          if (mark && (marks >= 4 || (mark.ttl === '1h' && seen5m))) mark = undefined;
          if (mark) { marks++; if (!mark.ttl) seen5m = true; }
          return text(b.tokens, b.fill, mark);
        });
        const req: PrefixRequest = { model, system: [text(500, 's')], messages: [user(...blocks)] };
        const r = run(cache, req, now);
        const u = r.usage;
        expect(u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens).toBe(r.totalTokens);
        expect(u.cache_creation.ephemeral_5m_input_tokens + u.cache_creation.ephemeral_1h_input_tokens).toBe(u.cache_creation_input_tokens);
        const again = run(cache, req, now);
        expect(again.usage.cache_creation_input_tokens).toBe(0);
        expect(again.usage.cache_read_input_tokens).toBe(u.cache_read_input_tokens + u.cache_creation_input_tokens);
      }
    }), { numRuns: 200 });
  });
});
