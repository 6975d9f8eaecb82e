import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bashPlugin, { shellsOf } from './index.js';
import { bashBackgroundInput, bashInput } from './tool.js';
import { callTool, cleanupTempDirs, runCalls, tempDir, textOf, toolKernel, use, useTempReinHome } from '../../../testing/tools.js';

let dir: string;
beforeAll(() => {
  useTempReinHome();
  dir = tempDir();
});
afterAll(cleanupTempDirs);

const kernel = (options: Record<string, unknown> = {}, resume?: string) => toolKernel({ plugins: [{ plugin: bashPlugin, options }], cwd: dir, resume });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(cond: () => boolean, ms = 10_000): Promise<boolean> {
  for (let t = 0; t < ms; t += 20) {
    if (cond()) return true;
    await sleep(20);
  }
  return cond();
}

/** The shell id in Bash's answer to a background start. */
function idOf(text: string): string {
  const m = /with ID: (\S+?)\./.exec(text);
  expect(m, text).not.toBeNull();
  return m![1]!;
}

describe('background shells', () => {
  it('Bash with run_in_background returns an id at once; BashOutput reads only what is new, then the exit code', async () => {
    const k = await kernel();
    const r = await callTool(k, 'Bash', { command: 'echo one; sleep 2; echo two; echo oops >&2; exit 3', run_in_background: true });
    const id = idOf(textOf(r));
    expect(id).toBe('bash_1');
    // Bash answered while the command still runs.
    expect(shellsOf(k).get(id)!.status).toBe('running');
    await until(() => readFileSync(shellsOf(k).get(id)!.stdoutFile, 'utf8').includes('one'));
    const first = textOf(await callTool(k, 'BashOutput', { bash_id: id }));
    expect(first).toMatch(/^<status>running<\/status>\n\n<stdout>\none\n<\/stdout>\n\n<timestamp>/);
    await shellsOf(k).get(id)!.exited;
    const second = textOf(await callTool(k, 'BashOutput', { bash_id: id }));
    expect(second).toContain('<status>failed</status>\n\n<exit_code>3</exit_code>\n\n<stdout>\ntwo\n</stdout>\n\n<stderr>\noops\n</stderr>');
    expect(second).not.toContain('one');
    const third = textOf(await callTool(k, 'BashOutput', { bash_id: id }));
    expect(third).not.toContain('<stdout>');
  });

  it('filter keeps matching lines and discards the rest', async () => {
    const k = await kernel();
    const id = idOf(textOf(await callTool(k, 'Bash', { command: 'printf "a1\\nb2\\na3\\n"', run_in_background: true })));
    await shellsOf(k).get(id)!.exited;
    expect(textOf(await callTool(k, 'BashOutput', { bash_id: id, filter: '^a' }))).toContain('<stdout>\na1\na3\n</stdout>');
    expect(textOf(await callTool(k, 'BashOutput', { bash_id: id }))).not.toContain('b2');
    const bad = await callTool(k, 'BashOutput', { bash_id: id, filter: '(' });
    expect(bad.is_error).toBe(true);
    expect(textOf(bad)).toMatch(/^filter is not a valid regular expression/);
  });

  it('KillShell kills the whole process group, and says so; a second kill is an error', async () => {
    const k = await kernel();
    const pidFile = join(dir, 'child.pid');
    const id = idOf(textOf(await callTool(k, 'Bash', { command: `sleep 60 & echo $! > ${pidFile}; sleep 60`, run_in_background: true })));
    await until(() => { try { return readFileSync(pidFile, 'utf8').trim() !== ''; } catch { return false; } });
    const child = Number(readFileSync(pidFile, 'utf8'));
    const shell = shellsOf(k).get(id)!;
    expect(alive(child) && alive(shell.pid)).toBe(true);
    const r = await callTool(k, 'KillShell', { shell_id: id });
    expect(textOf(r)).toBe(`Successfully killed shell: ${id} (sleep 60 & echo $! > ${pidFile}; sleep 60)`);
    expect(await until(() => !alive(child) && !alive(shell.pid), 5_000)).toBe(true);
    expect(textOf(await callTool(k, 'BashOutput', { bash_id: id }))).toContain('<status>killed</status>');
    const again = await callTool(k, 'KillShell', { shell_id: id });
    expect(again.is_error).toBe(true);
    expect(textOf(again)).toMatch(/is not running \(status: killed/);
    const unknown = await callTool(k, 'BashOutput', { bash_id: 'bash_99' });
    expect(textOf(unknown)).toMatch(/No background shell with id bash_99\. The shells of this session: bash_1/);
  });

  it('an ended shell is announced once, after the next tool result', async () => {
    const k = await kernel();
    const id = idOf(textOf(await callTool(k, 'Bash', { command: 'exit 0', run_in_background: true })));
    await shellsOf(k).get(id)!.exited;
    const out = await runCalls(k, [use('Bash', { command: 'echo hi' })]);
    expect(out.additionalContext.join('\n')).toContain(`<task-id>${id}</task-id>\n<status>completed</status>`);
    const next = await runCalls(k, [use('Bash', { command: 'echo hi' })]);
    expect(next.additionalContext).toEqual([]);
  });

  it('caps each output file: past the cap it is emptied, the shell keeps running, and the reader is told', async () => {
    const k = await kernel({ background: { maxOutputBytes: 2000 } });
    const id = idOf(textOf(await callTool(k, 'Bash', { command: 'head -c 5000 /dev/zero | tr "\\0" x; sleep 1.5; echo tail-end', run_in_background: true })));
    await shellsOf(k).get(id)!.exited;
    const text = textOf(await callTool(k, 'BashOutput', { bash_id: id }));
    expect(text).toContain('<status>completed</status>');
    expect(text).toMatch(/\[5000 bytes were dropped before they were read: the output passed its cap of 2000 bytes\]\ntail-end/);
  });

  it('shells are killed when the run ends; with keepRunning they outlive the kernel and a resumed session reads and kills them', async () => {
    const k = await kernel();
    const id = idOf(textOf(await callTool(k, 'Bash', { command: 'sleep 60', run_in_background: true })));
    const pid = shellsOf(k).get(id)!.pid;
    await k.close();
    expect(await until(() => !alive(pid), 5_000)).toBe(true);

    const keeper = await kernel({ background: { keepRunning: true } });
    const kid = idOf(textOf(await callTool(keeper, 'Bash', { command: 'echo ready; sleep 60', run_in_background: true })));
    const kpid = shellsOf(keeper).get(kid)!.pid;
    await keeper.close();
    await sleep(300);
    expect(alive(kpid)).toBe(true);
    // A new kernel on the same session (as `rein run --resume` would make) knows the shell.
    const resumed = await kernel({ background: { keepRunning: true } }, keeper.sessionId);
    expect(shellsOf(resumed).running().map((s) => s.id)).toEqual([kid]);
    expect(textOf(await callTool(resumed, 'BashOutput', { bash_id: kid }))).toMatch(/<status>running<\/status>\n\n<stdout>\nready\n<\/stdout>/);
    expect(textOf(await callTool(resumed, 'KillShell', { shell_id: kid }))).toMatch(/^Successfully killed shell/);
    expect(await until(() => !alive(kpid), 5_000)).toBe(true);
    // The next shell of the resumed session gets a new id.
    expect(idOf(textOf(await callTool(resumed, 'Bash', { command: 'true', run_in_background: true })))).toBe('bash_2');
    await resumed.close();
  });

  it('a shell whose exit file says how it ended is reported so after a resume', async () => {
    const k = await kernel({ background: { keepRunning: true } });
    const id = idOf(textOf(await callTool(k, 'Bash', { command: 'sleep 0.2; exit 4', run_in_background: true })));
    const shell = shellsOf(k).get(id)!;
    // Forget the exit as if this process died before seeing it: only the file knows.
    shell.child?.removeAllListeners('exit');
    await until(() => readFileSync(shell.exitFile, 'utf8').trim() === '4');
    const resumed = await kernel({}, k.sessionId);
    expect(textOf(await callTool(resumed, 'BashOutput', { bash_id: id }))).toContain('<status>failed</status>\n\n<exit_code>4</exit_code>');
  });

  it('after a compaction, the next request lists the shells still running, at the tail of the history', async () => {
    const k = await kernel();
    const id = idOf(textOf(await callTool(k, 'Bash', { command: 'sleep 30', run_in_background: true, description: 'Wait a while' })));
    const ctx = k.runContext();
    const history = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'summary' }] }];
    const quiet = await k.hooks.context.promise({ messages: history, tokensFreed: 0 }, ctx);
    expect(quiet.messages).toBe(history);
    await k.hooks.postCompact.promise({ trigger: 'auto', result: { messages: history, tokensAfter: 1, strategy: 'test' }, tokensBefore: 10, attachments: [] }, ctx);
    const after = await k.hooks.context.promise({ messages: history, tokensFreed: 0 }, ctx);
    expect(after.messages.slice(0, 1)).toEqual(history);
    const note = after.messages[1]!;
    expect(note.role).toBe('user');
    expect((note.content[0] as { text: string }).text).toMatch(new RegExp(`^Background shells still running \\(read them with BashOutput, stop them with KillShell\\):\\n- ${id}: \`sleep 30\` \\(Wait a while\\), running for \\d+ s$`));
    // Once: the next request does not repeat it.
    expect((await k.hooks.context.promise({ messages: history, tokensFreed: 0 }, ctx)).messages).toBe(history);
    await k.close();
  });

  it('without background shells, Bash has no run_in_background and the other two tools are absent', async () => {
    const k = await kernel({ background: { enabled: false } });
    expect(k.tools.names()).toEqual(['Bash']);
    const r = await callTool(k, 'Bash', { command: 'true', run_in_background: true });
    expect(r.is_error).toBe(true);
    expect(bashInput.safeParse({ command: 'x', run_in_background: true }).success).toBe(false);
    expect(bashBackgroundInput.safeParse({ command: 'x', run_in_background: true }).success).toBe(true);
    expect((await kernel()).tools.names()).toEqual(['Bash', 'BashOutput', 'KillShell']);
    writeFileSync(join(dir, 'unused'), '');
  });
});
