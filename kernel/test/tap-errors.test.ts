/**
 * Every tap is wrapped so that what it throws names the plugin (the tap's name) and the hook, for
 * every kind of tap (sync, promise, callback), and a promise tap that throws instead of rejecting
 * in a later position of a series still rejects the hook's promise (tapable alone loses it).
 */
import { describe, expect, it } from 'vitest';
import { createHooks, HookTapError } from '../hooks.js';
import type { RunContext } from '../hook-payloads.js';

const ctx = {} as RunContext;

async function failure(p: Promise<unknown>): Promise<HookTapError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(HookTapError);
  return err as HookTapError;
}

describe('tap errors', () => {
  it('a sync tap: HookTapError with the plugin, the hook and the original message', async () => {
    const hooks = createHooks();
    hooks.turnStart.tap('first', () => undefined);
    hooks.turnStart.tap('fragile', () => { throw new Error('boom'); });
    const err = await failure(hooks.turnStart.promise(ctx));
    expect(err).toMatchObject({ plugin: 'fragile', hook: 'turnStart', message: 'boom' });
    expect(err.describe()).toBe('plugin "fragile" failed in its turnStart tap: boom');
    hooks.toolDefinitions.tap('sync-fragile', () => { throw new Error('no tools'); });
    expect(() => hooks.toolDefinitions.call([], ctx)).toThrow(HookTapError);
  });

  it('a promise tap that throws synchronously after another promise tap: the hook rejects (no unhandled rejection)', async () => {
    const hooks = createHooks();
    hooks.permission.tapPromise('before', async () => undefined);
    hooks.permission.tapPromise('fragile', () => { throw new Error('sync throw'); });
    const err = await failure(hooks.permission.promise({} as never, ctx));
    expect(err).toMatchObject({ plugin: 'fragile', hook: 'permission', message: 'sync throw' });
  });

  it('a promise tap that rejects, and a callback tap that throws or calls back with an error', async () => {
    const hooks = createHooks();
    hooks.response.tapPromise('rejects', async () => { throw new Error('rejected'); });
    expect(await failure(hooks.response.promise({} as never, ctx))).toMatchObject({ plugin: 'rejects', hook: 'response' });

    const cb = createHooks();
    cb.sessionStart.tapAsync('calls-back', (_s, _c, done) => done(new Error('via callback')));
    expect(await failure(cb.sessionStart.promise({} as never, ctx))).toMatchObject({ plugin: 'calls-back', message: 'via callback' });

    const thrower = createHooks();
    thrower.sessionStart.tapAsync('ok', (_s, _c, done) => setImmediate(() => done()));
    thrower.sessionStart.tapAsync('throws', () => { throw new Error('thrown'); });
    expect(await failure(thrower.sessionStart.promise({} as never, ctx))).toMatchObject({ plugin: 'throws', message: 'thrown' });
  });

  it('errors that are not the tap\'s own fault pass through unchanged', async () => {
    const hooks = createHooks();
    const write = Object.assign(new Error('cannot write the session transcript x: no space'), { name: 'TranscriptWriteError' });
    hooks.turnStart.tap('writer', () => { throw write; });
    await expect(hooks.turnStart.promise(ctx)).rejects.toBe(write);
  });
});
