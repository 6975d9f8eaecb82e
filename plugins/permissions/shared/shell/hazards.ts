/**
 * Places where bash evaluates the *value* of a variable as code, so a command that looks harmless
 * to a rule runs whatever the value holds. Bash does this in:
 *
 * - every arithmetic context: `$((X))`, `$[X]`, `((X))`, `let X`, `for ((…))`, array subscripts
 *   (`a[X]=…`, `${a[X]}`, `${#a[X]}`), substring offsets (`${v:X:Y}`, `${@:X}`), the operands of
 *   `-eq`, `-ne`, `-lt`, `-le`, `-gt`, `-ge` inside `[[ ]]`, and assignments to `declare -i`
 *   variables. A name there is replaced by its value, which is evaluated again as arithmetic, and
 *   an array subscript in it is expanded, so `X='a[$(id)]'; echo $((X))` runs `id`;
 * - the prompt transformation `${X@P}`, which runs command substitutions in the value (and
 *   `${BASH_COMMAND@P}` needs no assignment at all: the value is the command's own text);
 * - indirect expansion `${!X}` and namerefs (`declare -n`), which read the variable named by a
 *   value, subscript included;
 * - builtins that take a variable *name* (`printf -v`, `read`, `mapfile`, `unset`, `getopts`,
 *   `wait -p`, `declare` and friends, `test -v`, `[[ -v ]]`): a name with a subscript
 *   (`'a[$(id)]'`) runs the subscript, even when it is a quoted literal;
 * - `mapfile -C`, `compgen`/`complete -C`, `enable -f`, `fc` (it runs history entries), and
 *   `trap`, `eval` and `sh -c` with a script known only at run time;
 * - assignments that do not look like one and change what later commands run: a `for`/`select`
 *   loop variable, `${X:=…}` / `${X=…}`, and the names `read`, `printf -v`, `mapfile`, `getopts`,
 *   `wait -p` and `declare` assign (`for PATH in ./bin; do ls; done` runs `./bin/ls`; `read HOME`
 *   points `git status` at another `.gitconfig`). The names are options.ts's RUN_CHANGING_ENV.
 *
 * Arithmetic made only of numbers, operators and parameters that are always numbers (`$#`, `$?`,
 * `$$`, `$!`, `${#x}`) evaluates nothing, and stays allowed.
 *
 * The values themselves can come from anywhere (an assignment, a loop, `read`, `$_`, the
 * environment), so the expression is judged, not where the value came from. Sources: bash(1)
 * "ARITHMETIC EVALUATION", "Parameter transformation", "Arrays"; the `assoc_expand_once` and
 * `array_expand_once` shopt entries describe the double expansion of subscripts.
 */
import { newParser, parseBash, type Node } from './ast.js';
import { RUN_CHANGING_ENV } from './options.js';
import type { ShellWord } from './words.js';

/** Parameter transformations that only quote or recase the value (`${x@Q}`); `@P` (and any other) is a hazard. */
const SAFE_TRANSFORMS: ReadonlySet<string> = new Set(['Q', 'E', 'A', 'K', 'k', 'a', 'U', 'u', 'L']);
/** Special parameters whose value is always a number. */
const NUMERIC_SPECIALS: ReadonlySet<string> = new Set(['#', '?', '$', '!']);
/** A numeric literal in bash arithmetic: decimal, octal, hex, or `base#digits`. */
const NUMBER = /^(?:0[xX][0-9a-fA-F]+|[0-9]+(?:#[0-9A-Za-z@_]+)?)$/;

interface Ops { transform: number; assign: ReadonlySet<number>; arith: ReadonlySet<number>; nameTest: ReadonlySet<number> }
let ops: Ops | undefined;

/**
 * The parser's operator codes, read once from a probe script rather than hard-coded: mvdan/sh
 * numbers its tokens in source order, which changes between versions.
 */
function opCodes(): Ops {
  if (ops) return ops;
  const probe = parseBash('[[ a -eq b ]]; [[ a -ne b ]]; [[ a -lt b ]]; [[ a -le b ]]; [[ a -gt b ]]; [[ a -ge b ]]; [[ -v a ]]; [[ -R a ]]; : ${a@Q} ${a:=b} ${a=b}', newParser());
  const stmts = probe.Stmts as Node[];
  const test = (i: number) => (stmts[i]!.Cmd as Node).X.Op as number;
  const words = (stmts[8]!.Cmd as Node).Args as Node[];
  const op = (i: number) => (words[i]!.Parts as Node[])[0]!.Exp.Op as number;
  ops = {
    arith: new Set([0, 1, 2, 3, 4, 5].map(test)),
    nameTest: new Set([test(6), test(7)]),
    transform: op(1),
    assign: new Set([op(2), op(3)]),
  };
  return ops;
}

/** True when a Word in an arithmetic context evaluates nothing but numbers. */
function numericWord(w: Node | undefined): boolean {
  if (!w) return true;
  if (w.type !== 'Word') return safeArith(w);
  return (w.Parts as Node[]).every((p) => {
    if (p.type === 'Lit') return NUMBER.test(p.Value as string);
    if (p.type === 'ParamExp') return numericParam(p);
    return false;
  });
}

/** `$#`, `${?}`, `${#name}`: parameters that expand to a number and evaluate nothing. */
function numericParam(p: Node): boolean {
  if (p.Exp || p.Slice || p.Repl || p.Excl || p.Names) return false;
  if (p.Length) return p.Index === undefined || isAllIndex(p.Index);
  return p.Index === undefined && NUMERIC_SPECIALS.has(String(p.Param?.Value ?? ''));
}

/** `@` or `*` as a subscript (all elements): no arithmetic. */
function isAllIndex(i: Node): boolean {
  return i.type === 'Word' && (i.Parts as Node[]).length === 1 && (i.Parts as Node[])[0]!.type === 'Lit' && ['@', '*'].includes((i.Parts as Node[])[0]!.Value as string);
}

/** True when an arithmetic expression (ArithmExpr) is numbers and operators only. */
function safeArith(x: Node | undefined): boolean {
  if (!x) return true;
  switch (x.type) {
    case 'Word': return numericWord(x);
    case 'BinaryArithm': return safeArith(x.X) && safeArith(x.Y);
    case 'UnaryArithm': case 'ParenArithm': return safeArith(x.X);
    default: return false;
  }
}

/** Why evaluating `n` itself (not statements nested in it) can run code from a value, or undefined. */
function nodeHazard(n: Node): string | undefined {
  switch (n.type) {
    case 'ParamExp': {
      const o = opCodes();
      if (n.Exp && n.Exp.Op === o.transform) {
        const t = (n.Exp.Word?.Parts as Node[] | undefined)?.map((p) => p.Value ?? '').join('') ?? '';
        if (!SAFE_TRANSFORMS.has(t)) return `\${…@${t}} expands a value as a prompt string, which runs the command substitutions in it`;
      }
      if (n.Exp && o.assign.has(n.Exp.Op as number) && runChanging(String(n.Param?.Value ?? ''))) return `\${${n.Param?.Value}:=…} assigns ${n.Param?.Value}, which changes what later commands run`;
      if (n.Excl && !n.Names && !(n.Index && isAllIndex(n.Index))) return '${!…} reads the variable a value names, and a subscript in that name runs';
      if (n.Index && !isAllIndex(n.Index) && !safeArith(n.Index)) return 'an array subscript is evaluated as arithmetic, which expands the values it names';
      if (n.Slice && !(safeArith(n.Slice.Offset) && safeArith(n.Slice.Length))) return 'a substring offset is evaluated as arithmetic, which expands the values it names';
      return undefined;
    }
    case 'ForClause': {
      const loop = n.Loop as Node | undefined;
      const name = loop?.type === 'WordIter' ? String(loop.Name?.Value ?? '') : '';
      return runChanging(name) ? `the loop assigns ${name}, which changes what later commands run` : undefined;
    }
    case 'ArithmExp': return safeArith(n.X) ? undefined : 'arithmetic evaluates the values of the variables it names, and a subscript in a value runs';
    case 'ArithmCmd': return safeArith(n.X) ? undefined : '(( … )) evaluates the values of the variables it names, and a subscript in a value runs';
    case 'LetClause': return (n.Exprs as Node[]).every(safeArith) ? undefined : 'let evaluates the values of the variables it names, and a subscript in a value runs';
    case 'CStyleLoop': return safeArith(n.Init) && safeArith(n.Cond) && safeArith(n.Post) ? undefined : 'for (( … )) evaluates the values of the variables it names';
    case 'Assign': return n.Index && !safeArith(n.Index) ? 'an array subscript is evaluated as arithmetic, which expands the values it names' : undefined;
    case 'ArrayElem': return n.Index && !safeArith(n.Index) ? 'an array subscript is evaluated as arithmetic, which expands the values it names' : undefined;
    case 'BinaryTest': {
      if (opCodes().arith.has(n.Op as number) && !(numericWord(n.X) && numericWord(n.Y))) return '[[ … -eq … ]] evaluates its operands as arithmetic, which expands the values they name';
      return undefined;
    }
    case 'UnaryTest': {
      if (opCodes().nameTest.has(n.Op as number) && !plainName(n.X)) return '[[ -v … ]] looks up a name whose subscript runs';
      return undefined;
    }
    default: return undefined;
  }
}

/** True for a variable (its name before any subscript) that changes which programs later commands run. */
export function runChanging(name: string): boolean {
  return RUN_CHANGING_ENV.test(name.replace(/\[[\s\S]*$/, '').replace(/\+$/, ''));
}

/** A Word that is a literal identifier without a subscript. */
function plainName(w: Node | undefined): boolean {
  return !!w && w.type === 'Word' && (w.Parts as Node[]).length === 1 && (w.Parts as Node[])[0]!.type === 'Lit' && /^[A-Za-z_][A-Za-z0-9_]*$/.test((w.Parts as Node[])[0]!.Value as string);
}

/**
 * The first hazard in `root` and everything under it except nested statements (a `$( … )` or a
 * loop body is a part of its own and is judged there). Undefined when there is none.
 */
export function findHazard(root: unknown): string | undefined {
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (Array.isArray(v)) { for (const c of v) stack.push(c); continue; }
    if (!v || typeof v !== 'object' || typeof (v as Node).type !== 'string') continue;
    const n = v as Node;
    if (n !== root && n.type === 'Stmt') continue;
    if (n.type !== 'Lit') {
      const h = nodeHazard(n);
      if (h) return h;
    }
    for (const k in n) {
      const c = n[k];
      if (c && typeof c === 'object') stack.push(c);
    }
  }
  return undefined;
}

/**
 * True when source text may hold a hazard at all: each one needs `$` (expansions, arithmetic),
 * `[` (subscripts, `[[ ]]`), `(` (`(( ))`, `for ((`) or the word `let`, `for` or `select`. Most commands have none
 * of these, and skip the tree walk.
 */
export function mayHaveHazard(source: string): boolean {
  return /[$[(]|\b(let|for|select)\b/.test(source);
}

/** A word that is a variable name bash would look up with its subscript evaluated. */
function riskyName(w: ShellWord | undefined): boolean {
  return !!w && (w.dynamic || w.value.includes('['));
}

/** Builtins that take variable names: which of their arguments are names. */
function nameArgs(name: string, args: readonly ShellWord[]): { names: ShellWord[]; hazard?: string } {
  const names: ShellWord[] = [];
  const optionValue = (valued: string, i: number, v: string) => (v.length > 2 ? undefined : valued.includes(v[1]!) ? args[i + 1] : undefined);
  switch (name) {
    case 'printf':
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!.value;
        if (v === '-v') names.push(args[++i]!);
        else if (v.startsWith('-v') && v.length > 2) names.push({ ...args[i]!, value: v.slice(2) });
        else if (v === '--' || !v.startsWith('-')) break;
      }
      return { names };
    case 'read': case 'mapfile': case 'readarray': {
      const valued = name === 'read' ? 'adinNptu' : 'dnOsuCc';
      for (let i = 0; i < args.length; i++) {
        const w = args[i]!;
        const v = w.value;
        if (!w.dynamic && v.startsWith('-') && v.length > 1 && v !== '--') {
          if (name !== 'read' && v.includes('C')) return { names, hazard: `${name} -C runs a command (its callback)` };
          const val = optionValue(valued, i, v);
          if (v[1] === 'a' && name === 'read') names.push(val ?? { ...w, value: v.slice(2) });
          if (val) i++;
          continue;
        }
        if (v === '--') continue;
        names.push(w);
      }
      return { names };
    }
    case 'unset': case 'export': case 'readonly': case 'declare': case 'typeset': case 'local':
      for (const w of args) {
        if (!w.dynamic && /^[-+]/.test(w.value)) {
          if (name !== 'unset' && name !== 'export' && /[in]/.test(w.value.slice(1))) return { names, hazard: `${name} ${w.value} makes later assignments evaluate arithmetic or names` };
          continue;
        }
        const eq = w.value.indexOf('=');
        names.push(eq === -1 ? w : { ...w, value: w.value.slice(0, eq), dynamic: w.value.slice(0, eq).includes('\u0000') });
      }
      return { names };
    case 'getopts': return { names: args.length >= 2 ? [args[1]!] : [] };
    case 'wait':
      for (let i = 0; i < args.length; i++) if (args[i]!.value === '-p') names.push(args[i + 1]!);
      return { names };
    case 'test': case '[':
      for (let i = 0; i < args.length; i++) if (args[i]!.value === '-v' || args[i]!.value === '-R') names.push(args[i + 1]!);
      return { names };
    case 'compgen': case 'complete':
      // -C runs a command, -F a function, to produce completions (compgen runs it at once).
      return args.some((w) => /^-[A-Za-z]*[CF]/.test(w.value)) ? { names, hazard: `${name} -C/-F runs a command to complete words` } : { names };
    case 'enable':
      return args.some((w) => /^-[A-Za-z]*f/.test(w.value)) ? { names, hazard: 'enable -f loads a shared library into the shell' } : { names };
    case 'alias':
      // A value known only at run time is a command line nobody can check (parse.ts reads the others).
      return args.some((w) => w.dynamic) ? { names, hazard: 'alias defines a command known only at run time' } : { names };
    case 'fc':
      // fc runs commands again from the history list (`history -s` fills it in a script); only
      // listing (`fc -l`) runs nothing. bash(1) "fc".
      return args.some((w) => !w.dynamic && /^-[A-Za-z]*l/.test(w.value)) && !args.some((w) => /^-[A-Za-z]*[es]/.test(w.value))
        ? { names }
        : { names, hazard: 'fc runs commands from the history list, which the command text does not show' };
    case 'let':
      return args.every((w) => !w.dynamic && /^[\s0-9+\-*/%()<>=!&|^~?:,xX]*$/.test(w.value)) ? { names } : { names, hazard: 'let evaluates its arguments as arithmetic, which expands the values they name' };
    default:
      return { names };
  }
}

/**
 * The variable names the builtin `name` assigns or looks up when run with `words` (its name
 * first): `read X`, `printf -v X`, `declare X=1`, `getopts o X`, ...; empty for other commands.
 */
export function variableNames(name: string, words: readonly ShellWord[]): ShellWord[] {
  return nameArgs(name, words.slice(1)).names.filter((w) => w !== undefined);
}

/**
 * Why running the command `words` (its name first, wrappers already looked through) evaluates a
 * value as code, or undefined: a builtin given a name with a subscript, or one known only at run
 * time (`printf -v "$X"`, `read 'a[$(id)]'`), `mapfile -C`, `let` with names.
 */
export function builtinHazard(name: string, words: readonly ShellWord[]): string | undefined {
  const { names, hazard } = nameArgs(name, words.slice(1));
  if (hazard) return hazard;
  const bad = names.find(riskyName);
  if (bad) return `${name} is given a variable name ${bad.dynamic ? 'known only at run time' : 'with a subscript'}, and bash runs what a subscript holds`;
  return undefined;
}
