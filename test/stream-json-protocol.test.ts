/**
 * The stdio control protocol without the SDK: the lines a host writes to the built `rein` with
 * `--input-format stream-json`, and what rein answers. Requests rein does not support get an error
 * response that names them; with `--await-initialize` a user line waits for `initialize`.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, runBuilt, serveScenario, tempDir, type SimHarness } from '../testing/support.js';

let tmp: ReturnType<typeof tempDir>;
let sim: SimHarness | undefined;
beforeAll(() => {
  if (!existsSync(join(REPO, 'dist/bundle/rein.cjs'))) throw new Error('build rein first: npm run build');
});
beforeEach(() => { tmp = tempDir('rein-protocol-'); });
afterEach(async () => { await sim?.close(); tmp.cleanup(); });

describe('the stream-json control protocol', () => {
  it('answers initialize, names the requests it does not support, and runs a user line that came first', async () => {
    sim = await serveScenario('turns:\n  - reply: [{ text: "Hi." }]\n', tmp.dir);
    writeFileSync(join(tmp.dir, 'agent.yaml'), 'model: { name: claude-sonnet-4-6 }\ntools: []\n');
    const input = [
      { type: 'user', message: { role: 'user', content: 'Hello?' }, parent_tool_use_id: null, session_id: '' },
      { type: 'control_request', request_id: 'r1', request: { subtype: 'rewind_files', user_message_id: 'x' } },
      'not json',
      { type: 'control_request', request_id: 'r2', request: { subtype: 'initialize', systemPrompt: [''] } },
      { type: 'control_request', request_id: 'r3', request: { subtype: 'set_permission_mode', mode: 'auto' } },
    ].map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
    const r = await runBuilt(['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--await-initialize', '--preset', './agent.yaml', '--no-layers'], {
      cwd: tmp.dir, input, env: { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: sim.server.url, REIN_HOME: join(tmp.dir, 'home') },
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('rein: stdin: ignored a line: not JSON');
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const answer = (id: string) => lines.find((l) => l.type === 'control_response' && l.response.request_id === id)?.response;
    expect(answer('r1')).toEqual({ subtype: 'error', request_id: 'r1', error: 'rein does not support the control request "rewind_files"' });
    expect(answer('r2')).toMatchObject({ subtype: 'success', response: { hook_on_failure_supported: true, models: [{ value: 'claude-sonnet-4-6' }] } });
    expect(answer('r3')).toMatchObject({ subtype: 'error', error: expect.stringContaining('cannot switch to mode "auto"') });
    expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'Hi.' });
    expect(sim.requests()).toHaveLength(1);
  }, 60_000);
});
