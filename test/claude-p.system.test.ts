/**
 * A shell script written for `claude -p --output-format json | jq .result` runs unchanged against
 * rein: `claude` on PATH is a link to rein's `bin/rein.js`, the API is rein's simulator. Needs the
 * real `jq` (installed by .ci/run).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, REPO, serveScenario, tempDir, type SimHarness } from '../kernel/test/support.js';

let tmp: ReturnType<typeof tempDir>;
let sim: SimHarness | undefined;
beforeEach(() => { tmp = tempDir('rein-claude-p-'); });
afterEach(async () => { await sim?.close(); tmp.cleanup(); });

function sh(script: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a claude -p script against rein', () => {
  it('prints the answer, the cost and the session through jq, unchanged', async () => {
    sim = await serveScenario('turns:\n  - reply: [{ text: "All tests pass." }]\n  - reply: [{ text: "Still passing." }]\n', tmp.dir);
    const bin = join(tmp.dir, 'bin');
    mkdirSync(bin);
    symlinkSync(join(REPO, 'bin/rein.js'), join(bin, 'claude'));
    copyFileSync(join(REPO, 'test/fixtures/claude-report.sh'), join(tmp.dir, 'report.sh'));
    const env = {
      ...cleanEnv(), PATH: `${bin}:${process.env.PATH}`, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: sim.server.url,
      REIN_HOME: join(tmp.dir, 'home'), REIN_MAX_RETRIES: '0',
    };
    const r = await sh(join(tmp.dir, 'report.sh'), ['Do the tests pass?'], env, tmp.dir);
    expect(r.stderr).toMatch(/^cost: [0-9.]+ USD, session [0-9a-f-]{36}\n$/);
    expect(r.stdout).toBe('All tests pass.\nStill passing.\n');
    expect(r.code).toBe(0);
  });

  it('fails the job when the run fails, as the script expects', async () => {
    sim = await serveScenario('turns:\n  - fault: { status: 400, body: "the request is wrong" }\n', tmp.dir);
    const bin = join(tmp.dir, 'bin');
    mkdirSync(bin);
    symlinkSync(join(REPO, 'bin/rein.js'), join(bin, 'claude'));
    copyFileSync(join(REPO, 'test/fixtures/claude-report.sh'), join(tmp.dir, 'report.sh'));
    const env = { ...cleanEnv(), PATH: `${bin}:${process.env.PATH}`, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: sim.server.url, REIN_HOME: join(tmp.dir, 'home') };
    const r = await sh(join(tmp.dir, 'report.sh'), ['Do the tests pass?'], env, tmp.dir);
    expect(r.stderr).toContain('claude failed: error_during_execution');
    expect(r.code).toBe(1);
  });
});
