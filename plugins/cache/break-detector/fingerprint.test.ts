import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../kernel/index.js';
import { compareFingerprints, fingerprint, shortHash, stripCacheControl } from './fingerprint.js';

const CC = { type: 'ephemeral' } as const;

/** The definition: JSON with every `cache_control` key dropped, at any depth. */
const reference = (v: unknown) => JSON.stringify(v, (k, x: unknown) => (k === 'cache_control' ? undefined : x));

type Part = { role: 'user' | 'assistant'; content: Record<string, unknown>[] };

function parts(): { tools: readonly object[]; history: Part[] } {
  const tools = [
    Object.freeze({ name: 'Read', description: 'reads "cache_control" files', input_schema: { type: 'object' } }),
    Object.freeze({ name: 'Grep', description: 'greps', input_schema: { type: 'object', properties: { pattern: { type: 'string' } } } }),
  ];
  const history: Part[] = [
    { role: 'user' as const, content: [{ type: 'text', text: 'hello' }] },
    { role: 'assistant' as const, content: [{ type: 'text', text: 'reading' }, { type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'a' } }] },
    { role: 'user' as const, content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'body', cache_control: CC }] }, { type: 'text', text: 'more' }] },
  ];
  return { tools, history };
}

/** A request as the breakpoints plugin sends it: the last tool, the system block and the tail marked (copies). */
function request(p: ReturnType<typeof parts>, upTo = p.history.length): ModelRequest {
  const messages = p.history.slice(0, upTo).map((m) => ({ role: m.role, content: m.content }));
  const last = messages[messages.length - 1]!;
  last.content = [...last.content.slice(0, -1), { ...last.content[last.content.length - 1]!, cache_control: CC }];
  return {
    model: 'claude-sonnet-4-6',
    max_tokens: 100,
    system: [{ type: 'text', text: 'static', cache_control: CC }, { type: 'text', text: 'dynamic' }],
    tools: [p.tools[0]!, { ...p.tools[1]!, cache_control: CC }],
    messages,
  } as unknown as ModelRequest;
}

describe('stripCacheControl', () => {
  it('drops markers at the top and at any depth, keeping the key order', () => {
    const values = [
      { type: 'text', cache_control: CC, text: 'a' },
      { type: 'tool_result', tool_use_id: 'x', content: [{ type: 'text', text: 'b', cache_control: CC }], cache_control: CC },
      [{ type: 'text', text: 'c', cache_control: CC }, { type: 'text', text: 'mentions "cache_control" in prose' }],
      { type: 'text', text: 'plain' },
      null,
    ];
    for (const v of values) expect(stripCacheControl(v)).toBe(reference(v));
  });
});

describe('fingerprint', () => {
  it('hashes each part as the whole part serialised without markers, whether its objects were seen before or not', () => {
    const p = parts();
    for (const r of [request(p), request(p), request(p, 2), request(p)]) {
      const fp = fingerprint(r);
      expect(fp.tools).toBe(shortHash(reference(r.tools)));
      expect(fp.system).toBe(shortHash(reference(r.system)));
      expect(fp.toolHashes).toEqual({ Read: shortHash(reference(r.tools![0])), Grep: shortHash(reference(r.tools![1])) });
      expect(fp.messages).toEqual(r.messages.map((m) => m.role[0] + shortHash(reference(m.content))));
    }
  });

  it('takes the longest TTL among all markers, message markers included, also for content seen before', () => {
    const content = [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral', ttl: '1h' } }];
    const r = { model: 'm', max_tokens: 1, messages: [{ role: 'user', content }] } as unknown as ModelRequest;
    expect(fingerprint(r).ttl).toBe('1h');
    expect(fingerprint(r).ttl).toBe('1h');
    expect(fingerprint({ ...r, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] } as ModelRequest).ttl).toBeNull();
    expect(fingerprint(request(parts())).ttl).toBe('5m');
  });

  it('names a tool whose definition changed even after the old definition was memoised', () => {
    const p = parts();
    const a = fingerprint(request(p));
    const changed = { ...p, tools: [p.tools[0]!, Object.freeze({ ...p.tools[1]!, description: 'greps faster' })] };
    expect(compareFingerprints(a, fingerprint(request(changed)))[0]!.text).toBe('tools changed (definition changed: Grep)');
    expect(compareFingerprints(a, fingerprint(request(p)))).toEqual([]);
  });
});
