/**
 * Wrapper commands: programs that run another command given in their arguments (`timeout 5 cmd`,
 * `env A=1 cmd`, `xargs cmd`, `sudo cmd`). A rule is about the wrapped command, so rein looks
 * through the wrapper. Options are read from a small table per wrapper; a wrapper used with an
 * option the table does not know cannot be looked through exactly, which makes the command
 * impossible to allow by rule (deny rules are then tried against every later word, to be safe).
 */
import { DYNAMIC, literalWord, type ShellWord } from './words.js';

interface WrapperSpec {
  /** Short and long options that take a value (`-s SIG`, `--signal=SIG`). */
  withValue: readonly string[];
  /** Options without a value. */
  flags: readonly string[];
  /**
   * Options whose value is optional, so given only attached (`--replace=R`, `-iR`) and never as the
   * next word: `xargs --replace sh x` runs `sh x`, not `x` (getopt_long's `optional_argument`).
   */
  optionalValue?: readonly string[];
  /** Positional words between the options and the command (timeout's DURATION). */
  positionals?: number;
  /** `NAME=value` words before the command are environment assignments (env). */
  assignments?: boolean;
  /** `-N` numeric options (`nice -10 cmd`). */
  numericFlag?: boolean;
  /** The wrapped command receives extra arguments at run time (xargs reads them from stdin). */
  appendsArgs?: boolean;
  /** Command run when none is given (xargs runs echo). */
  defaultCommand?: string;
  /** Options that mean the wrapper does not run a command at all (`command -v`). */
  notAWrapper?: readonly string[];
}

/** Wrappers that do not change who runs the command or what it may do: transparent for allow rules too. */
export const TRANSPARENT_WRAPPERS: Readonly<Record<string, WrapperSpec>> = Object.freeze({
  timeout: { withValue: ['-s', '--signal', '-k', '--kill-after'], flags: ['--foreground', '--preserve-status', '-v', '--verbose'], positionals: 1 },
  nice: { withValue: ['-n', '--adjustment'], flags: [], numericFlag: true },
  nohup: { withValue: [], flags: [] },
  stdbuf: { withValue: ['-i', '-o', '-e', '--input', '--output', '--error'], flags: [] },
  env: { withValue: ['-u', '--unset'], flags: ['-i', '-0', '--ignore-environment', '--null', '-'], assignments: true },
  xargs: {
    withValue: ['-I', '-L', '-n', '-P', '-s', '-d', '-E', '-a', '--max-args', '--max-procs', '--max-chars', '--delimiter', '--arg-file'],
    flags: ['-0', '-r', '-t', '-x', '--null', '--no-run-if-empty', '--verbose', '--exit', '--open-tty', '-o'],
    // findutils manual, "xargs options": `--eof[=eof-str]`, `--replace[=replace-str]`,
    // `--max-lines[=max-lines]`, and their short forms `-e`, `-i`, `-l` take a value only attached.
    optionalValue: ['-e', '-i', '-l', '--eof', '--replace', '--max-lines'],
    appendsArgs: true,
    defaultCommand: 'echo',
  },
  exec: { withValue: ['-a'], flags: ['-c', '-l'] },
  command: { withValue: [], flags: ['-p'], notAWrapper: ['-v', '-V'] },
  builtin: { withValue: [], flags: [] },
  time: { withValue: [], flags: ['-p'] },
  ionice: { withValue: ['-c', '-n', '--class', '--classdata'], flags: ['-t', '--ignore'] },
  setsid: { withValue: [], flags: ['-c', '-f', '-w', '--ctty', '--fork', '--wait'] },
});

/**
 * Wrappers that change privileges: looked through for deny and ask rules only. An allow rule must
 * name the wrapper itself (`Bash(sudo apt-get update)`).
 */
export const PRIVILEGE_WRAPPERS: Readonly<Record<string, WrapperSpec>> = Object.freeze({
  sudo: {
    // Not listed, so not looked through: `-D`/`--chdir` and `-i`/`--login` (which starts in the
    // target user's home) run the command in another directory, where its relative paths land.
    withValue: ['-u', '--user', '-g', '--group', '-h', '--host', '-C', '--close-from', '-p', '--prompt', '-r', '--role', '-t', '--type', '-U', '--other-user', '-T', '--command-timeout'],
    flags: ['-E', '--preserve-env', '-H', '--set-home', '-n', '--non-interactive', '-S', '--stdin', '-b', '--background', '-s', '--shell', '-k', '-P', '-A', '--askpass'],
    assignments: true,
  },
  doas: { withValue: ['-u', '-C'], flags: ['-n', '-s'] },
});

/** Result of looking through one wrapper. */
export type Unwrapped =
  | { ok: true; command: ShellWord[]; assigns: ShellWord[] }
  | { ok: false; reason: string }
  | { ok: 'not-a-wrapper' };

/** Name a command word runs: its basename (`/usr/bin/env` → `env`). */
export function commandName(word: ShellWord | undefined): string | undefined {
  if (!word || word.dynamic || word.glob) return undefined;
  const v = word.value;
  const slash = v.lastIndexOf('/');
  return slash === -1 ? v : v.slice(slash + 1);
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Looks through one wrapper whose spec is known. `words[0]` is the wrapper itself. */
export function unwrap(words: readonly ShellWord[], spec: WrapperSpec): Unwrapped {
  let i = 1;
  const assigns: ShellWord[] = [];
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (w.dynamic) return { ok: false, reason: 'a wrapper option known only at run time' };
    const v = w.value;
    if (v === '--') { i++; break; }
    if (spec.notAWrapper?.includes(v)) return { ok: 'not-a-wrapper' };
    if (!v.startsWith('-') || v === '-') {
      if (v === '-' && spec.flags.includes('-')) continue;
      break;
    }
    if (spec.flags.includes(v)) continue;
    if (spec.optionalValue?.some((o) => v === o || v.startsWith(o.startsWith('--') ? `${o}=` : o))) continue;
    if (spec.numericFlag && /^-\d+$/.test(v)) continue;
    const eq = v.indexOf('=');
    if (eq > 0 && v.startsWith('--') && spec.withValue.includes(v.slice(0, eq))) continue;
    if (spec.withValue.includes(v)) { i++; continue; }
    // Short option with its value attached (`-oL`, `-n10`, `-I{}`).
    if (!v.startsWith('--') && v.length > 2 && spec.withValue.includes(v.slice(0, 2))) continue;
    return { ok: false, reason: `unknown option ${v} of ${words[0]!.value}` };
  }
  if (spec.assignments) {
    while (i < words.length && !words[i]!.dynamic && ASSIGNMENT.test(words[i]!.value)) assigns.push(words[i++]!);
  }
  i += spec.positionals ?? 0;
  if (i > words.length) return { ok: false, reason: `${words[0]!.value} is missing an argument` };
  let command = words.slice(i);
  if (command.length === 0) {
    if (!spec.defaultCommand) return { ok: false, reason: `${words[0]!.value} without a command` };
    command = [literalWord(spec.defaultCommand)];
  }
  if (spec.appendsArgs) command = [...command, literalWord(DYNAMIC)];
  return { ok: true, command, assigns };
}

/** Shells whose `-c SCRIPT` runs SCRIPT (looked into like the top-level command). */
export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'busybox']);

/**
 * The script of `sh -c SCRIPT …` (flags may be combined: `-ec`, `-lc`), or undefined when the
 * shell is not given `-c`. `null` when `-c` is there but its script is not known before run time.
 */
export function shellScript(words: readonly ShellWord[]): ShellWord | null | undefined {
  let start = 1;
  if (commandName(words[0]) === 'busybox') {
    if (!['sh', 'ash', 'bash'].includes(words[1]?.value ?? '')) return undefined;
    start = 2;
  }
  let sawC = false;
  for (let i = start; i < words.length; i++) {
    const w = words[i]!;
    if (w.dynamic) return sawC ? null : undefined;
    const v = w.value;
    if (!sawC && v === '--') return undefined;
    if (v.startsWith('-') && v.length > 1 && !v.startsWith('--')) {
      if (v.slice(1).includes('c')) sawC = true;
      // `-o OPTION` takes a value.
      if (v === '-o' || v === '+o') i++;
      continue;
    }
    if (v.startsWith('--')) continue;
    return sawC ? w : undefined;
  }
  return sawC ? null : undefined;
}

/**
 * Commands that `find -exec`/`-execdir`/`-ok`/`-okdir` runs, one word list each. A command ends
 * at `;`, or at a `+` right after `{}`; any other `+` is one of its arguments (find(1), `-exec
 * command {} +`: `{}` must come right before the `+`), so in `-exec sed -n 1p + -e … {} ;` the
 * `-e` goes to sed.
 */
export function findExecCommands(words: readonly ShellWord[]): ShellWord[][] {
  const out: ShellWord[][] = [];
  for (let i = 1; i < words.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(words[i]!.value)) continue;
    const cmd: ShellWord[] = [];
    const ends = (k: number) => words[k]!.value === ';' || (words[k]!.value === '+' && k > 0 && words[k - 1]!.value === '{}' && cmd.length > 0);
    for (i++; i < words.length && !ends(i); i++) cmd.push(words[i]!);
    if (cmd.length) out.push(cmd);
  }
  return out;
}
