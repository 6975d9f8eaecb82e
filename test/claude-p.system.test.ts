/**
 * A shell script written for `claude -p --output-format json | jq .result` runs unchanged against
 * rein: `claude` on PATH is a link to rein's `bin/rein.js`, the API is rein's simulator. Needs the
 * real `jq` (installed by .ci/run).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, REPO, runProgram, serveScenario, tempDir, type SimHarness } from '../testing/support.js';

let tmp: ReturnType<typeof tempDir>;
let sim: SimHarness | undefined;
beforeEach(() => { tmp = tempDir('rein-claude-p-'); });
afterEach(async () => { await sim?.close(); tmp.cleanup(); });

/** Runs the script with `claude` on PATH linked to rein and the API at a simulator playing `scenario`. */
async function runScript(scenario: string, extraEnv: NodeJS.ProcessEnv = {}) {
  sim = await serveScenario(scenario, tmp.dir);
  const bin = join(tmp.dir, 'bin');
  mkdirSync(bin);
  symlinkSync(join(REPO, 'bin/rein.js'), join(bin, 'claude'));
  copyFileSync(join(REPO, 'test/fixtures/claude-report.sh'), join(tmp.dir, 'report.sh'));
  const env = {
    ...cleanEnv(), PATH: `${bin}:${process.env.PATH}`, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: sim.server.url,
    REIN_HOME: join(tmp.dir, 'home'), ...extraEnv,
  };
  return runProgram('bash', [join(tmp.dir, 'report.sh'), 'Do the tests pass?'], { cwd: tmp.dir, env });
}

describe('a claude -p script against rein', () => {
  it('prints the answer, the cost and the session through jq, unchanged', async () => {
    const r = await runScript('turns:\n  - reply: [{ text: "All tests pass." }]\n  - reply: [{ text: "Still passing." }]\n');
    expect(r.stderr).toMatch(/^cost: [0-9.]+ USD, session [0-9a-f-]{36}\n$/);
    expect(r.stdout).toBe('All tests pass.\nStill passing.\n');
    expect(r.code).toBe(0);
  });

  it('fails the job when the run fails, as the script expects', async () => {
    const r = await runScript('turns:\n  - fault: { status: 400, body: "the request is wrong" }\n', { REIN_MAX_RETRIES: '0' });
    expect(r.stderr).toContain('claude failed: error_during_execution');
    expect(r.code).toBe(1);
  });
});
