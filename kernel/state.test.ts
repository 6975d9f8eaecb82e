import { describe, expect, it } from 'vitest';
import { SyncHook } from 'tapable';
import { createKernel, createKernelState, type ModelClient } from './index.js';

const client: ModelClient = {
  kind: 'simulator', baseURL: 'http://127.0.0.1:9',
  send: async () => { throw new Error('no model in this test'); },
  countTokens: async () => 0,
  close: async () => {},
};

describe('createKernelState', () => {
  it('two getters with the same key share one object per kernel, built once; other kernels and keys get their own', async () => {
    const [a, b] = await Promise.all([createKernel({ preset: {}, client, plugins: [] }), createKernel({ preset: {}, client, plugins: [] })]);
    let built = 0;
    const owner = createKernelState('owner', () => { built++; return { files: [] as string[] }; });
    const reader = createKernelState('owner', () => { built++; return { files: [] as string[] }; });
    owner(a).files = ['AGENTS.md'];
    expect(reader(a).files).toEqual(['AGENTS.md']);
    expect(reader(a)).toBe(owner(a));
    expect(reader(b).files).toEqual([]);
    expect(createKernelState('other', () => ({ n: 1 }))(a)).toEqual({ n: 1 });
    expect(built).toBe(2); // once for kernel a, once for kernel b
  });

  it('carries hooks between plugins that never import each other', async () => {
    const k = await createKernel({ preset: {}, client, plugins: [] });
    const detector = createKernelState('cache/break-detector', () => ({ expectedDrop: new SyncHook<[{ kind: string }]>(['drop']) }));
    const seen: string[] = [];
    detector(k).expectedDrop.tap('detector', (d) => { seen.push(d.kind); });
    const sender = createKernelState('cache/break-detector', () => ({ expectedDrop: new SyncHook<[{ kind: string }]>(['drop']) }));
    sender(k).expectedDrop.call({ kind: 'compaction' });
    expect(seen).toEqual(['compaction']);
  });
});

describe('kernel.subagents', () => {
  it('throws a clear error on a kernel created without a factory', async () => {
    const k = await createKernel({ preset: {}, client, plugins: [] });
    expect(() => k.subagents).toThrow(/cannot start subagents: create it with createAgent\(\), or pass `subagents` to createKernel\(\)/);
  });
});
