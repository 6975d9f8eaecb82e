/**
 * Piped input with a prompt, as `claude -p` users write it (`git diff | rein -p "review this"`),
 * through the built `rein` command with a real pipe: what stdin holds comes before the prompt; a
 * pipe nobody writes to delays the run by the wait at most and is then left unread, with a line
 * on stderr; more than 10 MiB is refused before anything runs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, tempDir } from '../../testing/support.js';
import { BIN, entries, transcripts, write } from './support.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  tmp = tempDir('rein-piped-');
  env = { REIN_HOME: join(tmp.dir, 'home') };
  write(tmp.dir, { 's.yaml': 'turns:\n  - reply: [{ text: "reviewed" }]\n' });
});
afterEach(() => tmp.cleanup());

/** `rein -p ...args` with stdin a pipe this test writes to (or not). */
function start(args: string[]) {
  const child = spawn(process.execPath, [BIN, '-p', '--sim', 's.yaml', '--no-layers', '--output-format', 'json', ...args], { cwd: tmp.dir, env: { ...cleanEnv(), ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  child.stdin.on('error', () => undefined);
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, exited, out: () => out, err: () => err };
}

/** `rein -p ...args` with stdin the null device (`ignore`) or an open file; its exit code and stderr. */
function runWith(args: string[], stdin: 'ignore' | number): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, [BIN, '-p', '--sim', 's.yaml', '--no-layers', '--output-format', 'json', ...args], { cwd: tmp.dir, env: { ...cleanEnv(), ...env }, stdio: [stdin, 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => { err += d; });
  return new Promise((r) => child.on('close', (code) => r({ code, err })));
}

/** The text of the session's first user message. */
function firstPrompt(): string {
  const [file] = transcripts(env.REIN_HOME!, tmp.dir);
  const first = entries(file!).find((e) => e.type === 'message')!.message;
  return typeof first.content === 'string' ? first.content : first.content.map((b: { text?: string }) => b.text ?? '').join('');
}

describe('piped stdin with a prompt', () => {
  it('what the pipe holds comes first, then a blank line, then the prompt; a writer that starts late is waited for', async () => {
    const r = start(['review this']);
    setTimeout(() => { r.child.stdin.write('diff --git a/x b/x\n'); setTimeout(() => r.child.stdin.end('+new line\n'), 200); }, 500);
    expect(await r.exited).toBe(0);
    expect(JSON.parse(r.out())).toMatchObject({ subtype: 'success', result: 'reviewed' });
    expect(firstPrompt()).toBe('diff --git a/x b/x\n+new line\n\nreview this');
    expect(r.err()).not.toMatch(/nothing arrived/);
  });

  it('an empty pipe (closed at once, or </dev/null) adds nothing and does not wait', async () => {
    const r = start(['review this']);
    r.child.stdin.end();
    expect(await r.exited).toBe(0);
    expect(firstPrompt()).toBe('review this');
    expect(r.err()).not.toMatch(/nothing arrived/);
  });

  it('stdin the null device: the prompt alone (it is not read); with no prompt, exit 2; a file on stdin is read', async () => {
    const alone = await runWith(['review this'], 'ignore');
    expect(alone.code).toBe(0);
    expect(firstPrompt()).toBe('review this');
    expect(alone.err).not.toMatch(/nothing arrived/);

    const none = await runWith([], 'ignore');
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/^rein: no prompt/m);

    write(tmp.dir, { 'diff.txt': 'from a file\n' });
    const fd = openSync(join(tmp.dir, 'diff.txt'), 'r');
    try {
      expect((await runWith(['review this'], fd)).code).toBe(0);
      expect(transcripts(env.REIN_HOME!, tmp.dir).length).toBe(2);
      const prompts = transcripts(env.REIN_HOME!, tmp.dir).map((t) => entries(t).find((e) => e.type === 'message')!.message.content)
        .map((c: string | { text?: string }[]) => (typeof c === 'string' ? c : c.map((b) => b.text ?? '').join('')));
      expect(prompts).toContain('from a file\n\nreview this');
    } finally {
      closeSync(fd);
    }
  });

  it('a pipe left open and silent: after the wait the prompt runs alone, and stderr says why it waited', async () => {
    const r = start(['review this']);
    try {
      expect(await r.exited).toBe(0);
      expect(firstPrompt()).toBe('review this');
      expect(r.err()).toMatch(/^rein: nothing arrived on stdin within 3 s; going on with the prompt alone \(start rein with <\/dev\/null to skip the wait\)$/m);
    } finally {
      r.child.stdin.destroy();
    }
  });

  it('more than 10 MiB on stdin: exit 2 with what to do instead, nothing sent', async () => {
    const r = start(['review this']);
    const mib = Buffer.alloc(1024 * 1024, 'a');
    for (let i = 0; i <= 10; i++) r.child.stdin.write(mib);
    r.child.stdin.end();
    expect(await r.exited).toBe(2);
    expect(r.err()).toMatch(/stdin holds more than 10 MiB; write it to a file and name the file in the prompt/);
    expect(r.err()).not.toMatch(/\n\s+at /);
    expect(r.out()).toBe('');
    expect(existsSync(join(env.REIN_HOME!, 'sessions'))).toBe(false);
  });
});
