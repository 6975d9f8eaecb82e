/**
 * Sessions through the built `rein run`: one writer per session (a second `--continue` is refused,
 * naming the holder), `--resume FILE.jsonl` appends to the file opened, damaged transcripts (lines
 * named, the damaged turn dropped, or refused with the command that repairs it), and a scripted
 * session resumed with its scenario going on from the turn it reached.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { tempDir } from '../../testing/support.js';
import { BASH_PRESET, entries, projectDir, rein, startRein, terminals, transcripts, write } from './support.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  tmp = tempDir('rein-sessions-');
  env = { REIN_HOME: join(tmp.dir, 'home') };
});
afterEach(() => tmp.cleanup());

const run = (args: string[], extra: NodeJS.ProcessEnv = {}) => rein(['run', ...args, '--no-layers'], { cwd: tmp.dir, env: { ...env, ...extra } });

/** A two-call session: each Bash call appends its name to side.txt. */
const TWO_CALLS = `
turns:
  - reply: [{ text: "First." }, { tool_use: { name: Bash, input: { command: "echo one >> side.txt" } } }]
  - reply: [{ text: "Second." }, { tool_use: { name: Bash, input: { command: "echo two >> side.txt" } } }]
  - reply: [{ text: "Both done." }]
  - reply: [{ text: "Resumed." }]
  - reply: [{ text: "Resumed again." }]
`;

describe('two runs on one session', () => {
  it('a second --continue while the first runs is refused, naming the holder; afterwards the session continues', async () => {
    write(tmp.dir, {
      'p.yaml': BASH_PRESET,
      's.yaml': 'turns:\n  - reply: [{ tool_use: { name: Bash, input: { command: "echo started > started.txt; sleep 2" } } }]\n  - reply: [{ text: "first done" }]\n  - reply: [{ text: "second done" }]\n',
    });
    const first = startRein(['run', 'go', '--sim', 's.yaml', '--preset', './p.yaml', '--no-layers', '--output-format', 'json'], { cwd: tmp.dir, env });
    await first.waitFor({ file: join(tmp.dir, 'started.txt'), match: /started/ });
    const second = await run(['more', '--continue', '--sim', 's.yaml', '--output-format', 'json']);
    expect(second.code).toBe(2);
    // The error alone: the simulator's notice is for a run that starts, and this one did not.
    expect(second.stderr).toMatch(new RegExp(`^rein: session [0-9a-f-]+ is in use by rein process ${first.child.pid} \\(since [0-9T:.-]+Z\\); wait for it to end, or stop it \\(kill ${first.child.pid}\\)\n$`));
    expect(second.stdout).toBe('');
    expect((await first.exited).code).toBe(0);
    expect(JSON.parse(first.stdout())).toMatchObject({ result: 'first done' });

    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    expect(terminals(file!)).toEqual(['end_turn']);
    const third = await run(['more', '--continue', '--sim', 's.yaml', '--output-format', 'json']);
    expect(third.code).toBe(0);
    expect(JSON.parse(third.stdout)).toMatchObject({ result: 'second done' });
    expect(terminals(file!)).toEqual(['end_turn', 'end_turn']);
  });
});

describe('--resume with a transcript path', () => {
  it('appends to the file that was opened, whatever its name', async () => {
    write(tmp.dir, { 'p.yaml': BASH_PRESET, 's.yaml': TWO_CALLS });
    const a = await run(['go', '--sim', 's.yaml', '--preset', './p.yaml', '--output-format', 'json']);
    expect(a.code).toBe(0);
    const [original] = transcripts(env.REIN_HOME!, tmp.dir);
    const before = readFileSync(original!, 'utf8');
    mkdirSync(join(tmp.dir, 'x.j'));
    copyFileSync(original!, join(tmp.dir, 'x.j', 'kept.jsonl'));

    const b = await run(['go on', '--sim', 's.yaml', '--resume', 'x.j/kept.jsonl', '--output-format', 'json']);
    expect(b.stderr).not.toMatch(/ENOENT/);
    expect(b.code).toBe(0);
    expect(JSON.parse(b.stdout)).toMatchObject({ result: 'Resumed.', session_id: JSON.parse(a.stdout).session_id });
    expect(readFileSync(original!, 'utf8')).toBe(before);
    const kept = entries(join(tmp.dir, 'x.j', 'kept.jsonl'));
    expect(kept.length).toBeGreaterThan(before.trim().split('\n').length);
    expect(terminals(join(tmp.dir, 'x.j', 'kept.jsonl'))).toEqual(['end_turn', 'end_turn']);
  });

  it("--resume '' is bad input (exit 2), not a new session", async () => {
    write(tmp.dir, { 's.yaml': 'turns:\n  - reply: [{ text: "hi" }]\n' });
    const r = await run(['hi', '--sim', 's.yaml', '--preset', 'minimal', '--resume', '']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe("rein: --resume needs a session id or the path of a .jsonl transcript; it was given an empty value");
    expect(transcripts(env.REIN_HOME!, tmp.dir)).toEqual([]);
  });
});

describe('damaged transcripts', () => {
  /** Runs TWO_CALLS to the end and returns the transcript's path and its lines. */
  async function session(): Promise<{ file: string; lines: string[]; id: string }> {
    write(tmp.dir, { 'p.yaml': BASH_PRESET, 's.yaml': TWO_CALLS });
    const r = await run(['go', '--sim', 's.yaml', '--preset', './p.yaml', '--output-format', 'json']);
    expect(r.code).toBe(0);
    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    return { file: file!, lines: readFileSync(file!, 'utf8').trim().split('\n'), id: JSON.parse(r.stdout).session_id };
  }
  const lineOf = (lines: string[], test: (e: any) => boolean) => lines.findIndex((l) => test(JSON.parse(l)));
  const hasResult = (e: any) => e.type === 'message' && e.message.content.some((b: any) => b.type === 'tool_result');

  it('a corrupted tool-result line: named, the tool call and its result dropped together; the resume is accepted', async () => {
    const { file, lines, id } = await session();
    const i = lineOf(lines, hasResult); // the first call's results
    const damaged = [...lines];
    damaged[i] = damaged[i]!.slice(0, 40) + '\u0000garbage' + damaged[i]!.slice(60);
    writeFileSync(file, damaged.join('\n') + '\n');
    const log = join(tmp.dir, 'requests.jsonl');
    const r = await run(['go on', '--sim', 's.yaml', '--resume', id], { REIN_SIM_LOG: log });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Resumed.\n');
    expect(r.stderr).toContain(`rein: warn: ${file}:${i + 1}: not valid JSON; the line was skipped`);
    expect(r.stderr).toMatch(/dropped the assistant message with tool call toolu_sim_0001_1: its results were on a damaged line/);
    const sent = JSON.parse(readFileSync(log, 'utf8').trim().split('\n')[0]!).body.messages as { content: { type: string; text?: string }[] }[];
    const texts = sent.flatMap((m) => m.content.map((b) => b.text ?? b.type));
    expect(texts).not.toContain('First.');
    expect(texts).toContain('Second.');
    // The repair is recorded once: the next resume replays it without warnings about dropped calls.
    const again = await run(['and again', '--sim', 's.yaml', '--resume', id]);
    expect(again.stderr).toContain(`${file}:${i + 1}: not valid JSON`);
    expect(again.stderr).not.toMatch(/dropped/);
    const repairs = readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('{"type":"history"')).map((l) => JSON.parse(l)).filter((e) => /^repair: /.test(e.reason));
    expect(repairs).toHaveLength(1);
  });

  it('valid JSON of the wrong shape ({"type":"message"}, null): named and skipped, no crash', async () => {
    const { file, lines, id } = await session();
    writeFileSync(file, [lines[0], '{"type":"message"}', 'null', ...lines.slice(1)].join('\n') + '\n');
    const r = await run(['go on', '--sim', 's.yaml', '--resume', id]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`${file}:2: a message entry without a valid message (role and content blocks); the line was skipped`);
    expect(r.stderr).toContain(`${file}:3: a JSON null, not an entry; the line was skipped`);
    expect(r.stderr).not.toMatch(/TypeError|\n\s+at /);
  });

  it('with --output-format json as well: stdout is the result object alone, the skipped lines are named on stderr', async () => {
    const { file, lines, id } = await session();
    writeFileSync(file, [lines[0], '\u0000\u00ff binary junk', ...lines.slice(1)].join('\n') + '\n');
    const r = await run(['go on', '--sim', 's.yaml', '--resume', id, '--output-format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'result', subtype: 'success', result: 'Resumed.' });
    expect(r.stderr).toContain(`rein: warn: ${file}:2: not valid JSON; the line was skipped\n`);
  });

  it('a damaged compacted history is refused (exit 2) with the command that repairs it, which works', async () => {
    const { file, lines, id } = await session();
    const at = lineOf(lines, hasResult) + 1;
    const history = JSON.stringify({ type: 'history', messages: [{ role: 'user', content: [{ type: 'text', text: 'summary' }] }], reason: 'compact' });
    writeFileSync(file, [...lines.slice(0, at), history.slice(0, 50) + '#' + history.slice(51), ...lines.slice(at)].join('\n') + '\n');
    const r = await run(['go on', '--sim', 's.yaml', '--resume', id]);
    expect(r.code).toBe(2);
    const repaired = file.replace(/\.jsonl$/, '.repaired.jsonl');
    expect(r.stderr).toBe([
      `rein: ${file}:${at + 1}: the compacted history on this line is damaged, so the conversation after it cannot be rebuilt.`,
      `rein: To resume from before it, keep the lines above it: head -n ${at} ${file} > ${repaired}; then rein run --resume ${repaired}`,
      '',
    ].join('\n'));
    execFileSync('bash', ['-c', `head -n ${at} ${file} > ${repaired}`]);
    const fixed = await run(['go on', '--sim', 's.yaml', '--resume', repaired, '--output-format', 'json']);
    expect(fixed.code).toBe(0);
    expect(existsSync(repaired)).toBe(true);
  });
});

describe('a transcript written by a newer rein', () => {
  it('resumes, saying on stderr that what this rein does not know was skipped', async () => {
    write(tmp.dir, { 's.yaml': 'turns:\n  - reply: [{ text: "first" }]\n  - reply: [{ text: "second" }]\n  - reply: [{ text: "third" }]\n' });
    const first = await run(['one', '--sim', 's.yaml', '--output-format', 'json']);
    expect(first.code).toBe(0);
    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    const quiet = await run(['two', '--continue', '--sim', 's.yaml', '--output-format', 'json']);
    expect(quiet.stderr).not.toMatch(/newer rein/); // this rein's own transcript: no warning

    const lines = readFileSync(file!, 'utf8').trim().split('\n');
    lines[0] = JSON.stringify({ ...JSON.parse(lines[0]!), version: 7 });
    lines.splice(3, 0, '{"type":"checkpoint","at":3}');
    writeFileSync(file!, `${lines.join('\n')}\n`);
    const r = await run(['three', '--continue', '--sim', 's.yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('third\n');
    expect(r.stderr).toContain(`rein: warn: ${file}: written by a newer rein (transcript format 7; this rein reads format 1): its entries of kinds this rein does not know (checkpoint) were skipped, so the resumed history may lack what they held; update rein to resume it whole\n`);
  });
});

describe('a transcript that is no readable file', () => {
  /** A session named `id` whose transcript is replaced by `make(file)`, then `rein run --continue` and `--resume FILE`. */
  async function refused(make: (file: string) => void) {
    const id = '7d1e136a-9b97-46cd-b543-61e6d76f1e1f';
    const file = join(projectDir(env.REIN_HOME!, tmp.dir), `${id}.jsonl`);
    mkdirSync(dirname(file), { recursive: true });
    make(file);
    // Killed after 20 s (exit code null): a FIFO would hold an open() that blocks for ever.
    const cont = await rein(['run', 'go on', '--continue', '--no-layers'], { cwd: tmp.dir, env, timeoutMs: 20_000 });
    const byPath = await rein(['run', 'go on', '--resume', file, '--no-layers'], { cwd: tmp.dir, env, timeoutMs: 20_000 });
    return { file, cont, byPath };
  }
  const lines = (r: { stderr: string }) => r.stderr.split('\n').filter((l) => l && !/running the built-in demo/.test(l));

  it('a symbolic link to nothing, or to itself: exit 2 naming it and what to do, not an internal error', async () => {
    for (const [make, reason] of [
      [(f: string) => symlinkSync(join(tmp.dir, 'gone.jsonl'), f), 'it is a symbolic link to a file that does not exist (ENOENT)'],
      [(f: string) => symlinkSync(f, f), 'a loop of symbolic links (ELOOP)'],
    ] as const) {
      const { file, cont } = await refused(make);
      expect(cont.code).toBe(2);
      expect(lines(cont)).toEqual([`rein: cannot read the session transcript ${file}: ${reason}; move it out of the way, or resume another session with --resume ID`]);
      unlinkSync(file);
    }
  });

  it('an empty file: exit 2, saying it is no rein transcript and what to do', async () => {
    const { file, cont } = await refused((f) => writeFileSync(f, ''));
    expect(cont.code).toBe(2);
    expect(lines(cont)).toEqual([`rein: ${file} is not a rein transcript (its first line is no session header); move it out of the way, or resume another session with --resume ID`]);
  });

  it('--continue passes over a newer empty file (a run that could not write its header) and goes on with the last conversation', async () => {
    write(tmp.dir, { 's.yaml': 'turns:\n  - reply: [{ text: "first" }]\n  - reply: [{ text: "second" }]\n' });
    const first = await run(['one', '--sim', 's.yaml', '--output-format', 'json']);
    expect(first.code).toBe(0);
    const id = JSON.parse(first.stdout).session_id as string;
    // What a full disk leaves: the file was created, its header could not be written.
    const empty = join(projectDir(env.REIN_HOME!, tmp.dir), '0f5b5a9e-2c1d-4e8f-9a7b-3c6d5e4f1a2b.jsonl');
    writeFileSync(empty, '');
    const later = new Date(Date.now() + 60_000);
    utimesSync(empty, later, later);
    const cont = await run(['two', '--continue', '--sim', 's.yaml', '--output-format', 'json']);
    expect(cont.stderr).not.toMatch(/not a rein transcript/);
    expect(cont.code).toBe(0);
    expect(JSON.parse(cont.stdout)).toMatchObject({ session_id: id, result: 'second' });
    expect(readFileSync(empty, 'utf8')).toBe('');
  });

  it('a FIFO: exit 2 at once, without waiting for a writer (a blocked open could not even be stopped by a signal)', async () => {
    const { file, cont, byPath } = await refused((f) => execFileSync('mkfifo', [f]));
    for (const r of [cont, byPath]) {
      expect(r.code).toBe(2);
      expect(lines(r)).toEqual([`rein: ${file} is not a file (a directory, a FIFO or a device); move it out of the way, or resume another session with --resume ID`]);
    }
  });
});

describe('a scripted session resumed with its scenario', () => {
  it('goes on from the turn the transcript reached: no tool call of an earlier turn runs again', async () => {
    write(tmp.dir, {
      'p.yaml': BASH_PRESET,
      's.yaml': `
turns:
  - reply: [{ tool_use: { name: Bash, input: { command: "echo one >> side.txt" } } }]
  - reply: [{ tool_use: { name: Bash, input: { command: "echo two >> side.txt; sleep 5" } } }]
  - reply: [{ tool_use: { name: Bash, input: { command: "echo three >> side.txt" } } }]
  - reply: [{ text: "done" }]
`,
    });
    const first = startRein(['run', 'go', '--sim', 's.yaml', '--preset', './p.yaml', '--no-layers'], { cwd: tmp.dir, env });
    await first.waitFor({ file: join(tmp.dir, 'side.txt'), match: /two/ });
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(143);
    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    const r = await run(['go on', '--sim', 's.yaml', '--resume', entries(file!)[0]!.sessionId, '--output-format', 'json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/with scenario s\.yaml, from turn 3 \(the session got to turn 2\)/);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: 'done' });
    expect(readFileSync(join(tmp.dir, 'side.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    // Ids stay unique across the two processes (the API refuses a history with a repeated tool_use id).
    const ids = entries(file!).filter((e) => e.type === 'message').flatMap((e) => e.message.content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id));
    expect(new Set(ids).size).toBe(3);
  });
});

describe('the simulator\'s notice', () => {
  it('is printed once the run starts, not before an error that stops it from starting', async () => {
    write(tmp.dir, { 's.yaml': 'turns:\n  - reply: [{ text: "first" }]\n' });
    const missing = await run(['hi', '--sim', 's.yaml', '--preset', 'minimal', '--resume', 'no-such-session']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`rein: no session no-such-session (looked for ${join(projectDir(env.REIN_HOME!, tmp.dir), 'no-such-session.jsonl')})\n`);
    const empty = join(tmp.dir, 'empty.jsonl');
    writeFileSync(empty, '');
    const notTranscript = await run(['hi', '--preset', 'minimal', '--resume', empty]);
    expect(notTranscript.code).toBe(2);
    expect(notTranscript.stderr).toBe(`rein: ${empty} is not a rein transcript (its first line is no session header); move it out of the way, or resume another session with --resume ID\n`);
    // A run that starts says it, first.
    const ok = await run(['hi', '--sim', 's.yaml', '--preset', 'minimal']);
    expect(ok.code).toBe(0);
    expect(ok.stderr.split('\n')[0]).toBe('rein: running against the embedded simulator with scenario s.yaml');
  });
});

describe('--session-id of a session that exists', () => {
  it('exit 2, saying how to go on with it; the transcript is left as it was', async () => {
    write(tmp.dir, { 's.yaml': 'turns:\n  - reply: [{ text: "first" }]\n  - reply: [{ text: "second" }]\n' });
    const id = '5f0c8a9e-1b2c-4d3e-8f4a-6b7c8d9e0f1a';
    expect((await run(['one', '--sim', 's.yaml', '--session-id', id])).code).toBe(0);
    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    const before = readFileSync(file!, 'utf8');
    const again = await run(['two', '--sim', 's.yaml', '--session-id', id]);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(`rein: session ${id} already exists at ${file}; --resume ${id} goes on with it, or leave out --session-id for a new session\n`);
    expect(readFileSync(file!, 'utf8')).toBe(before);
    const resumed = await run(['two', '--sim', 's.yaml', '--resume', id]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('second\n');
  });
});
