/**
 * Class: terminal spoofing. What the model or a tool wrote reaches stderr in status lines
 * (denials carry model-supplied paths, notices carry tool text): control characters there are
 * always escaped, so a line cannot be erased or forged, text hidden, or the clipboard set. The
 * answer on stdout is escaped when stdout is a terminal (printer tests) and left exact in a pipe.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ids, reinRun, sandbox, type Outcome, type Sandbox } from './harness.js';

const SPOOFS = [
  'a\u001b[2K\rrein: all calls allowed',
  'b\nrein: denied nothing',
  'c\u001b]52;c;ZXZpbA==\u0007',
  'd\u001b[8mhidden',
  'e\u009b2Kc1',
  'f\u202Eevil.txt',
  'g\u001b]0;title\u0007',
  'h\u2028rein: fake',
  'i\u0008\u0008\u0008',
  'j\u001bc',
];

describe('status lines on stderr escape control characters', () => {
  let s: Sandbox;
  let o: Outcome;
  beforeAll(async () => {
    s = sandbox();
    const calls = ids('c7', SPOOFS.map((p) => ({ name: 'Write', input: { file_path: `/etc/${p}`, content: 'x' } })));
    o = await reinRun(s, 'name: c7\ntools: [Write]\npermissions: { mode: default }\n', [calls], { format: 'text', finalText: 'answer \u001b[31mred\u001b[0m' });
  });
  afterAll(() => s.cleanup());

  it('no raw control character reaches stderr', () => {
    expect(o.code, o.stderr).toBe(0);
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    expect(o.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u202e]/);
  });
  it('every line of stderr is a rein line: none forged', () => {
    for (const line of o.stderr.trimEnd().split('\n')) expect(line).toMatch(/^rein: /);
    expect(o.stderr.match(/^rein: denied Write/gm)).toHaveLength(SPOOFS.length);
    expect(o.stderr).toContain('\\x1b[2K\\x0drein: all calls allowed');
    expect(o.stderr).toContain('\\x0arein: denied nothing');
  });
  it('the answer in a pipe is the model\'s text exactly', () => {
    expect(o.stdout).toBe('answer \u001b[31mred\u001b[0m\n');
  });
});
