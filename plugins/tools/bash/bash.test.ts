import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bashPlugin, { BASH_MAX_OUTPUT_CHARS, bashCwd } from './index.js';
import readPlugin from '../read/index.js';
import toolConcurrency, { partitionToolCalls } from '../../tool-concurrency/index.js';
import type { AgentEvent } from '../../../kernel/index.js';
import { callTool, cleanupTempDirs, runCalls, tempDir, textOf, toolKernel, use, useTempReinHome } from '../../../testing/tools.js';

let dir: string;
beforeAll(() => {
  useTempReinHome();
  dir = tempDir();
  mkdirSync(join(dir, 'sub'));
});
afterAll(cleanupTempDirs);

const kernel = (opts: { resume?: string } = {}) => toolKernel({ plugins: [{ plugin: bashPlugin }, { plugin: readPlugin }, { plugin: toolConcurrency }], cwd: dir, ...opts });

/** True while a process with this pid exists and is not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Waits until `pid` is gone (SIGKILL is asynchronous); false if it is still there after 5 s. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 500; i++) {
    if (!alive(pid)) return true;
    await new Promise((res) => setTimeout(res, 10));
  }
  return false;
}

describe('Bash', () => {
  it('runs a real bash and returns stdout and stderr interleaved', async () => {
    const r = await callTool(await kernel(), 'Bash', { command: 'echo out; echo err >&2; echo "$BASH_VERSION" | cut -c1' });
    expect(r.is_error).toBeUndefined();
    expect(textOf(r)).toMatch(/^out\nerr\n\d$/);
  });

  it('returns a failing command as is_error with its exit code and output', async () => {
    const r = await callTool(await kernel(), 'Bash', { command: 'echo partial; exit 3' });
    expect(r.is_error).toBe(true);
    expect(textOf(r)).toBe('Exit code 3\npartial');
  });

  it('keeps the working directory between calls, and across --resume', async () => {
    const k = await kernel();
    await callTool(k, 'Bash', { command: 'cd sub' });
    expect(textOf(await callTool(k, 'Bash', { command: 'pwd' }))).toBe(join(dir, 'sub'));
    const resumed = await kernel({ resume: k.sessionId });
    expect(bashCwd(resumed)).toBe(join(dir, 'sub'));
    expect(textOf(await callTool(resumed, 'Bash', { command: 'pwd' }))).toBe(join(dir, 'sub'));
  });

  it('says when a command changed files read earlier', async () => {
    const k = await kernel();
    writeFileSync(join(dir, 'watched.txt'), 'one\n');
    await callTool(k, 'Read', { file_path: join(dir, 'watched.txt') });
    const quiet = await callTool(k, 'Bash', { command: 'cat watched.txt' });
    expect(textOf(quiet)).toBe('one');
    const r = await callTool(k, 'Bash', { command: 'echo two >> watched.txt && echo done' });
    expect(textOf(r)).toBe('done\n\n(Files you read earlier changed during this command: watched.txt. Read them again before editing them.)');
  });

  it('gives an empty output a placeholder', async () => {
    expect(textOf(await callTool(await kernel(), 'Bash', { command: 'true' }))).toBe('(Bash completed with no output)');
  });

  it('kills the whole process group on timeout', async () => {
    const pidFile = join(dir, 'bg.pid');
    const r = await callTool(await kernel(), 'Bash', { command: `sleep 60 & echo $! > ${pidFile}; echo started; sleep 60`, timeout: 300 });
    expect(r.is_error).toBe(true);
    expect(textOf(r)).toContain('timed out after 0.3 s');
    expect(textOf(r)).toContain('started');
    expect(await gone(Number(readFileSync(pidFile, 'utf8')))).toBe(true);
  });

  it('kills the process group when the run is aborted', async () => {
    const pidFile = join(dir, 'abort.pid');
    const k = await kernel();
    const ac = new AbortController();
    const pending = callTool(k, 'Bash', { command: `sleep 60 & echo $! > ${pidFile}; sleep 60` }, ac.signal);
    while (!existsSync(pidFile) || !readFileSync(pidFile, 'utf8').trim()) await new Promise((res) => setTimeout(res, 10));
    ac.abort();
    const r = await pending;
    expect(r.is_error).toBe(true);
    expect(textOf(r)).toContain('aborted');
    expect(await gone(Number(readFileSync(pidFile, 'utf8')))).toBe(true);
  });

  it('saves a huge output to the session and returns its head and tail with the path', async () => {
    const k = await kernel();
    const r = await callTool(k, 'Bash', { command: 'seq 1 100000' });
    const t = textOf(r);
    expect(t.length).toBeLessThan(BASH_MAX_OUTPUT_CHARS);
    expect(t).toMatch(/^<persisted-output>/);
    expect(t).toContain('\n1\n2\n3\n');
    expect(t).toContain('99999\n100000');
    const path = /Full output saved to: (\S+)/.exec(t)![1]!;
    expect(path.startsWith(k.sessionDir())).toBe(true);
    const full = readFileSync(path, 'utf8');
    expect(full.split('\n')).toHaveLength(100001);
  });

  it('rejects a timeout over 600 s as bad input naming the field', async () => {
    const r = await callTool(await kernel(), 'Bash', { command: 'true', timeout: 900_000 });
    expect(r.is_error).toBe(true);
    expect(textOf(r)).toMatch(/timeout: .*600000/);
  });

  it('a failing call cancels its Bash siblings in the same batch, but not other tools, and the run goes on', async () => {
    const k = await kernel();
    const events: AgentEvent[] = [];
    k.hooks.event.tap('test', (e) => { events.push(e); });
    const ac = new AbortController();
    writeFileSync(join(dir, 'notes.txt'), 'hello\n');
    const calls = [
      use('Bash', { command: 'tail -f /dev/null', description: 'wait forever' }, 'toolu_wait'),
      use('Read', { file_path: join(dir, 'notes.txt') }, 'toolu_read'),
      use('Bash', { command: 'ls /no/such/dir' }, 'toolu_fail'),
    ];
    const out = await runCalls(k, calls, ac.signal);
    expect(out.results.map((r) => r.tool_use_id)).toEqual(['toolu_wait', 'toolu_read', 'toolu_fail']);
    const [wait, read, fail] = out.results.map(textOf);
    expect(out.results[2]!.is_error).toBe(true);
    expect(fail).toMatch(/^Exit code 2\nls: cannot access/);
    expect(out.results[0]!.is_error).toBe(true);
    expect(wait).toContain('Cancelled: a parallel Bash call failed (ls /no/such/dir)');
    expect(out.results[1]!.is_error).toBeUndefined();
    expect(read).toBe('1\thello');
    expect(ac.signal.aborted).toBe(false);
    // Proof of overlap: every call started before the first one ended.
    const kinds = events.filter((e) => e.type === 'tool_start' || e.type === 'tool_end').map((e) => e.type);
    expect(kinds.slice(0, 3)).toEqual(['tool_start', 'tool_start', 'tool_start']);
  });

  it('runs read-only commands in one parallel batch and writes alone', async () => {
    const k = await kernel();
    const batches = partitionToolCalls(k, [
      use('Bash', { command: 'git status' }), use('Bash', { command: 'ls -la' }), use('Bash', { command: 'git push' }), use('Bash', { command: 'cat x' }),
    ]);
    expect(batches.map((b) => [b.concurrent, b.calls.length])).toEqual([[true, 2], [false, 1], [true, 1]]);
  });
});
