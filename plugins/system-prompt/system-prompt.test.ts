import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSimulator } from '../../simulator/index.js';
import { httpClient, loggedRequests, plannedResponder, runPrompt, strategyKernel } from '../../testing/strategy.js';
import { DEFAULT_SECTIONS } from './defaults.js';
import systemPrompt, { mergeSections, prependToFirstMessage, systemPromptOptions } from './index.js';
import { branchOf, buildUserContext, GIT_LOG_COUNT, gitState, mayBeInRepository } from './user-context.js';
import { useTestEnv } from '../../testing/index.js';

// A fresh working folder and REIN_HOME for every test, removed after it.
const env = useTestEnv({ prefix: 'rein-sp-' });
let dir: string;
let home: string;
beforeEach(() => {
  dir = env.dir;
  home = env.home;
});

describe('sections', () => {
  it('a later section replaces an earlier one of the same name, in place', () => {
    const merged = mergeSections(
      [{ name: 'a', text: '1', kind: 'static' }, { name: 'b', text: '2', kind: 'static' }],
      [{ name: 'a', text: 'A', kind: 'static' }, { name: 'c', text: '3', kind: 'dynamic' }],
    );
    expect(merged).toEqual([{ name: 'a', text: 'A', kind: 'static' }, { name: 'b', text: '2', kind: 'static' }, { name: 'c', text: '3', kind: 'dynamic' }]);
  });
  it('rejects a section with both text and file, and a bad date', () => {
    expect(() => systemPromptOptions.parse({ sections: [{ name: 'x', text: 'a', file: 'b' }] })).toThrow(/exactly one of text or file/);
    expect(() => systemPromptOptions.parse({ date: '29/11/2026' })).toThrow(/YYYY-MM-DD/);
  });
  it('the default sections are static and name no date, path or tool', () => {
    for (const s of DEFAULT_SECTIONS) {
      expect(s.kind).toBe('static');
      expect(s.text).not.toMatch(/\d{4}-\d{2}-\d{2}|\/home\/|\/tmp\/|\bBash\b|\bGrep\b|\bGlob\b/);
    }
  });
});

describe('user context', () => {
  it('is a reminder with the fixed date, the directory and the git state', async () => {
    expect(await gitState(dir)).toBe('Git: not a git repository.');
    expect(await buildUserContext({ date: '2026-01-02', cwd: dir, include: { date: true, cwd: true, platform: false, git: true } })).toBe(
      `<system-reminder>\nThis is the session's context as of its start; it is not updated during the session.\nToday's date: 2026-01-02\nWorking directory: ${dir}\nGit: not a git repository.\n</system-reminder>`,
    );
    expect(await buildUserContext({ cwd: dir, include: { date: false, cwd: false, platform: false, git: false } })).toBe('');
  });
  it('in a real repository: branch, uncommitted changes and recent commits; unborn and detached branches', async () => {
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir, encoding: 'utf8' });
    git('init', '-q', '-b', 'trunk');
    expect(await gitState(dir)).toBe('Git branch: trunk\nGit status: clean.');
    writeFileSync(join(dir, 'a.txt'), 'one\n');
    git('add', 'a.txt');
    git('commit', '-q', '-m', 'first commit');
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    writeFileSync(join(dir, 'new.txt'), 'x\n');
    const state = await gitState(dir);
    const sha = git('rev-parse', '--short', 'HEAD').trim();
    expect(state).toBe(`Git branch: trunk\nGit status (uncommitted changes):\n M a.txt\n?? new.txt\nRecent commits:\n${sha} first commit`);
    git('checkout', '-q', '--detach');
    expect((await gitState(dir)).split('\n')[0]).toBe('Git branch: HEAD');
  });
  it('runs no git where git could find no work tree, and asks git wherever it could', async () => {
    // A `git` first on PATH that records its arguments, then runs the real one.
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    const calls = join(dir, 'git-calls.txt');
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${calls}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
    const env = { PATH: `${bin}:${process.env.PATH}` };
    const recorded = () => (existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').filter(Boolean).length : 0);

    // No .git here or above (the test folder is under the system's temp folder): git is not run.
    const plain = join(dir, 'plain', 'deeper');
    mkdirSync(plain, { recursive: true });
    expect(mayBeInRepository(plain, env)).toBe(false);
    expect(await gitState(plain, env)).toBe('Git: not a git repository.');
    expect(recorded()).toBe(0);

    // GIT_DIR names a repository elsewhere: git is asked, and finds it.
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, 'sub'), { recursive: true });
    execFileSync(realGit, ['init', '-q', '-b', 'main', repo]);
    expect(mayBeInRepository(plain, { ...env, GIT_DIR: join(repo, '.git'), GIT_WORK_TREE: repo })).toBe(true);
    expect(await gitState(plain, { ...env, GIT_DIR: join(repo, '.git'), GIT_WORK_TREE: repo })).toMatch(/^Git branch: main/);
    expect(recorded()).toBe(2);

    // A folder inside a repository, and a link to one from outside it (git looks from the resolved path).
    expect(await gitState(join(repo, 'sub'), env)).toMatch(/^Git branch: main/);
    const link = join(dir, 'plain', 'link');
    symlinkSync(join(repo, 'sub'), link);
    expect(mayBeInRepository(link, env)).toBe(true);
    expect(await gitState(link, env)).toMatch(/^Git branch: main/);
    // A linked work tree's .git is a file; a bare repository is a git directory itself.
    const worktree = join(dir, 'plain', 'wt');
    execFileSync(realGit, ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'first']);
    execFileSync(realGit, ['-C', repo, 'worktree', 'add', '-q', worktree]);
    expect(mayBeInRepository(worktree, env)).toBe(true);
    const bare = join(dir, 'plain', 'bare.git');
    execFileSync(realGit, ['init', '-q', '--bare', bare]);
    expect(mayBeInRepository(bare, env)).toBe(true);
    expect(recorded()).toBe(6);
  });
  it('reads the branch from every form of the status header', () => {
    expect(branchOf('## main...origin/main [ahead 1, behind 2]')).toBe('main');
    expect(branchOf('## feature/x')).toBe('feature/x');
    expect(branchOf('## No commits yet on trunk')).toBe('trunk');
    expect(branchOf('## Initial commit on trunk')).toBe('trunk');
    expect(branchOf('## HEAD (no branch)')).toBe('HEAD');
  });
  it('is prepended to the first message as a copy', () => {
    const params = { model: 'm', max_tokens: 1, messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }] };
    const out = prependToFirstMessage(params, 'CTX');
    expect(out.messages[0]!.content).toEqual([{ type: 'text', text: 'CTX' }, { type: 'text', text: 'hi' }]);
    expect(params.messages[0]!.content).toHaveLength(1);
  });
});

describe('system-prompt in a session', () => {
  it('starts the git commands when it is applied in a new session, before the run (the first request need not wait for them); a resumed session runs none', async () => {
    // A `git` first on PATH that records its arguments and answers "not a repository", in a folder
    // with a .git entry (where there is none, no git command runs at all).
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    mkdirSync(join(dir, '.git'));
    const calls = join(dir, 'git-calls.txt');
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${calls}'\necho 'fatal: not a git repository' >&2\nexit 128\n`, { mode: 0o755 });
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    const recorded = () => (existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').filter(Boolean).sort() : []);
    const plugins = [{ plugin: systemPrompt, options: { date: '2026-05-05' } }];
    try {
      const first = await httpClient(createSimulator({ responder: plannedResponder([[{ type: 'text', text: 'ok' }]]) }), join(home, 'first.jsonl'));
      const kernel = await strategyKernel({ cwd: dir, client: first.client, plugins });
      // Nothing has run yet; the commands are under way (or done) all the same.
      for (let i = 0; i < 500 && recorded().length < 2; i++) await new Promise((r) => setTimeout(r, 10));
      expect(recorded()).toEqual([`log --oneline -n ${GIT_LOG_COUNT}`, 'status --short --branch']);
      await runPrompt(kernel, 'go');
      expect(recorded()).toHaveLength(2);
      expect(loggedRequests(join(home, 'first.jsonl'))[0]!.body.messages[0].content[0].text).toContain('Git: not a git repository.');
      await kernel.close();

      rmSync(calls);
      const again = await httpClient(createSimulator({ responder: plannedResponder([[{ type: 'text', text: 'ok' }]]) }), join(home, 'again.jsonl'));
      const resumed = await strategyKernel({ cwd: dir, client: again.client, plugins, resume: kernel.sessionId });
      await runPrompt(resumed, 'again');
      await resumed.close();
      expect(recorded()).toEqual([]);
      expect(loggedRequests(join(home, 'again.jsonl'))[0]!.body.messages[0].content[0].text).toContain('Git: not a git repository.');
    } finally {
      process.env.PATH = path;
    }
  });

  it('with `gitState` shows that text and runs no git command', async () => {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    const calls = join(dir, 'git-calls.txt');
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${calls}'\nexit 128\n`, { mode: 0o755 });
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      const sim = await httpClient(createSimulator({ responder: plannedResponder([[{ type: 'text', text: 'ok' }]]) }), join(home, 'told.jsonl'));
      const kernel = await strategyKernel({ cwd: dir, client: sim.client, plugins: [{ plugin: systemPrompt, options: { date: '2026-05-05', gitState: 'Git branch: told' } }] });
      await runPrompt(kernel, 'go');
      await kernel.close();
      expect(loggedRequests(join(home, 'told.jsonl'))[0]!.body.messages[0].content[0].text).toContain('Git branch: told');
      expect(existsSync(calls)).toBe(false);
    } finally {
      process.env.PATH = path;
    }
  });

  it('static sections are resolved once (a changed file does not change the bytes), dynamic ones every request; static first, then dynamic', async () => {
    writeFileSync(join(dir, 'guide.md'), 'Guide v1');
    writeFileSync(join(dir, 'status.md'), 'Status v1');
    const log = join(home, 'requests.jsonl');
    const turns = [[{ type: 'tool_use' as const, name: 'Read', input: { file_path: 'guide.md' } }], [{ type: 'text' as const, text: 'ok' }]];
    const { client } = await httpClient(createSimulator({ responder: plannedResponder(turns) }), log);
    const kernel = await strategyKernel({
      cwd: dir, client,
      preset: { model: { name: 'claude-sonnet-4-6' }, system: { sections: [{ name: 'style', text: 'Preset style.' }] } },
      plugins: [{ plugin: systemPrompt, options: { date: '2026-05-05', userContext: { platform: false, git: false }, sections: [{ name: 'guide', file: 'guide.md' }, { name: 'status', file: 'status.md', kind: 'dynamic' }] } }],
    });
    // Both files change after the session started: only the dynamic section follows.
    kernel.hooks.sessionStart.tap('test', () => {
      writeFileSync(join(dir, 'guide.md'), 'Guide v2');
      writeFileSync(join(dir, 'status.md'), 'Status v2');
    });
    try {
      await runPrompt(kernel, 'go');
      const [r1, r2] = loggedRequests(log).map((r) => r.body);
      const staticText = [DEFAULT_SECTIONS[0]!.text, DEFAULT_SECTIONS[1]!.text, DEFAULT_SECTIONS[2]!.text, 'Preset style.', 'Guide v1'].join('\n\n');
      expect(r1!.system).toEqual([{ type: 'text', text: staticText }, { type: 'text', text: 'Status v2' }]);
      expect(r2!.system).toEqual(r1!.system);
      expect(r1!.messages[0].content[0].text).toBe(`<system-reminder>\nThis is the session's context as of its start; it is not updated during the session.\nToday's date: 2026-05-05\nWorking directory: ${dir}\n</system-reminder>`);
      expect(r2!.messages[0]).toEqual(r1!.messages[0]);
    } finally {
      await kernel.close();
    }
  });
});
