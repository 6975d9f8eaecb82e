import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Message } from '../../../kernel/index.js';
import { estimateTextTokens, resolvePath } from '../../../lib/index.js';
import { groupByRound, latestUserPromptIndex, renderTranscript } from '../shared/history.js';
import { formatSummary, summaryPrompt } from './prompt.js';
import { recentlyReadFiles, restoreFiles } from './restore.js';
import { roundsToDrop, tokenGap } from './summarize.js';
import { keptFrom, keptTailInstruction } from './index.js';

let dir: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'rein-parts-')); });
afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

function readRound(id: string, file: string, error = false): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: file } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'x', ...(error ? { is_error: true } : {}) }] },
  ];
}

describe('summary prompt and reply', () => {
  it('strips the first analysis block and keeps the inside of the summary block', () => {
    expect(formatSummary('<analysis>draft</analysis>\n<summary>S</summary>')).toBe('S');
    expect(formatSummary('no tags at all')).toBe('no tags at all');
    expect(formatSummary('<analysis>only thinking</analysis>')).toBe('');
  });
  it('puts extra instructions after the template', () => {
    const p = summaryPrompt(['Focus on the tests.']);
    expect(p.indexOf('9. Next step')).toBeLessThan(p.indexOf('Focus on the tests.'));
    expect(p).toContain('You cannot call tools in this reply');
  });
});

describe('retrying a too-long summary request', () => {
  it('reads the token gap and drops enough oldest rounds, else a fifth', () => {
    expect(tokenGap('400 invalid_request_error: prompt is too long: 210000 tokens > 200000 maximum')).toBe(10_000);
    expect(tokenGap('prompt is too long')).toBeUndefined();
    expect(roundsToDrop([10_000, 20_000, 30_000, 40_000], 25_000)).toBe(2);
    expect(roundsToDrop(new Array(10).fill(1), undefined)).toBe(2);
    expect(roundsToDrop(new Array(3).fill(1), undefined)).toBe(1);
    expect(roundsToDrop([5_000], 9_000)).toBe(1);
  });
});

describe('history helpers', () => {
  it('groups by API round and finds the latest prompt a person wrote', () => {
    const h: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'rules' }], meta: { pinned: true } },
      { role: 'user', content: [{ type: 'text', text: 'first' }] },
      ...readRound('a', 'x'),
      { role: 'user', content: [{ type: 'text', text: 'note' }], meta: { meta: true } },
    ];
    expect(groupByRound(h.map((_, i) => i), h)).toEqual([[0, 1], [2, 3, 4]]);
    expect(latestUserPromptIndex(h)).toBe(1);
  });
  it('renders a transcript without tool blocks, clipping long results', () => {
    const h: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }, ...readRound('a', 'f.txt')];
    (h[2]!.content[0] as { content: string }).content = 'y'.repeat(5_000);
    const t = renderTranscript(h, { toolResultChars: 1_000, toolInputChars: 100 });
    expect(t).toContain('[called Read {"file_path":"f.txt"}]');
    expect(t).toContain('[Read result]\n' + 'y'.repeat(750) + '\n… [4000 characters left out] …\n' + 'y'.repeat(250));
  });
});

describe('restoreFiles', () => {
  it('takes the 5 newest readable files, newest first, skipping failed reads, excluded paths and duplicates', () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    for (const n of names) writeFileSync(join(dir, `${n}.txt`), `${n}\n`);
    const h: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
    names.forEach((n, i) => h.push(...readRound(`t${i}`, `${n}.txt`, n === 'g')));
    h.push(...readRound('again', 'c.txt'));
    expect(recentlyReadFiles(h, ['Read'], dir).map((p) => p.slice(dir.length + 1))).toEqual(['c.txt', 'h.txt', 'f.txt', 'e.txt', 'd.txt', 'b.txt', 'a.txt']);
    const r = restoreFiles(h, { cwd: dir, readTools: ['Read'], maxFiles: 5, perFileTokens: 5_000, totalTokens: 50_000, exclude: new Set([join(dir, 'h.txt')]) });
    expect(r.map((f) => f.path.slice(dir.length + 1))).toEqual(['c.txt', 'f.txt', 'e.txt', 'd.txt', 'b.txt']);
    expect(r[0]!.text).toBe(`File ${join(dir, 'c.txt')}:\n     1\tc`);
  });
  it('cuts a file to the per-file budget and skips (not stops at) a file over the total', () => {
    writeFileSync(join(dir, 'big.txt'), 'b'.repeat(60) + '\n'.repeat(1) + Array.from({ length: 2_000 }, () => 'z'.repeat(39)).join('\n'));
    writeFileSync(join(dir, 'mid.txt'), Array.from({ length: 300 }, () => 'm'.repeat(39)).join('\n'));
    writeFileSync(join(dir, 'small.txt'), 'tiny\n');
    const h: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }, ...readRound('1', 'small.txt'), ...readRound('2', 'mid.txt'), ...readRound('3', 'big.txt')];
    const r = restoreFiles(h, { cwd: dir, readTools: ['Read'], maxFiles: 5, perFileTokens: 5_000, totalTokens: 6_000, exclude: new Set() });
    // big.txt is cut to 5,000 tokens; mid.txt (about 3,500) no longer fits in 6,000 and is skipped; small.txt still fits.
    expect(r.map((f) => f.path.slice(dir.length + 1))).toEqual(['big.txt', 'small.txt']);
    expect(r[0]!.truncated).toBe(true);
    expect(r[0]!.tokens).toBeLessThanOrEqual(5_000);
    expect(r[0]!.text.endsWith('… (cut here; read the file for the rest)')).toBe(true);
    expect(r[0]!.tokens).toBe(estimateTextTokens(r[0]!.text));
  });
  it('reads a file read at `~/` from the home directory the kernel resolves `~` to, not from a `~` folder of the cwd', () => {
    const home = join(dir, 'home');
    const cwd = join(dir, 'work');
    mkdirSync(home);
    mkdirSync(join(cwd, '~'), { recursive: true });
    writeFileSync(join(home, 'notes.txt'), 'from home\n');
    writeFileSync(join(cwd, '~', 'notes.txt'), 'wrong folder\n');
    const h: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }, ...readRound('1', '~/notes.txt')];
    const r = restoreFiles(h, { cwd, resolve: (p) => resolvePath(p, cwd, home).written, readTools: ['Read'], maxFiles: 5, perFileTokens: 5_000, totalTokens: 50_000, exclude: new Set() });
    expect(r.map((f) => f.path)).toEqual([join(home, 'notes.txt')]);
    expect(r[0]!.text).toContain('from home');
  });
});

describe('keptFrom (keepRecentTokens)', () => {
  const h: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'start' }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'Read', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'r' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    { role: 'user', content: [{ type: 'text', text: 'next' }] },
  ];
  const ten = () => 10;
  it('keeps the most recent messages that fit, starting at an assistant message or a prompt, never at a lone tool result', () => {
    expect(keptFrom(h, 0, ten)).toBe(h.length);
    expect(keptFrom(h, 20, ten)).toBe(3);
    // Three messages fit (index 2..4), but index 2 is a tool result without its call: start at 3.
    expect(keptFrom(h, 30, ten)).toBe(3);
    expect(keptFrom(h, 40, ten)).toBe(1);
    // Everything fits: nothing would be left to summarise, so nothing is kept.
    expect(keptFrom(h, 1000, ten)).toBe(h.length);
  });
});

describe('keptTailInstruction', () => {
  const said = (text: string): Message[] => [{ role: 'assistant', content: [{ type: 'thinking', thinking: 'x', signature: 's' }, { type: 'text', text: '' }, { type: 'text', text }] }];
  it('quotes the first non-empty text as a JSON string, whitespace folded, cut at 80 code points (never half a surrogate pair)', () => {
    expect(keptTailInstruction(said('He said "go"\nthen stop'))).toContain('the assistant message that begins "He said \\"go\\" then stop" onwards');
    const emoji = `${'a'.repeat(79)}😀 and more`;
    const quoted = /begins (".*?[^\\]") onwards/.exec(keptTailInstruction(said(emoji)))![1]!;
    expect(JSON.parse(quoted)).toBe(`${'a'.repeat(79)}😀`);
    // No lone surrogate (the API answers 400 to one).
    expect(keptTailInstruction(said(emoji))).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
  it('names the tool a message without text calls, else counts the messages; an empty tail is a RangeError', () => {
    expect(keptTailInstruction([{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'Read', input: {} }] }])).toContain('the assistant message that calls Read onwards');
    expect(keptTailInstruction([{ role: 'user', content: [{ type: 'text', text: ' ' }] }])).toContain('from the last message onwards');
    expect(() => keptTailInstruction([])).toThrow(RangeError);
  });
});
