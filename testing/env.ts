/**
 * The setup almost every rein test repeats, done once: a fresh working folder and a fresh
 * `REIN_HOME` (so transcripts never land in the user's ~/.rein), removed afterwards, with
 * `REIN_HOME` put back as it was. Registers vitest hooks, so call it at the top level of a test file
 * or inside a `describe`.
 *
 * @example
 * const env = useTestEnv();              // new folders for every test
 * it('runs', async () => {
 *   const agent = await createAgent({ preset: 'minimal', cwd: env.dir, layers: false });
 *   ...
 * });
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv } from './support.js';

/**
 * vitest's hooks, or undefined where vitest is not installed: vitest is an optional peer
 * dependency, and the rest of `rein/testing` (the simulator, `runCli`, `tempDir`, ...) works
 * without it, so importing this entry from a plain script must not fail.
 */
const vitest = await import('vitest').catch((err: NodeJS.ErrnoException) => {
  if (err?.code === 'ERR_MODULE_NOT_FOUND') return undefined;
  throw err;
});

export interface TestEnv {
  /** The working folder (absolute). Read it inside a test or hook, not at module load. */
  readonly dir: string;
  /** The `REIN_HOME` set for the test (a folder beside `dir`). */
  readonly home: string;
  /** An environment for a child `rein` process: no API key or base URL, this `REIN_HOME`. */
  childEnv(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
}

export interface TestEnvOptions {
  /** `each` (default): new folders for every test; `all`: one pair for the whole file or describe. */
  scope?: 'each' | 'all';
  /** Prefix of the temp folder's name. Default `rein-test-`. */
  prefix?: string;
}

/**
 * Registers the hooks that make a fresh pair of folders per test (or per file, `scope: 'all'`).
 * Throws an Error saying what to install when vitest is not installed (use `tempDir()` without it).
 */
export function useTestEnv(options: TestEnvOptions = {}): TestEnv {
  if (!vitest) throw new Error('useTestEnv registers vitest hooks, and vitest is not installed here: npm install --save-dev vitest (or make a temp folder with tempDir(), which needs no test runner)');
  const { afterAll, afterEach, beforeAll, beforeEach } = vitest;
  let root: string | undefined;
  let saved: string | undefined;
  const need = () => {
    if (!root) throw new Error('useTestEnv: the folders exist only while a test runs (read env.dir inside a test or hook)');
    return root;
  };
  const setUp = () => {
    root = mkdtempSync(join(tmpdir(), options.prefix ?? 'rein-test-'));
    mkdirSync(join(root, 'work'));
    mkdirSync(join(root, 'home'));
    saved = process.env.REIN_HOME;
    process.env.REIN_HOME = join(root, 'home');
  };
  const tearDown = () => {
    if (saved === undefined) delete process.env.REIN_HOME;
    else process.env.REIN_HOME = saved;
    if (root) rmSync(root, { recursive: true, force: true });
    root = undefined;
  };
  if (options.scope === 'all') {
    beforeAll(setUp);
    afterAll(tearDown);
  } else {
    beforeEach(setUp);
    afterEach(tearDown);
  }
  return {
    get dir() { return join(need(), 'work'); },
    get home() { return join(need(), 'home'); },
    childEnv: (extra = {}) => ({ ...cleanEnv(), REIN_HOME: join(need(), 'home'), ...extra }),
  };
}
