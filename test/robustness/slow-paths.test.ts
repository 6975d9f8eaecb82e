/**
 * Slow paths through the built `rein run`: a shell hook whose background child keeps its stdout
 * open is not waited on for the hook's timeout (600 s by default). (Retry progress on stderr is in
 * responses.test.ts, the preset size limit in bad-input.test.ts.)
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../testing/support.js';
import { rein, write } from './support.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  tmp = tempDir('rein-slow-');
  env = { REIN_HOME: join(tmp.dir, 'home') };
});
afterEach(() => {
  try { process.kill(Number(readFileSync(join(tmp.dir, 'bg.pid'), 'utf8')), 'SIGKILL'); } catch { /* not started, or gone */ }
  tmp.cleanup();
});

describe('a shell hook that leaves a background child holding its stdout', () => {
  it('is done when its shell exits: its output is used and the run ends without waiting for the child', async () => {
    write(tmp.dir, {
      'p.yaml': [
        'extends: minimal',
        'hooks:',
        '  UserPromptSubmit:',
        '    - hooks: [{ type: command, command: "sleep 300 & echo $! > bg.pid; echo context-from-the-hook" }]',
        '',
      ].join('\n'),
      's.yaml': 'turns:\n  - reply: [{ text: "answered" }]\n',
    });
    const log = join(tmp.dir, 'requests.jsonl');
    // The test's own timeout (30 s) is far below the child's 300 s and the hook's 600 s default.
    const r = await rein(['run', 'hi', '--sim', 's.yaml', '--preset', './p.yaml', '--no-layers'], { cwd: tmp.dir, env: { ...env, REIN_SIM_LOG: log }, timeoutMs: 25_000 });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('answered\n');
    const body = JSON.parse(readFileSync(log, 'utf8').trim().split('\n')[0]!).body;
    expect(JSON.stringify(body.messages)).toContain('context-from-the-hook');
    // The child was left to run.
    expect(() => process.kill(Number(readFileSync(join(tmp.dir, 'bg.pid'), 'utf8')), 0)).not.toThrow();
  });
});
