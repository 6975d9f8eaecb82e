/**
 * Sessions: a resumed session sends the same request bytes as one that never stopped, and a process
 * killed mid-turn leaves a transcript that resumes without a dangling tool_use.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { definePlugin, defineTool } from '../../kernel/index.js';
import { Transcript } from './transcript.js';
import { cleanEnv, collect, REIN_BIN, REPO, runCli, serveScenario, simKernel, type SimHarness } from '../../testing/support.js';
import { useTestEnv } from '../../testing/index.js';

// A fresh working folder and REIN_HOME for every test, removed after it.
const folders = useTestEnv({ prefix: 'rein-resume-' });
const sims: SimHarness[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

const SCRIPT = `
turns:
  - reply: [{ text: "Looking." }, { tool_use: { name: Echo, input: { text: "one" } } }]
  - reply: [{ text: "First answer." }]
  - reply: [{ text: "Second answer." }]
`;

const echo = definePlugin({
  name: 'test/echo',
  apply(kernel) {
    kernel.tools.register(defineTool({
      name: 'Echo', description: 'Echoes.', inputSchema: z.object({ text: z.string() }).strict(),
      isReadOnly: () => true, call: async ({ text }) => text,
    }));
    kernel.hooks.systemPrompt.tap('test/echo', (s) => [...s, { name: 'role', text: 'You echo.', kind: 'static' as const }]);
  },
});


/**
 * A session X made by one `rein run` of a two-turn scenario (its second turn is left for a resume),
 * with the flags to run again and the path of its transcript.
 */
async function sessionX() {
  writeFileSync(join(folders.dir, 's.yaml'), 'turns:\n  - reply: [{ text: "hi" }]\n  - reply: [{ text: "again" }]\n');
  const env = { REIN_HOME: folders.home };
  const args = ['--sim', 's.yaml', '--no-layers', '--preset', 'minimal', '--output-format', 'json'];
  const x = JSON.parse((await runCli(['run', 'x', ...args], { cwd: folders.dir, env })).stdout).session_id as string;
  const root = join(folders.home, 'sessions');
  return { env, args, x, root, file: Transcript.open(x, { cwd: folders.dir, root }).file };
}
describe('resume', () => {
  it('rebuilds byte-identical requests: a resumed session sends what an uninterrupted one sends', async () => {
    // Uninterrupted: two prompts on one kernel.
    const a = await serveScenario(SCRIPT, folders.dir); sims.push(a);
    const k1 = await simKernel(a, { cwd: folders.dir, plugins: [{ plugin: echo }] });
    await collect(k1, 'first');
    await collect(k1, 'second');

    // Interrupted: the first prompt, then a new kernel resumes the transcript for the second.
    const b = await serveScenario(SCRIPT, folders.dir); sims.push(b);
    const k2 = await simKernel(b, { cwd: folders.dir, plugins: [{ plugin: echo }] });
    await collect(k2, 'first');
    const k3 = await simKernel(b, { cwd: folders.dir, plugins: [{ plugin: echo }], resume: k2.sessionId });
    const { result } = await collect(k3, 'second');

    expect(result.terminalReason).toBe('end_turn');
    const want = a.requests()[2]!.body;
    const got = b.requests()[2]!.body;
    expect(JSON.stringify(got)).toBe(JSON.stringify(want));
    expect(got.messages).toHaveLength(5);
  });

  it('a process killed mid-turn leaves a transcript that resumes without a dangling tool_use', async () => {
    writeFileSync(join(folders.dir, 's.yaml'), `
turns:
  - reply: [{ tool_use: { name: Hang, input: {} } }]
  - reply: [{ text: "resumed fine" }]
`);
    writeFileSync(join(folders.dir, 'hang.ts'), `
import { z } from '${pathToFileURL(join(REPO, 'node_modules/zod/index.js')).href}';
import { definePlugin, defineTool } from '${pathToFileURL(join(REPO, 'kernel/index.ts')).href}';
export default definePlugin({
  name: 'hang',
  apply(kernel) {
    kernel.tools.register(defineTool({ name: 'Hang', description: 'never returns', inputSchema: z.object({}), isReadOnly: () => true,
      call: () => { process.stdout.write('HANGING\\n'); return new Promise(() => {}); } }));
  },
});
`);
    writeFileSync(join(folders.dir, 'p.yaml'), 'tools: []\nplugins:\n  ./hang.ts: {}\n');
    const env = { ...cleanEnv(), REIN_HOME: folders.home };
    const child = spawn(process.execPath, [REIN_BIN, 'run', 'go', '--sim', 's.yaml', '--preset', './p.yaml', '--no-layers'], { cwd: folders.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d) => { if (String(d).includes('HANGING')) resolve(); });
      child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('close', r));

    const projectDir = join(folders.home, 'sessions', folders.dir.replace(/[^A-Za-z0-9]/g, '-'));
    const file = readdirSync(projectDir).find((f) => f.endsWith('.jsonl'))!;
    const id = file.slice(0, -6);
    const before = Transcript.open(id, { cwd: folders.dir }).replayMessages();
    expect(before.at(-1)!.content.map((b) => b.type)).toEqual(['tool_use']);

    // Resume with a scenario whose first turn answers the resumed request.
    writeFileSync(join(folders.dir, 's2.yaml'), 'turns:\n  - reply: [{ text: "resumed fine" }]\n');
    const r = await runCli(['run', 'go on', '--sim', 's2.yaml', '--preset', './p.yaml', '--no-layers', '--resume', id, '--output-format', 'json'], { cwd: folders.dir, env: { REIN_HOME: folders.home } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: 'resumed fine', session_id: id });
    const after = Transcript.open(id, { cwd: folders.dir }).replayMessages();
    const closing = after[before.length]!;
    expect(closing.role).toBe('user');
    expect(closing.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: (before.at(-1)!.content[0] as { id: string }).id, is_error: true });
    expect(existsSync(join(projectDir, file))).toBe(true);
    // Every tool_use in the final history has a result.
    const uses = after.flatMap((m) => m.content.filter((b) => b.type === 'tool_use').map((b) => (b as { id: string }).id));
    const results = after.flatMap((m) => m.content.filter((b) => b.type === 'tool_result').map((b) => (b as { tool_use_id: string }).tool_use_id));
    expect(results.sort()).toEqual(uses.sort());
    expect(readFileSync(join(projectDir, file), 'utf8')).toContain('"resumed fine"');
  });

  it('--continue picks the newest session of the directory; with none it is an input error', async () => {
    // Two turns: a resumed scripted session goes on from the turn it reached.
    writeFileSync(join(folders.dir, 's.yaml'), 'turns:\n  - reply: [{ text: "hi" }]\n  - reply: [{ text: "again" }]\n');
    const none = await runCli(['run', 'x', '--continue', '--sim', 's.yaml', '--no-layers', '--preset', 'minimal'], { cwd: folders.dir, env: { REIN_HOME: folders.home } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no earlier session to continue/);
    const first = await runCli(['run', 'x', '--sim', 's.yaml', '--no-layers', '--preset', 'minimal', '--output-format', 'json'], { cwd: folders.dir, env: { REIN_HOME: folders.home } });
    const id = JSON.parse(first.stdout).session_id;
    const again = await runCli(['run', 'y', '--continue', '--sim', 's.yaml', '--no-layers', '--preset', 'minimal', '--output-format', 'json'], { cwd: folders.dir, env: { REIN_HOME: folders.home } });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).session_id).toBe(id);
  });

  it('a transcript copied beside its original (cp X.jsonl Y.jsonl) resumes as session Y; X stays X', async () => {
    const { env, args, x, file } = await sessionX();
    const copy = join(file, '..', 'my-branch.jsonl');
    writeFileSync(copy, readFileSync(file));
    const branch = await runCli(['run', 'y', '--resume', 'my-branch', ...args], { cwd: folders.dir, env });
    expect(branch.code, branch.stderr).toBe(0);
    expect(JSON.parse(branch.stdout).session_id).toBe('my-branch');
    expect(branch.stderr).toContain(`my-branch.jsonl: its header names session ${x}, so it is a copy of that session; it goes on as session my-branch, its file's name`);
    expect(readFileSync(copy, 'utf8')).toContain('"again"');
    expect(readFileSync(file, 'utf8')).not.toContain('"again"');
    const original = await runCli(['run', 'z', '--resume', x, ...args], { cwd: folders.dir, env });
    expect(JSON.parse(original.stdout).session_id).toBe(x);
  });

  it('a link to a transcript beside it (ln -s X.jsonl Y.jsonl) resumes as session X, into X\'s file', async () => {
    const { env, args, x, file } = await sessionX();
    symlinkSync(`${x}.jsonl`, join(file, '..', 'my-link.jsonl'));
    const linked = await runCli(['run', 'y', '--resume', 'my-link', ...args], { cwd: folders.dir, env });
    expect(linked.code, linked.stderr).toBe(0);
    // Not a session of its own: its turns are X's, so the run is X's (and holds X's lock).
    expect(JSON.parse(linked.stdout).session_id).toBe(x);
    expect(linked.stderr).toContain(`${x}.jsonl: my-link.jsonl is a link to this transcript, not a copy, so it goes on as session ${x}`);
    expect(readFileSync(file, 'utf8')).toContain('"again"');
    expect(existsSync(join(file, '..', 'my-link'))).toBe(false);
  });

  it('a link from elsewhere (ln -s, or a linked folder) takes the transcript\'s own lock: a second rein is refused while the first writes', async () => {
    const { env, args, x, file, root } = await sessionX();
    mkdirSync(join(folders.dir, 'elsewhere'));
    symlinkSync(file, join(folders.dir, 'elsewhere', 'link.jsonl'));
    symlinkSync(join(file, '..'), join(folders.dir, 'linked-folder'));
    // This process writes session X (it holds X's lock) while another rein resumes it by the links.
    const held = Transcript.open(x, { cwd: folders.dir, root, lock: true });
    try {
      for (const path of ['elsewhere/link.jsonl', `linked-folder/${x}.jsonl`]) {
        const other = await runCli(['run', 'y', '--resume', path, ...args], { cwd: folders.dir, env });
        expect(other.code, path).toBe(2);
        expect(other.stderr, path).toContain(`session ${x} is in use by rein process ${process.pid}`);
      }
      expect(readFileSync(file, 'utf8')).not.toContain('"again"');
      expect(existsSync(join(folders.dir, 'elsewhere', 'link.jsonl.lock'))).toBe(false);
    } finally {
      held.close();
    }
    // Once it is free, the link goes on into X's file.
    const after = await runCli(['run', 'y', '--resume', 'elsewhere/link.jsonl', ...args], { cwd: folders.dir, env });
    expect(after.code, after.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('"again"');
  });

  it('a hard link from elsewhere (ln X.jsonl /elsewhere/h.jsonl) takes the session\'s lock: a second rein is refused through either name while the first writes', async () => {
    const { env, args, x, file, root } = await sessionX();
    mkdirSync(join(folders.dir, 'elsewhere'));
    const hard = join(folders.dir, 'elsewhere', 'h.jsonl');
    linkSync(file, hard);
    // This process writes session X by its id; another rein resumes it through the hard link.
    let held = Transcript.open(x, { cwd: folders.dir, root, lock: true });
    try {
      const other = await runCli(['run', 'y', '--resume', 'elsewhere/h.jsonl', ...args], { cwd: folders.dir, env });
      expect(other.code, other.stderr).toBe(2);
      expect(other.stderr).toContain(`session ${x} is in use by rein process ${process.pid}`);
      expect(existsSync(`${hard}.lock`)).toBe(false);
    } finally {
      held.close();
    }
    // And the other way: the first writes through the hard link, a second rein resumes X by its id.
    held = Transcript.open(hard, { cwd: folders.dir, root, lock: true });
    try {
      const other = await runCli(['run', 'y', '--resume', x, ...args], { cwd: folders.dir, env });
      expect(other.code, other.stderr).toBe(2);
      expect(other.stderr).toContain(`session ${x} is in use by rein process ${process.pid}`);
    } finally {
      held.close();
    }
    expect(readFileSync(file, 'utf8')).not.toContain('"again"');
    // Once it is free, the hard link goes on, into the one file both names share.
    const after = await runCli(['run', 'y', '--resume', 'elsewhere/h.jsonl', ...args], { cwd: folders.dir, env });
    expect(after.code, after.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('"again"');
  });

  it('a hard link whose session cannot be found in the sessions folder is refused, not locked on its own', async () => {
    const { env, args, x, file } = await sessionX();
    const hard = join(folders.dir, 'h.jsonl');
    linkSync(file, hard);
    // Another REIN_HOME: its sessions folder has no name for this file, so the lock the first home's
    // writers take cannot be found.
    const other = await runCli(['run', 'y', '--resume', 'h.jsonl', ...args], { cwd: folders.dir, env: { REIN_HOME: join(folders.dir, 'other-home') } });
    expect(other.code, other.stderr).toBe(2);
    expect(other.stderr).toContain(`session ${x}: ${hard} has 2 hard links, and none of the others is this session's transcript in the sessions folder`);
    expect(existsSync(`${hard}.lock`)).toBe(false);
    expect(readFileSync(file, 'utf8')).not.toContain('"again"');
    // A rein of the session's own home finds the name, and goes on through the link.
    const own = await runCli(['run', 'y', '--resume', 'h.jsonl', ...args], { cwd: folders.dir, env });
    expect(own.code, own.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('"again"');
  });

  it('--continue without --preset goes on with the preset the session was started with', async () => {
    // Two turns: a resumed scripted session goes on from the turn it reached.
    writeFileSync(join(folders.dir, 's.yaml'), 'turns:\n  - reply: [{ text: "hi" }]\n  - reply: [{ text: "again" }]\n');
    writeFileSync(join(folders.dir, 'narrow.yaml'), 'name: narrow\ntools: [Read]\n');
    const env = { REIN_HOME: folders.home };
    const first = await runCli(['run', 'x', '--sim', 's.yaml', '--no-layers', '--preset', './narrow.yaml', '--output-format', 'stream-json'], { cwd: folders.dir, env });
    const again = await runCli(['run', 'y', '--continue', '--sim', 's.yaml', '--no-layers', '--output-format', 'stream-json'], { cwd: folders.dir, env });
    expect(again.code).toBe(0);
    const init = (out: string) => JSON.parse(out.split('\n')[0]!);
    expect(init(first.stdout).tools).toEqual(['Read']);
    expect(init(again.stdout).tools).toEqual(['Read']);
    expect(init(again.stdout).session_id).toBe(init(first.stdout).session_id);
  });
});
