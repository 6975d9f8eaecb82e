import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testKernel } from '../../testing/permissions.js';
import scrubPlugin, { CLAUDE_CODE_SCRUBBED, scrubber, subprocessEnvScrubOptions } from './index.js';
import { subprocessEnv } from '../../lib/index.js';

const opts = (o: Record<string, unknown> = {}) => subprocessEnvScrubOptions.parse(o);

describe('scrubber', () => {
  it("removes Claude Code's list, in INPUT_ form too, and credential-looking names", () => {
    const env = Object.fromEntries([...CLAUDE_CODE_SCRUBBED.map((n) => [n, 'x']), ['INPUT_ANTHROPIC_API_KEY', 'x'], ['STRIPE_SECRET_KEY', 'x'], ['MY_PASSWORD', 'x'], ['SSH_AUTH_SOCK', 'x'], ['PATH', '/bin'], ['TOKENIZER_MODE', 'fast']]);
    expect(scrubber(opts())(env)).toEqual({ PATH: '/bin', TOKENIZER_MODE: 'fast' });
  });
  it('keeps GITHUB_TOKEN and GH_TOKEN by default, and what `keep` names', () => {
    expect(scrubber(opts())({ GITHUB_TOKEN: 'a', GH_TOKEN: 'b', NPM_TOKEN: 'c' })).toEqual({ GITHUB_TOKEN: 'a', GH_TOKEN: 'b' });
    expect(scrubber(opts({ keep: ['NPM_*'] }))({ GITHUB_TOKEN: 'a', NPM_TOKEN: 'c' })).toEqual({ NPM_TOKEN: 'c' });
  });
  it('with patterns off, removes only the named list and `remove`', () => {
    expect(scrubber(opts({ patterns: false, remove: ['DATABASE_URL'] }))({ NPM_TOKEN: 'c', DATABASE_URL: 'd', ANTHROPIC_API_KEY: 'e' })).toEqual({ NPM_TOKEN: 'c' });
  });
});

describe('subprocess-env-scrub plugin', () => {
  it('scrubs what subprocessEnv gives, keeps what the caller adds, and can be limited to some kinds', async () => {
    process.env.REIN_TEST_API_KEY = 'secret';
    try {
      const k = await testKernel({ cwd: mkdtempSync(join(tmpdir(), 'rein-scrub-')), preset: { env: { PRESET_TOKEN: 'given' } }, plugins: [{ plugin: scrubPlugin, options: { kinds: ['bash'] } }] });
      const bash = subprocessEnv(k, { kind: 'bash' }, { CALLER_TOKEN: 'mine' });
      expect(bash.REIN_TEST_API_KEY).toBeUndefined();
      expect(bash).toMatchObject({ PRESET_TOKEN: 'given', CALLER_TOKEN: 'mine' });
      expect(subprocessEnv(k, { kind: 'hook' }).REIN_TEST_API_KEY).toBe('secret');
    } finally {
      delete process.env.REIN_TEST_API_KEY;
    }
  });
});
