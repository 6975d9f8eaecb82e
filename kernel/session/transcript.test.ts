import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { danglingToolUses, projectSlug, SessionError, Transcript } from './transcript.js';
import type { Message } from '../types.js';

let root: string;
beforeEach(() => { root = mkdtempSync(join(tmpdir(), 'rein-transcript-')); });
afterEach(() => { rmSync(root, { recursive: true, force: true }); });

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });

describe('Transcript', () => {
  it('writes a session header and one JSON line per entry, under <root>/<project>/<id>.jsonl', () => {
    const t = Transcript.create({ cwd: '/work/x', model: 'm', root });
    t.append({ type: 'message', message: user('hi') });
    expect(t.file).toBe(join(root, projectSlug('/work/x'), `${t.sessionId}.jsonl`));
    const lines = readFileSync(t.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['session', 'message']);
    expect(lines[0]).toMatchObject({ sessionId: t.sessionId, cwd: '/work/x', model: 'm', version: 1 });
  });

  it('replays messages and history replacements in order, byte-identically', () => {
    const t = Transcript.create({ cwd: '/p', model: 'm', root });
    const a = user('one ✓ "quoted"');
    t.append({ type: 'message', message: a });
    t.append({ type: 'history', messages: [user('summary')], reason: 'compact' });
    t.append({ type: 'message', message: user('two') });
    const back = Transcript.open(t.sessionId, { cwd: '/p', root }).replayMessages();
    expect(JSON.stringify(back)).toBe(JSON.stringify([user('summary'), user('two')]));
  });

  it('skips a torn last line left by a crash and keeps the rest', () => {
    const t = Transcript.create({ cwd: '/p', model: 'm', root });
    t.append({ type: 'message', message: user('kept') });
    appendFileSync(t.file, '{"type":"message","message":{"role":"user","cont');
    expect(Transcript.open(t.sessionId, { cwd: '/p', root }).replayMessages()).toEqual([user('kept')]);
  });

  it('names the missing session', () => {
    expect(() => Transcript.open('nope', { cwd: '/p', root })).toThrow(SessionError);
    expect(() => Transcript.open('nope', { cwd: '/p', root })).toThrow(/no session nope/);
  });

  it('finds the newest session of a directory for --continue', async () => {
    const a = Transcript.create({ cwd: '/p', model: 'm', root });
    await new Promise((r) => setTimeout(r, 15));
    const b = Transcript.create({ cwd: '/p', model: 'm', root });
    expect(Transcript.latest({ cwd: '/p', root })).toBe(b.sessionId);
    expect(a.sessionId).not.toBe(b.sessionId);
    expect(Transcript.latest({ cwd: '/other', root })).toBeUndefined();
  });

  it('finds tool_use blocks left without results', () => {
    const m: Message[] = [user('x'), { role: 'assistant', content: [{ type: 'text', text: 'ok' }, { type: 'tool_use', id: 't1', name: 'Read', input: {} }] }];
    expect(danglingToolUses(m)).toEqual(['t1']);
    expect(danglingToolUses([...m, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'r' }] }])).toEqual([]);
  });
});
