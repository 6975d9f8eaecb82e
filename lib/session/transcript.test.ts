import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFileSync, copyFileSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, REPO } from '../../testing/support.js';
import { danglingToolUses, pairToolCalls, projectSlug, SessionError, Transcript, TranscriptWriteError } from './transcript.js';
import type { Message } from '../../kernel/index.js';

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

  it('reads the header from the first line alone, and falls back to a full open (and its error) when that line is damaged', () => {
    const t = Transcript.create({ cwd: '/p', model: 'm', presetRef: 'presets/x.yaml', root });
    t.append({ type: 'message', message: user('kept') });
    // A damaged compacted history makes open() refuse the file; the header read never reaches it.
    appendFileSync(t.file, '{"type":"history","messages":[{"role":"user","cont\n');
    expect(() => Transcript.open(t.sessionId, { cwd: '/p', root })).toThrow(SessionError);
    expect(Transcript.readHeader(t.sessionId, { cwd: '/p', root })).toMatchObject({ type: 'session', sessionId: t.sessionId, presetRef: 'presets/x.yaml' });
    const bad = join(root, 'bad.jsonl');
    writeFileSync(bad, '{"type":"sess\n{"type":"message"}\n');
    expect(() => Transcript.readHeader(bad, { cwd: '/p', root })).toThrow(/not a rein transcript/);
    expect(() => Transcript.readHeader('nope', { cwd: '/p', root })).toThrow(/no session nope/);
  });

  it('finds the newest matching entry from the end of the file, skipping damaged lines', () => {
    const t = Transcript.create({ cwd: '/p', model: 'm', root });
    const response = (turn: number, client?: Record<string, unknown>) => ({ type: 'response' as const, turn, model: 'm', usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, stopReason: 'end_turn', at: turn, source: 'main_loop', ...(client ? { client } : {}) });
    t.append(response(1, { n: 1 }));
    appendFileSync(t.file, '{"type":"history","messages":[{"role":"user","cont\n');
    t.append(response(2, { n: 2 }));
    t.append(response(3));
    appendFileSync(t.file, 'not json\n');
    const pick = (e: { type: string; client?: Record<string, unknown> }) => (e.type === 'response' && e.client ? e.client : undefined);
    expect(Transcript.findLast(t.sessionId, { cwd: '/p', root }, pick)).toEqual({ n: 2 });
    expect(Transcript.findLast(t.sessionId, { cwd: '/p', root }, (e) => (e.type === 'plugin' ? e : undefined))).toBeUndefined();
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

  it('a copy beside the original (cp X.jsonl Y.jsonl) goes on as session Y, and says so; a copy elsewhere keeps X', () => {
    const t = Transcript.create({ cwd: '/p', model: 'm', root });
    t.append({ type: 'message', message: user('one') });
    t.close();
    const copy = join(root, projectSlug('/p'), 'copy-1.jsonl');
    copyFileSync(t.file, copy);
    for (const ref of ['copy-1', copy]) {
      const o = Transcript.open(ref, { cwd: '/p', root, lock: true });
      expect(o.sessionId, ref).toBe('copy-1');
      expect(o.notices, ref).toEqual([`its header names session ${t.sessionId}, so it is a copy of that session; it goes on as session copy-1, its file's name`]);
      o.close();
    }
    // A fork of the copy is forked from the copy.
    const fork = Transcript.fork('copy-1', { cwd: '/p', root });
    expect(fork.header).toMatchObject({ forkedFrom: 'copy-1' });
    fork.close();
    // The original is itself, with nothing to say.
    const again = Transcript.open(t.sessionId, { cwd: '/p', root });
    expect([again.sessionId, again.notices]).toEqual([t.sessionId, []]);
    // Elsewhere (a backup opened by path), `rein -r NAME` could not find it: it stays the session it was.
    const backup = join(root, 'copy-2.jsonl');
    copyFileSync(t.file, backup);
    const b = Transcript.open(backup, { cwd: '/p', root });
    expect([b.sessionId, b.notices]).toEqual([t.sessionId, []]);
  });

  it('a link beside the original (ln -s X.jsonl Y.jsonl, or a hard link) is not a copy: it goes on as X, through X\'s path and lock', () => {
    const t = Transcript.create({ cwd: '/p', model: 'm', root });
    t.append({ type: 'message', message: user('one') });
    t.close();
    const dir = join(root, projectSlug('/p'));
    symlinkSync(`${t.sessionId}.jsonl`, join(dir, 'soft.jsonl'));
    linkSync(t.file, join(dir, 'hard.jsonl'));
    for (const name of ['soft', 'hard']) {
      for (const ref of [name, join(dir, `${name}.jsonl`)]) {
        const o = Transcript.open(ref, { cwd: '/p', root, lock: true });
        // The same file as X's: the same id and path, so the same lock (one writer per file).
        expect([o.sessionId, o.file], ref).toEqual([t.sessionId, t.file]);
        expect(o.notices, ref).toEqual([`${name}.jsonl is a link to this transcript, not a copy, so it goes on as session ${t.sessionId} (cp makes a copy that goes on as a session of its own)`]);
        o.close();
      }
    }
    // With the original gone, the file left is the session's only transcript: a copy, as by cp.
    unlinkSync(t.file);
    const h = Transcript.open('hard', { cwd: '/p', root });
    expect([h.sessionId, h.file]).toEqual(['hard', join(dir, 'hard.jsonl')]);
  });

  it('a session id longer than 128 characters is refused with the limit named', () => {
    expect(() => Transcript.open('a'.repeat(129), { cwd: '/p', root })).toThrow(`"${'a'.repeat(129)}" is not a valid session id: use letters, digits and "-" only, at most 128 of them, or give the path of a .jsonl transcript`);
  });

  it('opened by a path whose name is not <id>.jsonl: appends go to that file, side files beside it', () => {
    const t = Transcript.create({ cwd: '/p', model: 'm', root });
    t.append({ type: 'message', message: user('one') });
    t.close();
    mkdirSync(join(root, 'x.j'));
    const copy = join(root, 'x.j', 'kept.jsonl');
    copyFileSync(t.file, copy);
    const o = Transcript.open('x.j/kept.jsonl', { cwd: root, root, lock: true });
    expect(o.file).toBe(copy);
    expect(o.dir).toBe(join(root, 'x.j', 'kept'));
    o.append({ type: 'message', message: user('two') });
    o.close();
    expect(readFileSync(copy, 'utf8')).toContain('"two"');
    expect(readFileSync(t.file, 'utf8')).not.toContain('"two"');
  });

  it('after a torn last line, the next entry starts on a line of its own', () => {
    const t = Transcript.create({ cwd: '/p', model: 'm', root });
    t.close();
    appendFileSync(t.file, '{"type":"message","mess');
    const o = Transcript.open(t.sessionId, { cwd: '/p', root });
    expect(o.damaged).toEqual([{ line: 2, problem: 'the last line was cut off (the run that wrote it stopped mid-write)' }]);
    o.append({ type: 'message', message: user('after') });
    const back = Transcript.open(t.sessionId, { cwd: '/p', root });
    expect(back.replayMessages()).toEqual([user('after')]);
    expect(back.damaged.map((d) => d.line)).toEqual([2]);
  });

  it('names damaged lines and drops a tool call that lost its result, with the result of one that lost its call', () => {
    const call = (id: string): Message => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: {} }] });
    const result = (id: string): Message => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] });
    const t = Transcript.create({ cwd: '/p', model: 'm', root });
    for (const m of [user('go'), call('a'), result('a'), call('b'), result('b'), call('c'), result('c')]) t.append({ type: 'message', message: m });
    t.close();
    const lines = readFileSync(t.file, 'utf8').trim().split('\n');
    lines[3] = 'not json'; // a's result
    lines[6] = '{"type":"message"}'; // c's call
    writeFileSync(t.file, lines.join('\n') + '\n');
    const o = Transcript.open(t.sessionId, { cwd: '/p', root });
    expect(o.damaged).toEqual([{ line: 4, problem: 'not valid JSON' }, { line: 7, problem: 'a message entry without a valid message (role and content blocks)' }]);
    expect(o.replayMessages()).toEqual([user('go'), call('b'), result('b')]);
    expect(o.repairs).toEqual([
      'dropped the assistant message with tool call a: its results were on a damaged line',
      'dropped the result of tool call c: the call was on a damaged line',
    ]);
  });

  it('keeps the last tool call without results (the loop closes it) and leaves an undamaged history alone', () => {
    const m: Message[] = [user('x'), { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Read', input: {} }] }];
    expect(pairToolCalls(m)).toEqual({ messages: m, dropped: [] });
  });

  it('refuses a damaged compacted history, saying how to cut the file before it', () => {
    const t = Transcript.create({ cwd: '/p', model: 'm', root });
    t.append({ type: 'message', message: user('one') });
    t.close();
    appendFileSync(t.file, '{"type":"history","messages":[{"role":"user","conte\n');
    expect(() => Transcript.open(t.sessionId, { cwd: '/p', root })).toThrow(SessionError);
    expect(() => Transcript.open(t.sessionId, { cwd: '/p', root })).toThrow(`head -n 2 ${t.file} >`);
  });

  it('keeps an index of what it appends, not the entries: plugin data, turns and the header follow appends, as a reopen reads them', () => {
    const t = Transcript.create({ cwd: '/p', model: 'm', root });
    const response = (turn: number, source: string) => ({ type: 'response' as const, turn, model: 'm', usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, stopReason: 'end_turn', at: 0, source });
    t.append({ type: 'message', message: user('one') });
    t.append({ type: 'plugin', plugin: 'a', data: { n: 1 } });
    t.append(response(1, 'main_loop'));
    t.append(response(1, 'compact'));
    t.append({ type: 'plugin', plugin: 'b', data: 'x' });
    t.append({ type: 'plugin', plugin: 'a', data: { n: 2 } });
    t.append(response(2, 'main_loop'));
    expect(t.entries).toEqual([]); // nothing appended is held
    expect(t.pluginData('a')).toEqual([{ n: 1 }, { n: 2 }]);
    expect(t.pluginData('b')).toEqual(['x']);
    expect(t.pluginData('none')).toEqual([]);
    expect(t.turns).toBe(2);
    expect(t.header.sessionId).toBe(t.sessionId);
    t.close();
    const o = Transcript.open(t.sessionId, { cwd: '/p', root });
    expect(o.entries).toHaveLength(8);
    expect(o.pluginData('a')).toEqual(t.pluginData('a'));
    expect(o.turns).toBe(2);
    expect(o.header).toEqual(t.header);
  });

  it('plugin data appended since open is read back from the file, not held: later changes to the object do not show, and a name inside other data is not taken for the plugin', () => {
    const t = Transcript.create({ cwd: '/p', model: 'm', root });
    const data = { n: 1, note: 'x' };
    t.append({ type: 'plugin', plugin: 'a', data });
    t.append({ type: 'plugin', plugin: 'b', data: { plugin: 'a' } });
    data.note = 'changed after the append';
    expect(t.pluginData('a')).toEqual([{ n: 1, note: 'x' }]);
    expect(t.pluginData('b')).toEqual([{ plugin: 'a' }]);
    t.close();
    // A resumed session: entries read at open, then appended ones, in order.
    const o = Transcript.open(t.sessionId, { cwd: '/p', root, lock: true });
    o.append({ type: 'plugin', plugin: 'a', data: { n: 2 } });
    expect(o.pluginData('a')).toEqual([{ n: 1, note: 'x' }, { n: 2 }]);
    o.close();
  });

  it('an entry the file system refused is not indexed: turns and plugin data stay what the file holds', () => {
    const t = Transcript.create({ cwd: '/p', model: 'm', root });
    t.append({ type: 'plugin', plugin: 'a', data: 1 });
    const held = readFileSync(t.file);
    t.close(); // the next append opens the file again
    unlinkSync(t.file);
    mkdirSync(t.file); // appending to a directory fails (EISDIR)
    expect(() => t.append({ type: 'plugin', plugin: 'a', data: 2 })).toThrow(TranscriptWriteError);
    expect(() => t.append({ type: 'response', turn: 1, model: 'm', usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, stopReason: 'end_turn', at: 0, source: 'main_loop' })).toThrow(TranscriptWriteError);
    // Plugin data appended since open is read back from the file: put back what it held.
    rmSync(t.file, { recursive: true });
    writeFileSync(t.file, held);
    expect(t.pluginData('a')).toEqual([1]);
    expect(t.turns).toBe(0);
    t.close();
  });

  it('appends go through one descriptor of the file, which close() closes', () => {
    const t = Transcript.create({ cwd: '/p', model: 'm', root });
    const open = () => readdirSync('/proc/self/fd').filter((fd) => { try { return readlinkSync(`/proc/self/fd/${fd}`) === t.file; } catch { return false; } }).length;
    for (let i = 0; i < 5; i++) t.append({ type: 'message', message: user(`m${i}`) });
    expect(open()).toBe(1);
    expect(readFileSync(t.file, 'utf8').trim().split('\n')).toHaveLength(6);
    t.close();
    expect(open()).toBe(0);
    // A later append opens the file again, and appends after what is there.
    t.append({ type: 'message', message: user('after') });
    t.close();
    expect(Transcript.open(t.file, { cwd: '/p', root }).entries).toHaveLength(7);
  });

  it('a header the file cannot take lets go of the lock: the session is not left locked', () => {
    const sessionId = '0b5c3a52-4f8e-4d0e-9a57-1f2b3c4d5e6f';
    const dir = join(root, projectSlug('/p'));
    mkdirSync(dir, { recursive: true });
    // A link to a file in a folder that does not exist: not there yet, and appending fails (ENOENT).
    symlinkSync(join(root, 'no-such-folder', 'x.jsonl'), join(dir, `${sessionId}.jsonl`));
    expect(() => Transcript.create({ cwd: '/p', model: 'm', root, sessionId })).toThrow(TranscriptWriteError);
    expect(readdirSync(dir).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });

  it('a header write the file system refuses (a file size limit) closes the file and lets go of the lock', () => {
    // A real rein process under `ulimit -f 1` (at most 512 or 1024 bytes per file): the lock file
    // fits, the header with a 4,000-character model name does not, so the write fails with EFBIG
    // (Node ignores SIGXFSZ) after the file was opened.
    const script = `
      import { readdirSync, readlinkSync } from 'node:fs';
      const mod = await import(${JSON.stringify(join(REPO, 'lib/session/transcript.ts'))});
      const { Transcript } = mod.default ?? mod; // jiti hands the TypeScript module over as the default export
      const root = ${JSON.stringify(root)};
      let error;
      try { Transcript.create({ cwd: '/p', model: 'm'.repeat(4000), root }); } catch (err) { error = \`\${err.name}: \${err.message}\`; }
      const fds = readdirSync('/proc/self/fd').map((fd) => { try { return readlinkSync(\`/proc/self/fd/\${fd}\`); } catch { return ''; } }).filter((l) => l.startsWith(root));
      process.stdout.write(JSON.stringify({ error, fds }));
    `;
    const r = spawnSync('sh', ['-c', 'ulimit -f 1 && exec "$0" "$@"', process.execPath, '--import', join(REPO, 'node_modules/jiti/lib/jiti-register.mjs'), '--input-type=module', '-e', script], {
      encoding: 'utf8', timeout: 60_000,
      // jiti compiles the TypeScript in memory: its file cache would meet the size limit too.
      env: { ...cleanEnv(), JITI_FS_CACHE: 'false' },
    });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { error?: string; fds: string[] };
    expect(out.error).toMatch(/^TranscriptWriteError: .*EFBIG/);
    expect(out.fds).toEqual([]);
    const dir = join(root, projectSlug('/p'));
    expect(readdirSync(dir).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });

  it('a write the file system refuses throws TranscriptWriteError, and so does every later one', () => {
    const t = Transcript.create({ cwd: '/p', model: 'm', root });
    t.close(); // the next append opens the file again
    unlinkSync(t.file);
    mkdirSync(t.file); // appending to a directory fails (EISDIR)
    expect(() => t.append({ type: 'message', message: user('x') })).toThrow(TranscriptWriteError);
    rmSync(t.file, { recursive: true });
    expect(() => t.append({ type: 'message', message: user('y') })).toThrow(/^cannot write the session transcript .*\.jsonl: /);
    t.close();
  });
});
