/**
 * The rules engine: `deny`, `ask` and `allow` lists compiled once, then evaluated per call in that
 * order, first match wins (Claude Code behaviour; specificity does not reorder).
 *
 * Deny and ask rules are matched generously (every reading of every part of a shell command, every
 * form of a path, any call of a tool whose specifier rein cannot interpret); allow rules strictly
 * (each part of a shell command must be allowed on its own, every form of a path must match).
 */
import type * as ChildProcess from 'node:child_process';
import { accessSync, constants, existsSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { createRequire } from 'node:module';
import type * as Tinyglobby from 'tinyglobby';
import { type PermissionQuery, type PermissionDecision } from '../../../kernel/index.js';
import { joinPath, pathForms as targetPathForms } from '../../../lib/index.js';
import { absolutePath, ANY_CHILD, compilePathSpec, isRegularFile, coveredInside, formsInside, hardLinkNamed, isInside, PROTECTED_DIRS, protectedReason, resolveForms, shellBase, type PathBase, type PathMatcher } from './paths.js';
import { parseRule, type PermissionRule, type RuleBehavior } from './rule.js';
import { parseCommand, type ParsedCommand, type ShellPart } from './shell/parse.js';
import { gitRepositoryRisk } from './git-repository.js';
import { compileShellSpec, coversRisky, matchShell, type ShellMatcher } from './shell/match.js';
import type { PlacedWrite } from './shell/programs.js';
import { DYNAMIC, type ShellWord } from './shell/words.js';
import { EDIT_TOOLS, filePathOf, READ_TOOLS, SHELL_TOOL } from './tools.js';

/** Tool names whose specifier is a path. */
const PATH_RULE_TOOLS: ReadonlySet<string> = new Set([...READ_TOOLS, ...EDIT_TOOLS]);

export type CompiledRule = PermissionRule & {
  /** True when the rule is about a tool of this name. */
  appliesTo(toolName: string): boolean;
} & (
  | { kind: 'tool' }
  | { kind: 'shell'; shell: ShellMatcher }
  | { kind: 'path'; path: PathMatcher }
  | { kind: 'domain'; domain: string }
  | { kind: 'subagent'; name: string }
  /**
   * A specifier for a tool rein has no rule syntax for. A tool that declares `filePath` is matched
   * by it as a path (`path`, read like a Read or Edit specifier); for any other tool rein cannot
   * interpret it: deny and ask rules match every call, allow rules none.
   */
  | { kind: 'opaque'; path: PathMatcher }
);

export interface CompiledRules {
  deny: CompiledRule[];
  ask: CompiledRule[];
  allow: CompiledRule[];
}

function nameTest(ruleTool: string, content: boolean): (name: string) => boolean {
  if (content && ruleTool === 'Read') return (n) => READ_TOOLS.has(n);
  if (content && ruleTool === 'Edit') return (n) => EDIT_TOOLS.has(n);
  if (ruleTool.includes('*')) {
    const re = new RegExp(`^${ruleTool.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    return (n) => re.test(n);
  }
  // `mcp__server` covers every tool of that server.
  if (/^mcp__[^_]+(?:_[^_]+)*$/.test(ruleTool) && ruleTool.split('__').length === 2) return (n) => n === ruleTool || n.startsWith(`${ruleTool}__`);
  return (n) => n === ruleTool;
}

/** Compiles one rule. Throws RuleSyntaxError for a bad rule string. */
export function compileRule(text: string, behavior: RuleBehavior, base: PathBase): CompiledRule {
  const rule = parseRule(text, behavior);
  const appliesTo = nameTest(rule.toolName, rule.content !== undefined);
  const c = rule.content;
  if (c === undefined) return { ...rule, appliesTo, kind: 'tool' };
  if (rule.toolName === SHELL_TOOL) return { ...rule, appliesTo, kind: 'shell', shell: compileShellSpec(c) };
  if (PATH_RULE_TOOLS.has(rule.toolName)) return { ...rule, appliesTo, kind: 'path', path: compilePathSpec(c, base) };
  if (rule.toolName === 'WebFetch' && c.startsWith('domain:')) return { ...rule, appliesTo, kind: 'domain', domain: c.slice(7).trim().toLowerCase() };
  if (rule.toolName === 'Task' || rule.toolName === 'Agent') return { ...rule, appliesTo: (n) => n === 'Task' || n === 'Agent', kind: 'subagent', name: c };
  return { ...rule, appliesTo, kind: 'opaque', path: compilePathSpec(c, base) };
}

/**
 * The path forms of a call to a tool that declares `filePath`, for a rule of the tool's own name
 * (`Stamp(./notes/**)`); undefined when the tool declares none or names no path for this call.
 */
function ownPathForms(q: PermissionQuery, base: PathBase): string[] | undefined {
  return typeof q.tool.filePath === 'function' ? callPathForms(q, base) : undefined;
}

/** Compiles the three lists. Throws RuleSyntaxError naming the first bad rule. */
export function compileRules(lists: { allow: string[]; ask: string[]; deny: string[] }, base: PathBase): CompiledRules {
  return {
    deny: lists.deny.map((r) => compileRule(r, 'deny', base)),
    ask: lists.ask.map((r) => compileRule(r, 'ask', base)),
    allow: lists.allow.map((r) => compileRule(r, 'allow', base)),
  };
}

const parsedCache = new WeakMap<object, ParsedCommand>();

/** The parsed `command` of a Bash call, parsed once per input object. */
export function parsedCommandOf(q: PermissionQuery): ParsedCommand {
  let p = parsedCache.get(q.input);
  if (!p) {
    const command = q.input.command;
    p = typeof command === 'string' ? parseCommand(command) : { ok: false, error: 'the command is not a string' };
    parsedCache.set(q.input, p);
  }
  return p;
}

/**
 * Most files one pattern (`rm *.log`) or one copied tree (`cp -r src dst`) stands for: past it,
 * the command's writes count as known only at run time (asked about). Each file is resolved and
 * judged like a redirection target: a 1,000-entry `cp -r` took 60 ms to decide on a 2-core
 * machine under load 9, against 0.3 ms for a one-file `cp`.
 */
export const MAX_WRITE_EXPANSION = 1_000;

/** A part's writes (writesOf), with those that come from the program's operands or placed files set apart. */
const writesCache = new WeakMap<ShellPart, { all: ShellWord[]; operands: Set<ShellWord> }>();

/** A write whose file is known only at run time. */
function unknownWrite(why: string): ShellWord {
  return { value: DYNAMIC, dynamic: true, glob: false, why };
}

function plainWord(value: string): ShellWord {
  return { value, dynamic: false, glob: false };
}

/**
 * Every file a part of a shell command writes, for the checks: its redirection targets, the files
 * it names in its arguments with each pattern replaced by the files it matches now (as bash
 * would, dotfiles and any case included, so no match is missed; the pattern itself too, which
 * bash passes on when nothing matches), and the files its copies, moves and links land on (see
 * placedFiles). Worked out once per part.
 */
export function writesOf(q: PermissionQuery, part: ShellPart, base: PathBase): ShellWord[] {
  if (!part.fileWrites && !part.placed) return part.writes;
  return partWrites(q, part, base).all;
}

/** writesOf's list, with the words that come from operands or placed files set apart, worked out once. */
function partWrites(q: PermissionQuery, part: ShellPart, base: PathBase): { all: ShellWord[]; operands: Set<ShellWord> } {
  let out = writesCache.get(part);
  if (out) return out;
  out = { all: [...part.writes], operands: new Set() };
  const operand = new Set(part.operandWrites ?? []);
  for (const w of part.fileWrites ?? []) {
    const files = patternFiles(w, shellBase(base));
    out.all.push(...files);
    if (operand.has(w)) for (const f of files) out.operands.add(f);
  }
  for (const p of part.placed ?? []) {
    const files = placedFiles(q, p, base);
    out.all.push(...files);
    for (const f of files) out.operands.add(f);
  }
  writesCache.set(part, out);
  return out;
}

let globSyncRef: ((pattern: string, options: Tinyglobby.GlobOptions) => string[]) | undefined;
/**
 * tinyglobby's `globSync`, loaded on the first pattern, not at start-up: it loads picomatch with
 * Node's require, a file read and compile no run should pay before its first request.
 */
function globSync(pattern: string, options: Tinyglobby.GlobOptions): string[] {
  globSyncRef ??= (createRequire(import.meta.url)('tinyglobby') as typeof Tinyglobby).globSync;
  return globSyncRef(pattern, options);
}

/** A word with a pattern (`*.log`, `.mcp.js?n`) and the files it matches; any other word alone. */
function patternFiles(w: ShellWord, base: PathBase): ShellWord[] {
  if (!w.glob || w.dynamic) return [w];
  // Not normalised: in `link/../*` the `..` is taken after the link, as bash's globbing does.
  const abs = joinPath(w.value, base.cwd, base.home);
  const parts = abs.split('/');
  const at = parts.findIndex((p) => /[*?[]/.test(p));
  if (at === -1) return [w];
  const root = resolveForms(parts.slice(0, at).join('/') || '/', base).at(-1)!;
  let matches: string[];
  try {
    matches = globSync(parts.slice(at).join('/'), { cwd: root, dot: true, caseSensitiveMatch: false, onlyFiles: false, expandDirectories: false, followSymbolicLinks: false, absolute: true });
  } catch {
    return [unknownWrite(`the files ${w.value} matches, which rein could not list`)];
  }
  if (matches.length > MAX_WRITE_EXPANSION) return [unknownWrite(`the files ${w.value} matches (more than ${MAX_WRITE_EXPANSION})`)];
  // A pattern at the start of a word expands to names that may start with `-` (options).
  if (w.lead && matches.some((m) => basename(m).startsWith('-'))) return [unknownWrite(`a file ${w.value} matches whose name starts with -, which the program reads as an option`)];
  return [{ ...w, glob: false }, ...matches.map((m) => plainWord(m.replace(/\/+$/, '')))];
}

/**
 * `dir/name` without normalising: `path.join('link/..', 'a')` is `a`, but the kernel takes `..`
 * after following `link` (path_resolution(7)), so `cp a link/..` writes beside the link's target.
 * resolvePath (lib/fs/resolve.ts) must see the `..` as written.
 */
function below(dir: string, name: string): string {
  if (name === '' || name === '.') return dir;
  return dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
}

/** True when `v` (a path as a command wrote it) is a directory now, links followed. */
function isDirectory(q: PermissionQuery, v: string, base: PathBase): boolean {
  try {
    return statSync(pathFormsOf(q, v, base).at(-1)!).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The files under directory `dir` (the real path of a copied source) as they land under
 * `target`: `target/relative path`, and `target/<any file>` for rules about the whole tree.
 * Symbolic links inside are not followed (cp -r, mv and rsync copy them as links).
 */
function treeFiles(q: PermissionQuery, dir: string, target: string, base: PathBase, carriesLinks = false): ShellWord[] {
  const out: ShellWord[] = [plainWord(below(target, ANY_CHILD))];
  const stack: string[] = [''];
  let seen = 0;
  while (stack.length) {
    const rel = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(join(pathFormsOf(q, dir, base).at(-1)!, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > MAX_WRITE_EXPANSION) return [unknownWrite(`the files a copy of ${dir} writes (more than ${MAX_WRITE_EXPANSION})`)];
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (carriesLinks && e.isSymbolicLink()) return [linkCarried(below(target, r))];
      out.push(plainWord(below(target, r)));
      if (e.isDirectory()) stack.push(r);
    }
  }
  return out;
}

/** Most names read from a directory a recursive removal or mode change starts at (one `readdir`). */
const MAX_TOP_ENTRIES = 20_000;

/**
 * The protected entries right inside a directory a recursive removal or mode change starts at:
 * `rm -rf .` and `chmod -R 777 src/..` reach the project's `.git/` and `.mcp.json`, which must ask
 * as writing them would. (Deeper entries, such as a nested repository's `.git`, are not listed.)
 */
function protectedEntries(q: PermissionQuery, v: string, base: PathBase): ShellWord[] {
  const real = pathFormsOf(q, v, base).at(-1)!;
  let names: string[];
  try {
    names = readdirSync(real);
  } catch {
    return [];
  }
  if (names.length > MAX_TOP_ENTRIES) return [unknownWrite(`the files under ${v} (more than ${MAX_TOP_ENTRIES} entries to check)`)];
  return names.filter((n) => protectedReason([join(real, n)]) !== undefined).map((n) => plainWord(below(v, n)));
}

/**
 * True when `v` (as a command wrote it) is a folder an extraction only puts files into: a
 * directory now (itself no symbolic link), with no protected folder (`.git`, ...) on its path,
 * inside the working directories as written and where its links lead (reached through no link at
 * all when they are not known). Such a folder is not itself a write:
 * rein's code-file protection matches every folder above a protected file (removing the folder
 * removes the file), which would make every extraction into the project ask.
 */
function receivingFolder(q: PermissionQuery, v: string, base: PathBase): boolean {
  try {
    if (!lstatSync(joinPath(v, shellBase(base).cwd, base.home)).isDirectory()) return false;
  } catch {
    return false;
  }
  const forms = pathFormsOf(q, v, base);
  if (forms.some((f) => f.split('/').some((c) => PROTECTED_DIRS.includes(c)))) return false;
  return base.workingDirs ? formsInside(forms, base.workingDirs) : forms.length === 1;
}

/** True when `v` (a path as a command wrote it) is itself a symbolic link now. */
function isLink(q: PermissionQuery, v: string, base: PathBase): boolean {
  try {
    return lstatSync(joinPath(v, shellBase(base).cwd, base.home)).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * A copy or move that lands a symbolic link (`cp -P link x`, `cp -a tree t`, `mv link x`,
 * `rsync -l`) in a command that goes on: a later part may write through it (`cp -P outlink x &&
 * cp a x/y`), and the disk rein checks against does not hold that link yet.
 */
function linkCarried(at: string): ShellWord {
  return unknownWrite(`${at}, a symbolic link the command copies, follows or moves there, which leads out of what rein can list`);
}

/**
 * What a link makes writable: a hard link's source (the same file: a later `echo x >> link` writes
 * it, and a redirection does not see a hard link), and, when the command does anything else, a
 * symbolic link's target (`ln -s ~/.bashrc rc && echo x >> rc` writes `~/.bashrc`; the checks of a
 * later call resolve the link), read against the link's directory as the kernel does.
 */
function linkedSource(p: PlacedWrite, s: ShellWord, link: string, alone: boolean): ShellWord[] {
  if (!p.links || (alone && p.links !== 'hard')) return [];
  if (s.dynamic) return [unknownWrite('a link target known only at run time')];
  if (p.links !== 'symbolic' || isAbsolute(s.value) || s.value === '~' || s.value.startsWith('~/')) return [{ ...s, glob: false }];
  return [plainWord(below(dirname(link), s.value))];
}

/**
 * The files a copy, move, link, recursive removal or mode change lands on (programs.ts
 * PlacedWrite), judged against the disk as it is now: into a directory destination each source
 * lands at `dest/basename` (`cp a ~/` writes `~/a`; `cp x/.mcp.json .` writes `./.mcp.json`), a
 * directory source brings every file under it, a recursive removal touches everything below its
 * operand. A destination or a source name known only at run time makes the write unknown.
 */
function placedFiles(q: PermissionQuery, p: PlacedWrite, base: PathBase): ShellWord[] {
  const out = landedFiles(q, p, base);
  if (!p.backup) return out;
  // A replaced file is renamed to its name plus the backup suffix first (a write of that name).
  const { suffix } = p.backup;
  if (suffix === undefined) return [...out, unknownWrite('a backup whose name SIMPLE_BACKUP_SUFFIX in the environment may choose')];
  if (suffix === '' || suffix.includes('/')) return [...out, unknownWrite(`a backup named with the suffix ${JSON.stringify(suffix)}`)];
  return [...out, ...out.filter((w) => !w.dynamic).map((w) => plainWord(`${w.value.replace(/\/+$/, '')}${suffix}`))];
}

/** Longest time rein waits for `tar -t` or `unzip -Z1` to list an archive, ms. Past it the members are unknown. */
export const ARCHIVE_LIST_TIMEOUT_MS = 10_000;

/** The programs rein runs to list what a call writes, and the environment they run with. */
interface Listing {
  /**
   * The absolute path of `name` on the cleaned PATH (an executable regular file, not one whose
   * link leads into the project), or undefined: rein runs it while judging a call, before any
   * permission is given, so it must not be a program the project holds.
   */
  program(name: string): string | undefined;
  /**
   * The cleaned PATH (tar runs gzip, xz... from it), the C locale (names printed as bytes,
   * messages in English), and `extra`; nothing else of rein's environment (`TAR_OPTIONS`, `UNZIP`,
   * `GIT_*` would change what is listed).
   */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
}

/**
 * The listing programs of `base`, from rein's PATH without the entries a project could plant a
 * program in: relative entries (`.`, `node_modules/.bin`, an empty entry, which means `.`) and
 * every entry inside the working directories, the shell's folder or the preset's folder, as written
 * or where its links lead. Under `npx`, PATH starts with `<project>/node_modules/.bin`, where an
 * agent can write a `tar`. The PATH is cleaned once per listing, however many programs it runs.
 */
function listingTools(base: PathBase): Listing {
  const dirs = [base.cwd, shellBase(base).cwd, base.presetDir, ...(base.workingDirs ?? [])];
  const roots = [...new Set(dirs.flatMap((d) => resolveForms(d, base)))];
  const inProject = (p: string) => resolveForms(p, base).some((f) => roots.some((r) => isInside(f, r)));
  const path = (process.env.PATH ?? '/usr/bin:/bin').split(':').filter((e) => e.startsWith('/') && !inProject(e));
  return {
    program(name) {
      for (const dir of path) {
        const file = join(dir, name);
        try {
          accessSync(file, constants.X_OK);
          if (!statSync(file).isFile()) continue;
        } catch {
          continue;
        }
        if (!inProject(file)) return file;
      }
      return undefined;
    },
    env: (extra = {}) => ({ PATH: path.join(':'), LANG: 'C', LC_ALL: 'C', ...extra }),
  };
}

/**
 * The member names of an archive as the program that extracts it lists them (`tar -tf`, which
 * recognises compressed archives by their content; `unzip -Z1`), or why they are not known.
 * A name tar prints with escapes (a backslash: a newline or an unusual byte in the name) is not
 * known either.
 */
function archiveMembers(tool: 'tar' | 'unzip' | 'git-apply', file: string, base: PathBase, extra: readonly string[] = []): string[] | string {
  if (!isRegularFile(file)) return `${file} is not a regular file`;
  if (tool === 'git-apply') return patchPaths(file, base, extra);
  const tools = listingTools(base);
  const program = tools.program(tool);
  if (!program) return `no ${tool} outside the project to list ${file} with`;
  const args = tool === 'tar' ? ['--force-local', '-tf', file] : ['-Z1', file];
  const r = spawnSync(program, args, { cwd: '/', env: tools.env(), encoding: 'utf8', timeout: ARCHIVE_LIST_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error || r.status !== 0) return `${tool} could not list ${file}`;
  const names = r.stdout.split('\n').filter((n) => n !== '');
  if (names.some((n) => n.includes('\\'))) return `a member of ${file} whose name ${tool} prints with escapes`;
  return names;
}

/**
 * The paths a patch makes `git apply` write (both names of a rename), as `git apply --numstat -z`
 * lists them with the same path options. It runs in `/` with no repository, no global or system
 * configuration and no home, so nothing of the project's (hooks, `core.*` programs) is read.
 */
function patchPaths(file: string, base: PathBase, extra: readonly string[]): string[] | string {
  const tools = listingTools(base);
  const git = tools.program('git');
  if (!git) return `no git outside the project to read ${file} with`;
  const env = tools.env({ GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: '/nonexistent', GIT_CEILING_DIRECTORIES: '/' });
  const r = spawnSync(git, ['apply', '--numstat', '-z', ...extra, file], { cwd: '/', env, encoding: 'utf8', timeout: ARCHIVE_LIST_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error || r.status !== 0) return `git apply could not read ${file}`;
  const out: string[] = [];
  const tokens = r.stdout.split('\0');
  for (let i = 0; i < tokens.length; i++) {
    const m = /^(?:\d+|-)\t(?:\d+|-)\t([\s\S]*)$/.exec(tokens[i]!);
    if (!m) continue;
    if (m[1]) out.push(m[1]);
    else {
      out.push(...tokens.slice(i + 1, i + 3).filter((t) => t !== ''));
      i += 2;
    }
  }
  return out;
}

/** The folder of the repository above `dir` (the first with a `.git` entry), where `git apply` takes a patch's paths from. */
function repositoryTop(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, '.git'))) return d;
    if (dirname(d) === d) return undefined;
  }
}

/**
 * A member name after tar's `--strip-components=N`, or undefined when tar skips the member (it has
 * N components or fewer). Follows GNU tar's `stripped_prefix_len` (src/names.c, tar 1.34): leading
 * slashes are skipped, then each slash ends a component, `.` and empty components (`a//b`) count
 * like any other (`./.git/hooks/x` with N=1 is `.git/hooks/x`), and the slashes after the Nth
 * component are kept (`a//b/c` with N=1 is `/b/c`, which tar writes as an absolute path).
 */
export function tarStripped(member: string, strip: number): string | undefined {
  let i = 0;
  while (member[i] === '/') i++;
  let left = strip;
  while (i < member.length) {
    const slash = member[i] === '/';
    i++;
    if (!slash) continue;
    if (--left === 0) return member.slice(i);
    while (member[i] === '/') i++;
  }
  return undefined;
}

/**
 * The files an extraction (`tar -x`, `unzip`) lands: `dest/member` for every member the archive
 * holds now, with the leading `/` both programs remove, tar's `--strip-components` and unzip's
 * `-j` applied. Each is then resolved like any write (links followed: a member `lout/x` under a
 * link `lout` to another directory lands there, which is what the checks must see).
 */
function archiveFiles(q: PermissionQuery, p: PlacedWrite, base: PathBase): ShellWord[] {
  const { dest } = p;
  const a = p.archive!;
  if (dest.dynamic) return [dest];
  if (dest.glob) return [unknownWrite(`a destination given as a pattern (${dest.value})`)];
  if (a.file.dynamic || a.file.glob) return [unknownWrite(`the members of ${a.file.value.replaceAll('\u0000', '…')}, an archive known only at run time`)];
  const members = archiveMembers(a.tool, pathFormsOf(q, a.file.value, base).at(-1)!, base, a.args);
  if (typeof members === 'string') return [unknownWrite(`the files ${a.tool} extracts: ${members}`)];
  if (members.length > MAX_WRITE_EXPANSION) return [unknownWrite(`the files ${a.tool} extracts from ${a.file.value} (more than ${MAX_WRITE_EXPANSION})`)];
  // The destination folder itself is written only when the extraction makes it (it does not exist
  // yet); an existing folder only receives the members, each checked below.
  // Likewise a directory member over a folder that exists (`scripts/` beside a protected
  // `scripts/hook.sh`): tar and unzip put files into it, they do not replace it.
  const out: ShellWord[] = receivingFolder(q, dest.value, base) ? [] : [dest];
  for (const m of members) {
    const name = a.strip ? tarStripped(m, a.strip) : m;
    if (name === undefined) continue;
    let parts = name.split('/').filter((c) => c !== '' && c !== '.');
    if (a.junkPaths) parts = parts.slice(-1);
    const at = below(dest.value, parts.join('/'));
    if (parts.length && !(name.endsWith('/') && !a.junkPaths && receivingFolder(q, at, base))) out.push(plainWord(at));
    // GNU tar 1.34 keeps a `/` left at the start after stripping (`.//x/y` with
    // --strip-components=1 is `/x/y`) and writes there, outside the destination.
    if (name.startsWith('/') && parts.length) out.push(plainWord(`/${parts.join('/')}`));
  }
  // git apply in a repository takes the paths from its top folder.
  const top = a.tool === 'git-apply' ? repositoryTop(pathFormsOf(q, dest.value, base).at(-1)!) : undefined;
  if (top) for (const m of members) out.push(plainWord(below(top, m)));
  return out;
}

/**
 * The pieces `split` writes: PREFIX plus suffixes it makes up, in PREFIX's folder, stood for by
 * one name under that folder (so links and rules on the folder apply). Every protected name starts
 * with `.` or `rein` (or is an 8.3 short name with `~`, paths.ts): a prefix that could grow into
 * one makes the pieces a write rein cannot work out.
 */
function splitFiles(p: PlacedWrite): ShellWord[] {
  const prefix = p.splitPrefix!;
  const name = prefix.slice(prefix.lastIndexOf('/') + 1).normalize('NFKC').toLowerCase();
  if (name === '' || name.startsWith('.') || name.includes('~') || name.startsWith('rein') || 'rein'.startsWith(name)) {
    return [unknownWrite(`the pieces split names ${prefix} plus a suffix, which may make a protected name`)];
  }
  return [plainWord(below(p.dest.value, `${prefix.slice(prefix.lastIndexOf('/') + 1)}${ANY_CHILD}`))];
}

/**
 * The working-tree files `git checkout`, `switch` or `restore` writes (programs.ts gitTree): those
 * `git diff --name-only` lists between the revision (or the index) and the working tree, in the
 * repository's top folder. git runs in the shell's folder with the fsmonitor hook and external
 * diff programs off. safetyDecision asks for these writes before any rule (and so before
 * gitRepositoryRisk) is consulted: the listing runs whatever the repository is. It runs in the
 * first folder upwards with a `.git` entry (a name rein protects), with `safe.bareRepository=explicit`
 * so a lookalike bare repository is not taken, no global or system configuration or attributes
 * file, no textconv, no external diff and every configured `filter.<name>` emptied.
 */
function gitTreeFiles(q: PermissionQuery, p: PlacedWrite, base: PathBase): ShellWord[] {
  const t = p.gitTree!;
  // After a `cd` the folder git runs in, so the repository, is known only at run time.
  if (p.dest.dynamic) return [p.dest];
  const cwd = pathFormsOf(q, p.dest.value, base).at(-1)!;
  const top = repositoryTop(cwd);
  if (!top) return [unknownWrite('the files git takes from a revision, with no repository rein can list them from')];
  const tools = listingTools(base);
  const gitPath = tools.program('git');
  if (!gitPath) return [unknownWrite('the files git takes from a revision: no git outside the project to list them with')];
  const off = ['-c', 'core.fsmonitor=false', '-c', 'safe.bareRepository=explicit', '-c', 'core.attributesFile=/dev/null'];
  const git = (...args: string[]) => spawnSync(gitPath, [...off, ...args], { cwd, env: tools.env({ HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_ATTR_NOSYSTEM: '1', GIT_OPTIONAL_LOCKS: '0' }), encoding: 'utf8', timeout: ARCHIVE_LIST_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  // git diff runs a file's clean filter (gitattributes(5) `filter`) to compare it: each filter the
  // repository's configuration names is emptied for the listing (reading configuration runs nothing).
  const filters = git('config', '-z', '--get-regexp', '^filter\\.');
  if (filters.error || (filters.status !== 0 && filters.status !== 1)) return [unknownWrite('the files git takes from a revision, whose configuration git could not read')];
  for (const entry of filters.stdout.split('\0')) {
    const m = /^filter\.(.+)\.[^.\n]+(?:\n|$)/.exec(entry);
    if (m) off.push('-c', `filter.${m[1]}.clean=`, '-c', `filter.${m[1]}.process=`, '-c', `filter.${m[1]}.required=false`);
  }
  let rev = t.rev;
  let paths = t.paths;
  if (t.revOrPath !== undefined) {
    const isRev = git('rev-parse', '--verify', '-q', '--end-of-options', `${t.revOrPath}^{commit}`).status === 0;
    if (isRev) rev = t.revOrPath;
    else paths = [t.revOrPath, ...paths];
  }
  if (rev === undefined && paths.length === 0) return [];
  const r = git('diff', '--name-only', '-z', '--no-ext-diff', '--no-textconv', '--no-renames', ...(rev === undefined ? [] : ['--end-of-options', rev]), '--', ...paths);
  if (r.error || r.status !== 0) return [unknownWrite(`the files git takes from ${rev ?? 'the index'}, which git could not list`)];
  const names = r.stdout.split('\0').filter((n) => n !== '');
  if (names.length > MAX_WRITE_EXPANSION) return [unknownWrite(`the files git takes from ${rev ?? 'the index'} (more than ${MAX_WRITE_EXPANSION})`)];
  return names.map((n) => plainWord(join(top, n)));
}

/** placedFiles without backups. */
function landedFiles(q: PermissionQuery, p: PlacedWrite, base: PathBase): ShellWord[] {
  if (p.gitTree) return gitTreeFiles(q, p, base);
  if (p.archive) return archiveFiles(q, p, base);
  if (p.splitPrefix !== undefined) return splitFiles(p);
  const { dest } = p;
  const parsed = parsedCommandOf(q);
  const alone = parsed.ok && parsed.parts.length === 1;
  const b = shellBase(base);
  if (dest.dynamic) return [dest];
  if (dest.glob) return [unknownWrite(`a destination given as a pattern (${dest.value})`)];
  const out: ShellWord[] = [];
  if (p.sources.length === 0) {
    out.push(dest);
    if (p.tree && isDirectory(q, dest.value, base)) out.push(plainWord(below(dest.value, ANY_CHILD)), ...protectedEntries(q, dest.value, base));
    if (p.tree && p.modes && isDirectory(q, dest.value, base)) out.push(...treeFiles(q, dest.value, dest.value, base));
    return out;
  }
  const intoDir = p.into === 'dir' || (p.into === 'auto' && (dest.value.endsWith('/') || isDirectory(q, dest.value, base)));
  const sources = p.sources.flatMap((s) => patternFiles(s, b));
  // Links a copy or move lands matter only when another part of the command follows.
  const carries = (!alone && !p.links) || p.followsLinks === true;
  if (!intoDir) {
    out.push(dest);
    for (const s of sources) out.push(...linkedSource(p, s, dest.value, alone));
    for (const s of sources) if (carries && !s.dynamic && isLink(q, s.value, base)) out.push(linkCarried(dest.value));
    for (const s of sources) if (p.tree && !s.dynamic && isDirectory(q, s.value, base)) out.push(...treeFiles(q, s.value, dest.value, base, carries));
    return out;
  }
  for (const s of sources) {
    if (s.dynamic) { out.push(unknownWrite(`a file copied into ${dest.value} whose name is known only at run time`)); continue; }
    const rel = p.parents ? s.value : p.slashMeansContent && s.value.endsWith('/') ? '.' : basename(s.value);
    const target = below(dest.value, rel);
    out.push(plainWord(target));
    out.push(...linkedSource(p, s, target, alone));
    if (carries && isLink(q, s.value, base)) out.push(linkCarried(target));
    if (p.tree && isDirectory(q, s.value, base)) out.push(...treeFiles(q, s.value, target, base, carries));
  }
  return out;
}

/** Tools that read every file under their path (a directory walk). */
const WALKERS: ReadonlySet<string> = new Set(['Glob', 'Grep', 'LS']);

const formsCache = new WeakMap<object, Map<string, string[]>>();

let childProcess: typeof ChildProcess | undefined;
/**
 * `spawnSync`, with node:child_process required on first use rather than when the permission
 * plugins load: only a command that extracts, patches or checks out lists its files, and loading
 * the module is ~19 M instructions of a run's start (cli/bin.test.ts checks none is loaded before
 * the first request).
 */
function spawnSync(command: string, args: readonly string[], options: ChildProcess.SpawnSyncOptionsWithStringEncoding): ChildProcess.SpawnSyncReturns<string> {
  childProcess ??= createRequire(import.meta.url)('node:child_process') as typeof ChildProcess;
  return childProcess.spawnSync(command, args, options);
}

/**
 * Forms of a path a call names (`p` as given: absolute, relative to the working directory, or
 * `~/…`), resolved once per call input, so every stage judges the same resolution.
 */
export function pathFormsOf(q: PermissionQuery, p: string, base: PathBase): string[] {
  let cache = formsCache.get(q.input);
  if (!cache) formsCache.set(q.input, (cache = new Map()));
  let forms = cache.get(p);
  if (!forms) {
    const t = q.target;
    // A shell command's relative paths are relative to where the shell is (a `cd` carries over).
    const b = q.toolName === SHELL_TOOL ? shellBase(base) : base;
    forms = t && t.written === absolutePath(p, b.cwd, b.home) ? targetPathForms(t) : resolveForms(p, b);
    cache.set(p, forms);
  }
  return forms;
}

/**
 * Absolute forms of the path a call touches: as written, each symbolic link on the way, and its
 * real target (see paths.ts resolveForms). Glob and Grep without a path search the working directory.
 */
export function callPathForms(q: PermissionQuery, base: PathBase): string[] | undefined {
  const p = filePathOf(q) ?? (q.toolName === 'Glob' || q.toolName === 'Grep' ? '.' : undefined);
  return p === undefined ? undefined : pathFormsOf(q, p, base);
}

function hostOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

function domainMatches(host: string, domain: string): boolean {
  if (domain.startsWith('*.')) return host.endsWith(domain.slice(1));
  return host === domain;
}

/** What a generous match found: the rule and the text or path it matched. */
export interface RuleHit { rule: CompiledRule; subject: string }

/**
 * A Read rule against a file read under another name: the real target of `forms` is a hard link
 * to a file the rule covers. Returns the subject for messages, or undefined.
 */
export function hardLinkMatch(rule: CompiledRule & { kind: 'path' }, forms: readonly string[]): string | undefined {
  const real = forms[forms.length - 1];
  const named = real === undefined ? undefined : hardLinkNamed(rule.path, real);
  return named === undefined ? undefined : `${real}, ${named.startsWith('/') ? `the same file as ${named} (a hard link)` : named}`;
}

/** Deny/ask matching: any reading of the call matches. */
function matchLoose(rule: CompiledRule, q: PermissionQuery, base: PathBase): string | undefined {
  switch (rule.kind) {
    case 'tool': return q.toolName;
    case 'opaque': {
      const forms = ownPathForms(q, base);
      if (forms) return forms.find((f) => rule.path.test(f));
      return `${q.toolName} (the specifier ${JSON.stringify(rule.content)} cannot be checked: the tool names no path for this call, so it covers every call)`;
    }
    case 'shell': {
      const parsed = parsedCommandOf(q);
      if (!parsed.ok) {
        const raw = String(q.input.command ?? '').trim().replace(/\s+/g, ' ');
        return matchShell(rule.shell, raw) ? raw : undefined;
      }
      for (const part of parsed.parts) for (const form of part.deny) if (matchShell(rule.shell, form)) return part.source;
      return undefined;
    }
    case 'path': {
      if (q.toolName === SHELL_TOOL) return shellFileMatch(rule, q, base);
      const forms = callPathForms(q, base);
      const hit = forms?.find((f) => rule.path.test(f)) ?? (forms && rule.appliesTo('Read') && READ_TOOLS.has(q.toolName) ? hardLinkMatch(rule, forms) : undefined);
      if (hit || !forms || !WALKERS.has(q.toolName)) return hit;
      // A search of a directory whose whole content a rule covers (`Read(./secrets/**)`) is
      // that rule's call too: every file it could read is covered.
      return forms.find((f) => rule.path.test(join(f, ANY_CHILD)));
    }
    case 'domain': {
      const host = hostOf(q.input.url);
      // A URL rein cannot read is treated as matching: deny and ask fail closed.
      return host === undefined ? String(q.input.url) : domainMatches(host, rule.domain) ? host : undefined;
    }
    case 'subagent': {
      const t = q.input.subagent_type;
      return t === undefined || t === rule.name ? String(t ?? 'general-purpose') : undefined;
    }
  }
}

/**
 * A Read or Edit path rule against a shell command's redirections: `< .env` reads the file, as
 * `Read .env` would; `> file` writes it. Returns the matching form, or undefined.
 */
function shellFileMatch(rule: CompiledRule & { kind: 'path' }, q: PermissionQuery, base: PathBase): string | undefined {
  const parsed = parsedCommandOf(q);
  if (!parsed.ok) return undefined;
  const reads = rule.appliesTo('Read');
  for (const part of parsed.parts) {
    for (const w of reads ? part.reads ?? [] : writesOf(q, part, base)) {
      if (w.dynamic) continue; // the ask stage asks about targets known only at run time
      const forms = pathFormsOf(q, w.value, base);
      const hit = forms.find((f) => rule.path.test(f)) ?? (reads ? hardLinkMatch(rule, forms) : undefined);
      if (hit) return hit;
    }
  }
  return undefined;
}

/** First rule of `rules` that matches the call generously. */
export function firstLooseMatch(rules: readonly CompiledRule[], q: PermissionQuery, base: PathBase): RuleHit | undefined {
  for (const rule of rules) {
    const applies = rule.appliesTo(q.toolName) || (q.toolName === SHELL_TOOL && rule.kind === 'path' && (rule.appliesTo('Read') || rule.appliesTo('Edit')));
    if (!applies) continue;
    const subject = matchLoose(rule, q, base);
    if (subject !== undefined) return { rule, subject };
  }
  return undefined;
}

/** Deny stage: a matching deny rule denies. */
export function denyDecision(rules: CompiledRules, q: PermissionQuery, base: PathBase): PermissionDecision | undefined {
  const hit = firstLooseMatch(rules.deny, q, base);
  if (!hit) return undefined;
  return {
    behavior: 'deny',
    message: `Permission to use ${q.toolName} was denied by the rule ${hit.rule.text}${hit.subject !== q.toolName ? ` (it matches ${JSON.stringify(hit.subject)})` : ''}.`,
    reason: `deny rule ${hit.rule.text} matches ${hit.subject}`,
    source: 'permissions',
  };
}

/** Ask stage: a matching ask rule asks; a shell command (or a script inside it) the parser cannot read asks too. */
export function askDecision(rules: CompiledRules, q: PermissionQuery, base: PathBase): PermissionDecision | undefined {
  const hit = firstLooseMatch(rules.ask, q, base);
  if (hit) return { behavior: 'ask', message: `${q.toolName} needs approval: the rule ${hit.rule.text} asks for it.`, reason: `ask rule ${hit.rule.text} matches ${hit.subject}`, source: 'permissions' };
  if (q.toolName === SHELL_TOOL) {
    const parsed = parsedCommandOf(q);
    if (!parsed.ok) return { behavior: 'ask', message: `The command needs approval: ${parsed.error}.`, reason: `command not understood: ${parsed.error}`, source: 'permissions' };
    const unknown = parsed.parts.find((p) => p.kind === 'unknown');
    if (unknown) return { behavior: 'ask', message: `The command needs approval: ${unknown.why}.`, reason: `command not understood: ${unknown.why} (${JSON.stringify(unknown.source)})`, source: 'permissions' };
    // Deny and ask rules fail closed: a part whose real command the text does not show might be
    // one of them, so it is asked about instead of being left to a mode that would run it.
    const dynamicRead = hasReadGuards(rules) ? parsed.parts.find((p) => p.reads?.some((w) => w.dynamic)) : undefined;
    if (dynamicRead) {
      const w = dynamicRead.reads!.find((r) => r.dynamic)!;
      const why = `${JSON.stringify(dynamicRead.source)} reads ${w.why ?? 'a file whose name is known only at run time'}, so the Read deny and ask rules cannot be checked against it`;
      return { behavior: 'ask', message: `The command needs approval: ${why}.`, reason: why, source: 'permissions' };
    }
    const tree = hasReadGuards(rules) ? treeRead(rules, parsed, q, base) : undefined;
    if (tree) {
      const why = `${JSON.stringify(tree.part)} reads every file under ${tree.dir}, including ${tree.file}, which the rule ${tree.rule} covers (the Grep tool leaves such files out)`;
      return { behavior: 'ask', message: `The command needs approval: ${why}.`, reason: why, source: 'permissions' };
    }
    const named = hasReadGuards(rules) ? argumentRead(rules, parsed, q, base) : undefined;
    if (named) {
      const why = `${JSON.stringify(named.part)} names ${JSON.stringify(named.word)}, which the rule ${named.rule} covers, and the program may read it`;
      return { behavior: 'ask', message: `The command needs approval: ${why}.`, reason: why, source: 'permissions' };
    }
    const opaque = hasShellGuards(rules) ? parsed.parts.find((p) => p.opaque) : undefined;
    if (opaque) {
      const why = `${JSON.stringify(opaque.source)} runs code the command text does not show (${opaque.opaque}), so the deny and ask rules cannot be checked against it`;
      return { behavior: 'ask', message: `The command needs approval: ${why}.`, reason: why, source: 'permissions' };
    }
  }
  return undefined;
}

/**
 * The paths an argument word may name: the word itself, the value of `--opt=value`, `name=value`
 * (`dd if=.env`) or `-oVALUE`,
 * a curl-style `@file`, and the path after a `:` (`git show HEAD:.env`). Over-reading errs toward
 * asking.
 */
function argumentPaths(v: string): string[] {
  const out = [v];
  // `--opt=value`, `-o=value`, and dd's `if=file` (any `name=value` word).
  const eq = /^(?:--?)?[\w-]+=(.+)$/s.exec(v);
  if (eq) out.push(eq[1]!);
  else if (/^-[^-]./s.test(v)) out.push(v.slice(2));
  if (v.startsWith('@') && v.length > 1) out.push(v.slice(1));
  const colon = v.lastIndexOf(':');
  if (colon !== -1 && colon < v.length - 1) out.push(v.slice(colon + 1));
  return out.filter((p) => p !== '' && p !== '-' && !p.includes('\u0000'));
}

/**
 * The first argument of a command part that names a file a Read deny or ask rule covers: programs
 * read the files their arguments name (`cat .env`, `date -f .env`, `sed 1r.env`, `git diff
 * --no-index .env x`), which a Read rule must cover as it covers `Read .env`.
 */
function argumentRead(rules: CompiledRules, parsed: ParsedCommand & { ok: true }, q: PermissionQuery, base: PathBase): { part: string; word: string; rule: string } | undefined {
  const readRules = [...rules.deny, ...rules.ask].filter((r): r is CompiledRule & { kind: 'path' } => r.kind === 'path' && r.appliesTo('Read'));
  for (const part of parsed.parts) {
    for (const w of part.args ?? []) {
      for (const p of argumentPaths(w.value)) {
        const forms = pathFormsOf(q, p, base);
        for (const rule of readRules) if (forms.some((f) => rule.path.test(f)) || hardLinkMatch(rule, forms)) return { part: part.source, word: w.value, rule: rule.text };
      }
    }
  }
  return undefined;
}

/**
 * The directories a tree-reading search walks: `rg` always, `grep` with -r/-R/--recursive, `find`
 * with -exec/-execdir/-ok (the files it finds go to another program). The
 * first positional word of a search is the pattern (unless -e or -f gave it); the rest are the
 * places. find's places are the words before its first expression.
 * Returns undefined for any other command.
 */
function searchedDirs(part: ShellPart): string[] | undefined {
  const args = (part.args ?? []).map((w) => w.value);
  if (part.program === 'find') {
    // `find DIR… -exec cat {} +` hands every file it finds to another program.
    if (!args.some((a) => /^-(exec|execdir|ok|okdir)$/.test(a))) return undefined;
    const end = args.findIndex((a) => a.startsWith('-') || a === '(' || a === '!');
    return args.slice(0, end === -1 ? args.length : end);
  }
  if (part.program === 'grep' || part.program === 'egrep' || part.program === 'fgrep') {
    const recursive = args.some((a) => /^--(recursive|dereference-recursive|directories=recurse)$/.test(a) || /^-[A-Za-z]*[rR]/.test(a));
    if (!recursive) return undefined;
  } else if (part.program !== 'rg') return undefined;
  const patternGiven = args.some((a) => /^-[A-Za-z]*[ef]|^--(regexp|file)\b/.test(a));
  const positionals = args.filter((a) => !a.startsWith('-'));
  const places = patternGiven ? positionals : positionals.slice(1);
  return places;
}

/** A tree search (`grep -r`, `rg`, `find -exec`) over a directory holding a file a Read deny or ask rule covers. */
function treeRead(rules: CompiledRules, parsed: ParsedCommand & { ok: true }, q: PermissionQuery, base: PathBase): { part: string; dir: string; file: string; rule: string } | undefined {
  const readRules = [...rules.deny, ...rules.ask].filter((r): r is CompiledRule & { kind: 'path' } => r.kind === 'path' && r.appliesTo('Read'));
  for (const part of parsed.parts) {
    const places = searchedDirs(part);
    if (!places) continue;
    // A word taken for a place that does not exist is an option's value (`rg -g '*.ts' x`); with
    // no place that exists, the search walks the working directory, as the tools do.
    const reals = places.map((p) => pathFormsOf(q, p, base).at(-1)!).filter((p) => existsSync(p));
    for (const real of reals.length ? reals : [pathFormsOf(q, '.', base).at(-1)!]) {
      for (const rule of readRules) {
        const file = coveredInside(rule.path, real);
        if (file) return { part: part.source, dir: real, file, rule: rule.text };
      }
    }
  }
  return undefined;
}

const guardsCache = new WeakMap<CompiledRules, { shell: boolean; read: boolean }>();
function guards(rules: CompiledRules): { shell: boolean; read: boolean } {
  let v = guardsCache.get(rules);
  if (!v) {
    const all = [...rules.deny, ...rules.ask];
    v = { shell: all.some((r) => r.appliesTo(SHELL_TOOL) && r.kind !== 'tool'), read: all.some((r) => r.kind === 'path' && r.appliesTo('Read')) };
    guardsCache.set(rules, v);
  }
  return v;
}
/** True when some deny or ask rule is about particular shell commands (a bare `Bash` deny needs no reading). */
function hasShellGuards(rules: CompiledRules): boolean {
  return guards(rules).shell;
}
/** True when some deny or ask rule is about reading particular paths. */
function hasReadGuards(rules: CompiledRules): boolean {
  return guards(rules).read;
}

/** The Edit allow rule that covers every one of `forms` (a write target's forms), if any. */
export function editAllowedByRule(rules: CompiledRules, forms: readonly string[]): CompiledRule | undefined {
  return rules.allow.find((r) => r.kind === 'path' && (r.appliesTo('Edit') || r.appliesTo('Write')) && forms.every((f) => r.path.test(f)));
}

/**
 * Allow stage: the call is allowed when allow rules cover all of it. `dirs` are the working
 * directories (options such as `npm --prefix` are covered by a rule's tail only inside them).
 */
export function allowDecision(rules: CompiledRules, q: PermissionQuery, base: PathBase, dirs: readonly string[] = [base.cwd]): PermissionDecision | undefined {
  const applicable = rules.allow.filter((r) => r.appliesTo(q.toolName));
  if (!applicable.length) return undefined;
  const toolLevel = applicable.find((r) => r.kind === 'tool');
  if (toolLevel) return allowed(toolLevel.text);
  if (q.toolName === SHELL_TOOL) return shellAllow(applicable, rules, q, base, dirs);
  for (const rule of applicable) {
    switch (rule.kind) {
      case 'path': {
        const forms = callPathForms(q, base);
        if (forms && forms.every((f) => rule.path.test(f))) return allowed(rule.text);
        break;
      }
      case 'opaque': {
        const forms = ownPathForms(q, base);
        if (forms && forms.every((f) => rule.path.test(f))) return allowed(rule.text);
        break;
      }
      case 'domain': {
        const host = hostOf(q.input.url);
        if (host !== undefined && domainMatches(host, rule.domain)) return allowed(rule.text);
        break;
      }
      case 'subagent':
        if (q.input.subagent_type === rule.name) return allowed(rule.text);
        break;
      default:
        break;
    }
  }
  return undefined;
}

function allowed(...rules: string[]): PermissionDecision {
  return { behavior: 'allow', reason: `allow rule ${[...new Set(rules)].join(', ')}`, source: 'permissions' };
}

/** Working directories as the permission context knows them (set by the permissions plugin). */
export interface ShellAllowContext { workingDirs: readonly string[] }

/** The first shell allow rule that matches `part` and covers its risky options. */
function coveringRule(applicable: readonly CompiledRule[], part: ShellPart, q: PermissionQuery, base: PathBase, dirs: readonly string[]): CompiledRule | undefined {
  const outside = (w: ShellWord) => w.dynamic || !formsInside(pathFormsOf(q, w.value, base), dirs);
  return applicable.find((r) => r.kind === 'shell' && matchShell(r.shell, part.allow!) && coversRisky(r.shell, part.risky, outside));
}

/**
 * Every part of the command must be allowed on its own, and every file it writes must be allowed
 * for editing: by an Edit allow rule, or by `writable` (acceptEdits: a file inside the working
 * directories, not protected), which then names no rule.
 */
function shellAllow(applicable: CompiledRule[], rules: CompiledRules, q: PermissionQuery, base: PathBase, dirs: readonly string[], writable?: (forms: readonly string[]) => boolean, operandsOnly = false): PermissionDecision | undefined {
  const parsed = parsedCommandOf(q);
  if (!parsed.ok) return undefined;
  const used: string[] = [];
  for (const part of parsed.parts) {
    if (part.kind === 'unknown') return undefined;
    if (part.kind === 'command') {
      if (part.allow === undefined) return undefined;
      const rule = coveringRule(applicable, part, q, base, dirs);
      if (!rule || gitRepositoryRisk(parsed.parts, part, base, rule.text)) return undefined;
      used.push(rule.text);
    }
    const operands = operandsOnly ? partWrites(q, part, base).operands : undefined;
    for (const w of writesOf(q, part, base)) {
      if (w.dynamic) return undefined;
      const forms = pathFormsOf(q, w.value, base);
      const rule = editAllowedByRule(rules, forms);
      if (rule) used.push(rule.text);
      else if (!writable?.(forms) || (operands && !operands.has(w))) return undefined;
    }
  }
  return used.length ? allowed(...used) : undefined;
}

/**
 * Default and dontAsk modes for shell commands: the call is allowed when Bash allow rules cover
 * every part and every file it writes through its operands (`cp a.ts b.ts` under `Bash(cp:*)`,
 * `mkdir build` under `Bash(mkdir:*)`) is inside the working directories and not protected
 * (`writable`), as Claude Code allows a command its rule names. A redirection (`> out.txt`) or an
 * option's file (`sed -i`, `sort -o`) is not what a rule naming the program is about: those still
 * need an Edit allow rule.
 */
export function shellAllowOperandWrites(rules: CompiledRules, q: PermissionQuery, base: PathBase, dirs: readonly string[], writable: (forms: readonly string[]) => boolean): PermissionDecision | undefined {
  if (q.toolName !== SHELL_TOOL) return undefined;
  const applicable = rules.allow.filter((r) => r.appliesTo(q.toolName));
  if (!applicable.some((r) => r.kind === 'shell')) return undefined;
  return shellAllow(applicable, rules, q, base, dirs, writable, true);
}

/**
 * acceptEdits for shell commands: the call is allowed when Bash allow rules cover every part and
 * every file it writes is covered by an Edit allow rule or `writable` (inside the working
 * directories and not protected), as a file edit there would be. `cp a.ts b.ts` under
 * `Bash(cp:*)`, `tee out.log` under `Bash(tee:*)`.
 */
export function shellAllowWithEdits(rules: CompiledRules, q: PermissionQuery, base: PathBase, dirs: readonly string[], writable: (forms: readonly string[]) => boolean): PermissionDecision | undefined {
  if (q.toolName !== SHELL_TOOL) return undefined;
  const applicable = rules.allow.filter((r) => r.appliesTo(q.toolName));
  if (!applicable.some((r) => r.kind === 'shell')) return undefined;
  return shellAllow(applicable, rules, q, base, dirs, writable);
}

/**
 * Why allow rules do not cover a Bash call: the first part no rule allows, for the reason a mode
 * gives when it asks or denies.
 */
export function explainShell(rules: CompiledRules, q: PermissionQuery, base: PathBase, dirs: readonly string[] = [base.cwd]): string {
  const parsed = parsedCommandOf(q);
  if (!parsed.ok) return `the command was not understood (${parsed.error})`;
  const shellRules = rules.allow.filter((r) => r.kind === 'shell' && r.appliesTo(q.toolName));
  for (const part of parsed.parts) {
    if (part.kind === 'unknown') return `${JSON.stringify(part.source)} was not understood (${part.why})`;
    if (part.kind === 'command') {
      if (part.allow === undefined) return `no rule can allow ${JSON.stringify(part.source)}: ${part.why}`;
      const rule = coveringRule(shellRules, part, q, base, dirs);
      if (!rule) {
        const matched = shellRules.find((r) => r.kind === 'shell' && matchShell(r.shell, part.allow!));
        const risky = matched && part.risky?.[0];
        if (risky) return `in ${JSON.stringify(part.source)}, ${JSON.stringify(risky.text)} ${risky.why}; the rule ${matched.text} covers that only when the rule itself writes it out`;
        return `no allow rule covers ${JSON.stringify(part.source)}`;
      }
      const git = gitRepositoryRisk(parsed.parts, part, base, rule.text);
      if (git) return `no rule can allow ${JSON.stringify(part.source)}: ${git}`;
    }
    for (const w of writesOf(q, part, base)) {
      if (w.dynamic || !editAllowedByRule(rules, pathFormsOf(q, w.value, base))) return `${JSON.stringify(part.source)} writes to ${JSON.stringify(w.value.replaceAll('\u0000', '…'))}, which no Edit allow rule covers`;
    }
  }
  return 'no allow rule covers the command';
}

/** Tool names removed from the request by a bare deny rule. */
export function bareDeniedTools(rules: CompiledRules): CompiledRule[] {
  return rules.deny.filter((r) => r.kind === 'tool');
}
