import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSimulator } from '../../simulator/index.js';
import { httpClient, loggedRequests, notices, runPrompt, strategyKernel } from '../../testing/strategy.js';
import { findIncludes, stripHtmlComments } from './markdown.js';
import { loadMemoryFiles, MAX_MEMORY_CHARS, renderMemory } from './load.js';
import memoryFiles, { isMemoryMessage } from './index.js';

let root: string;
beforeEach(() => { root = mkdtempSync(join(tmpdir(), 'rein-mem-')); });
afterEach(() => { rmSync(root, { recursive: true, force: true }); });

const warnings: string[] = [];
const load = (cwd: string, userDirs: string[] = [], allowExternalIncludes = false) =>
  loadMemoryFiles({ cwd, userDirs, names: ['AGENTS.md', 'CLAUDE.md'], localNames: ['AGENTS.local.md', 'CLAUDE.local.md'], allowExternalIncludes, warn: (m) => warnings.push(m) });

describe('markdown handling', () => {
  it('strips HTML comments outside code, keeps unclosed ones and text after a comment', () => {
    expect(stripHtmlComments('<!-- hidden -->\nKeep me')).toBe('Keep me');
    expect(stripHtmlComments('<!-- unclosed\nrest')).toBe('<!-- unclosed\nrest');
    expect(stripHtmlComments('<!-- x --> Use bun')).toBe(' Use bun');
    const fenced = '```\n<!-- x -->\n```\n';
    expect(stripHtmlComments(fenced)).toBe(fenced);
    expect(stripHtmlComments('a `<!-- x -->` b')).toBe('a `<!-- x -->` b');
    const crlf = 'line one\r\nline two\r\n';
    expect(stripHtmlComments(crlf)).toBe(crlf);
  });
  it('finds @includes outside code, with escapes, fragments and trailing punctuation', () => {
    expect(findIncludes('See @docs/a.md and @./b.md#part.\n`@skip.md`\n```\n@also-skip.md\n```\n@my\\ file.md, @~/x.md mail@example.com')).toEqual(['docs/a.md', './b.md', 'my file.md', '~/x.md']);
  });
});

describe('loadMemoryFiles', () => {
  it('loads user, then project files from the repository root down to cwd, each directory’s local files after its project files', () => {
    const user = join(root, 'home');
    const repo = join(root, 'repo');
    const sub = join(repo, 'pkg', 'app');
    mkdirSync(user, { recursive: true });
    mkdirSync(join(repo, '.git'), { recursive: true });
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(user, 'AGENTS.md'), 'user rules');
    writeFileSync(join(repo, 'AGENTS.md'), 'root rules');
    writeFileSync(join(repo, 'AGENTS.local.md'), 'root private');
    writeFileSync(join(repo, 'pkg', 'CLAUDE.md'), 'pkg rules');
    writeFileSync(join(sub, 'AGENTS.md'), 'app rules');
    // A CLAUDE.md that is a symlink to AGENTS.md is loaded once.
    symlinkSync(join(sub, 'AGENTS.md'), join(sub, 'CLAUDE.md'));
    const files = load(sub, [user]);
    expect(files.map((f) => [f.level, f.content])).toEqual([
      ['user', 'user rules'], ['project', 'root rules'], ['local', 'root private'], ['project', 'pkg rules'], ['project', 'app rules'],
    ]);
  });

  it('follows @includes up to 5 levels, once each, and skips files outside the project', () => {
    const repo = join(root, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    // AGENTS.md → i1 → i2 → … → i7: the root plus 5 levels load.
    writeFileSync(join(repo, 'AGENTS.md'), 'top @i1.md');
    for (let i = 1; i <= 7; i++) writeFileSync(join(repo, `i${i}.md`), `level ${i} @i${i + 1}.md @AGENTS.md`);
    writeFileSync(join(root, 'outside.md'), 'secret');
    writeFileSync(join(repo, 'CLAUDE.md'), `@../outside.md @image.png`);
    warnings.length = 0;
    const files = load(repo);
    expect(files.map((f) => f.content.split(' ').slice(0, 2).join(' '))).toEqual(['top @i1.md', 'level 1', 'level 2', 'level 3', 'level 4', 'level 5', '@../outside.md @image.png']);
    expect(files[1]!.includedBy).toBe(join(repo, 'AGENTS.md'));
    expect(warnings.some((w) => w.includes('outside.md') && w.includes('outside the project'))).toBe(true);
    expect(warnings.some((w) => w.includes('image.png') && w.includes('not a text file'))).toBe(true);
    expect(load(repo, [], true).some((f) => f.content === 'secret')).toBe(true);
  });

  it('warns about a file over 40,000 characters but loads it whole', () => {
    writeFileSync(join(root, 'AGENTS.md'), 'z'.repeat(MAX_MEMORY_CHARS + 1));
    warnings.length = 0;
    const files = load(root);
    expect(files[0]!.content.length).toBe(MAX_MEMORY_CHARS + 1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/40001 characters \(over 40000\)/);
  });

  it('renders one reminder with a block per file, or nothing when there are no files', () => {
    expect(renderMemory([])).toBe('');
    const text = renderMemory([{ path: '/p/AGENTS.md', level: 'project', content: 'Use tabs.' }, { path: '/p/AGENTS.local.md', level: 'local', content: 'Mine.' }]);
    expect(text).toBe([
      '<system-reminder>',
      'The instructions below come from the memory files of the user and this project. They take precedence over your default behaviour: follow them exactly as written.',
      '',
      'Contents of /p/AGENTS.md (project instructions, checked into the code base):\n\nUse tabs.\n\nContents of /p/AGENTS.local.md (the user\'s private instructions for this project, not checked in):\n\nMine.',
      '</system-reminder>',
    ].join('\n'));
  });
});

describe('memory-files in a session', () => {
  it('puts one pinned message first, once, and keeps it (same bytes) when the files change', async () => {
    const home = join(root, 'home');
    const cwd = join(root, 'work');
    mkdirSync(home);
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'AGENTS.md'), '<!-- note to self -->\nAlways answer briefly.\n');
    const log = join(root, 'requests.jsonl');
    const { client } = await httpClient(createSimulator(), log);
    const kernel = await strategyKernel({ cwd, client, plugins: [{ plugin: memoryFiles, options: { userDirs: [home] } }] });
    try {
      const { events } = await runPrompt(kernel, 'hello');
      expect(notices(events, 'memory-files')).toEqual([`loaded 1 memory file: ${join(cwd, 'AGENTS.md')}`]);
      writeFileSync(join(cwd, 'AGENTS.md'), 'Changed.\n');
      await runPrompt(kernel, 'again');
      const [first, second] = loggedRequests(log).map((r) => r.body);
      expect(first!.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: `<system-reminder>\nThe instructions below come from the memory files of the user and this project. They take precedence over your default behaviour: follow them exactly as written.\n\nContents of ${join(cwd, 'AGENTS.md')} (project instructions, checked into the code base):\n\nAlways answer briefly.\n</system-reminder>` }] });
      expect(second!.messages[0]).toEqual(first!.messages[0]);
      expect(kernel.messages.filter(isMemoryMessage)).toHaveLength(1);
      expect(kernel.messages[0]!.meta).toMatchObject({ pinned: true, source: 'memory-files' });
    } finally {
      await kernel.close();
    }
  });
});
