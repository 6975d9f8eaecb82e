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
import { canonical, evalWord, literalWord, type ShellWord } from './words.js';
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
  /** True for parts found inside an `sh -c` / `eval` script or a `find -exec`. */
  nested: boolean;
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
  return { ok: true, parts };
}

interface Pending { script: string; depth: number }

function collect(src: string, depth: number, nested: boolean, parts: ShellPart[]): void {
  const file = parseFile(src);
  const bytes = Buffer.from(src);
  const text = (n: Node) => (Number.isNaN(n.start) ? '' : bytes.subarray(n.start, n.end).toString());
  const pending: Pending[] = [];
  const push = (p: ShellPart) => {
    parts.push(p);
    if (parts.length > MAX_PARTS) throw new TooComplex(`the command has more than ${MAX_PARTS} parts`);
  };
  walk(file, (node) => {
    if (node.type !== 'Stmt') return;
    const redirs = ((node.Redirs ?? []) as Node[]).map((r) => redirection(r, bytes));
    const writes = redirs.filter((r) => r.kind === 'write').map((r) => r.target);
    const cmd = node.Cmd as Node | undefined;
    const type = cmd ? cmd.type : 'None';
    switch (type) {
      case 'CallExpr':
        simpleCommand(cmd!, text(cmd!), writes, depth, nested, push, pending);
        break;
      case 'DeclClause': {
        const words = [evalWord0(cmd!.Variant), ...((cmd!.Args ?? []) as Node[]).map(assignWord)];
        commandPart(words, [], text(cmd!), writes, depth, nested, push, pending);
        break;
      }
      case 'ArithmCmd': case 'TestClause': case 'LetClause':
      case 'BinaryCmd': case 'Subshell': case 'Block': case 'IfClause': case 'WhileClause': case 'ForClause':
      case 'CaseClause': case 'FuncDecl': case 'TimeClause': case 'CoprocClause': case 'None':
        // These run no program themselves; what they contain is visited on its own. A redirection
        // on the whole construct (`(a; b) > f`) still writes a file.
        if (writes.length) push({ kind: 'neutral', source: text(node), deny: [], writes, nested });
        break;
      default:
        push({ kind: 'unknown', source: text(node), why: `unsupported shell construct ${type}`, deny: [text(node).trim()], writes, nested });
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

function evalWord0(lit: Node | undefined): ShellWord {
  return literalWord(lit ? String(lit.Value) : '');
}

/** An Assign node as one word (`NAME=value`, `NAME+=value`, or a bare `NAME` in `export NAME`). */
function assignWord(a: Node): ShellWord {
  const name = a.Name ? String(a.Name.Value) : '';
  if (a.Naked) return a.Value ? evalWord(a.Value) : literalWord(name);
  const value = a.Value ? evalWord(a.Value) : literalWord('');
  const dynamic = value.dynamic || !!a.Array || !!a.Index;
  return { value: `${name}${a.Append ? '+=' : '='}${value.value}`, dynamic, glob: false };
}

function isSafeAssignment(w: ShellWord): boolean {
  if (w.dynamic) return false;
  const eq = w.value.indexOf('=');
  return eq > 0 && w.value[eq - 1] !== '+' && SAFE_ENV_VARS.has(w.value.slice(0, eq));
}

function simpleCommand(call: Node, source: string, writes: ShellWord[], depth: number, nested: boolean, push: (p: ShellPart) => void, pending: Pending[]): void {
  const assigns = ((call.Assigns ?? []) as Node[]).map(assignWord);
  const words = ((call.Args ?? []) as Node[]).map(evalWord);
  if (words.length === 0) {
    // Assignments alone: harmless for safe variables; `PATH=…` changes every later command.
    if (assigns.every(isSafeAssignment)) {
      if (writes.length) push({ kind: 'neutral', source, deny: [], writes, nested });
      return;
    }
    const text = canonical(assigns);
    push({ kind: 'command', source, allow: assigns.some((a) => a.dynamic) ? undefined : text, why: 'an assignment known only at run time', deny: [text], writes, nested });
    return;
  }
  commandPart(words, assigns, source, writes, depth, nested, push, pending);
}

function commandPart(words: ShellWord[], assigns: ShellWord[], source: string, writes: ShellWord[], depth: number, nested: boolean, push: (p: ShellPart) => void, pending: Pending[]): void {
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
  let frozen: { words: ShellWord[]; assigns: ShellWord[] } | undefined;
  let why: string | undefined;
  for (let hop = 0; hop < MAX_WRAPPERS; hop++) {
    const name = commandName(cur[0]);
    if (!name) break;
    const transparent = Object.hasOwn(TRANSPARENT_WRAPPERS, name);
    const spec = transparent ? TRANSPARENT_WRAPPERS[name] : Object.hasOwn(PRIVILEGE_WRAPPERS, name) ? PRIVILEGE_WRAPPERS[name] : undefined;
    if (!spec) break;
    const r = unwrap(cur, spec);
    if (r.ok === 'not-a-wrapper') break;
    if (r.ok === false) {
      if (!frozen) why = r.reason;
      // The wrapped command cannot be located exactly: try deny rules from every later word.
      for (let i = 1; i < cur.length; i++) if (!cur[i]!.dynamic && !cur[i]!.value.startsWith('-')) addDeny(cur.slice(i), []);
      break;
    }
    if (!transparent && !frozen) frozen = { words: cur, assigns: allowAssigns };
    cur = r.command;
    if (!frozen) allowAssigns = [...allowAssigns, ...r.assigns];
    addDeny(cur, r.assigns);
  }

  // Scripts and commands the innermost command runs are parts of their own.
  const name = commandName(cur[0]);
  if (name && SHELLS.has(name) && depth < MAX_SCRIPT_DEPTH) {
    const script = shellScript(cur);
    if (script) pending.push({ script: script.value, depth: depth + 1 });
  }
  if (name === 'eval' && depth < MAX_SCRIPT_DEPTH && cur.length > 1 && cur.slice(1).every((w) => !w.dynamic)) {
    pending.push({ script: cur.slice(1).map((w) => w.value).join(' '), depth: depth + 1 });
  }
  if (name === 'find') {
    for (const c of findExecCommands(cur)) commandPart(c, [], c.map((w) => w.value).join(' '), [], depth + 1, true, push, pending);
  }

  const base = frozen ?? { words: cur, assigns: allowAssigns };
  let allow: string | undefined;
  if (!why) {
    const head = base.words[0];
    if (!head || head.dynamic || head.glob) why = 'the command name is known only at run time';
    else if (base.assigns.some((a) => a.dynamic)) why = 'an assignment known only at run time';
    else allow = canonical([...base.assigns.filter((a) => !isSafeAssignment(a)), ...base.words]);
  }
  push({ kind: 'command', source, allow, why: allow === undefined ? why : undefined, deny: [...deny], writes, nested });
}

interface Redirection { op: string; kind: 'write' | 'read' | 'dup' | 'discard'; target: ShellWord }

const REDIRECT_OP = /^(&>>|&>|<<<|<<-|<<|>>|>&|<&|<>|>\||<|>)/;

function redirection(r: Node, bytes: Buffer): Redirection {
  const at = r.OpPos as number;
  const op = REDIRECT_OP.exec(bytes.subarray(at, at + 3).toString())?.[1] ?? '>';
  const target = r.Word ? evalWord(r.Word) : literalWord('');
  if (op.startsWith('<') && op !== '<>' && op !== '<&') return { op, kind: 'read', target };
  if (op === '>&' || op === '<&') {
    if (!target.dynamic && /^(\d+-?|-)$/.test(target.value)) return { op, kind: 'dup', target };
    if (op === '<&') return { op, kind: 'read', target };
  }
  if (!target.dynamic && (DISCARD_TARGETS.has(target.value) || /^\/dev\/fd\/\d+$/.test(target.value))) return { op, kind: 'discard', target };
  return { op, kind: 'write', target };
}
