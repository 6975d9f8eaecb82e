import { describe, expect, it } from 'vitest';
import {
  blockPositions, estimateBlockTokens, estimateContentTokens, estimateMessageTokens, estimateRequestTokens,
  estimateSystemTokens, estimateTextTokens, estimateToolTokens,
} from './estimate.js';

describe('token estimator', () => {
  it('prose is ceil(UTF-8 bytes / 4)', () => {
    expect(estimateTextTokens('')).toBe(0);
    expect(estimateTextTokens('a'.repeat(400))).toBe(100);
    expect(estimateTextTokens('abcde')).toBe(2);
    expect(estimateTextTokens('é')).toBe(1); // 2 bytes
    expect(estimateTextTokens('日本語')).toBe(3); // 9 bytes
  });

  it('blocks: text, tool_use (name as prose + input as JSON / 2), tool_result, image, thinking', () => {
    expect(estimateBlockTokens({ type: 'text', text: 'a'.repeat(40), cache_control: { type: 'ephemeral' } })).toBe(10);
    // {"command":"ls"} is 16 bytes → 8; "Bash" → 1.
    expect(estimateBlockTokens({ type: 'tool_use', id: 'x', name: 'Bash', input: { command: 'ls' } })).toBe(9);
    expect(estimateBlockTokens({ type: 'tool_result', tool_use_id: 'x', content: 'a'.repeat(400) })).toBe(100);
    expect(estimateBlockTokens({ type: 'tool_result', tool_use_id: 'x', content: [{ type: 'text', text: 'abcd' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(1_000_000) } }] })).toBe(2001);
    expect(estimateBlockTokens({ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x'.repeat(99_999) } })).toBe(2000);
    expect(estimateBlockTokens({ type: 'thinking', thinking: 'a'.repeat(8), signature: 'S'.repeat(500) })).toBe(2);
    // Unknown blocks count as JSON: {"type":"x"} is 12 bytes → 6.
    expect(estimateBlockTokens({ type: 'x' })).toBe(6);
  });

  it('messages, tools, system and whole requests add up per block', () => {
    expect(estimateMessageTokens({ content: 'a'.repeat(10) })).toBe(3);
    expect(estimateMessageTokens({ content: [{ type: 'text', text: 'a'.repeat(5) }, { type: 'text', text: 'a'.repeat(5) }] })).toBe(4);
    // {"name":"T","input_schema":{}} is 30 bytes → 15; cache_control is not counted.
    expect(estimateToolTokens({ name: 'T', input_schema: {}, cache_control: { type: 'ephemeral' } })).toBe(15);
    expect(estimateSystemTokens('a'.repeat(8))).toBe(2);
    expect(estimateSystemTokens([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }])).toBe(2);
    expect(estimateContentTokens(undefined)).toBe(0);
    const req = { tools: [{ name: 'T', input_schema: {} }], system: 'a'.repeat(8), messages: [{ role: 'user', content: 'a'.repeat(12) }] };
    expect(estimateRequestTokens(req)).toBe(15 + 2 + 3);
  });

  it('block positions run tools → system → messages with prefix totals', () => {
    const positions = blockPositions({
      tools: [{ name: 'T', input_schema: {} }],
      system: [{ type: 'text', text: 'a'.repeat(8) }],
      messages: [{ content: 'a'.repeat(12) }, { content: [{ type: 'text', text: 'b'.repeat(4) }, { type: 'text', text: 'c'.repeat(4) }] }],
    });
    expect(positions.map((p) => [p.level, p.index, p.blockIndex, p.tokens, p.prefixTokens])).toEqual([
      ['tools', 0, 0, 15, 15],
      ['system', 0, 0, 2, 17],
      ['messages', 0, 0, 3, 20],
      ['messages', 1, 0, 1, 21],
      ['messages', 1, 1, 1, 22],
    ]);
  });
});
