import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../kernel/index.js';
import { parseRule, formatRule, RuleSyntaxError } from './shared/rule.js';
import { compileShellSpec, matchShell } from './shared/shell/match.js';
import { compilePathSpec } from './shared/paths.js';
import permissions from './index.js';
import defaultMode from './default/index.js';
import acceptEdits from './acceptEdits/index.js';
import dontAsk from './dontAsk/index.js';
import bypass from './bypassPermissions/index.js';
import { decide, testKernel } from '../../testing/permissions.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'rein-rules-'));

describe('rule strings', () => {
  it('parses tool-level rules; Bash() and Bash(*) mean the whole tool', () => {
    expect(parseRule('Bash', 'allow')).toEqual({ text: 'Bash', behavior: 'allow', toolName: 'Bash' });
    expect(parseRule('Bash()', 'allow').content).toBeUndefined();
    expect(parseRule('Bash(*)', 'allow').content).toBeUndefined();
  });
  it('keeps parentheses inside the specifier and round-trips escapes', () => {
    expect(parseRule('Bash(python -c "print(1)")', 'deny').content).toBe('python -c "print(1)"');
    expect(parseRule('Bash(echo \\(x)', 'deny').content).toBe('echo (x');
    expect(formatRule({ toolName: 'Bash', content: 'echo (x' })).toBe('Bash(echo \\(x)');
  });
  it('rejects bad rules with a clear message', () => {
    expect(() => parseRule('', 'allow')).toThrow(RuleSyntaxError);
    expect(() => parseRule('Bash(ls', 'allow')).toThrow(/must end with "\)"/);
    expect(() => parseRule('Bash(a) b)', 'allow')).toThrow(/unbalanced/);
    expect(() => parseRule('Ba sh', 'allow')).toThrow(/tool name/);
  });
});

describe('Bash specifiers', () => {
  const cases: [string, string, boolean][] = [
    ['npm install', 'npm install', true],
    ['npm install', 'npm install lodash', false],
    ['git status', 'git status --short', false],
    ['npm:*', 'npm install', true],
    ['npm:*', 'npm run build', true],
    ['npm:*', 'npx create-react-app', false],
    ['git:*', 'git add .', true],
    ['git:*', 'gitk', false],
    ['git add *', 'git add .', true],
    ['git add *', 'git add src/main.ts', true],
    ['git add *', 'git add', true],
    ['git add *', 'git commit', false],
    ['docker build -t *', 'docker build -t myapp', true],
    ['docker build -t *', 'docker run myapp', false],
    ['echo \\*', 'echo *', true],
    ['echo \\*', 'echo x', false],
    ['git *', 'git', true],
    ['git * *', 'git', false],
    ['git commit -m "fix it":*', "git commit -m 'fix it' --amend", true],
  ];
  it.each(cases)('%j vs %j → %s', (spec, command, expected) => {
    expect(matchShell(compileShellSpec(spec), command)).toBe(expected);
  });
});

describe('path specifiers: gitignore semantics with four anchors', () => {
  const base = { cwd: '/work/proj', presetDir: '/work/presets', home: '/home/u' };
  it('//abs, ~/, / (preset dir) and ./ (cwd)', () => {
    expect(compilePathSpec('//etc/passwd', base).test('/etc/passwd')).toBe(true);
    expect(compilePathSpec('~/.ssh/**', base).test('/home/u/.ssh/id_rsa')).toBe(true);
    expect(compilePathSpec('~/.ssh/**', base).test('/work/proj/.ssh/id_rsa')).toBe(false);
    expect(compilePathSpec('/shared/*.md', base).test('/work/presets/shared/a.md')).toBe(true);
    expect(compilePathSpec('/shared/*.md', base).test('/work/proj/shared/a.md')).toBe(false);
    expect(compilePathSpec('./src/**/*.ts', base).test('/work/proj/src/a/b.ts')).toBe(true);
    expect(compilePathSpec('./src/**/*.ts', base).test('/work/proj/lib/src/b.ts')).toBe(false);
  });
  it('a pattern without a slash matches at any depth; directories cover their contents', () => {
    expect(compilePathSpec('*.env', base).test('/work/proj/a/b/prod.env')).toBe(true);
    expect(compilePathSpec('secrets/', base).test('/work/proj/secrets/key.pem')).toBe(true);
    expect(compilePathSpec('*.env', base).test('/elsewhere/x.env')).toBe(false);
  });
});

describe('rule evaluation order and stages', () => {
  it('deny Bash + allow Bash(git:*) → git status denied (deny first)', async () => {
    const k = await testKernel({ cwd: tmp(), preset: { permissions: { deny: ['Bash'], allow: ['Bash(git:*)'] } }, plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
    expect(await decide(k, 'Bash', { command: 'git status' })).toMatchObject({ behavior: 'deny', reason: 'deny rule Bash matches Bash' });
  });

  it('a bare deny removes the tool from the request', async () => {
    const k = await testKernel({ cwd: tmp(), preset: { permissions: { deny: ['WebFetch'] } }, plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
    const names = k.hooks.toolDefinitions.call(k.tools.definitions(), k.runContext()).map((t) => t.name);
    expect(names).not.toContain('WebFetch');
    expect(names).toContain('Read');
  });

  it('ask rules beat allow rules and hold even in bypassPermissions', async () => {
    const k = await testKernel({ cwd: tmp(), preset: { permissions: { allowBypassPermissions: true, ask: ['Bash(npm publish:*)'], allow: ['Bash(npm:*)'] } }, plugins: [{ plugin: permissions }, { plugin: bypass }] });
    expect(await decide(k, 'Bash', { command: 'npm publish --tag next' })).toMatchObject({ behavior: 'ask', source: 'permissions' });
    expect(await decide(k, 'Bash', { command: 'npm ci' })).toMatchObject({ behavior: 'allow' });
  });

  it('Read and Edit path rules apply to their tool families', async () => {
    const cwd = tmp();
    const k = await testKernel({ cwd, preset: { permissions: { deny: ['Read(./secrets/**)'], allow: ['Edit(./docs/**)'] } }, plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
    expect(await decide(k, 'Read', { file_path: 'secrets/key.pem' })).toMatchObject({ behavior: 'deny' });
    expect(await decide(k, 'Glob', { pattern: '*', path: join(cwd, 'secrets/x') })).toMatchObject({ behavior: 'deny' });
    expect(await decide(k, 'Write', { file_path: 'docs/a.md', content: '' })).toMatchObject({ behavior: 'allow', reason: 'allow rule Edit(./docs/**)' });
    expect(await decide(k, 'Write', { file_path: 'src/a.ts', content: '' })).toMatchObject({ behavior: 'ask' });
  });

  it('a plugin tool that declares filePath gets path rules under its own name; one without keeps them covering every call', async () => {
    const cwd = tmp();
    const stamp = defineTool({
      name: 'Stamp',
      description: 'Writes a stamp into a file.',
      inputSchema: z.object({ file_path: z.string() }),
      filePath: (i: { file_path: string }) => i.file_path,
      async call() { return 'stamped'; },
    });
    const ping = defineTool({ name: 'Ping', description: 'Pings a host.', inputSchema: z.object({ host: z.string() }), async call() { return 'pong'; } });
    const k = await testKernel({
      cwd,
      tools: [stamp, ping],
      preset: { permissions: { deny: ['Stamp(./secret/**)', 'Ping(prod)'], allow: ['Stamp(./notes/**)'] } },
      plugins: [{ plugin: permissions }, { plugin: defaultMode }],
    });
    expect(await decide(k, 'Stamp', { file_path: 'secret/key.txt' })).toMatchObject({ behavior: 'deny', message: expect.stringContaining(join(cwd, 'secret/key.txt')) });
    expect(await decide(k, 'Stamp', { file_path: 'notes/a.txt' })).toMatchObject({ behavior: 'allow', reason: 'allow rule Stamp(./notes/**)' });
    expect(await decide(k, 'Stamp', { file_path: 'src/a.txt' })).toMatchObject({ behavior: 'ask', source: 'permissions/default' });
    // Ping names no path: rein cannot check "prod" against a call, so the deny covers every call.
    expect(await decide(k, 'Ping', { host: 'staging' })).toMatchObject({ behavior: 'deny' });
  });

  it('WebFetch(domain:…) and MCP server rules', async () => {
    const k = await testKernel({ cwd: tmp(), preset: { permissions: { allow: ['WebFetch(domain:docs.example.com)'], deny: ['WebFetch(domain:*.evil.test)'] } }, plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
    expect(await decide(k, 'WebFetch', { url: 'https://docs.example.com/a', prompt: 'x' })).toMatchObject({ behavior: 'allow' });
    expect(await decide(k, 'WebFetch', { url: 'https://a.evil.test/x', prompt: 'x' })).toMatchObject({ behavior: 'deny' });
    // A URL that cannot be read matches every domain deny rule: deny fails closed.
    expect(await decide(k, 'WebFetch', { url: 'not a url', prompt: 'x' })).toMatchObject({ behavior: 'deny' });
    expect(await decide(k, 'WebFetch', { url: 'https://other.example.org/', prompt: 'x' })).toMatchObject({ behavior: 'ask', source: 'permissions/default' });
  });

  it('a bad rule fails plugin loading with its text', async () => {
    await expect(testKernel({ cwd: tmp(), preset: { permissions: { allow: ['Bash(ls'] } }, plugins: [{ plugin: permissions }] })).rejects.toThrow(/Bash\(ls/);
  });
});

describe('protected paths and working directories (never auto-allowed)', () => {
  it('bypassPermissions still asks for .git/, shell rc files, rein config and writes outside', async () => {
    const cwd = tmp();
    const k = await testKernel({ cwd, preset: { permissions: { allowBypassPermissions: true } }, plugins: [{ plugin: permissions }, { plugin: bypass }] });
    expect(await decide(k, 'Edit', { file_path: '.git/config', old_string: 'a', new_string: 'b' })).toMatchObject({ behavior: 'ask', source: 'permissions' });
    expect(await decide(k, 'Write', { file_path: join(homedir(), '.zshrc'), content: '' })).toMatchObject({ behavior: 'ask' });
    expect(await decide(k, 'Write', { file_path: '.idea/workspace.xml', content: '' })).toMatchObject({ behavior: 'ask' });
    expect(await decide(k, 'Write', { file_path: '.hg/hgrc', content: '[hooks]\npre-status = touch /tmp/x\n' })).toMatchObject({ behavior: 'ask' });
    expect(await decide(k, 'Bash', { command: 'printf "[hooks]\\n" >> .hg/hgrc' })).toMatchObject({ behavior: 'ask' });
    expect(await decide(k, 'Write', { file_path: '.reinrc.yaml', content: '' })).toMatchObject({ behavior: 'ask' });
    expect(await decide(k, 'Write', { file_path: 'rein.local.mjs', content: '' })).toMatchObject({ behavior: 'ask', reason: expect.stringMatching(/rein configuration/) });
    expect(await decide(k, 'Write', { file_path: '/etc/hosts', content: '' })).toMatchObject({ behavior: 'ask' });
    expect(await decide(k, 'Bash', { command: 'echo x >> ~/.bashrc' })).toMatchObject({ behavior: 'ask' });
    expect(await decide(k, 'Bash', { command: 'echo x > /tmp/elsewhere.txt' })).toMatchObject({ behavior: 'ask' });
    expect(await decide(k, 'Write', { file_path: 'src/a.ts', content: '' })).toMatchObject({ behavior: 'allow' });
    expect(await decide(k, 'Bash', { command: 'rm -rf build' })).toMatchObject({ behavior: 'allow' });
    // What the parser cannot read asks, even here: at the top level and inside an `sh -c` script.
    expect(await decide(k, 'Bash', { command: 'echo "unterminated' })).toMatchObject({ behavior: 'ask' });
    expect(await decide(k, 'Bash', { command: `bash -c 'echo "unterminated'` })).toMatchObject({ behavior: 'ask', reason: expect.stringMatching(/nested script could not be parsed/) });
  });

  it('a symlink inside the project that points outside is judged by its target', async () => {
    const cwd = tmp();
    const outside = tmp();
    writeFileSync(join(outside, 'target.txt'), 'x');
    symlinkSync(join(outside, 'target.txt'), join(cwd, 'link.txt'));
    const k = await testKernel({ cwd, plugins: [{ plugin: permissions }, { plugin: acceptEdits }] });
    const d = await decide(k, 'Write', { file_path: 'link.txt', content: 'y' });
    expect(d).toMatchObject({ behavior: 'ask' });
    expect(d?.reason).toMatch(/outside the working directories/);
  });

  it('additionalDirectories count as the project; an Edit allow rule may name an outside path', async () => {
    const cwd = tmp();
    const extra = tmp();
    const other = tmp();
    mkdirSync(join(other, 'out'));
    const k = await testKernel({ cwd, preset: { permissions: { additionalDirectories: [extra], allow: [`Edit(/${other}/out/**)`] } }, plugins: [{ plugin: permissions }, { plugin: acceptEdits }] });
    expect(await decide(k, 'Write', { file_path: join(extra, 'a.txt'), content: '' })).toMatchObject({ behavior: 'allow' });
    expect(await decide(k, 'Write', { file_path: join(other, 'out/a.txt'), content: '' })).toMatchObject({ behavior: 'allow', source: 'permissions' });
    expect(await decide(k, 'Write', { file_path: join(other, 'a.txt'), content: '' })).toMatchObject({ behavior: 'ask' });
  });
});

describe('modes', () => {
  it('default: reads inside run, reads outside and writes ask', async () => {
    const k = await testKernel({ cwd: tmp(), plugins: [{ plugin: permissions }, { plugin: defaultMode }] });
    expect(await decide(k, 'Read', { file_path: 'a.txt' })).toMatchObject({ behavior: 'allow', source: 'permissions/default' });
    expect(await decide(k, 'Read', { file_path: '/etc/hostname' })).toMatchObject({ behavior: 'ask' });
    expect(await decide(k, 'Write', { file_path: 'a.txt', content: '' })).toMatchObject({ behavior: 'ask' });
    expect(await decide(k, 'Bash', { command: 'ls' })).toMatchObject({ behavior: 'ask', reason: 'no allow rule covers "ls" (mode default)' });
  });

  it('acceptEdits: edits inside run, shell commands still ask', async () => {
    const k = await testKernel({ cwd: tmp(), plugins: [{ plugin: permissions }, { plugin: acceptEdits }] });
    expect(await decide(k, 'Write', { file_path: 'src/new.ts', content: '' })).toMatchObject({ behavior: 'allow', source: 'permissions/acceptEdits' });
    expect(await decide(k, 'Bash', { command: 'npm install' })).toMatchObject({ behavior: 'ask' });
  });

  it('dontAsk: what is not allowed is denied, and ask rules become denies before any host', async () => {
    const k = await testKernel({ cwd: tmp(), preset: { permissions: { ask: ['Bash(git push:*)'], allow: ['Bash(git status)'] } }, plugins: [{ plugin: permissions }, { plugin: dontAsk }] });
    expect(await decide(k, 'Bash', { command: 'git status' })).toMatchObject({ behavior: 'allow' });
    expect(await decide(k, 'Bash', { command: 'make' })).toMatchObject({ behavior: 'deny', source: 'permissions/dontAsk' });
    const ask = await decide(k, 'Bash', { command: 'git push' });
    expect(ask).toMatchObject({ behavior: 'ask' });
    let hostAsked = false;
    k.hooks.permissionRequest.tapPromise('host', async () => { hostAsked = true; return { behavior: 'allow' }; });
    const answer = await k.hooks.permissionRequest.promise({ tool: k.tools.get('Bash')!, toolName: 'Bash', toolUseId: 't', input: { command: 'git push' }, decision: ask as { behavior: 'ask' } }, k.runContext());
    expect(answer).toMatchObject({ behavior: 'deny', source: 'permissions/dontAsk' });
    expect(hostAsked).toBe(false);
  });

  it('bypassPermissions needs the explicit opt-in', async () => {
    await expect(testKernel({ cwd: tmp(), plugins: [{ plugin: permissions }, { plugin: bypass }] })).rejects.toThrow(/allowBypassPermissions: true/);
  });

  it('two modes cannot be loaded together', async () => {
    await expect(testKernel({ cwd: tmp(), plugins: [{ plugin: permissions }, { plugin: defaultMode }, { plugin: acceptEdits }] })).rejects.toThrow(/conflicts/);
  });
});
