/**
 * Splits a shell command into the parts a permission rule is about, with a real shell parser
 * (mvdan/sh, the parser behind shfmt). Every simple command anywhere in the text is a part: in
 * pipelines and lists (`|`, `&&`, `||`, `;`, `&`, newlines), subshells and groups, command and
 * process substitutions (`$(…)`, backticks, `<(…)`), conditions and loop bodies, function bodies,
 * the scripts of `sh -c` and `eval`, and the commands of `find -exec`. Wrappers (`timeout`, `env`,
 * `nice`, `xargs`, `sudo`, …) are looked through. Output redirections to files are recorded on the
 * part they belong to.
 *
 * What the parser rejects, or what is too large to check, is reported as not understood; the
 * rules engine answers `ask` for it.
 */
import { newParser, parseBash, walk, type Node } from './ast.js';
import { builtinHazard, findHazard, mayHaveHazard, runChanging, variableNames } from './hazards.js';
import { riskyOptions, toolOptions, type RiskyOption } from './options.js';
import { argumentWrites, operandWrites, type PlacedWrite } from './programs.js';
import { canonical, DYNAMIC, evalWord, literalWord, type LeadCheck, type ShellWord } from './words.js';
import {
  commandName, findExecCommands, PRIVILEGE_WRAPPERS, SHELLS, shellScript, TRANSPARENT_WRAPPERS, unwrap,
} from './wrappers.js';

/** Longest command rein parses, characters. Longer ones are `ask`: parsing cost must stay bounded. */
export const MAX_COMMAND_CHARS = 20_000;
/** Most parts one command may have before it counts as too complex to check (ask). */
export const MAX_PARTS = 64;
/** How deep `sh -c` / `eval` scripts are looked into. */
export const MAX_SCRIPT_DEPTH = 3;
/** Most wrappers looked through in one simple command (`nice timeout 5 env A=1 cmd` is three). */
export const MAX_WRAPPERS = 8;

/**
 * Environment assignments that cannot change what a command does to the system, so
 * `NODE_ENV=test npm test` still matches `Bash(npm test:*)`. Anything else (`PATH=`, `LD_PRELOAD=`,
 * `GIT_SSH_COMMAND=`, `PAGER=`) stays part of the command text and must be written in the rule.
 */
export const SAFE_ENV_VARS: ReadonlySet<string> = new Set([
  'NODE_ENV', 'CI', 'DEBUG', 'NO_COLOR', 'FORCE_COLOR', 'TERM', 'TZ', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE',
  'LC_MESSAGES', 'RUST_BACKTRACE', 'RUST_LOG', 'PYTHONUNBUFFERED', 'PYTHONDONTWRITEBYTECODE', 'GOOS', 'GOARCH',
  'CGO_ENABLED', 'COLUMNS', 'LINES', 'VERBOSE',
]);

/**
 * A value an environment assignment may have and still be dropped from the text rules match: no
 * expansion, subscript, quote or separator, so nothing in it can be evaluated later
 * (`TZ='a[$(id)]'; ls $((TZ))` keeps the assignment, and the arithmetic makes the part unallowable).
 */
const PLAIN_VALUE = /^[A-Za-z0-9_.,:/@%+=~^*?-]*$/;

/**
 * Commands whose output cannot start with `-`, so `git diff $(git merge-base HEAD main)` cannot
 * smuggle an option in (see options.ts): object names, numbers and absolute paths.
 */
const DASHLESS_OUTPUT = /^(git (merge-base|rev-parse|rev-list|hash-object|write-tree|commit-tree)|pwd|nproc|date|whoami|id -[ug]|uname|mktemp)( |$)/;

/** Redirection targets that are not files on disk. */
const DISCARD_TARGETS: ReadonlySet<string> = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);

/** One simple command (or a redirection-only statement) that rules are checked against. */
export interface ShellPart {
  /** `command`: runs a program; `neutral`: runs nothing (`[[ … ]]`, `(( … ))`, safe assignments); `unknown`: not understood. */
  kind: 'command' | 'neutral' | 'unknown';
  /** The part's source text, for messages. */
  source: string;
  /**
   * Canonical text an allow rule must match (wrappers looked through, safe assignments dropped);
   * undefined when no rule may allow the part (its command name is only known at run time, or a
   * wrapper option was not understood). `why` says which.
   */
  allow?: string;
  why?: string;
  /** Every reading of the part a deny or ask rule is tried against (with and without wrappers, assignments, paths). */
  deny: string[];
  /** Targets of output redirections to files (`> out.txt`, `>> log`, `&> f`), /dev/null and fd copies excluded. */
  writes: ShellWord[];
  /**
   * Files the program writes through its own arguments (`sed -i f`, `sort -o f`, `tee f`,
   * `dd of=f`, `touch f`, `rm f`, `mv`'s sources): writes like `writes`. A pattern (`rm *.log`)
   * stands for the files it matches when the call is judged.
   */
  fileWrites?: ShellWord[];
  /**
   * The part of `fileWrites` that are the program's operands (`cp a f`, `tee f`, `mkdir d`, `rm f`),
   * not the values of options (`sed -i`, `sort -o`): the files a rule naming the program is about.
   */
  operandWrites?: ShellWord[];
  /** Copies, moves and links whose files depend on what is on disk (`cp a DIR/`, `cp -r src dst`): see programs.ts PlacedWrite. */
  placed?: PlacedWrite[];
  /** Files read through input redirections (`< .env`), for Read deny rules. */
  reads?: ShellWord[];
  /**
   * The literal arguments of the command, its wrappers' included: a program may read
   * any file they name (`cat .env`, `date -f .env`, `jq --rawfile s .env`), so Read deny and ask
   * rules are tried against them.
   */
  args?: ShellWord[];
  /** The command's first word as written (`./scripts/check.sh`, `timeout`), when it is literal. */
  head?: ShellWord;
  /** The name of the program that runs (wrappers looked through), when it is known. */
  program?: string;
  /** True for parts found inside an `sh -c` / `eval` script or a `find -exec`. */
  nested: boolean;
  /**
   * Set when the shell text does not show everything this part runs: the command name is known
   * only at run time, a value is evaluated as code (`${X@P}`, `$((X))`), or a script is built at
   * run time (`eval "$X"`). Deny rules cannot be checked against what such a part really runs.
   */
  opaque?: string;
  /** Set on a `cd`, `pushd` or `popd`: the shell's directory changes, and with it what relative paths name. */
  changesDir?: true;
  /**
   * Options that run other programs or change what runs (`npm test --script-shell=…`), with the
   * index of their word in the `allow` text; an allow rule covers them only by writing them out.
   */
  risky?: RiskyOption[];
}

export type ParsedCommand = { ok: true; parts: ShellPart[] } | { ok: false; error: string };

class TooComplex extends Error {}

let parser: ReturnType<typeof newParser> | undefined;

function parseFile(src: string): Node {
  parser ??= newParser();
  try {
    return parseBash(src, parser);
  } catch (err) {
    parser = undefined; // start from a fresh parser after a failure
    const e = err as { Error?: () => string; message?: string };
    throw new SyntaxError(typeof e?.Error === 'function' ? e.Error() : (e?.message ?? String(err)));
  }
}

/**
 * Parses `command` into parts. Never throws: a syntax error or a command over the limits comes
 * back as `{ ok: false, error }`.
 */
export function parseCommand(command: string): ParsedCommand {
  if (command.length > MAX_COMMAND_CHARS) return { ok: false, error: `the command is longer than ${MAX_COMMAND_CHARS} characters` };
  const parts: ShellPart[] = [];
  try {
    collect(command, 0, false, parts);
  } catch (err) {
    if (err instanceof TooComplex) return { ok: false, error: err.message };
    return { ok: false, error: `the shell parser could not read it: ${(err as Error).message}` };
  }
  if (parts.some((p) => p.changesDir)) unanchorRelativePaths(parts);
  return { ok: true, parts };
}

/** Builtins that change the shell's working directory. */
const CHANGES_DIR: ReadonlySet<string> = new Set(['cd', 'pushd', 'popd']);

/**
 * After a `cd` somewhere in the command (`cd .git && echo x > config`), a relative redirection
 * target names a file in a directory rein cannot know before run time (the `cd` may fail, sit in a
 * loop or a function, or take `CDPATH`), so every relative target of the command counts as known
 * only at run time: the checks ask instead of judging the wrong file.
 */
function unanchorRelativePaths(parts: ShellPart[]): void {
  const why = 'a relative path after a cd, whose directory is known only at run time';
  const unanchor = (w: ShellWord): ShellWord => (w.dynamic || w.value.startsWith('/') || w.value === '~' || w.value.startsWith('~/') ? w : { ...w, dynamic: true, why });
  for (const p of parts) {
    p.writes = p.writes.map(unanchor);
    if (p.reads) p.reads = p.reads.map(unanchor);
    if (p.fileWrites) p.fileWrites = p.fileWrites.map(unanchor);
    if (p.placed) p.placed = p.placed.map((w) => ({ ...w, dest: unanchor(w.dest), sources: w.sources.map(unanchor) }));
  }
}

interface Pending { script: string; depth: number }

/** What one simple command is checked with: its statement's redirections and hazards, and where it sits. */
interface Ctx {
  source: string;
  writes: ShellWord[];
  reads: ShellWord[];
  /** A value evaluated as code somewhere in the statement (see hazards.ts). */
  hazard?: string;
  depth: number;
  nested: boolean;
  push: (p: ShellPart) => void;
  pending: Pending[];
  lead: LeadCheck;
  /** Set for a `find -exec` command: its `{}` words are the files find finds, known only at run time. */
  found?: true;
}

/** Loop variables over literal words none of which starts with `-`, by name, with the span of their loop. */
interface Binding { name: string; start: number; end: number }

function collect(src: string, depth: number, nested: boolean, parts: ShellPart[]): void {
  const file = parseFile(src);
  const bytes = Buffer.from(src);
  const text = (n: Node) => (Number.isNaN(n.start) ? '' : bytes.subarray(n.start, n.end).toString());
  const pending: Pending[] = [];
  const push = (p: ShellPart) => {
    parts.push(p);
    if (parts.length > MAX_PARTS) throw new TooComplex(`the command has more than ${MAX_PARTS} parts`);
  };
  const bindings: Binding[] = [];
  const lead: LeadCheck = (part) => safeLeadingExpansion(part, bindings, text);
  walk(file, (node) => {
    if (node.type !== 'Stmt') return;
    const redirs = ((node.Redirs ?? []) as Node[]).map((r) => redirection(r, bytes, lead));
    const writes = redirs.filter((r) => r.kind === 'write').map((r) => r.target);
    const reads = redirs.filter((r) => r.kind === 'read' && r.op === '<').map((r) => r.target);
    const cmd = node.Cmd as Node | undefined;
    const hdoc = ((node.Redirs ?? []) as Node[]).map((r) => hereDocDoubt(r, bytes)).find((d) => d !== undefined) ?? quoteDoubt(node, text);
    if (hdoc) {
      push({ kind: 'unknown', source: text(node), why: hdoc, deny: [text(node).trim()], writes, reads, nested });
      return;
    }
    const type = cmd ? cmd.type : 'None';
    const hazard = mayHaveHazard(text(node)) ? findHazard(node) : undefined;
    const c: Ctx = { source: cmd ? text(cmd) : text(node), writes, reads, hazard, depth, nested, push, pending, lead };
    switch (type) {
      case 'CallExpr':
        simpleCommand(cmd!, c);
        break;
      case 'DeclClause': {
        const words = [evalWord0(cmd!.Variant), ...((cmd!.Args ?? []) as Node[]).map((a) => assignWord(a, lead))];
        commandPart(words, [], c);
        break;
      }
      case 'ForClause': {
        const loop = cmd!.Loop as Node | undefined;
        if (loop?.type === 'WordIter') {
          const items = ((loop.Items ?? []) as Node[]).map((w) => evalWord(w, lead));
          if (items.length && items.every((w) => !w.dynamic && !w.glob && !w.lead && !w.value.startsWith('-'))) {
            bindings.push({ name: String(loop.Name?.Value ?? ''), start: cmd!.start, end: cmd!.end });
          }
        }
        neutral(node, c, text);
        break;
      }
      case 'ArithmCmd': case 'TestClause': case 'LetClause':
      case 'BinaryCmd': case 'Subshell': case 'Block': case 'IfClause': case 'WhileClause':
      case 'CaseClause': case 'FuncDecl': case 'TimeClause': case 'CoprocClause': case 'None':
        neutral(node, c, text);
        break;
      default:
        push({ kind: 'unknown', source: text(node), why: `unsupported shell construct ${type}`, deny: [text(node).trim()], writes, reads, nested });
    }
  });
  for (const p of pending) {
    try {
      collect(p.script, p.depth, true, parts);
    } catch (err) {
      if (err instanceof TooComplex) throw err;
      parts.push({ kind: 'unknown', source: p.script, why: `a nested script could not be parsed: ${(err as Error).message}`, deny: [p.script.trim()], writes: [], nested: true });
    }
  }
}

/** A here-document delimiter no reading can disagree about: letters, digits, `_`, `.`, `-`. */
const PLAIN_DELIMITER = /^[A-Za-z0-9_.-]+$/;

/**
 * Why bash might end the here-document of redirection `r` on another line than the parser did,
 * or undefined. The parser takes the body of `<<'EOF'` as inert text; if bash ends it earlier, the
 * rest of the body runs as commands. Bash and mvdan/sh differ on lines such as `E\<newline>OF`
 * (a continuation bash joins before comparing), `EOF)` inside `$( … )`, `EOF<CR>`, and on
 * delimiters written with `$'…'`. So the delimiter must be plain, and no line of the body other
 * than the parser's own last line may look like the delimiter once continuations are joined,
 * carriage returns removed, and blanks, quotes and `)` `;` `&` `|` trimmed from its ends.
 */
function hereDocDoubt(r: Node, bytes: Buffer): string | undefined {
  const body = r.Hdoc as Node | undefined;
  const word = r.Word as Node | undefined;
  if (!body && !word) return undefined;
  const at = r.OpPos as number;
  if (!/^<<(?!<)/.test(bytes.subarray(at, at + 3).toString())) return undefined;
  const raw = word && !Number.isNaN(word.start) ? bytes.subarray(word.start, word.end).toString() : '';
  const value = word ? evalWord(word).value : '';
  const bare = raw.replace(/["'\\]/g, '');
  if (!PLAIN_DELIMITER.test(value) || !PLAIN_DELIMITER.test(bare) || raw.startsWith('$')) {
    return `a here-document delimiter (${JSON.stringify(raw)}) that bash may read differently from the parser`;
  }
  if (!body || Number.isNaN(body.start)) return undefined;
  const lines = bytes.subarray(body.start, body.end).toString().split('\n');
  const last = lines.length - 1;
  const loose = (l: string) => l.replace(/\r/g, '').replace(/^\s+/, '').replace(/[\s);&|"'`]+$/, '');
  for (let i = 0; i < lines.length; i++) {
    if (i === last && lines[i]!.replace(/^\t+/, '') === value) continue; // where the parser ended it
    // The line with the continuations that follow it joined (`E\`, `O\`, `F` is `EOF`).
    let joined = lines[i]!;
    for (let k = i; joined.endsWith('\\') && k < last; k++) joined = joined.slice(0, -1) + lines[k + 1]!;
    if ([lines[i]!, joined].some((l) => { const x = loose(l); return x === value || x === bare; })) {
      return `a here-document line (${JSON.stringify(lines[i])}) that bash may take as the end of the here-document`;
    }
  }
  return undefined;
}

/**
 * Why bash may expand text the parser took as inert inside statement `stmt`, or undefined:
 * - In the word of a parameter expansion inside double quotes or a here-document body
 *   (`"${x-'…'}"`, `"${x:+'…'}"`), bash takes a `'` as an ordinary character and expands what
 *   follows it as double-quoted text, so `"${x-'$(id)'}"` runs `id`; for other operators it
 *   depends on the version and on `shopt -s compat…` (bash(1), "Parameter Expansion"; bash's
 *   COMPAT file, 4.3 and 5.2 changes to quoting in pattern substitution). The parser reads those
 *   quotes as quoting.
 * - An extended pattern (`@(…)`, `+(…)`, `!(…)`, always on in `[[ == ]]`, elsewhere with
 *   `shopt -s extglob`) is kept by the parser as plain text, while bash expands the `$(…)` and
 *   backquotes inside it.
 * So a single-quoted part there, or an extended pattern, holding a `$` or a backquote is text no
 * reading can prove inert.
 */
function quoteDoubt(stmt: Node, text: (n: Node) => string): string | undefined {
  const src = text(stmt);
  if (!/[$`]/.test(src) || !/['"(]/.test(src)) return undefined;
  let found: { node: Node; why: string } | undefined;
  const visit = (n: unknown, inDouble: boolean, inParam: boolean): void => {
    if (found || !n || typeof n !== 'object') return;
    if (Array.isArray(n)) { for (const c of n) visit(c, inDouble, inParam); return; }
    const node = n as Node;
    if (typeof node.type !== 'string') return;
    // A command or process substitution starts a new quoting context.
    if (node.type === 'CmdSubst' || node.type === 'ProcSubst') inDouble = inParam = false;
    if (node.type === 'DblQuoted') inDouble = true;
    if (node.type === 'ParamExp' && inDouble) inParam = true;
    if (node.type === 'SglQuoted' && inParam && /[$`]/.test(node.Value as string)) { found = { node, why: 'inside a double-quoted ${…}, which bash expands as double-quoted text' }; return; }
    if (node.type === 'ExtGlob' && /[$`]/.test(String((node.Pattern as Node | undefined)?.Value ?? ''))) { found = { node, why: 'an extended pattern, whose substitutions bash runs and the parser keeps as text' }; return; }
    // A here-document body with an unquoted delimiter is read as double-quoted text.
    for (const [k, v] of Object.entries(node)) if (k !== 'type' && v && typeof v === 'object') visit(v, inDouble || k === 'Hdoc', inParam);
  };
  visit(stmt, false, false);
  return found ? `${JSON.stringify(text(found.node))}, ${found.why}` : undefined;
}

/**
 * A construct that runs no program itself (`[[ … ]]`, `(( … ))`, loops, groups): what it contains
 * is visited on its own. A redirection on the whole construct (`(a; b) > f`) still writes a file,
 * and an expression in it that evaluates a value as code makes it a part no rule can allow.
 */
function neutral(node: Node, c: Ctx, text: (n: Node) => string): void {
  if (c.hazard) {
    c.push({ kind: 'command', source: text(node), why: c.hazard, opaque: c.hazard, deny: [], writes: c.writes, reads: c.reads, nested: c.nested });
  } else if (c.writes.length || c.reads.length) {
    c.push({ kind: 'neutral', source: text(node), deny: [], writes: c.writes, reads: c.reads, nested: c.nested });
  }
}

/**
 * True when an expansion that starts a word cannot begin with `-`: arithmetic on numbers, a
 * command substitution of a command whose output is an object name or a number, or a loop
 * variable over literal words that do not start with `-`.
 */
function safeLeadingExpansion(part: Node, bindings: readonly Binding[], text: (n: Node) => string): boolean {
  if (part.type === 'CmdSubst') {
    const stmts = (part.Stmts ?? []) as Node[];
    return stmts.length === 1 && stmts[0]!.Cmd?.type === 'CallExpr' && DASHLESS_OUTPUT.test(text(stmts[0]!.Cmd).trim());
  }
  if (part.type === 'ParamExp' && !part.Exp && !part.Index && !part.Slice && !part.Repl && !part.Excl && !part.Length) {
    const name = String(part.Param?.Value ?? '');
    return bindings.some((b) => b.name === name && part.start >= b.start && part.start < b.end);
  }
  return false;
}

function evalWord0(lit: Node | undefined): ShellWord {
  return literalWord(lit ? String(lit.Value) : '');
}

/** An Assign node as one word (`NAME=value`, `NAME+=value`, or a bare `NAME` in `export NAME`). */
function assignWord(a: Node, lead?: LeadCheck): ShellWord {
  const name = a.Name ? String(a.Name.Value) : '';
  if (a.Naked) return a.Value ? evalWord(a.Value, lead) : literalWord(name);
  const value = a.Value ? evalWord(a.Value, lead) : literalWord('');
  const dynamic = value.dynamic || !!a.Array || !!a.Index;
  return { value: `${name}${a.Append ? '+=' : '='}${value.value}`, dynamic, glob: false };
}

/** An assignment that may be left out of the text rules match: a harmless variable with a plain value. */
function isSafeAssignment(w: ShellWord): boolean {
  if (w.dynamic) return false;
  const eq = w.value.indexOf('=');
  return eq > 0 && w.value[eq - 1] !== '+' && SAFE_ENV_VARS.has(w.value.slice(0, eq)) && PLAIN_VALUE.test(w.value.slice(eq + 1));
}

function simpleCommand(call: Node, c: Ctx): void {
  const assigns = ((call.Assigns ?? []) as Node[]).map((a) => assignWord(a, c.lead));
  const words = ((call.Args ?? []) as Node[]).map((w) => evalWord(w, c.lead));
  if (words.length === 0) {
    // Assignments alone: harmless for safe variables with plain values; `PATH=…` changes every later command.
    if (!c.hazard && assigns.every(isSafeAssignment)) {
      if (c.writes.length || c.reads.length) c.push({ kind: 'neutral', source: c.source, deny: [], writes: c.writes, reads: c.reads, nested: c.nested });
      return;
    }
    const text = canonical(assigns);
    const why = c.hazard ?? 'an assignment known only at run time';
    const allow = c.hazard || assigns.some((a) => a.dynamic) ? undefined : text;
    c.push({ kind: 'command', source: c.source, allow, why, ...(c.hazard ? { opaque: c.hazard } : {}), deny: [text], writes: c.writes, reads: c.reads, nested: c.nested });
    return;
  }
  commandPart(words, assigns, c);
}

function commandPart(words: ShellWord[], assigns: ShellWord[], c: Ctx): void {
  const { source, writes, depth, nested, push, pending } = c;
  const deny = new Set<string>();
  const addDeny = (ws: readonly ShellWord[], as: readonly ShellWord[]) => {
    if (!ws.length) return;
    deny.add(canonical(ws));
    if (as.length) deny.add(canonical([...as, ...ws]));
    const name = commandName(ws[0]);
    if (name && name !== ws[0]!.value) deny.add(canonical([literalWord(name), ...ws.slice(1)]));
  };
  addDeny(words, assigns);

  let cur = words;
  let allowAssigns = assigns;
  /** Every assignment the program runs with: its own and its wrappers' (`env GIT_DIR=x git …`). */
  let envAssigns = assigns;
  let frozen: { words: ShellWord[]; assigns: ShellWord[] } | undefined;
  let why: string | undefined;
  let opaque = c.hazard;
  /** The text `xargs -I STR` replaces with what it reads, when the command runs under it. */
  let replaced: string | undefined;
  for (let hop = 0; hop < MAX_WRAPPERS; hop++) {
    const name = commandName(cur[0]);
    if (!name) break;
    const transparent = Object.hasOwn(TRANSPARENT_WRAPPERS, name);
    const spec = transparent ? TRANSPARENT_WRAPPERS[name] : Object.hasOwn(PRIVILEGE_WRAPPERS, name) ? PRIVILEGE_WRAPPERS[name] : undefined;
    if (!spec) break;
    const r = unwrap(cur, spec);
    if (r.ok === 'not-a-wrapper') break;
    // xargs -I puts the text it reads into the command's words, even into an `sh -c` script.
    if (name === 'xargs' && cur.some((w) => /^(-I|-i|--replace)/.test(w.value))) {
      opaque ??= 'xargs puts the text it reads into the command it runs';
      replaced ??= xargsReplace(cur);
    }
    if (r.ok === false) {
      if (!frozen) why = r.reason;
      opaque ??= `${r.reason}, so what it runs is not known`;
      // The wrapped command cannot be located exactly: try deny rules from every later word.
      for (let i = 1; i < cur.length; i++) if (!cur[i]!.dynamic && !cur[i]!.value.startsWith('-')) addDeny(cur.slice(i), []);
      break;
    }
    if (!transparent && !frozen) frozen = { words: cur, assigns: allowAssigns };
    cur = r.command;
    if (!frozen) allowAssigns = [...allowAssigns, ...r.assigns];
    envAssigns = [...envAssigns, ...r.assigns];
    addDeny(cur, r.assigns);
  }

  // Scripts and commands the innermost command runs are parts of their own. A script known only
  // at run time (or nested deeper than rein looks) hides what it runs from every rule.
  const name = commandName(cur[0]);
  if (!cur[0] || cur[0].dynamic || cur[0].glob) opaque ??= 'the command name is known only at run time';
  const nestedScript = (script: string, what: string) => {
    if (depth < MAX_SCRIPT_DEPTH) pending.push({ script, depth: depth + 1 });
    else opaque ??= `${what} is nested more than ${MAX_SCRIPT_DEPTH} scripts deep`;
  };
  if (name && SHELLS.has(name)) {
    const script = shellScript(cur);
    if (script === null) opaque ??= `${name} -c runs a script known only at run time`;
    else if (script) nestedScript(script.value, `${name} -c`);
  }
  if (name === 'eval' && cur.length > 1) {
    if (cur.slice(1).some((w) => w.dynamic)) opaque ??= 'eval runs a script known only at run time';
    else nestedScript(cur.slice(1).map((w) => w.value).join(' '), 'eval');
  }
  // An alias' value is a command line bash reads in place of the name on later lines (with
  // expand_aliases on): its commands are parts of their own, as an eval script's are.
  if (name === 'alias') {
    for (const w of cur.slice(1)) {
      const eq = w.value.indexOf('=');
      if (w.value.startsWith('-') && !w.dynamic) continue;
      if (!w.dynamic && eq > 0) nestedScript(w.value.slice(eq + 1), 'alias');
    }
  }
  if (name === 'trap') {
    const args = cur.slice(1).filter((w) => !(w.value.startsWith('-') && !w.dynamic));
    if (args.length >= 2 && args[0]!.value !== '-') {
      if (args[0]!.dynamic) opaque ??= 'trap runs a command known only at run time';
      else nestedScript(args[0]!.value, 'trap');
    }
  }
  if (name === 'find') {
    for (const e of findExecCommands(cur)) commandPart(e, [], { ...c, source: e.map((w) => w.value).join(' '), writes: [], reads: [], hazard: undefined, depth: depth + 1, nested: true, found: true });
  }
  const hazard = c.hazard ?? (name ? builtinHazard(name, cur) : undefined);
  opaque ??= hazard;

  const base = frozen ?? { words: cur, assigns: allowAssigns };
  let allow: string | undefined;
  let risky: RiskyOption[] | undefined;
  if (!why) {
    const head = base.words[0];
    if (hazard) why = hazard;
    else if (!head || head.dynamic || head.glob) why = 'the command name is known only at run time';
    else if (base.assigns.some((a) => a.dynamic)) why = 'an assignment known only at run time';
    else {
      const kept = base.assigns.filter((a) => !isSafeAssignment(a));
      allow = canonical([...kept, ...base.words]);
      // Risky options are found in the innermost command; their index is in `allow`'s words.
      const offset = kept.length + Math.max(0, base.words.indexOf(cur[0]!));
      const found = [...riskyOptions(cur, name ?? ''), ...assignsRunChanging(name, cur), ...leadingWords(name, cur)];
      if (found.length) risky = found.map((r) => ({ ...r, index: r.index + offset }));
    }
  }
  // Every word after the name, wrappers' own included (`xargs -a .env echo` reads .env).
  const args = words.slice(1).filter((w) => !w.dynamic);
  // Files the program writes through its own arguments (`sed -i f`, `sort -o f`, `cp a f`) are
  // writes too. In a `find -exec` command, `{}` is a file find finds.
  // Under `xargs -I STR`, STR is text xargs reads (it may start with `-`).
  let run = c.found ? cur.map((w) => (w.value.includes('{}') ? { ...w, value: w.value.replaceAll('{}', DYNAMIC), dynamic: true, why: 'a file find finds' } : w)) : cur;
  if (replaced) {
    const r = replaced;
    run = run.map((w, i) => (i > 0 && w.value.includes(r) ? { ...w, value: w.value.replaceAll(r, DYNAMIC), dynamic: true, ...(w.value.startsWith(r) ? { lead: true } : {}) } : w));
  }
  const written = argumentWrites(name, run);
  const operands = name ? operandWrites(name, run, envAssigns) : undefined;
  if (operands) written.push(...operands.files);
  const head = words[0] && !words[0].dynamic ? words[0] : undefined;
  push({ kind: 'command', source, allow, why: allow === undefined ? why : undefined, deny: [...deny], writes, ...(head ? { head } : {}), ...(written.length ? { fileWrites: written } : {}), ...(operands?.files.length ? { operandWrites: operands.files } : {}), ...(operands?.placed.length ? { placed: operands.placed } : {}), reads: c.reads, nested, ...(args.length ? { args } : {}), ...(name ? { program: name } : {}), ...(opaque ? { opaque } : {}), ...(risky ? { risky } : {}), ...(name && CHANGES_DIR.has(name) ? { changesDir: true as const } : {}) });
}

/**
 * The replace string of `xargs -I STR` / `-iSTR` / `--replace[=STR]` (`{}` when not given), from
 * xargs' own words (findutils manual, "xargs options").
 */
function xargsReplace(words: readonly ShellWord[]): string {
  for (let i = 1; i < words.length; i++) {
    const v = words[i]!.value;
    if (v === '-I') return words[i + 1]?.value || '{}';
    if (v.startsWith('-I')) return v.slice(2);
    if (v.startsWith('-i') || v === '--replace') return v.slice(2) || '{}';
    if (v.startsWith('--replace=')) return v.slice(10) || '{}';
    if (!v.startsWith('-')) break;
  }
  return '{}';
}

/**
 * `export PATH=…`, `declare -x LD_PRELOAD=…`, `read HOME`, `printf -v PATH …`: a builtin that
 * assigns a variable which changes what later commands run (options.ts's RUN_CHANGING_ENV). Every
 * builtin that takes variable names is judged by the names hazards.ts finds for it, so a way of
 * assigning not listed here cannot slip past.
 */
function assignsRunChanging(name: string | undefined, words: readonly ShellWord[]): RiskyOption[] {
  // `test -v NAME` only looks the name up.
  if (!name || name === 'test' || name === '[') return [];
  const out: RiskyOption[] = [];
  for (const n of variableNames(name, words)) {
    if (!runChanging(n.value)) continue;
    // The word that holds the name: itself, `-vNAME`, or `NAME=value`.
    const i = Math.max(1, words.findIndex((w, j) => j > 0 && (w === n || w.value.includes(n.value))));
    out.push({ index: i, text: words[i]!.value, why: `assigns ${n.value.replace(/\[[\s\S]*$/, '')}, which changes which programs later commands run` });
  }
  return out;
}

/**
 * For the tools options.ts knows: a word whose start is known only at run time (`$(cat f)`, `$X`,
 * `*`) can turn into one of their risky options (a file named `--checkpoint-action=exec=…` in
 * `tar cf x.tar *`), so a rule's tail does not cover it either.
 */
function leadingWords(name: string | undefined, words: readonly ShellWord[]): RiskyOption[] {
  const tool = name ? toolOptions(name) : undefined;
  if (!tool) return [];
  const out: RiskyOption[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w.value === '--' && !w.dynamic) break;
    // An interpreter's options end at its script: later words are the script's own arguments.
    if (tool.program && tool.stopAtPositional && !w.dynamic && !w.glob && !w.value.startsWith('-')) break;
    if (w.lead) out.push({ index: i, text: w.value.replaceAll(DYNAMIC, '…'), why: 'is known only at run time and may turn into one of its risky options' });
  }
  return out;
}

interface Redirection { op: string; kind: 'write' | 'read' | 'dup' | 'discard'; target: ShellWord }

const REDIRECT_OP = /^(&>>|&>|<<<|<<-|<<|>>|>&|<&|<>|>\||<|>)/;

function redirection(r: Node, bytes: Buffer, lead?: LeadCheck): Redirection {
  const at = r.OpPos as number;
  const op = REDIRECT_OP.exec(bytes.subarray(at, at + 3).toString())?.[1] ?? '>';
  const word = r.Word ? evalWord(r.Word, lead) : literalWord('');
  // Bash expands a pattern in a redirection target to the one file it matches (`> .mcp.js?n`
  // writes `.mcp.json`, `< .en[v]` reads `.env`), so the file is known only at run time.
  const target = word.glob ? { ...word, dynamic: true } : word;
  if (op.startsWith('<') && op !== '<>' && op !== '<&') return { op, kind: 'read', target };
  if (op === '>&' || op === '<&') {
    if (!target.dynamic && /^(\d+-?|-)$/.test(target.value)) return { op, kind: 'dup', target };
    if (op === '<&') return { op, kind: 'read', target };
  }
  if (!target.dynamic && (DISCARD_TARGETS.has(target.value) || /^\/dev\/fd\/\d+$/.test(target.value))) return { op, kind: 'discard', target };
  return { op, kind: 'write', target };
}
