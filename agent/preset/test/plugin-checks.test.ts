/**
 * A plugin can check its options against the whole preset (`check`); the loader reports each
 * problem at the option's file:line:column, so a setting that can never work fails when the agent
 * is created, not in the middle of a session.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../agent.js';
import { PresetError } from '../errors.js';
import { useTestEnv } from '../../../testing/env.js';
import { writeFiles } from '../../../testing/support.js';

const env = useTestEnv({ prefix: 'rein-plugin-checks-' });

const noClient = { kind: 'simulator' as const, baseURL: 'none', send: async () => { throw new Error('no requests'); }, countTokens: async () => 0, close: async () => undefined };

describe('compaction/auto on a 30,000-token window (4,000 of output)', () => {
  it('a triggerRatio whose threshold is above the blocking limit is refused at its line, with the largest ratio that works', async () => {
    writeFiles(env.dir, { 'agent.yaml': 'name: small\nmodel: { name: claude-sonnet-4-6, contextWindow: 30000, maxTokens: 4000 }\nplugins:\n  compaction/auto: { triggerRatio: 0.9 }\n' });
    const err = await createAgent({ preset: join(env.dir, 'agent.yaml'), cwd: env.dir, layers: false, client: noClient }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PresetError);
    expect((err as PresetError).diagnostics.map((d) => `${d.line}:${d.column}: ${d.message}`)).toEqual([
      '4:36: plugins.compaction/auto.triggerRatio: the compaction threshold (27,000 tokens: 0.9 × the 30,000-token window) is above the blocking limit (23,000 tokens: the window − 4,000 of output reserve − 3,000), so compaction would never run and the session would end with blocking_limit; use a triggerRatio of at most 0.76 (plugin compaction/auto)',
    ]);
  });
});
