/**
 * Finding and reading memory files (`AGENTS.md`, `CLAUDE.md`), with their `@` includes.
 *
 * Load order is lowest priority first, because later text weighs more (Claude Code's CLAUDE.md
 * order, https://docs.anthropic.com/en/docs/claude-code/memory): user files, then project files in
 * each directory from the repository root down to the working directory, each directory's local
 * files right after its project files.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { findIncludes, stripHtmlComments } from './markdown.js';

/** Include nesting: a file's includes are level 1, theirs level 2, … up to this level (Claude Code: 5). */
export const MAX_INCLUDE_DEPTH = 5;
/** A memory file longer than this (characters) gets a warning; it is still loaded (Claude Code: 40,000). */
export const MAX_MEMORY_CHARS = 40_000;

/**
 * Extensions an included file may have (text only; a file without an extension is allowed). Claude
 * Code keeps a list of 120+; this is the common subset.
 */
export const TEXT_EXTENSIONS: ReadonlySet<string> = new Set([
  '.md', '.mdx', '.markdown', '.txt', '.text', '.rst', '.adoc', '.json', '.jsonc', '.yaml', '.yml', '.toml', '.xml',
  '.csv', '.ini', '.cfg', '.conf', '.env', '.ts', '.tsx', '.js', '.jsx', '.mjs', '.cjs', '.py', '.rb', '.go', '.rs',
  '.java', '.kt', '.swift', '.c', '.h', '.cc', '.cpp', '.hpp', '.cs', '.php', '.sh', '.bash', '.zsh', '.fish', '.sql',
  '.html', '.css', '.scss', '.vue', '.svelte', '.lua', '.r', '.pl', '.ex', '.exs', '.hs', '.scala', '.dart', '.gradle',
  '.cmake', '.mk', '.proto', '.graphql', '.tf',
]);

/** Where a memory file comes from. */
export type MemoryLevel = 'user' | 'project' | 'local';

export interface MemoryFile {
  /** Absolute path. */
  path: string;
  level: MemoryLevel;
  /** Content with HTML comments stripped. */
  content: string;
  /** The file that included this one, if any. */
  includedBy?: string;
}

export interface LoadOptions {
  cwd: string;
  /** Directories holding the user's own memory files. */
  userDirs: string[];
  /** File names looked for at user and project level (in each directory, in this order). */
  names: string[];
  /** File names looked for at local level (private, not checked in). */
  localNames: string[];
  /** Allow project files to include files outside the project. */
  allowExternalIncludes: boolean;
  /** Called with a warning (skipped include, oversized file). */
  warn: (message: string) => void;
}

/** The nearest directory at or above `cwd` holding `.git`, or `cwd` itself when there is none. */
export function projectRoot(cwd: string): string {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const up = dirname(dir);
    if (up === dir) return resolve(cwd);
    dir = up;
  }
}

/** Directories from `root` down to `cwd`, root first. */
export function dirsDown(root: string, cwd: string): string[] {
  const out = [root];
  const rel = relative(root, cwd);
  if (!rel || rel.startsWith('..') || isAbsolute(rel)) return out;
  let dir = root;
  for (const part of rel.split(sep)) {
    dir = join(dir, part);
    out.push(dir);
  }
  return out;
}

function isFile(p: string): boolean {
  try { return statSync(p).isFile(); } catch { return false; }
}

function real(p: string): string {
  try { return realpathSync(p); } catch { return resolve(p); }
}

function inside(dir: string, p: string): boolean {
  const rel = relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Resolves an include path as written in `from`. */
export function resolveInclude(spec: string, from: string): string {
  if (spec.startsWith('~/')) return join(homedir(), spec.slice(2));
  if (isAbsolute(spec)) return spec;
  return resolve(dirname(from), spec);
}

/**
 * Loads every memory file for `cwd`. Each file appears once (by real path), even when reached twice
 * (a symlinked CLAUDE.md → AGENTS.md, or an include cycle). Never throws for unreadable files: they
 * are skipped.
 */
export function loadMemoryFiles(o: LoadOptions): MemoryFile[] {
  const out: MemoryFile[] = [];
  const seen = new Set<string>();
  const root = projectRoot(o.cwd);

  const visit = (path: string, level: MemoryLevel, depth: number, includedBy?: string) => {
    const key = real(path);
    if (seen.has(key) || !isFile(path)) return;
    seen.add(key);
    let raw: string;
    try { raw = readFileSync(path, 'utf8'); } catch { return; }
    const content = stripHtmlComments(raw);
    if (content.length > MAX_MEMORY_CHARS) {
      o.warn(`memory file ${path} is ${content.length} characters (over ${MAX_MEMORY_CHARS}); it is loaded whole, but consider trimming it`);
    }
    out.push({ path, level, content, ...(includedBy ? { includedBy } : {}) });
    if (depth >= MAX_INCLUDE_DEPTH) return;
    for (const spec of findIncludes(content)) {
      const target = resolveInclude(spec, path);
      const ext = extname(target).toLowerCase();
      if (ext && !TEXT_EXTENSIONS.has(ext)) {
        o.warn(`memory file ${path}: not including ${target} (not a text file type)`);
        continue;
      }
      if (level !== 'user' && !o.allowExternalIncludes && !inside(root, real(target)) && !inside(root, target)) {
        if (isFile(target)) o.warn(`memory file ${path}: not including ${target}, which is outside the project (set allowExternalIncludes to allow it)`);
        continue;
      }
      visit(target, level, depth + 1, path);
    }
  };

  for (const dir of o.userDirs) for (const name of o.names) visit(join(dir, name), 'user', 0);
  for (const dir of dirsDown(root, resolve(o.cwd))) {
    for (const name of o.names) visit(join(dir, name), 'project', 0);
    // Claude Code's project memory is `./CLAUDE.md` or `./.claude/CLAUDE.md`
    // (https://code.claude.com/docs/en/memory, "Determine memory type").
    for (const name of o.names) visit(join(dir, '.claude', name), 'project', 0);
    for (const name of o.localNames) visit(join(dir, name), 'local', 0);
  }
  return out;
}

const DESCRIPTIONS: Record<MemoryLevel, string> = {
  user: "the user's own instructions for all projects",
  project: 'project instructions, checked into the code base',
  local: "the user's private instructions for this project, not checked in",
};

/** The text of the pinned memory message ('' when there are no files). Our wording. */
export function renderMemory(files: readonly MemoryFile[]): string {
  const withText = files.filter((f) => f.content.trim());
  if (!withText.length) return '';
  const blocks = withText.map((f) => `Contents of ${f.path} (${DESCRIPTIONS[f.level]}${f.includedBy ? `, included by ${f.includedBy}` : ''}):\n\n${f.content.trim()}`);
  return [
    '<system-reminder>',
    'The instructions below come from the memory files of the user and this project. They take precedence over your default behaviour: follow them exactly as written.',
    '',
    blocks.join('\n\n'),
    '</system-reminder>',
  ].join('\n');
}
