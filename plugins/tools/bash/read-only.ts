/**
 * Whether a shell command can change nothing: then Bash may run it in parallel with other
 * read-only calls and the default permission mode may let it through (as in
 * Claude Code, Bash is concurrency-safe exactly when the command is read-only). The command is parsed with
 * mvdan/sh (the `mvdan-sh` package, synchronous); every simple command in it, including those in
 * pipelines, `&&` chains and `$(...)`, must be on an allowlist with safe arguments, and no output
 * may be redirected anywhere but /dev/null. Anything not understood is not read-only (fail closed).
 */
import { createRequire } from 'node:module';

// mvdan-sh ships GopherJS code without types; only the parts used here are typed.
interface ShNode { [key: string]: any }
interface ShSyntax {
  NewParser(): { Parse(src: string, name: string): ShNode };
  Walk(node: ShNode, fn: (node: ShNode | null) => boolean): void;
  NodeType(node: ShNode): string;
}
// Loaded on first use: mvdan-sh costs ~150 ms to load, which start-up should not pay.
let syntaxRef: ShSyntax | undefined;
const lazySyntax = (): ShSyntax => (syntaxRef ??= (createRequire(import.meta.url)('mvdan-sh') as { syntax: ShSyntax }).syntax);

/** mvdan/sh redirect operator codes that write to their target: > >> <> >| &> &>>. */
const WRITE_REDIRECTS = new Set([54, 55, 57, 60, 64, 65]);
/** `>&`: duplicates a descriptor when the target is a number or `-`, else writes to a file. */
const DUP_OUT = 59;

/** Commands that only read, whatever their arguments (beyond the checks in ARG_CHECKS). */
const READ_ONLY_COMMANDS = new Set([
  'basename', 'cat', 'cksum', 'cmp', 'column', 'comm', 'cut', 'date', 'df', 'diff', 'dirname', 'du', 'echo', 'egrep',
  'expand', 'false', 'fgrep', 'file', 'find', 'fold', 'free', 'git', 'grep', 'head', 'hexdump', 'hostname', 'id',
  'jq', 'locale', 'ls', 'md5sum', 'nl', 'nproc', 'od', 'paste', 'printenv', 'printf', 'ps', 'pwd', 'readlink',
  'realpath', 'rev', 'rg', 'seq', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'sort', 'stat',
  'strings', 'tac', 'tail', 'test', 'tr', 'tree', 'true', 'type', 'uname', 'unexpand', 'uniq', 'uptime', 'wc',
  'which', 'whereis', 'whoami', 'xxd', '[',
]);

/** git subcommands that only read (with the argument checks in gitReadOnly). */
const GIT_READ_ONLY = new Set([
  'blame', 'branch', 'cat-file', 'config', 'describe', 'diff', 'grep', 'log', 'ls-files', 'ls-remote', 'ls-tree',
  'merge-base', 'remote', 'rev-list', 'rev-parse', 'shortlog', 'show', 'show-ref', 'status', 'tag',
]);

const positional = (args: string[]) => args.filter((a) => !a.startsWith('-'));

function gitReadOnly(args: string[]): boolean {
  let i = 0;
  // Global options before the subcommand: -C <dir> and --no-pager are harmless; -c could set a pager or hook.
  while (i < args.length && args[i]!.startsWith('-')) {
    const a = args[i]!;
    if (a === '-C') i += 2;
    else if (a === '--no-pager' || a === '-P' || a === '--no-optional-locks') i += 1;
    else return false;
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (!sub || !GIT_READ_ONLY.has(sub)) return false;
  if (rest.some((a) => a.startsWith('--output') || a === '--ext-diff' || a.startsWith('--exec'))) return false;
  const flagsOnly = (allowed: string[]) => rest.every((a) => allowed.includes(a) || (a.startsWith('--format') || a.startsWith('--sort') || a.startsWith('--contains') || a.startsWith('--merged') || a.startsWith('--no-merged')));
  switch (sub) {
    case 'branch':
      return flagsOnly(['-a', '-r', '-v', '-vv', '-l', '--list', '--all', '--remotes', '--show-current', '--no-color', '--color=never']);
    case 'tag':
      return rest.length === 0 || rest.some((a) => a === '-l' || a === '--list') && !rest.some((a) => ['-d', '--delete', '-a', '-s', '-f', '-m'].includes(a));
    case 'remote':
      return rest.every((a) => a === '-v' || a === '--verbose') || (rest[0] === 'get-url' || rest[0] === 'show');
    case 'config':
      return rest.some((a) => ['--get', '--get-all', '--get-regexp', '--list', '-l'].includes(a)) && !rest.some((a) => ['--add', '--unset', '--unset-all', '--replace-all', '--edit', '-e'].includes(a));
    default:
      return true;
  }
}

/** Per-command argument checks for commands that can write or run other programs with some flags. */
const ARG_CHECKS: Record<string, (args: string[]) => boolean> = {
  date: (args) => args.every((a) => a.startsWith('+') || (a.startsWith('-') && !a.startsWith('-s') && !a.startsWith('--set'))),
  find: (args) => !args.some((a) => ['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls'].includes(a)),
  git: gitReadOnly,
  hostname: (args) => positional(args).length === 0,
  rg: (args) => !args.some((a) => a === '--pre' || a.startsWith('--pre=')),
  sort: (args) => !args.some((a) => a === '-o' || a.startsWith('-o') || a.startsWith('--output')),
  tree: (args) => !args.some((a) => a === '-o'),
  uniq: (args) => positional(args).length <= 1,
  xxd: (args) => positional(args).length <= 1,
};

/** The literal text of a word, or undefined when it has expansions whose value is only known at run time. */
function wordLiteral(word: ShNode): string | undefined {
  let out = '';
  for (const part of word.Parts as ShNode[]) {
    const t = lazySyntax().NodeType(part);
    if (t === 'Lit' || t === 'SglQuoted') out += part.Value;
    else if (t === 'DblQuoted') {
      for (const p of part.Parts as ShNode[]) {
        if (lazySyntax().NodeType(p) !== 'Lit') return undefined;
        out += p.Value;
      }
    } else return undefined;
  }
  return out;
}

/** Arguments of a call: literal where possible; a dynamic argument becomes a placeholder that no check accepts as a flag. */
function argTexts(words: ShNode[]): string[] {
  return words.map((w) => wordLiteral(w) ?? '\u0000dynamic');
}

function callIsReadOnly(call: ShNode): boolean {
  const args = call.Args as ShNode[];
  if (args.length === 0) return true; // only assignments: they die with the shell
  const name = wordLiteral(args[0]!);
  if (name === undefined) return false;
  const rest = argTexts(args.slice(1));
  if (rest.length === 1 && rest[0] === '--version') return !name.includes('/');
  if (!READ_ONLY_COMMANDS.has(name)) return false;
  const check = ARG_CHECKS[name];
  return check ? check(rest) : true;
}

/** True when `command` provably changes nothing (see the module comment). Never throws. */
export function isReadOnlyCommand(command: string): boolean {
  let file: ShNode;
  try {
    file = lazySyntax().NewParser().Parse(command, '');
  } catch {
    return false;
  }
  let ok = true;
  lazySyntax().Walk(file, (node) => {
    if (!ok || !node) return false;
    switch (lazySyntax().NodeType(node)) {
      case 'Stmt':
        if (node.Background || node.Coprocess) ok = false;
        break;
      case 'Redirect': {
        const target = node.Word ? wordLiteral(node.Word) : undefined;
        if (WRITE_REDIRECTS.has(node.Op)) ok = target === '/dev/null';
        else if (node.Op === DUP_OUT) ok = target !== undefined && (/^\d+$/.test(target) || target === '-' || target === '/dev/null');
        break;
      }
      case 'CallExpr':
        if (!callIsReadOnly(node)) ok = false;
        break;
      case 'CoprocClause':
      case 'ProcSubst':
        ok = false;
        break;
      default:
        break;
    }
    return ok;
  });
  return ok;
}
