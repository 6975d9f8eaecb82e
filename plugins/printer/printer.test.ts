/**
 * The text printer on a terminal: the answer's control characters are escaped (newlines and tabs
 * kept), status lines always; in a pipe the answer stays exact. JSON output escapes what JSON
 * leaves raw but a terminal obeys (C1 controls, bidi overrides), and parses to the same value.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emptyUsage, type RunResult } from '../../kernel/index.js';
import { escapeControls, terminalSafeJson } from '../../lib/index.js';
import { testKernel } from '../../testing/permissions.js';
import printer from './index.js';

const result = (text: string): RunResult => ({
  text, terminalReason: 'end_turn', isError: false, durationMs: 1, numTurns: 1, numRequests: 1, sessionId: 's', totalCostUsd: 0,
  usage: emptyUsage(), sideUsage: {}, permissionDenials: [], model: 'm',
} as unknown as RunResult);

const ANSWER = 'done\u001b[2K\rrein: fake\n\ttab kept\u001b]52;c;ZXZpbA==\u0007 \u202Eevil';

async function print(tty: boolean, format: 'text' | 'json' = 'text'): Promise<{ out: string; err: string }> {
  const kernel = await testKernel({ cwd: mkdtempSync(join(tmpdir(), 'rein-printer-')), plugins: [{ plugin: printer, options: { format, usageReport: false } }] });
  let out = '';
  let err = '';
  Object.defineProperty(process.stdout, 'isTTY', { value: tty, configurable: true });
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => { out += String(s); return true; });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => { err += String(s); return true; });
  kernel.emit({ type: 'result', result: result(ANSWER) });
  kernel.emit({ type: 'notice', level: 'warn', source: 't', message: 'from a tool\u001b[1A\u001b[2Krein: ok' });
  o.mockRestore();
  e.mockRestore();
  return { out, err };
}

afterEach(() => { Object.defineProperty(process.stdout, 'isTTY', { value: undefined, configurable: true }); });

describe('printer', () => {
  it('on a terminal, escapes the answer\'s control characters and keeps its lines', async () => {
    const { out } = await print(true);
    expect(out).toBe(`${escapeControls(ANSWER, { keepLines: true })}\n`);
    expect(out).toContain('done\\x1b[2K\\x0drein: fake\n\ttab kept\\x1b]52;c;ZXZpbA==\\x07 \\u{202E}evil');
  });
  it('in a pipe, prints the answer exactly', async () => {
    expect((await print(false)).out).toBe(`${ANSWER}\n`);
  });
  it('always escapes status lines, newlines included', async () => {
    const { err } = await print(false);
    expect(err).toBe('rein: warn: from a tool\\x1b[1A\\x1b[2Krein: ok\n');
  });
  it('JSON output escapes C1 and bidi controls and parses to the same text', async () => {
    const { out } = await print(true, 'json');
    expect(out).not.toMatch(/[\u0080-\u009f\u202e]/);
    expect(JSON.parse(out).result).toBe(ANSWER);
    expect(terminalSafeJson('"\u009b"')).toBe('"\\u009b"');
  });
});

describe('printer notices (text)', () => {
  /** The notices a text printer with these options writes to stderr. */
  async function noticesPrinted(options: Record<string, unknown>, levels: ('debug' | 'info' | 'warn' | 'error')[]): Promise<string> {
    const kernel = await testKernel({ cwd: mkdtempSync(join(tmpdir(), 'rein-printer-')), plugins: [{ plugin: printer, options: { usageReport: false, ...options } }] });
    let err = '';
    const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => { err += String(s); return true; });
    for (const level of levels) kernel.emit({ type: 'notice', level, source: 'compaction/auto', message: `a ${level} notice` });
    e.mockRestore();
    return err;
  }

  it('-v prints info but never a routine debug notice (the thresholds of every run); warnings always', async () => {
    expect(await noticesPrinted({ verbose: true }, ['debug', 'info', 'warn'])).toBe('rein: info: a info notice\nrein: warn: a warn notice\n');
  });

  it('without -v prints only warnings and errors', async () => {
    expect(await noticesPrinted({}, ['debug', 'info', 'error'])).toBe('rein: error: a error notice\n');
  });
});
