/**
 * Signals through the built `rein run`: SIGTERM and SIGHUP end a run as Ctrl-C does (terminal
 * `aborted`, SessionEnd hooks run, the running Bash command's process group killed, exit 128 + the
 * signal's number); a second signal exits at once and still records `aborted`; after a SIGKILL the
 * resumed model is told the interrupted call may have completed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, tempDir } from '../../testing/support.js';
import { BASH_PRESET, BIN, entries, PLUGIN_IMPORTS, rein, startRein, terminals, transcripts, write } from './support.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  tmp = tempDir('rein-signals-');
  env = { REIN_HOME: join(tmp.dir, 'home') };
});
afterEach(() => tmp.cleanup());

/** A Bash call that starts a background child, says so, and would go on for 5 s. */
const LONG_BASH = `
turns:
  - reply: [{ tool_use: { name: Bash, input: { command: "sleep 30 & echo $! > bg.pid; echo started >> side.txt; sleep 5; echo finished >> side.txt" } } }]
  - reply: [{ text: "all done" }]
`;

const PRESET = `${BASH_PRESET}hooks:
  SessionEnd:
    - hooks: [{ type: command, command: "echo session-end >> side.txt" }]
`;

/** False for a process that is gone or a zombie (killed, waiting to be reaped by init). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 40));
  return !alive(pid);
}

describe.each([
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const)('%s is handled as Ctrl-C is', (signal, exitCode) => {
  it(`ends the run aborted, runs SessionEnd hooks, kills the Bash process group, exits ${exitCode}`, async () => {
    write(tmp.dir, { 's.yaml': LONG_BASH, 'p.yaml': PRESET });
    const run = startRein(['run', 'go', '--sim', 's.yaml', '--preset', './p.yaml', '--no-layers'], { cwd: tmp.dir, env });
    await run.waitFor({ file: join(tmp.dir, 'side.txt'), match: /started/ });
    run.child.kill(signal);
    const { code } = await run.exited;
    expect(code).toBe(exitCode);
    expect(run.stderr()).not.toMatch(/\n\s+at /); // no stack trace

    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    expect(terminals(file!)).toEqual(['aborted']);
    const end = entries(file!).find((e) => e.type === 'transition' && e.transition.kind === 'terminal')!;
    expect(end.transition.detail).toBe(`interrupted by ${signal}`);
    // The call's result says it was stopped, not that it may have completed.
    const results = entries(file!).filter((e) => e.type === 'message' && e.message.content.some((b: any) => b.type === 'tool_result'));
    expect(results.at(-1)!.message.content[0].content[0].text).toMatch(/not completed: the run was aborted/);

    // The background child of the Bash command died with its group, and the command never finished.
    const bg = Number(readFileSync(join(tmp.dir, 'bg.pid'), 'utf8'));
    expect(await gone(bg)).toBe(true);
    expect(readFileSync(join(tmp.dir, 'side.txt'), 'utf8').split('\n').filter(Boolean)).toEqual(['started', 'session-end']);
  });
});

describe('a second signal', () => {
  it('exits at once and still records aborted, when the first could not stop a tool that ignores it', async () => {
    write(tmp.dir, {
      's.yaml': 'turns:\n  - reply: [{ tool_use: { name: Stubborn, input: {} } }]\n  - reply: [{ text: "never" }]\n',
      'stubborn.mjs': `${PLUGIN_IMPORTS}
export default definePlugin({
  name: 'stubborn',
  apply(kernel) {
    kernel.tools.register(defineTool({ name: 'Stubborn', description: 'ignores aborts', inputSchema: z.object({}), isReadOnly: () => true,
      call: () => { process.stdout.write('STUBBORN\\n'); return new Promise(() => {}); } }));
  },
});
`,
      'p.yaml': 'tools: []\nplugins:\n  ./stubborn.mjs: {}\n',
    });
    const run = startRein(['run', 'go', '--sim', 's.yaml', '--preset', './p.yaml', '--no-layers'], { cwd: tmp.dir, env });
    await run.waitFor(/STUBBORN/);
    run.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    expect(run.child.exitCode).toBeNull(); // the tool holds the run
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    expect(code).toBe(130);
    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    expect(terminals(file!)).toEqual(['aborted']);
    expect(entries(file!).at(-1)!.transition.detail).toMatch(/interrupted by SIGINT, then SIGINT again/);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });
});

describe('after SIGKILL', () => {
  it('the resumed model is told the interrupted call may have completed', async () => {
    write(tmp.dir, { 's.yaml': LONG_BASH, 'p.yaml': BASH_PRESET });
    const run = startRein(['run', 'go', '--sim', 's.yaml', '--preset', './p.yaml', '--no-layers'], { cwd: tmp.dir, env });
    await run.waitFor({ file: join(tmp.dir, 'side.txt'), match: /started/ });
    run.child.kill('SIGKILL');
    await run.exited;
    try { process.kill(Number(readFileSync(join(tmp.dir, 'bg.pid'), 'utf8')), 'SIGKILL'); } catch { /* gone */ }
    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    const id = entries(file!)[0]!.sessionId as string;

    // A lock left by the killed process does not block the resume.
    expect(existsSync(`${file}.lock`)).toBe(true);
    const r = await rein(['run', 'go on', '--sim', 's.yaml', '--resume', id, '--output-format', 'json'], { cwd: tmp.dir, env });
    expect(r.stderr).not.toMatch(/in use/);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: 'all done', session_id: id });
    const closing = entries(file!).filter((e) => e.type === 'message' && e.message.meta?.source === 'kernel');
    expect(closing).toHaveLength(1);
    expect(closing[0]!.message.content[0].content[0].text).toMatch(/may have completed/);
  });
});

describe('a prompt on a pipe whose writer has not written yet (slow_command | rein -p)', () => {
  /** `rein -p ...args` with stdin a pipe left open; resolves once rein says it is reading the prompt from it. */
  async function waiting(args: string[]) {
    const child = spawn(process.execPath, [BIN, '-p', ...args], { cwd: tmp.dir, env: { ...cleanEnv(), ...env, REIN_TRACE_STARTUP: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    await new Promise<void>((r, reject) => {
      child.stderr.on('data', (d) => { err += d; if (/reading the prompt from stdin/.test(err)) r(); });
      void exited.then(() => reject(new Error(`rein exited before reading stdin: ${err}`)));
    });
    return { child, exited, out: () => out, err: () => err };
  }

  it('reads the prompt when it comes (no EAGAIN internal error), and runs it', async () => {
    write(tmp.dir, { 's.yaml': 'turns:\n  - reply: [{ text: "read it" }]\n' });
    const r = await waiting(['--sim', 's.yaml', '--no-layers', '--output-format', 'json']);
    r.child.stdin.end('what is here\n');
    expect(await r.exited).toBe(0);
    expect(r.err()).not.toMatch(/internal error|EAGAIN/);
    expect(JSON.parse(r.out())).toMatchObject({ subtype: 'success', result: 'read it' });
    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    expect(entries(file!).find((e) => e.type === 'message')!.message.content[0].text).toBe('what is here');
  });

  it('SIGINT while it waits: exit 130 at once, nothing ran', async () => {
    const r = await waiting(['--no-layers']);
    r.child.kill('SIGINT');
    expect(await r.exited).toBe(130);
    expect(r.err()).not.toMatch(/internal error|\n\s+at /);
    expect(r.out()).toBe('');
    expect(existsSync(join(env.REIN_HOME!, 'sessions'))).toBe(false);
    r.child.stdin.destroy();
  });
});

describe('the result of an interrupted run, as the Agent SDK words it', () => {
  it('terminal_reason aborted_tools while a tool runs, aborted_streaming while the model answers after it', async () => {
    write(tmp.dir, {
      'p.yaml': BASH_PRESET,
      'tools.yaml': 'turns:\n  - reply: [{ tool_use: { name: Bash, input: { command: "echo started >> side.txt; sleep 20" } } }]\n  - reply: [{ text: "never" }]\n',
      'model.yaml': 'turns:\n  - reply: [{ tool_use: { name: Bash, input: { command: "echo ran >> ran.txt" } } }]\n  - fault: { slowFirstByteMs: 20000 }\n    reply: [{ text: "never" }]\n',
    });
    const inTools = startRein(['run', 'go', '--sim', 'tools.yaml', '--preset', './p.yaml', '--no-layers', '--output-format', 'json'], { cwd: tmp.dir, env });
    await inTools.waitFor({ file: join(tmp.dir, 'side.txt'), match: /started/ });
    inTools.child.kill('SIGINT');
    expect((await inTools.exited).code).toBe(130);
    expect(JSON.parse(inTools.stdout())).toMatchObject({ subtype: 'error_during_execution', terminal_reason: 'aborted_tools', rein_terminal_reason: 'aborted' });

    // The tool of turn 1 has finished; the abort comes while turn 2's answer is awaited.
    const inModel = startRein(['run', 'go', '--sim', 'model.yaml', '--preset', './p.yaml', '--no-layers', '--output-format', 'stream-json'], { cwd: tmp.dir, env });
    await inModel.waitFor(/"subtype":"transition","kind":"continue"/);
    inModel.child.kill('SIGINT');
    expect((await inModel.exited).code).toBe(130);
    const result = inModel.stdout().trim().split('\n').map((l) => JSON.parse(l)).find((m) => m.type === 'result');
    expect(result).toMatchObject({ subtype: 'error_during_execution', terminal_reason: 'aborted_streaming', rein_terminal_reason: 'aborted' });
  });
});
