/**
 * What `rein bench` (the built command) says about input it cannot replay: a workload folder with
 * no session stops with exit 2 and every file's reason; a file that is not a session, beside one
 * that is, is named in the table with why; a truncated session's malformed line is named by number.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../testing/support.js';
import { reinDone } from '../../queue/test/harness.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => { tmp = tempDir('rein-bench-skipped-'); });
afterAll(() => tmp?.cleanup());

const usage = { input: 10, output: 20, cacheRead: 0, cacheWrite: 3000, totalTokens: 3030 };
/** A two-request pi session whose last line was cut off mid-write. */
const TRUNCATED_PI = [
  { type: 'session', id: 's1', timestamp: '2025-12-17T19:39:21.535Z', cwd: '/proj', provider: 'anthropic', modelId: 'claude-sonnet-4-5', thinkingLevel: 'off' },
  { type: 'message', timestamp: '2025-12-17T19:39:21.000Z', message: { role: 'user', content: [{ type: 'text', text: 'List the files' }], timestamp: 1766000361000 } },
  { type: 'message', timestamp: '2025-12-17T19:39:22.000Z', message: { role: 'assistant', content: [{ type: 'toolCall', id: 'toolu_1', name: 'bash', arguments: { command: 'ls' } }], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage, stopReason: 'toolUse', timestamp: 1766000362000 } },
  { type: 'message', timestamp: '2025-12-17T19:39:23.000Z', message: { role: 'toolResult', toolCallId: 'toolu_1', toolName: 'bash', content: [{ type: 'text', text: 'a.ts\nb.ts' }], isError: false, timestamp: 1766000363000 } },
  { type: 'message', timestamp: '2025-12-17T19:39:24.000Z', message: { role: 'assistant', content: [{ type: 'text', text: 'Two files: a.ts and b.ts.' }], api: 'anthropic-messages', provider: 'anthropic', model: 'claude-sonnet-4-5', usage: { ...usage, cacheRead: 3000, cacheWrite: 40 }, stopReason: 'stop', timestamp: 1766000364000 } },
].map((e) => JSON.stringify(e)).join('\n') + '\n{"type":"message","timestamp":"2025-12-17T19:40:00.000Z","message":{"role":"user","content":[{"type":"text","text":"now rea';

describe('rein bench on input it cannot replay', () => {
  it('a folder with no session: exit 2, each file named with why, no report', async () => {
    const dir = join(tmp.dir, 'nothing');
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.jsonl'), 'garbage\n{"a":\n');
    const r = await reinDone(['bench', '-w', dir, '--preset', 'minimal', '--no-progress'], { cwd: tmp.dir, env: { REIN_HOME: join(tmp.dir, 'home') } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`rein: no session to replay in ${dir}; not replayed:\nrein: ${join(dir, 'notes.jsonl')}: not a session format rein reads\n`);
  });

  it('names a file that is not a session and the malformed line of a truncated one in the table', async () => {
    const dir = join(tmp.dir, 'mixed');
    mkdirSync(dir);
    writeFileSync(join(dir, 'cut.jsonl'), TRUNCATED_PI);
    writeFileSync(join(dir, 'notes.jsonl'), 'garbage\n');
    const r = await reinDone(['bench', '-w', dir, '--preset', 'minimal', '--no-progress'], { cwd: tmp.dir, env: { REIN_HOME: join(tmp.dir, 'home') } });
    expect(r.code, r.stderr).toBe(0);
    const text = r.stdout.replace(/\n {2}/g, ' ');
    expect(text).toContain('- cut: 6 lines, 2 requests, 1 lines not replayed (1 malformed: line 6)');
    expect(text).toContain(`- not replayed: ${join(dir, 'notes.jsonl')}: not a session format rein reads`);
  });
});
