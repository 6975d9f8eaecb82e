/**
 * Programs whose own language runs commands, writes files or reads other files: sed, awk and jq.
 * A prefix rule such as `Bash(sed:*)` or `Bash(awk:*)` matches any script, so without a look at
 * the script it also allows `sed '1e rm -rf ~'`, `sed 's/x/y/w ~/.bashrc'` or
 * `awk 'BEGIN{system("…")}'`. rein reads the script and the options conservatively: what it cannot
 * prove harmless is a risky option (options.ts), which a rule's `*` or `:*` tail does not cover,
 * so the call is asked about unless the rule writes that script or option out.
 *
 * Sources: GNU sed manual, "sed scripts" (commands `e`, `r`, `R`, `w`, `W`; the `s` flags `e` and
 * `w`; `-i`, `-f`) https://www.gnu.org/software/sed/manual/sed.html; POSIX awk ("Output
 * statements" `>`, `>>`, `|`; `getline`; `system`) and the gawk manual (`@include`, `@load`,
 * indirect calls `@f()`, `-f`, `-l`, `-i`, `-E`, `--pretty-print`, `--profile`,
 * `--dump-variables`) https://www.gnu.org/software/gawk/manual/gawk.html; mawk(1) `-W exec`; the
 * jq manual (`import`, `include`, `-f`/`--from-file`, `-L`) https://jqlang.github.io/jq/manual/.
 */
import { GLOBAL_WITH_VALUE } from '../git-repository.js';
import type { RiskyOption } from './options.js';
import type { ShellWord } from './words.js';

/** What a script or option check found: the word's index and why it is risky. */
type Finding = RiskyOption;

/**
 * Long options of a tool: name → takes a value. getopt_long accepts any unambiguous prefix, so
 * `given` is resolved the same way; an ambiguous or unknown name resolves to undefined.
 */
function longName(given: string, names: Readonly<Record<string, unknown>>): string | undefined {
  if (Object.hasOwn(names, given)) return given;
  const hits = Object.keys(names).filter((n) => n.startsWith(given));
  return hits.length === 1 ? hits[0] : undefined;
}

// ---------------------------------------------------------------- sed

/** sed's long options (GNU sed 4.9): name → takes a value. Only `expression` holds a script. */
const SED_LONG: Readonly<Record<string, boolean>> = {
  quiet: false, silent: false, debug: false, posix: false, 'regexp-extended': false, sandbox: false,
  separate: false, unbuffered: false, 'null-data': false, 'zero-terminated': false, binary: false,
  help: false, version: false, 'line-length': true, expression: true,
  // Risky: edit files in place, read the script from a file.
  'in-place': false, file: true, 'follow-symlinks': false,
};
const SED_RISKY_LONG: Readonly<Record<string, string>> = {
  'in-place': 'edits the files in place (writes them)',
  file: 'reads the sed script from a file rein cannot check',
  'follow-symlinks': 'edits the files a link leads to',
};
/** Short flags without a value. */
const SED_FLAGS = new Set(['n', 'E', 'r', 's', 'u', 'z', 'b']);

/** sed commands that take no argument, or only a label or number (none runs or writes anything). */
const SED_PLAIN = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F', 'l', 'L', 'q', 'Q', 'b', 't', 'T', 'v']);
const SED_RISKY_CMDS: Readonly<Record<string, string>> = {
  e: 'runs a shell command (sed `e`)',
  w: 'writes a file (sed `w`)',
  W: 'writes a file (sed `W`)',
  r: 'reads another file (sed `r`)',
  R: 'reads another file (sed `R`)',
};

/**
 * Why a sed script is not known to be harmless, or undefined when every command in it is one of
 * the plain commands, `s` with harmless flags, `y`, text commands (`a`, `i`, `c`), labels,
 * branches or comments. Parsed twice, with bracket expressions in regular expressions read as GNU
 * sed reads them (`s/[/]/x/` has a `/` inside the brackets) and as plain characters: a script is
 * harmless only when both readings say so, so a bracket trick cannot make rein and sed disagree.
 */
export function sedScriptRisk(script: string): string | undefined {
  return sedParse(script, true) ?? sedParse(script, false);
}

function sedParse(s: string, brackets: boolean): string | undefined {
  let i = 0;
  const n = s.length;
  const ws = () => { while (i < n && /[ \t]/.test(s[i]!)) i++; };
  /** Reads a delimited part starting after the delimiter; returns false when unterminated. */
  const delimited = (d: string, regex: boolean): boolean => {
    while (i < n) {
      const c = s[i]!;
      if (c === '\\') { i += 2; continue; }
      if (c === '\n' && !regex) { i++; continue; }
      if (regex && brackets && c === '[') {
        let j = i + 1;
        if (s[j] === '^') j++;
        if (s[j] === ']') j++;
        while (j < n && s[j] !== ']') {
          if (s[j] === '[' && /[:.=]/.test(s[j + 1] ?? '')) {
            const close = s.indexOf(`${s[j + 1]}]`, j + 2);
            if (close === -1) return false;
            j = close + 2;
          } else j++;
        }
        if (j >= n) return false;
        i = j + 1;
        continue;
      }
      if (c === d) { i++; return true; }
      i++;
    }
    return false;
  };
  const address = (): string | undefined => {
    const c = s[i];
    if (c === undefined) return undefined;
    if (/[0-9]/.test(c)) { while (i < n && /[0-9~]/.test(s[i]!)) i++; return undefined; }
    if (c === '$') { i++; return undefined; }
    if (c === '/' || c === '\\') {
      let d = '/';
      if (c === '\\') { d = s[i + 1] ?? ''; if (!d || d === '\n' || d === '\\') return 'an address rein cannot read'; i += 2; } else i++;
      if (!delimited(d, true)) return 'an unterminated address';
      while (i < n && /[IM]/.test(s[i]!)) i++;
    }
    return undefined;
  };
  while (i < n) {
    while (i < n && /[ \t\n;]/.test(s[i]!)) i++;
    if (i >= n) break;
    if (s[i] === '#') { while (i < n && s[i] !== '\n') i++; continue; }
    if (s[i] === '}') { i++; continue; }
    let bad = address();
    if (bad) return bad;
    ws();
    if (s[i] === ',') {
      i++; ws();
      if (s[i] === '+' || s[i] === '~') { i++; while (i < n && /[0-9]/.test(s[i]!)) i++; } else if ((bad = address())) return bad;
      ws();
    }
    while (s[i] === '!') { i++; ws(); }
    const cmd = s[i];
    if (cmd === undefined) return 'an address without a command';
    i++;
    if (cmd === '{') continue;
    if (Object.hasOwn(SED_RISKY_CMDS, cmd)) return SED_RISKY_CMDS[cmd];
    if (cmd === ':') {
      // A label runs to the end of the line or a `;`.
      while (i < n && s[i] !== '\n' && s[i] !== ';') i++;
      continue;
    }
    if (cmd === 'a' || cmd === 'i' || cmd === 'c') {
      // Text up to an unescaped newline: printed, never run.
      while (i < n && s[i] !== '\n') i += s[i] === '\\' ? 2 : 1;
      continue;
    }
    if (cmd === 's' || cmd === 'y') {
      const d = s[i];
      if (d === undefined || d === '\n' || d === '\\') return `an ${cmd} command rein cannot read`;
      i++;
      if (!delimited(d, cmd === 's') || !delimited(d, false)) return `an unterminated ${cmd} command`;
      if (cmd === 's') {
        while (i < n && /[gpiImM0-9]/.test(s[i]!)) i++;
        if (s[i] === 'e') return 'runs the pattern space as a shell command (the s flag `e`)';
        if (s[i] === 'w') return 'writes a file (the s flag `w`)';
      }
    } else if (SED_PLAIN.has(cmd)) {
      // An optional label (b, t, T, v) or number (l, L, q, Q), up to the end of the command.
      while (i < n && s[i] !== '\n' && s[i] !== ';' && s[i] !== '}') {
        if (!/[\w. \t-]/.test(s[i]!)) return `a ${cmd} command rein cannot read`;
        i++;
      }
      continue;
    } else {
      return `the sed command ${JSON.stringify(cmd)}, which rein does not know to be harmless`;
    }
    ws();
    if (i < n && !/[\n;}#]/.test(s[i]!)) return `text after a ${cmd} command rein cannot read`;
  }
  return undefined;
}

/** The risky options and scripts of a sed command (`words[0]` is sed). */
export function sedRisks(words: readonly ShellWord[]): Finding[] {
  const out: Finding[] = [];
  let scripted = false;
  const script = (w: ShellWord | undefined, index: number) => {
    scripted = true;
    if (!w) return;
    if (w.dynamic) { out.push({ index, text: w.value, why: 'is a sed script known only at run time' }); return; }
    const why = sedScriptRisk(w.value);
    if (why) out.push({ index, text: w.value, why: `is a sed script that ${why.replace(/^an? /, 'has $&')}` });
  };
  let operands = false;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (operands || w.dynamic || !v.startsWith('-') || v === '-') {
      if (!operands && v === '--' && !w.dynamic) { operands = true; continue; }
      if (!scripted) script(w, i);
      continue;
    }
    if (v === '--') { operands = true; continue; }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = longName(eq === -1 ? v.slice(2) : v.slice(2, eq), SED_LONG);
      if (name === undefined) { out.push({ index: i, text: v, why: 'is a sed option rein does not know' }); continue; }
      if (Object.hasOwn(SED_RISKY_LONG, name)) out.push({ index: i, text: v, why: SED_RISKY_LONG[name]! });
      if (SED_LONG[name] && eq === -1) i++;
      if (name === 'expression') script(eq === -1 ? words[i] : { ...w, value: v.slice(eq + 1) }, eq === -1 ? i : i);
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const c = v[k]!;
      if (SED_FLAGS.has(c)) continue;
      if (c === 'e' || c === 'l') {
        const rest = v.slice(k + 1);
        const valueWord = rest ? { ...w, value: rest } : words[++i];
        if (c === 'e') script(valueWord, rest ? i : i);
        break;
      }
      if (c === 'i') { out.push({ index: i, text: v, why: 'edits the files in place (writes them)' }); break; }
      if (c === 'f') { out.push({ index: i, text: v, why: 'reads the sed script from a file rein cannot check' }); if (k === v.length - 1) i++; break; }
      out.push({ index: i, text: v, why: `is a sed option rein does not know (-${c})` });
      break;
    }
  }
  return out;
}

// ---------------------------------------------------------------- awk

/** awk options that are harmless (POSIX, gawk, mawk): name → takes a value. */
const AWK_SHORT: Readonly<Record<string, boolean>> = { '-F': true, '-v': true, '-e': true, '-b': false, '-c': false, '-P': false, '-r': false, '-S': false, '-n': false, '-N': false, '-O': false, '-s': false, '-t': false, '-M': false };
const AWK_LONG: Readonly<Record<string, boolean>> = {
  'field-separator': true, assign: true, source: true, 'characters-as-bytes': false, traditional: false,
  posix: false, sandbox: false, 're-interval': false, 'non-decimal-data': false, 'no-optimize': false,
  optimize: false, bignum: false, 'use-lc-numeric': false, 'csv': false,
};

/**
 * Why an awk program is not known to be harmless, or undefined. Fails closed on anything that can
 * run a command, write or read a file the command line does not name, or change which files are
 * read: `system`, `getline`, `|` (a pipe to or from a command; `||` is fine), `>` after the first
 * `print`/`printf` (an output redirection: `print $1 > 2` writes a file named 2), `@` (gawk
 * `@include`, `@load`, indirect calls `@f()`), `ARGV`/`ARGC` (the files to read). Strings are not
 * stripped first (a regular expression can hold a `"`), so a string holding one of these words
 * is asked about too.
 */
export function awkProgramRisk(program: string): string | undefined {
  const word = /\b(system|getline|ARGV|ARGC)\b/.exec(program);
  if (word) return `uses ${word[1]}, which ${word[1] === 'system' ? 'runs a command' : word[1] === 'getline' ? 'reads a file or a command\'s output' : 'changes which files are read'}`;
  if (program.replace(/\|\|/g, '').includes('|')) return 'has a `|`, which pipes to or from a command';
  if (program.includes('@')) return 'has a gawk `@` directive or indirect call';
  const print = /\bprintf?\b/.exec(program);
  if (print && program.indexOf('>', print.index) !== -1) return 'has a `>` after print, which can write a file';
  return undefined;
}

/** The risky options and program of an awk command (`words[0]` is awk, gawk, mawk, nawk). */
export function awkRisks(words: readonly ShellWord[]): Finding[] {
  const out: Finding[] = [];
  let programmed = false;
  const program = (w: ShellWord | undefined, index: number) => {
    programmed = true;
    if (!w) return;
    if (w.dynamic) { out.push({ index, text: w.value, why: 'is an awk program known only at run time' }); return; }
    const why = awkProgramRisk(w.value);
    if (why) out.push({ index, text: w.value, why: `is an awk program that ${why}` });
  };
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (w.dynamic || !v.startsWith('-') || v === '-') {
      if (!programmed) program(w, i);
      else if (!w.dynamic && /^[A-Za-z_]\w*=/.test(v) && /^(ARGV|ARGC)/.test(v)) out.push({ index: i, text: v, why: 'changes which files awk reads' });
      continue;
    }
    if (v === '--') {
      if (!programmed) program(words[i + 1], i + 1);
      break;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = longName(eq === -1 ? v.slice(2) : v.slice(2, eq), AWK_LONG);
      if (name === undefined) { out.push({ index: i, text: v, why: 'is an awk option that may run code, load a library or write a file' }); continue; }
      if (name === 'source') { program(eq === -1 ? words[i + 1] : { ...w, value: v.slice(eq + 1) }, eq === -1 ? i + 1 : i); }
      if (AWK_LONG[name] && eq === -1) i++;
      continue;
    }
    const opt = v.slice(0, 2);
    if (!Object.hasOwn(AWK_SHORT, opt)) { out.push({ index: i, text: v, why: 'is an awk option that may run code, load a library or write a file' }); continue; }
    if (!AWK_SHORT[opt]) { if (v.length > 2) out.push({ index: i, text: v, why: 'is an awk option rein does not know' }); continue; }
    const attached = v.length > 2 ? { ...w, value: v.slice(2) } : undefined;
    if (opt === '-e') program(attached ?? words[i + 1], attached ? i : i + 1);
    if (opt === '-v') {
      const a = attached ?? words[i + 1];
      if (a && !a.dynamic && /^(ARGV|ARGC)/.test(a.value)) out.push({ index: i, text: v, why: 'changes which files awk reads' });
    }
    if (!attached) i++;
  }
  return out;
}

// ---------------------------------------------------------------- jq

const JQ_FLAGS = new Set('nrjascCMSeRhVb'.split('').map((c) => `-${c}`));
const JQ_LONG: Readonly<Record<string, number>> = {
  'null-input': 0, 'raw-input': 0, slurp: 0, 'compact-output': 0, 'raw-output': 0, 'join-output': 0, 'raw-output0': 0,
  'ascii-output': 0, 'sort-keys': 0, 'color-output': 0, 'monochrome-output': 0, tab: 0, indent: 1, unbuffered: 0,
  stream: 0, 'stream-errors': 0, seq: 0, 'exit-status': 0, binary: 0, args: 0, jsonargs: 0, help: 0, version: 0,
  'build-configuration': 0, arg: 2, argjson: 2, rawfile: 2, slurpfile: 2,
};

/** Why a jq program is not known to be harmless (it loads modules or data files), or undefined. */
export function jqProgramRisk(program: string): string | undefined {
  const m = /\b(import|include|modulemeta|get_search_list)\b/.exec(program);
  return m ? `uses ${m[1]}, which loads other files` : undefined;
}

/** The risky options and program of a jq command (`words[0]` is jq). */
export function jqRisks(words: readonly ShellWord[]): Finding[] {
  const out: Finding[] = [];
  let programmed = false;
  let positional = false;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (positional || w.dynamic || !v.startsWith('-') || v === '-') {
      if (!programmed) {
        programmed = true;
        if (w.dynamic) out.push({ index: i, text: v, why: 'is a jq program known only at run time' });
        else {
          const why = jqProgramRisk(v);
          if (why) out.push({ index: i, text: v, why: `is a jq program that ${why}` });
        }
      }
      continue;
    }
    if (v === '--') { positional = true; continue; }
    if (v.startsWith('--')) {
      const name = v.slice(2);
      if (!Object.hasOwn(JQ_LONG, name)) { out.push({ index: i, text: v, why: 'is a jq option that may read the program or modules from other files' }); continue; }
      i += JQ_LONG[name]!;
      if (name === 'args' || name === 'jsonargs') positional = programmed;
      continue;
    }
    // Clusters of flags (`-nr`); -f, -L and anything else are asked about.
    if (/^-[nrjascCMSeRhVb]+$/.test(v) && [...v.slice(1)].every((c) => JQ_FLAGS.has(`-${c}`))) continue;
    out.push({ index: i, text: v, why: 'is a jq option that may read the program or modules from other files' });
  }
  return out;
}

// ---------------------------------------------------------------- files written through arguments

/** The value of an option at `words[i]`: attached (`-oFILE`, `--output=FILE`) or the next word. */
function valueAt(words: readonly ShellWord[], i: number, attached: string | undefined): ShellWord | undefined {
  const w = words[i]!;
  return attached !== undefined && attached !== '' ? { ...w, value: attached } : words[i + 1];
}

/** Options whose value is a file the tool writes, per tool: long names (exact or abbreviated) and short letters. */
const WRITE_OPTIONS: Readonly<Record<string, { long: readonly string[]; short: readonly string[]; whole?: readonly string[] }>> = {
  sort: { long: ['output'], short: ['o'] },
  git: { long: ['output'], short: [] },
  tar: { long: ['index-file', 'volno-file'], short: [] },
  less: { long: ['log-file', 'LOG-FILE'], short: ['o', 'O'] },
  curl: { long: ['output', 'dump-header', 'cookie-jar', 'trace', 'trace-ascii', 'libcurl', 'stderr'], short: ['o', 'D', 'c'] },
  wget: { long: ['output-document', 'output-file', 'append-output'], short: ['O', 'o', 'a'] },
  find: { long: [], short: [], whole: ['-fprint', '-fprint0', '-fprintf', '-fls'] },
};

/** Values that write nowhere (stdout, the null device). */
const NOWHERE = new Set(['-', '/dev/null', '/dev/stdout', '/dev/stderr']);

/**
 * Files a command writes through its own arguments: the operands of `sed -i`, and the values of
 * options such as `sort -o`, `git log --output`, `find -fprint`, `tar --index-file`,
 * `less --log-file`, `curl -o`. They are writes like `> file`: Edit deny and ask rules, the
 * protected paths and the working directories apply to them, and an allow rule that writes the
 * option out (`Bash(sed -i:*)`) still needs the file to be writable.
 */
export function argumentWrites(name: string | undefined, words: readonly ShellWord[]): ShellWord[] {
  if (!name) return [];
  if (name === 'sed') return sedInPlaceFiles(words);
  const interp = interpreterOf(name);
  if (interp === 'perl' || interp === 'ruby') return inPlaceEdits(words, interp);
  const spec = Object.hasOwn(WRITE_OPTIONS, name) ? WRITE_OPTIONS[name] : undefined;
  if (!spec) return [];
  const out: ShellWord[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (w.dynamic || !v.startsWith('-') || v === '-') continue;
    if (v === '--') break;
    let target: ShellWord | undefined;
    if (spec.whole?.includes(v)) target = words[i + 1];
    else if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const given = eq === -1 ? v.slice(2) : v.slice(2, eq);
      if (given && spec.long.some((l) => l.startsWith(given))) target = valueAt(words, i, eq === -1 ? undefined : v.slice(eq + 1));
    } else if (!spec.whole) {
      for (let k = 1; k < v.length; k++) {
        if (spec.short.includes(v[k]!)) { target = valueAt(words, i, v.slice(k + 1)); break; }
      }
    }
    if (target && (target.dynamic || !NOWHERE.has(target.value))) out.push(target);
  }
  return out;
}

/** The file operands of `sed -i` / `--in-place` (none without it). */
function sedInPlaceFiles(words: readonly ShellWord[]): ShellWord[] {
  let inPlace = false;
  let scripted = false;
  let operands = false;
  const files: ShellWord[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (operands || w.dynamic || !v.startsWith('-') || v === '-') {
      if (!scripted) scripted = true;
      else files.push(w);
      continue;
    }
    if (v === '--') { operands = true; continue; }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = longName(eq === -1 ? v.slice(2) : v.slice(2, eq), SED_LONG);
      if (name === 'in-place') inPlace = true;
      if (name === 'expression' || name === 'file') scripted = true;
      if (name && SED_LONG[name] && eq === -1) i++;
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const c = v[k]!;
      if (c === 'i') { inPlace = true; break; }
      if (c === 'e' || c === 'f' || c === 'l') {
        if (c !== 'l') scripted = true;
        if (k === v.length - 1) i++;
        break;
      }
    }
  }
  return inPlace ? files : [];
}

// ---------------------------------------------------------------- files written through operands

/**
 * A copy, move or link whose files land in a place known only against the file system: when the
 * destination is a directory, each source lands at `dest/basename(source)` (and a directory
 * source brings its whole tree). Resolved when the call is judged (rules.ts `writesOf`), where
 * the shell's directory and the files are known.
 */
export interface PlacedWrite {
  /** The destination operand (`cp a DEST`, `-t DEST`), or the tree a recursive removal or mode change touches. */
  dest: ShellWord;
  /** Sources that land inside `dest` when it is a directory; empty for a removal or mode change. */
  sources: ShellWord[];
  /** `dir`: dest is a directory (`-t`, one `ln` operand); `file`: never one (`-T`); `auto`: one when it is one on disk, or ends in `/`. */
  into: 'auto' | 'dir' | 'file';
  /** Directory sources bring (or a removal touches) every file below them (`cp -r`, `mv`, `rm -r`). */
  tree: boolean;
  /** `cp --parents`: a source lands at `dest/source` with its whole relative path. */
  parents?: boolean;
  /**
   * The sources become reachable for writing through what lands (`ln`, `cp -l`, `cp -s`): a hard
   * link is the source itself; a symbolic link leads to it, which matters for a later write in the
   * same command (`ln -s ~/.bashrc rc && echo x >> rc`; rules.ts). `symbolic`: the source is
   * relative to the link's directory; `relative` (`ln -sr`): to the current one, as `hard`.
   */
  links?: 'hard' | 'symbolic' | 'relative';
  /**
   * `-b`/`--backup`/`-S`/`--suffix`: a file the copy replaces is first renamed to its name plus
   * the suffix (`cp -b -S n a .mcp.jso` turns the old `.mcp.jso` into `.mcp.json`). `suffix` is
   * undefined when none is given: `SIMPLE_BACKUP_SUFFIX` in the environment chooses it.
   */
  backup?: { suffix?: string };
  /**
   * `chmod -R`/`chown -R`: every file of the tree is listed (up to the expansion limit), since a
   * mode change reaches through a hard link inside it (`chmod -R +x src` with `src/h` a link to
   * `.git/hooks/pre-commit` makes the hook run); a removal only takes names away.
   */
  modes?: boolean;
  /** The copy follows symbolic links inside a source tree (`cp -rL`, `rsync -rL`). */
  followsLinks?: boolean;
  /** rsync: a source written with a trailing `/` puts its content into dest itself. */
  slashMeansContent?: boolean;
  /**
   * `tar -x`, `unzip`: the files land at `dest/member` for every member the archive lists, which
   * rules.ts reads from the archive when the call is judged (the names are in the archive, not in
   * the command). `strip`: tar's `--strip-components`; `junkPaths`: unzip `-j` (basenames only).
   */
  archive?: { tool: 'tar' | 'unzip' | 'git-apply'; file: ShellWord; strip?: number; junkPaths?: boolean; args?: readonly string[] };
  /**
   * `git checkout`/`switch`/`restore`: the working-tree files that differ from the revision they
   * take files from (`rev`, the index when undefined), within `paths`; rules.ts asks git which.
   * `revOrPath`: checkout's first word, a revision when git can resolve it, else a path.
   */
  gitTree?: { revOrPath?: string; rev?: string; paths: string[] };
  /** `split`: the pieces are named PREFIX plus a suffix, in dest (PREFIX's folder). */
  splitPrefix?: string;
}

/** What a program writes through its operands: files named outright, and placed writes (see PlacedWrite). */
export interface OperandWrites { files: ShellWord[]; placed: PlacedWrite[] }

/** One tool's options (GNU coreutils 9 / rsync 3 manuals): short letters with a value, short flags, long names (0 flag, 1 value, 2 optional value with `=`). */
interface OperandSpec { shortValue: string; shortFlags: string; long: Readonly<Record<string, 0 | 1 | 2>> }

const BACKUP_LONG = { backup: 2, suffix: 1, help: 0, version: 0, verbose: 0, debug: 0, context: 2 } as const;
/** Sources: coreutils manual, "cp invocation", "mv invocation", "install invocation", "ln invocation", … https://www.gnu.org/software/coreutils/manual/coreutils.html */
const OPERAND_SPECS: Readonly<Record<string, OperandSpec>> = {
  cp: {
    shortValue: 'St', shortFlags: 'abdfHilLnPpRrsTuvxZ',
    long: { ...BACKUP_LONG, archive: 0, 'attributes-only': 0, 'copy-contents': 0, dereference: 0, force: 0, interactive: 0, link: 0, 'no-clobber': 0, 'no-dereference': 0, preserve: 2, 'no-preserve': 1, parents: 0, recursive: 0, reflink: 2, 'remove-destination': 0, sparse: 1, 'strip-trailing-slashes': 0, 'symbolic-link': 0, 'target-directory': 1, 'no-target-directory': 0, update: 2, 'one-file-system': 0, 'keep-directory-symlink': 0 },
  },
  mv: {
    shortValue: 'St', shortFlags: 'bfinTuvZ',
    long: { ...BACKUP_LONG, exchange: 0, force: 0, interactive: 0, 'no-clobber': 0, 'no-copy': 0, 'strip-trailing-slashes': 0, 'target-directory': 1, 'no-target-directory': 0, update: 2 },
  },
  install: {
    shortValue: 'gmoSt', shortFlags: 'bcCdDpsTvZ',
    long: { ...BACKUP_LONG, compare: 0, directory: 0, group: 1, mode: 1, owner: 1, 'preserve-timestamps': 0, strip: 0, 'strip-program': 1, 'target-directory': 1, 'no-target-directory': 0, 'preserve-context': 0 },
  },
  ln: {
    shortValue: 'St', shortFlags: 'bdFfiLnPrsTv',
    long: { ...BACKUP_LONG, directory: 0, force: 0, interactive: 0, logical: 0, 'no-dereference': 0, 'no-target-directory': 0, physical: 0, relative: 0, symbolic: 0, 'target-directory': 1 },
  },
  tee: { shortValue: '', shortFlags: 'aip', long: { append: 0, 'ignore-interrupts': 0, 'output-error': 2, help: 0, version: 0 } },
  truncate: { shortValue: 'rs', shortFlags: 'co', long: { 'no-create': 0, 'io-blocks': 0, reference: 1, size: 1, help: 0, version: 0 } },
  touch: { shortValue: 'drt', shortFlags: 'acfhm', long: { 'no-create': 0, date: 1, 'no-dereference': 0, reference: 1, time: 1, help: 0, version: 0 } },
  mkdir: { shortValue: 'm', shortFlags: 'pvZ', long: { mode: 1, parents: 0, verbose: 0, context: 2, help: 0, version: 0 } },
  rmdir: { shortValue: '', shortFlags: 'pv', long: { 'ignore-fail-on-non-empty': 0, parents: 0, verbose: 0, help: 0, version: 0 } },
  rm: { shortValue: '', shortFlags: 'fiIrRdv', long: { force: 0, interactive: 2, 'one-file-system': 0, 'no-preserve-root': 0, 'preserve-root': 2, recursive: 0, dir: 0, verbose: 0, help: 0, version: 0 } },
  unlink: { shortValue: '', shortFlags: '', long: { help: 0, version: 0 } },
  shred: { shortValue: 'ns', shortFlags: 'fuvxz', long: { force: 0, iterations: 1, 'random-source': 1, size: 1, remove: 2, verbose: 0, exact: 0, zero: 0, help: 0, version: 0 } },
  chmod: { shortValue: '', shortFlags: 'cfvR', long: { changes: 0, silent: 0, quiet: 0, verbose: 0, 'no-preserve-root': 0, 'preserve-root': 0, reference: 1, recursive: 0, dereference: 0, 'no-dereference': 0, help: 0, version: 0 } },
  chown: { shortValue: '', shortFlags: 'cfvhRHLP', long: { changes: 0, silent: 0, quiet: 0, verbose: 0, dereference: 0, 'no-dereference': 0, from: 1, 'no-preserve-root': 0, 'preserve-root': 0, reference: 1, recursive: 0, help: 0, version: 0 } },
  // rsync(1): the options that take a value; any other long option without `=` is not known, so
  // which words are operands is not known either (fail closed).
  // uniq [INPUT [OUTPUT]]; split [INPUT [PREFIX]] (coreutils manual, "uniq invocation", "split invocation").
  uniq: { shortValue: 'fsw', shortFlags: 'cdDiuz', long: { count: 0, repeated: 0, 'all-repeated': 2, 'skip-fields': 1, group: 2, 'ignore-case': 0, 'skip-chars': 1, unique: 0, 'zero-terminated': 0, 'check-chars': 1, help: 0, version: 0 } },
  split: { shortValue: 'abClnt', shortFlags: 'dxeu', long: { 'suffix-length': 1, 'additional-suffix': 1, bytes: 1, 'line-bytes': 1, lines: 1, number: 1, 'numeric-suffixes': 2, 'hex-suffixes': 2, 'elide-empty-files': 0, unbuffered: 0, separator: 1, verbose: 0, filter: 1, help: 0, version: 0 } },
  rsync: {
    shortValue: 'eBfTM@', shortFlags: 'vqcarRbulLkKHpEAXogDtOJUNSnWxyzhPis8CFmdI0',
    long: {
      verbose: 0, info: 1, debug: 1, quiet: 0, 'no-motd': 0, checksum: 0, archive: 0, recursive: 0, relative: 0, 'no-implied-dirs': 0, backup: 0, 'backup-dir': 1, suffix: 1, update: 0, inplace: 0, append: 0, 'append-verify': 0, dirs: 0, mkpath: 0, links: 0, 'copy-links': 0, 'copy-unsafe-links': 0, 'safe-links': 0, munge: 0, 'copy-dirlinks': 0, 'keep-dirlinks': 0, 'hard-links': 0, perms: 0, executability: 0, chmod: 1, acls: 0, xattrs: 0, owner: 0, group: 0, devices: 0, specials: 0, times: 0, atimes: 0, crtimes: 0, 'omit-dir-times': 0, 'omit-link-times': 0, super: 0, 'fake-super': 0, sparse: 0, preallocate: 0, 'dry-run': 0, 'whole-file': 0, 'checksum-choice': 1, 'one-file-system': 0, 'block-size': 1, rsh: 1, 'rsync-path': 1, existing: 0, 'ignore-existing': 0, 'remove-source-files': 0, delete: 0, 'delete-before': 0, 'delete-during': 0, 'delete-delay': 0, 'delete-after': 0, 'delete-excluded': 0, 'ignore-missing-args': 0, 'delete-missing-args': 0, 'ignore-errors': 0, force: 0, 'max-delete': 1, 'max-size': 1, 'min-size': 1, 'max-alloc': 1, partial: 0, 'partial-dir': 1, 'delay-updates': 0, 'prune-empty-dirs': 0, 'numeric-ids': 0, usermap: 1, groupmap: 1, chown: 1, timeout: 1, contimeout: 1, 'ignore-times': 0, 'size-only': 0, 'modify-window': 1, 'temp-dir': 1, fuzzy: 0, 'compare-dest': 1, 'copy-dest': 1, 'link-dest': 1, compress: 0, 'compress-choice': 1, 'compress-level': 1, 'skip-compress': 1, 'cvs-exclude': 0, filter: 1, exclude: 1, 'exclude-from': 1, include: 1, 'include-from': 1, 'files-from': 1, 'from0': 0, 'old-args': 0, 'secluded-args': 0, 'trust-sender': 0, 'copy-as': 1, address: 1, port: 1, sockopts: 1, 'blocking-io': 0, outbuf: 1, stats: 0, '8-bit-output': 0, 'human-readable': 0, progress: 0, itemize: 0, 'remote-option': 1, 'out-format': 1, 'log-file': 1, 'log-file-format': 1, 'password-file': 1, 'early-input': 1, 'list-only': 0, bwlimit: 1, 'stop-after': 1, 'stop-at': 1, 'fsync': 0, 'write-batch': 1, 'only-write-batch': 1, 'read-batch': 1, protocol: 1, iconv: 1, 'ipv4': 0, 'ipv6': 0, version: 0, help: 0, 'no-whole-file': 0, 'no-compress': 0, 'no-recursive': 0, 'no-dirs': 0, 'no-perms': 0, 'no-times': 0, 'no-owner': 0, 'no-group': 0, 'no-links': 0, 'no-implied-dirs-x': 0,
    },
  },
};

/** rsync options whose value is a file or directory it writes. */
const RSYNC_WRITTEN = new Set(['backup-dir', 'partial-dir', 'temp-dir', 'log-file', 'write-batch', 'only-write-batch', 'T']);

/** The options and operands of one command, read as getopt_long reads them (options after operands too, `--` ends them). */
interface Scanned {
  /** Option name (a short letter or a full long name) → its values, in order (`''` for a flag). */
  opts: Map<string, ShellWord[]>;
  operands: ShellWord[];
  /** Why the operands cannot be told apart from options (an unknown option, a word known only at run time that may be one). */
  doubt?: string;
}

function scanOperands(words: readonly ShellWord[], spec: OperandSpec, modeWords = false): Scanned {
  const opts = new Map<string, ShellWord[]>();
  const operands: ShellWord[] = [];
  const add = (k: string, v: ShellWord) => { const l = opts.get(k); if (l) l.push(v); else opts.set(k, [v]); };
  const none: ShellWord = { value: '', dynamic: false, glob: false };
  let doubt: string | undefined;
  let ended = false;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (ended || v === '-' || !v.startsWith('-')) {
      if (!ended && mayBeOption(w)) doubt ??= `${JSON.stringify(v.replaceAll(DYNAMIC_CHAR, '…'))} is known only at run time and may be an option`;
      operands.push(w);
      continue;
    }
    if (w.dynamic) { doubt ??= `the option ${JSON.stringify(v.replaceAll(DYNAMIC_CHAR, '…'))} is known only at run time`; continue; }
    if (v === '--') { ended = true; continue; }
    // chmod: `-w`, `-x`, `-rwx` and `-700` are modes, not options.
    if (modeWords && /^-[rwxXstugoa,+=0-7-]+$/.test(v) && !/^-[cfvR]+$/.test(v)) { operands.push(w); continue; }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = longName(eq === -1 ? v.slice(2) : v.slice(2, eq), spec.long);
      if (name === undefined) { doubt ??= `the option ${v} is one rein does not know`; continue; }
      const kind = spec.long[name]!;
      if (eq !== -1) add(name, { ...w, value: v.slice(eq + 1) });
      else if (kind === 1) { const next = words[++i]; if (!next) { doubt ??= `${v} has no value`; break; } add(name, next); }
      else add(name, none);
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const c = v[k]!;
      if (spec.shortValue.includes(c)) {
        const rest = v.slice(k + 1);
        const value = rest ? { ...w, value: rest } : words[++i];
        if (!value) doubt ??= `-${c} has no value`;
        else add(c, value);
        break;
      }
      if (spec.shortFlags.includes(c)) { add(c, none); continue; }
      doubt ??= `the option -${c} is one rein does not know`;
      break;
    }
  }
  return { opts, operands, ...(doubt ? { doubt } : {}) };
}

const DYNAMIC_CHAR = '\u0000';

/** The folder part of a path word (`a/b` → `a`, `b` → `.`), as written. */
function dirWord(w: ShellWord): ShellWord {
  const slash = w.value.lastIndexOf('/');
  return { ...w, value: slash === -1 ? '.' : slash === 0 ? '/' : w.value.slice(0, slash) };
}

/**
 * True when a word known only at run time may start with `-`: its start is an expansion, or it is
 * the text xargs appends (a word that is nothing but run-time text and carries no reason of its
 * own; a `find -exec` `{}` carries one and is a path find found).
 */
function mayBeOption(w: ShellWord): boolean {
  return w.dynamic && (w.lead === true || (w.value === DYNAMIC_CHAR && w.why === undefined));
}

/** A write whose file is known only at run time, with the reason. */
function unknownWrite(why: string): ShellWord {
  return { value: DYNAMIC_CHAR, dynamic: true, glob: false, why };
}

/** True when rsync reads `v` as a remote path (`host:path`, `user@host::module`, `rsync://…`): a colon before any slash. */
function rsyncRemote(v: string): boolean {
  const colon = v.indexOf(':');
  if (colon === -1) return false;
  const slash = v.indexOf('/');
  return slash === -1 || colon < slash;
}

/**
 * Files a program writes through its operands: the destination of `cp`, `mv`, `install`, `ln`
 * and `rsync` (with every source's basename when it is a directory, `-t DIR` /
 * `--target-directory=DIR` included), `mv`'s sources (they disappear), `tee`'s files, `dd of=`,
 * `truncate`, `touch`, `mkdir`, `rm`, `rmdir`, `unlink`, `shred`, `chmod`, `chown` and `chgrp`
 * operands. Options follow GNU getopt_long (clusters, attached values, abbreviations, options
 * after operands, `--`). An option rein does not know, or a word known only at run time that may
 * be an option, makes the writes unknown (asked about).
 */
export function operandWrites(name: string, words: readonly ShellWord[], assigns: readonly ShellWord[] = []): OperandWrites | undefined {
  if (name === 'tar') return tarWrites(words);
  if (name === 'unzip') return unzipWrites(words);
  if (name === 'git') return gitApplyWrites(words, assigns);
  // GNU patch takes the names it writes from the patch (and its `Index:`, `---`/`+++` lines,
  // `-p`, `-d`, `-o`, `-B`...): files rein does not read. Only a dry run writes nothing.
  if (name === 'patch') return words.some((w) => w.value === '--dry-run') ? undefined : { files: [unknownWrite('the files a patch names, which rein does not read')], placed: [] };
  if (name === 'dd') {
    const files = words.slice(1).filter((w) => w.value.startsWith('of=') || mayBeOption(w)).map((w) => (w.value.startsWith('of=') ? { ...w, value: w.value.slice(3) } : unknownWrite('a dd operand known only at run time'))).filter((w) => w.dynamic || !NOWHERE.has(w.value));
    return files.length ? { files, placed: [] } : undefined;
  }
  const key = name === 'chgrp' ? 'chown' : name;
  const spec = Object.hasOwn(OPERAND_SPECS, key) ? OPERAND_SPECS[key]! : undefined;
  if (!spec) return undefined;
  const s = scanOperands(words, spec, name === 'chmod');
  const has = (...keys: string[]) => keys.some((k) => s.opts.has(k));
  if (s.doubt) return { files: [unknownWrite(`files rein cannot tell apart from ${name}'s options (${s.doubt})`)], placed: [] };
  const ops = s.operands;
  switch (name) {
    case 'tee': case 'truncate': case 'touch': case 'mkdir': case 'rmdir': case 'unlink': case 'shred':
      return { files: ops.filter((w) => w.dynamic || !NOWHERE.has(w.value)), placed: [] };
    case 'uniq': {
      const out = ops[1];
      return out && (out.dynamic || !NOWHERE.has(out.value)) ? { files: [out], placed: [] } : undefined;
    }
    case 'split': {
      // The pieces are PREFIX (default `x`) plus generated suffixes (`xaa`, `xab`, … or what -a,
      // -d, -x and --additional-suffix make), so any name starting with PREFIX may be written:
      // known only at run time unless PREFIX is a plain name in a folder (then the folder's files).
      if (has('filter')) return undefined;
      const prefix = ops[1] ?? { value: 'x', dynamic: false, glob: false };
      if (prefix.dynamic || prefix.glob || prefix.value.endsWith('/')) return { files: [unknownWrite('the pieces split names after a prefix known only at run time')], placed: [] };
      return { files: [], placed: [{ dest: dirWord(prefix), sources: [], into: 'file', tree: true, splitPrefix: prefix.value }] };
    }
    case 'rm': {
      const tree = has('r', 'R', 'recursive');
      return { files: tree ? [] : ops, placed: tree ? ops.map((dest) => ({ dest, sources: [], into: 'file' as const, tree: true })) : [] };
    }
    case 'chmod': case 'chown': case 'chgrp': {
      // The first operand is the mode or owner, unless --reference gives it.
      const files = has('reference') ? ops : ops.slice(1);
      const tree = has('R', 'recursive');
      // chown/chgrp -R -L follow every link to a directory they meet, out of the tree rein lists.
      if (tree && has('L')) return { files: [unknownWrite(`the files ${name} -R -L reaches through the links it follows`)], placed: [] };
      return { files: tree ? [] : files, placed: tree ? files.map((dest) => ({ dest, sources: [], into: 'file' as const, tree: true, modes: true })) : [] };
    }
    default: break;
  }
  // cp, mv, install, ln, rsync: a destination and sources.
  const target = s.opts.get('t') ?? s.opts.get('target-directory');
  const files: ShellWord[] = [];
  if (name === 'install' && has('d', 'directory')) return { files: ops, placed: [] };
  if (name === 'rsync') {
    for (const [k, vs] of s.opts) if (RSYNC_WRITTEN.has(k)) files.push(...vs);
    // --files-from names the files to copy in another file (`.git/config` lands at dest/.git/config).
    if (has('files-from')) files.push(unknownWrite('the files rsync --files-from lists, which rein does not read'));
  }
  let dest: ShellWord | undefined;
  let sources: ShellWord[];
  let into: PlacedWrite['into'] = has('T', 'no-target-directory') ? 'file' : 'auto';
  if (target) {
    dest = target[target.length - 1]!;
    sources = ops;
    into = 'dir';
  } else if (name === 'ln' && ops.length === 1) {
    // `ln TARGET`: a link named after TARGET in the current directory.
    dest = { value: '.', dynamic: false, glob: false };
    sources = ops;
    into = 'dir';
  } else {
    if (ops.length < 2) return files.length ? { files, placed: [] } : undefined;
    dest = ops[ops.length - 1]!;
    sources = ops.slice(0, -1);
    if (sources.length > 1 && into === 'auto') into = 'dir';
  }
  if (name === 'rsync') {
    // A remote destination may be this machine (`rsync a localhost:.bashrc` writes ~/.bashrc over
    // ssh); a remote source's names, trees and patterns are expanded by the remote side
    // (`rsync -a h:x/ .`, `rsync h:'.m*' .` may land `./.mcp.json`). Neither is known here.
    if (!dest.dynamic && rsyncRemote(dest.value)) return { files: [...files, unknownWrite(`${dest.value}, a path on another host (which may be this one)`)], placed: [] };
    const remote = sources.find((w) => !w.dynamic && rsyncRemote(w.value));
    if (remote) return { files: [...files, unknownWrite(`the files ${remote.value} names on another host, which land in ${dest.value}`)], placed: [] };
  }
  // mv (and rsync --remove-source-files) takes its sources away: removing a file is writing it.
  if (name === 'mv' || (name === 'rsync' && has('remove-source-files'))) files.push(...sources);
  const tree = name === 'mv' || (name === 'cp' && has('r', 'R', 'a', 'recursive', 'archive')) || (name === 'rsync' && has('r', 'a', 'recursive', 'archive', 'd', 'dirs'));
  const placed: PlacedWrite = { dest, sources, into, tree };
  // rsync --delete (and its variants) removes whatever in the destination the sources lack:
  // `rsync -a --delete src/ .` removes the project's .git/, as `rm -r` of the destination would.
  const removal: PlacedWrite[] = name === 'rsync' && [...s.opts.keys()].some((k) => k.startsWith('delete')) ? [{ dest, sources: [], into: 'file', tree: true }] : [];
  if (name === 'cp' && has('parents')) placed.parents = true;
  // Backups (coreutils "Backup options"; a suffix alone turns them on). rsync's -b uses its own
  // --suffix (default `~`) and --backup-dir, listed above.
  if (name !== 'rsync' && has('b', 'backup', 'S', 'suffix')) {
    const suffix = (s.opts.get('S') ?? s.opts.get('suffix'))?.at(-1);
    placed.backup = suffix ? { suffix: suffix.value } : {};
  } else if (name === 'rsync' && has('b', 'backup') && !has('backup-dir')) placed.backup = { suffix: s.opts.get('suffix')?.at(-1)?.value ?? '~' };
  // cp -L, rsync -L/-k/--copy-unsafe-links: links inside a copied tree are followed, so what lands
  // is whatever they lead to (outside the tree rein lists, protected names included).
  if ((name === 'cp' && has('L', 'dereference')) || (name === 'rsync' && has('L', 'copy-links', 'k', 'copy-dirlinks', 'copy-unsafe-links'))) placed.followsLinks = true;
  if (name === 'rsync') placed.slashMeansContent = true;
  if (name === 'ln') placed.links = !has('s', 'symbolic') ? 'hard' : has('r', 'relative') ? 'relative' : 'symbolic';
  if (name === 'cp' && has('l', 'link')) placed.links = 'hard';
  if (name === 'cp' && has('s', 'symbolic-link')) placed.links = 'symbolic';
  // ln -n replaces a link to a directory instead of writing into the directory.
  if (name === 'ln' && has('n', 'no-dereference')) files.push(dest);
  return { files, placed: [placed, ...removal] };
}

// ---------------------------------------------------------------- archives

/**
 * GNU tar 1.34 options ("Option summary" in the GNU tar manual,
 * https://www.gnu.org/software/tar/manual/html_section/All-Options.html) that leave the names an
 * extraction writes as the archive lists them (leading `/` removed, members with `..` skipped):
 * long name → takes a value (1), no value (0), an optional value given only with `=` (2). An
 * option not listed here (`--transform`, `--absolute-names`, `--one-top-level`, ...) makes the
 * written files unknown.
 */
const TAR_LONG: Readonly<Record<string, 0 | 1 | 2>> = {
  extract: 0, get: 0, list: 0, create: 0, append: 0, update: 0, concatenate: 0, catenate: 0, diff: 0, compare: 0, delete: 0,
  file: 1, directory: 1, verbose: 0, gzip: 0, gunzip: 0, ungzip: 0, bzip2: 0, xz: 0, lzma: 0, lzip: 0, lzop: 0, zstd: 0,
  'auto-compress': 0, 'same-permissions': 0, 'preserve-permissions': 0, 'no-same-permissions': 0, 'same-owner': 0,
  'no-same-owner': 0, 'numeric-owner': 0, 'keep-old-files': 0, 'skip-old-files': 0, 'keep-newer-files': 0, overwrite: 0,
  'overwrite-dir': 0, 'no-overwrite-dir': 0, touch: 0, 'unlink-first': 0, 'to-stdout': 0, wildcards: 0, 'no-wildcards': 0,
  'wildcards-match-slash': 0, 'no-wildcards-match-slash': 0, anchored: 0, 'no-anchored': 0, 'ignore-case': 0,
  'no-ignore-case': 0, exclude: 1, 'exclude-from': 1, 'exclude-vcs': 0, 'exclude-caches': 0, 'strip-components': 1,
  warning: 1, 'blocking-factor': 1, 'record-size': 1, format: 1, 'force-local': 0, totals: 2, 'show-transformed-names': 0,
  'quoting-style': 1, 'no-recursion': 0, recursion: 0, null: 0, 'files-from': 1, 'one-file-system': 0, 'ignore-zeros': 0,
  'delay-directory-restore': 0, 'no-delay-directory-restore': 0, 'preserve-order': 0, 'same-order': 0, sparse: 0,
  'keep-directory-symlink': 0, 'ignore-failed-read': 0, help: 0, version: 0,
};
/** tar's short options with the same meanings: letter → takes a value. */
const TAR_SHORT: Readonly<Record<string, boolean>> = {
  x: false, t: false, c: false, r: false, u: false, A: false, d: false, v: false, z: false, j: false, J: false, a: false,
  Z: false, p: false, o: false, k: false, m: false, s: false, U: false, O: false, w: false, f: true, C: true, T: true,
  X: true, b: true, H: true,
};
const TAR_CREATE = new Set(['c', 'r', 'u', 'A', 'create', 'append', 'update', 'concatenate', 'catenate', 'delete']);
const TAR_EXTRACT = new Set(['x', 'extract', 'get']);

/**
 * What `tar` writes: on extraction, every member of the archive under the `-C` directory (a
 * PlacedWrite with `archive`, listed when the call is judged); on creation or update, the archive
 * itself. Old-style clusters (`tar xzf a.tgz`), dashed clusters, attached values and unique
 * long-option prefixes are read as tar reads them. Undefined when tar only reads (`-t`, `-d`).
 */
function tarWrites(words: readonly ShellWord[]): OperandWrites | undefined {
  const opts: { key: string; value?: ShellWord }[] = [];
  const operands: ShellWord[] = [];
  let doubt: string | undefined;
  const short = (letters: string, next: () => ShellWord | undefined) => {
    for (let k = 0; k < letters.length; k++) {
      const l = letters[k]!;
      if (!Object.hasOwn(TAR_SHORT, l)) { doubt ??= `-${l}`; continue; }
      if (!TAR_SHORT[l]) { opts.push({ key: l }); continue; }
      const rest = letters.slice(k + 1);
      opts.push({ key: l, value: rest ? { value: rest, dynamic: false, glob: false } : next() });
      return;
    }
  };
  let i = 1;
  const nextWord = () => words[++i];
  // Old style: the first word is a cluster of letters without a dash, whose values follow in order.
  const first = words[1];
  if (first && !first.dynamic && /^[A-Za-z]+$/.test(first.value)) {
    const pending: string[] = [];
    for (const l of first.value) {
      if (!Object.hasOwn(TAR_SHORT, l)) doubt ??= l;
      else if (TAR_SHORT[l]) pending.push(l);
      else opts.push({ key: l });
    }
    i = 1;
    for (const l of pending) opts.push({ key: l, value: words[++i] });
    i++;
  }
  let ended = false;
  for (; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (ended || w.dynamic || !v.startsWith('-') || v === '-') {
      if (w.dynamic && mayBeOption(w) && !ended) doubt ??= 'a word known only at run time';
      operands.push(w);
      continue;
    }
    if (v === '--') { ended = true; continue; }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = longName(eq === -1 ? v.slice(2) : v.slice(2, eq), TAR_LONG);
      if (!name) { doubt ??= v; continue; }
      const kind = TAR_LONG[name]!;
      if (kind === 1) opts.push({ key: name, value: eq === -1 ? nextWord() : { ...w, value: v.slice(eq + 1) } });
      else if (kind === 0 && eq !== -1) doubt ??= v;
      else opts.push({ key: name });
      continue;
    }
    short(v.slice(1), nextWord);
  }
  const keys = new Set(opts.map((o) => o.key));
  const extract = [...keys].some((k) => TAR_EXTRACT.has(k));
  const create = [...keys].some((k) => TAR_CREATE.has(k));
  if (!extract && !create) return undefined;
  if (doubt) return { files: [unknownWrite(`the files tar writes with ${JSON.stringify(doubt)}, an option rein does not know`)], placed: [] };
  const last = (...ks: string[]) => opts.filter((o) => ks.includes(o.key)).map((o) => o.value).at(-1);
  const file = last('f', 'file');
  if (create) {
    if (!file) return undefined; // no -f: the archive goes to standard output
    return { files: file.dynamic || !NOWHERE.has(file.value) ? [file] : [], placed: [] };
  }
  if (keys.has('O') || keys.has('to-stdout')) return undefined;
  if (!file || file.value === '-' || file.dynamic) return { files: [unknownWrite('the members of an archive tar reads from standard input or from a file known only at run time')], placed: [] };
  const dirs = opts.filter((o) => o.key === 'C' || o.key === 'directory');
  if (dirs.length > 1) return { files: [unknownWrite('the files tar extracts with several -C directories')], placed: [] };
  const dest = dirs[0]?.value ?? { value: '.', dynamic: false, glob: false };
  const stripWord = last('strip-components');
  const strip = stripWord ? Number(stripWord.value) : 0;
  if (!Number.isInteger(strip) || strip < 0) return { files: [unknownWrite('the files tar extracts with --strip-components known only at run time')], placed: [] };
  return { files: [], placed: [{ dest, sources: [], into: 'dir', tree: false, archive: { tool: 'tar', file, strip } }] };
}

/**
 * What `unzip` writes (Info-ZIP UnZip 6.0, unzip(1)): every member of the archive under `-d DIR`
 * (basenames with `-j`), listed when the call is judged. Listing, testing and piping modes
 * (`-l`, `-t`, `-v`, `-Z`, `-p`, `-c`, `-z`) write nothing. Options other than those below
 * (`-:` keeps `..`, `-L` changes the names' case, ...) make the written files unknown.
 */
function unzipWrites(words: readonly ShellWord[]): OperandWrites | undefined {
  const flags = new Set<string>();
  let dest: ShellWord | undefined;
  let file: ShellWord | undefined;
  let doubt: string | undefined;
  let excluding = false;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (!w.dynamic && v.startsWith('-') && v.length > 1) {
      excluding = false;
      for (let k = 1; k < v.length; k++) {
        const l = v[k]!;
        if (l === 'd') { dest = k + 1 < v.length ? { ...w, value: v.slice(k + 1) } : words[++i]; break; }
        if (l === 'x') { excluding = true; continue; }
        if (l === 'P' || l === 'O' || l === 'I') { if (k + 1 === v.length) i++; break; }
        if ('ltvZpcz'.includes(l)) return undefined;
        if (!'onqufjaCDKXb'.includes(l)) doubt ??= `-${l}`;
        flags.add(l);
      }
      continue;
    }
    if (w.dynamic && mayBeOption(w)) doubt ??= 'a word known only at run time';
    if (!file) file = w;
    else if (!excluding && w.dynamic) { /* a member to extract: a subset of the archive */ }
  }
  if (!file) return undefined;
  if (doubt) return { files: [unknownWrite(`the files unzip writes with ${JSON.stringify(doubt)}, an option rein does not know`)], placed: [] };
  if (file.dynamic || file.value === '-') return { files: [unknownWrite('the members of an archive known only at run time')], placed: [] };
  return { files: [], placed: [{ dest: dest ?? { value: '.', dynamic: false, glob: false }, sources: [], into: 'dir', tree: false, archive: { tool: 'unzip', file, junkPaths: flags.has('j') } }] };
}

/**
 * `git apply` options (git-apply(1)) that keep the written paths those `git apply --numstat`
 * lists for the same options; a listing-only run (`--stat`, `--numstat`, `--summary`, `--check`
 * without `--apply`) or `--cached` (the index only) writes no working-tree file.
 */
const GIT_APPLY_PATHS = /^(-p\d+|--directory=.+|-R|--reverse|--include=.+|--exclude=.+)$/;
const GIT_APPLY_FLAGS = /^(-v|--verbose|-q|--quiet|--index|-3|--3way|--reject|--whitespace=\w+|--recount|--unidiff-zero|--allow-empty|--apply|--no-add|--inaccurate-eof|--ignore-space-change|--ignore-whitespace|-C\d+)$/;

/** The git commands whose writes rein works out (the others write only inside `.git`, or are not read). */
const GIT_DATA_WRITERS: ReadonlySet<string> = new Set(['apply', 'checkout', 'switch', 'restore', 'clone']);

/**
 * What `git apply PATCH…` writes: the paths each patch names (after `-p`, `--directory`,
 * `--include`/`--exclude`), listed when the call is judged. A patch from standard input, an
 * option not listed above, git's global options before the command (`-C dir`, `-c k=v`,
 * `--git-dir`, `--work-tree`: they change the repository, the folder or the configuration git
 * works with), a `GIT_*` variable in `assigns` (the assignments the command runs with:
 * `GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`…) or a command name known only at run time make
 * the paths unknown.
 */
function gitApplyWrites(words: readonly ShellWord[], assigns: readonly ShellWord[]): OperandWrites | undefined {
  let at = 1;
  for (; at < words.length && !words[at]!.dynamic && words[at]!.value.startsWith('-'); at++) {
    if (GLOBAL_WITH_VALUE.has(words[at]!.value)) at++;
  }
  const word = words[at];
  if (!word) return undefined;
  if (word.dynamic) return { files: [unknownWrite('the files a git command known only at run time writes')], placed: [] };
  const sub = word.value;
  if (!GIT_DATA_WRITERS.has(sub)) return undefined;
  if (at > 1) return { files: [unknownWrite(`the files git ${sub} writes with ${words[1]!.value} before the command, which changes where git works`)], placed: [] };
  const env = assigns.find((a) => /^GIT_/.test(a.value));
  if (env) return { files: [unknownWrite(`the files git ${sub} writes with ${env.value.split('=')[0]} set, which changes where git works`)], placed: [] };
  if (sub === 'checkout' || sub === 'switch' || sub === 'restore') return gitTreeWrites(words, sub);
  if (sub === 'clone') return gitCloneWrites(words);
  const args: string[] = [];
  const patches: ShellWord[] = [];
  let listing = false;
  let apply = false;
  for (let i = 2; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (w.dynamic) { if (mayBeOption(w)) return { files: [unknownWrite('a git apply argument known only at run time')], placed: [] }; patches.push(w); continue; }
    if (v === '-p' || v === '--directory' || v === '--include' || v === '--exclude') {
      const next = words[++i];
      if (!next || next.dynamic) return { files: [unknownWrite(`git apply ${v} with a value known only at run time`)], placed: [] };
      args.push(v === '-p' ? `-p${next.value}` : `${v}=${next.value}`);
      continue;
    }
    if (GIT_APPLY_PATHS.test(v)) { args.push(v); continue; }
    if (/^(--stat|--numstat|--summary|--check)$/.test(v)) { listing = true; continue; }
    if (v === '--cached') return undefined;
    if (v === '--apply') apply = true;
    if (GIT_APPLY_FLAGS.test(v)) continue;
    if (v.startsWith('-') && v !== '-') return { files: [unknownWrite(`the files git apply writes with ${v}, an option rein does not know`)], placed: [] };
    patches.push(w);
  }
  if (listing && !apply) return undefined;
  if (!patches.length || patches.some((p) => p.value === '-')) return { files: [unknownWrite('the files a patch from standard input names')], placed: [] };
  return { files: [], placed: patches.map((file) => ({ dest: { value: '.', dynamic: false, glob: false }, sources: [], into: 'dir' as const, tree: false, archive: { tool: 'git-apply' as const, file, args } })) };
}

/** git clone options (git-clone(1)) that take the next word as a value and leave where it writes alone. */
const GIT_CLONE_VALUE = new Set(['-o', '--origin', '-b', '--branch', '--depth', '--shallow-since', '--shallow-exclude', '-j', '--jobs', '--filter', '--reference', '--reference-if-able', '--bundle-uri',
  // Risky options (options.ts): a rule must write them out; where the clone writes stays the same.
  '--template', '-c', '--config', '-u', '--upload-pack', '--server-option', '--separate-git-dir']);
const GIT_CLONE_FLAGS = /^(-q|--quiet|-v|--verbose|--progress|--no-progress|-n|--no-checkout|--bare|--mirror|-l|--local|--no-hardlinks|-s|--shared|--dissociate|--single-branch|--no-single-branch|--no-tags|--tags|--shallow-submodules|--no-shallow-submodules|--sparse|--reject-shallow|--no-reject-shallow|--also-filter-submodules|--remote-submodules|--no-remote-submodules)$/;

/**
 * What `git clone REPO [DIR]` writes: the whole tree of DIR (by default the repository's
 * "humanish" name: its last path component without `.git`), as `rm -r` of it would touch, so a
 * DIR that is or leads through a link out of the project, or a protected name, asks. Options that
 * write elsewhere (`--separate-git-dir`) or that rein does not know make the files unknown.
 */
function gitCloneWrites(words: readonly ShellWord[]): OperandWrites | undefined {
  const positionals: ShellWord[] = [];
  const files: ShellWord[] = [];
  const placed: PlacedWrite[] = [];
  /** `--separate-git-dir DIR`: the repository itself goes to DIR. */
  const gitDir = (w: ShellWord | undefined) => { if (w) { files.push(w); placed.push({ dest: w, sources: [], into: 'file', tree: true }); } };
  for (let i = 2; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (w.dynamic) { if (mayBeOption(w)) return { files: [unknownWrite('a git clone argument known only at run time')], placed: [] }; positionals.push(w); continue; }
    if (v === '--') { positionals.push(...words.slice(i + 1)); break; }
    if (GIT_CLONE_VALUE.has(v)) { if (v === '--separate-git-dir') gitDir(words[i + 1]); i++; continue; }
    if (/^--[a-z-]+=/.test(v) && GIT_CLONE_VALUE.has(v.slice(0, v.indexOf('=')))) { if (v.startsWith('--separate-git-dir=')) gitDir({ ...w, value: v.slice(19) }); continue; }
    if (GIT_CLONE_FLAGS.test(v) || /^--recurse-submodules(=.*)?$/.test(v)) continue;
    if (v.startsWith('-')) return { files: [unknownWrite(`the files git clone writes with ${v}, an option rein does not know`)], placed: [] };
    positionals.push(w);
  }
  const [repo, dir] = positionals;
  if (!repo) return files.length ? { files, placed } : undefined;
  let dest = dir;
  if (!dest) {
    if (repo.dynamic) return { files: [unknownWrite('the folder git clone names after a repository known only at run time')], placed: [] };
    const humanish = repo.value.replace(/\/+$/, '').replace(/\/\.git$/, '').replace(/^.*[/:]/, '').replace(/\.(git|bundle)$/, '');
    dest = { value: humanish || '.', dynamic: false, glob: false };
  }
  return { files: [...files, dest], placed: [...placed, { dest, sources: [], into: 'file', tree: true }] };
}

/** Options of git checkout, switch and restore (git-checkout(1), git-switch(1), git-restore(1)) that take the next word as a value. */
const GIT_TREE_VALUE: Readonly<Record<string, ReadonlySet<string>>> = {
  checkout: new Set(['-b', '-B']),
  switch: new Set(['-c', '-C', '--create', '--force-create']),
  restore: new Set(['-s', '--source']),
};
/** Their options that change neither which files are written nor where from. */
const GIT_TREE_FLAGS = /^(-q|--quiet|-f|--force|--detach|-d|-t|--track|--track=\w+|--no-track|--progress|--no-progress|--guess|--no-guess|--discard-changes|--ignore-other-worktrees|-W|--worktree|--no-overlay|--overlay|--ignore-skip-worktree-bits|-l)$/;

/**
 * What `git checkout`, `git switch` and `git restore` write in the working tree: the files that
 * differ from the revision (or the index) they take files from, which rules.ts asks git for when
 * the call is judged. `git restore --staged` alone writes the index only; an option not listed
 * (`--orphan`, `--merge`, `--ours`, `--patch`, `--pathspec-from-file`, `--recurse-submodules`,
 * `--conflict`) makes the files unknown.
 */
function gitTreeWrites(words: readonly ShellWord[], sub: 'checkout' | 'switch' | 'restore'): OperandWrites | undefined {
  const positionals: string[] = [];
  const paths: string[] = [];
  let source: string | undefined;
  let staged = false;
  let worktree = false;
  let dashes = false;
  for (let i = 2; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (w.dynamic) return { files: [unknownWrite(`a git ${sub} argument known only at run time`)], placed: [] };
    if (dashes) { paths.push(v); continue; }
    if (v === '--') { dashes = true; continue; }
    if (GIT_TREE_VALUE[sub]!.has(v)) {
      const next = words[++i];
      if (!next || next.dynamic) return { files: [unknownWrite(`git ${sub} ${v} with a value known only at run time`)], placed: [] };
      if (sub === 'restore') source = next.value;
      continue;
    }
    if (sub === 'restore' && v.startsWith('--source=')) { source = v.slice(9); continue; }
    if (sub === 'restore' && (v === '-S' || v === '--staged')) { staged = true; continue; }
    if (v === '-W' || v === '--worktree') worktree = true;
    if (GIT_TREE_FLAGS.test(v)) continue;
    if (v.startsWith('-')) return { files: [unknownWrite(`the files git ${sub} writes with ${v}, an option rein does not know`)], placed: [] };
    positionals.push(v);
  }
  if (sub === 'restore' && staged && !worktree) return undefined;
  const dot: ShellWord = { value: '.', dynamic: false, glob: false };
  let gitTree: PlacedWrite['gitTree'];
  if (sub === 'restore') gitTree = { rev: source, paths: [...positionals, ...paths] };
  else if (sub === 'switch') gitTree = { rev: positionals.at(-1) ?? 'HEAD', paths: [] };
  else if (dashes) gitTree = { rev: positionals[0], paths };
  else gitTree = { revOrPath: positionals[0], paths: positionals.slice(1) };
  return { files: [], placed: [{ dest: dot, sources: [], into: 'dir', tree: false, gitTree }] };
}

// ---------------------------------------------------------------- script interpreters

/**
 * How an interpreter reads one option: `flag` (no value), `value` (a harmless value, attached or
 * the next word), `code` (the value is a program: risky at the value's word, so a rule covers it
 * only by writing that exact script), `risky` (loads code or writes files: risky at the option),
 * `riskyFlag` (no value, risky: an interactive prompt that reads code from standard input),
 * `rest`/`riskyRest` (an optional value attached to the letter: the rest of the word, perl's
 * `-i.bak`, `-l0`), `end` (a value after which options end: python `-m`), `codeEnd` (python `-c`).
 */
type InterpKind = 'flag' | 'value' | 'code' | 'risky' | 'riskyFlag' | 'rest' | 'riskyRest' | 'end' | 'codeEnd' | 'info';
// `info`: a flag after which the interpreter runs no program from standard input (`--version`, node `--test`).

interface InterpreterSpec {
  short: Readonly<Record<string, InterpKind>>;
  long: Readonly<Record<string, InterpKind>>;
  /** What a long option the table does not list is: risky, or (node, which has hundreds) a flag. */
  unknownLong: 'risky' | 'flag';
  /** Why each risky option is risky, by letter or name (a default otherwise). */
  why?: Readonly<Record<string, string>>;
  /** Short options never take their value attached: `-pe` is `-p -e` (node). */
  detached?: boolean;
}

/**
 * Sources: perlrun(1) https://perldoc.perl.org/perlrun; ruby(1) https://docs.ruby-lang.org/en/master/ruby/options_md.html;
 * python(1) "Command line and environment" https://docs.python.org/3/using/cmdline.html; node(1)
 * https://nodejs.org/api/cli.html; php(1) https://www.php.net/manual/en/features.commandline.options.php;
 * lua(1) https://www.lua.org/manual/5.4/lua.html#7, LuaJIT https://luajit.org/running.html.
 */
export const INTERPRETERS: Readonly<Record<string, InterpreterSpec>> = {
  perl: {
    short: {
      a: 'flag', c: 'flag', f: 'flag', g: 'flag', h: 'info', n: 'flag', p: 'flag', s: 'flag', S: 'riskyFlag', t: 'flag', T: 'flag', u: 'flag', U: 'flag', v: 'info', w: 'flag', W: 'flag', X: 'flag',
      e: 'code', E: 'code', M: 'risky', m: 'risky', I: 'risky', i: 'riskyRest', x: 'riskyRest', d: 'riskyRest', D: 'riskyRest', F: 'riskyRest', l: 'rest', '0': 'rest', C: 'rest', V: 'rest',
    },
    long: {},
    unknownLong: 'risky',
    why: { M: 'loads a module, and its text is perl code', m: 'loads a module, and its text is perl code', I: 'loads modules from another directory', i: 'edits the files in place (writes them)', x: 'runs a program found inside another file', d: 'runs the program under a debugger or a module', D: 'sets debugging flags', F: 'puts a pattern into the program', S: 'runs a program found on PATH' },
  },
  ruby: {
    short: {
      a: 'flag', c: 'flag', d: 'flag', h: 'info', l: 'flag', n: 'flag', p: 'flag', s: 'flag', S: 'riskyFlag', U: 'flag', v: 'info', w: 'flag', y: 'flag',
      e: 'code', r: 'risky', I: 'risky', C: 'risky', E: 'value', F: 'value', i: 'riskyRest', x: 'riskyRest', W: 'rest', K: 'rest', T: 'rest', '0': 'rest',
    },
    long: {
      help: 'info', version: 'info', copyright: 'info', verbose: 'flag', enable: 'value', disable: 'value', jit: 'flag', yjit: 'flag', 'external-encoding': 'value', 'internal-encoding': 'value', encoding: 'value', 'backtrace-limit': 'value', dump: 'value', parser: 'value',
    },
    unknownLong: 'risky',
    why: { r: 'loads a library', I: 'loads libraries from another directory', C: 'runs in another directory', i: 'edits the files in place (writes them)', x: 'runs a program found inside another file', S: 'runs a program found on PATH' },
  },
  python: {
    short: {
      b: 'flag', B: 'flag', d: 'flag', E: 'flag', h: 'info', '?': 'info', I: 'flag', O: 'flag', P: 'flag', q: 'flag', R: 'flag', s: 'flag', S: 'flag', u: 'flag', v: 'flag', V: 'info', x: 'flag',
      c: 'codeEnd', m: 'end', i: 'riskyFlag', W: 'risky', X: 'risky',
    },
    long: { help: 'info', 'help-env': 'info', 'help-xoptions': 'info', 'help-all': 'info', version: 'info', 'check-hash-based-pycs': 'value' },
    unknownLong: 'risky',
    why: { i: 'reads more code from standard input after the script', W: 'names a warning category, which python imports', X: 'sets an implementation option (pycache_prefix writes elsewhere)' },
  },
  node: {
    short: { e: 'code', p: 'code', r: 'risky', i: 'riskyFlag', v: 'info', h: 'info', c: 'flag', C: 'value' },
    long: {
      eval: 'code', print: 'code', require: 'risky', import: 'risky', loader: 'risky', 'experimental-loader': 'risky', 'env-file': 'risky', 'env-file-if-exists': 'risky',
      interactive: 'riskyFlag', inspect: 'riskyFlag', 'inspect-brk': 'riskyFlag', 'inspect-wait': 'riskyFlag', 'inspect-port': 'risky', 'debug-port': 'risky',
      'openssl-config': 'risky', 'redirect-warnings': 'risky', 'cpu-prof-dir': 'risky', 'heap-prof-dir': 'risky', 'diagnostic-dir': 'risky', 'report-dir': 'risky', 'report-directory': 'risky', 'report-filename': 'risky',
      'experimental-policy': 'risky', 'test-reporter-destination': 'risky', run: 'risky', 'localstorage-file': 'risky', 'snapshot-blob': 'risky', 'build-snapshot': 'riskyFlag',
      version: 'info', help: 'info', 'v8-options': 'info', check: 'flag', test: 'info',
      'input-type': 'value', title: 'value', conditions: 'value', 'test-reporter': 'value', 'test-name-pattern': 'value', 'test-concurrency': 'value', 'watch-path': 'value', 'dns-result-order': 'value', 'icu-data-dir': 'value',
      'unhandled-rejections': 'value', 'disable-warning': 'value', 'experimental-default-type': 'value', 'stack-trace-limit': 'value', 'max-http-header-size': 'value',
    },
    unknownLong: 'flag',
    detached: true,
    why: { r: 'loads other code first', i: 'reads code from standard input', inspect: 'opens a debugger port that runs any code sent to it', 'inspect-brk': 'opens a debugger port that runs any code sent to it', 'inspect-wait': 'opens a debugger port that runs any code sent to it', run: 'runs a package.json script', 'build-snapshot': 'writes a snapshot file' },
  },
  php: {
    short: {
      a: 'riskyFlag', C: 'flag', e: 'flag', h: 'info', H: 'flag', i: 'info', l: 'flag', m: 'info', n: 'flag', q: 'flag', s: 'flag', v: 'info', w: 'flag',
      r: 'code', B: 'code', R: 'code', E: 'code', f: 'end', F: 'value', t: 'value', d: 'risky', c: 'risky', z: 'risky', S: 'risky',
    },
    long: {
      interactive: 'riskyFlag', 'no-chdir': 'flag', 'no-header': 'flag', 'no-php-ini': 'flag', info: 'info', help: 'info', version: 'info', modules: 'info', syntax_check: 'flag', 'syntax-highlight': 'flag', 'strip': 'flag', 'hide-args': 'flag', ini: 'info',
      run: 'code', 'process-begin': 'code', 'process-code': 'code', 'process-end': 'code', file: 'end', 'process-file': 'value', docroot: 'value',
      define: 'risky', 'php-ini': 'risky', 'zend-extension': 'risky', server: 'risky', rf: 'value', rc: 'value', re: 'value', rz: 'value', ri: 'value',
    },
    unknownLong: 'risky',
    why: { a: 'reads code from standard input', d: 'sets an ini entry (auto_prepend_file runs another file)', c: 'reads another php.ini', z: 'loads a Zend extension', S: 'starts a web server that runs the files it serves' },
  },
  lua: {
    short: { e: 'code', l: 'risky', i: 'riskyFlag', v: 'info', E: 'flag', W: 'flag', b: 'risky', j: 'risky', O: 'rest' },
    long: {},
    unknownLong: 'risky',
    why: { l: 'loads a module', i: 'reads code from standard input', b: 'saves or lists bytecode files', j: 'runs a LuaJIT control command' },
  },
};

/** The interpreter a command name runs, for versioned and alternative names (`python3.12`, `pypy3`, `perl5.36`, `nodejs`, `luajit`). */
export function interpreterOf(name: string): string | undefined {
  const m = /^(python|pypy|perl|ruby|node|nodejs|php|lua|luajit)(\d+(\.\d+)*)?$/.exec(name);
  if (!m) return undefined;
  const base = m[1]!;
  return base === 'pypy' ? 'python' : base === 'nodejs' ? 'node' : base === 'luajit' ? 'lua' : base;
}

interface InterpreterScan {
  risks: Finding[];
  /** Index of the first word after the options: the script (when no code option gave one), then its arguments. */
  rest: number;
  /** True when the program came from a code option (`-e`, `-c`, `-r`): every word from `rest` is an argument. */
  coded: boolean;
  /** perl/ruby `-i`: the argument files are edited in place. */
  inPlace: boolean;
}

/** Reads an interpreter's options the way it does, up to its script. */
function scanInterpreter(words: readonly ShellWord[], spec: InterpreterSpec, tool: string): InterpreterScan {
  const risks: Finding[] = [];
  const why = (key: string, fallback: string) => spec.why?.[key] ?? fallback;
  let coded = false;
  let info = false;
  let inPlace = false;
  const code = (w: ShellWord | undefined, index: number) => {
    coded = true;
    if (!w) return;
    risks.push({ index, text: w.value.replaceAll(DYNAMIC_CHAR, '…'), why: `is ${tool} code given on the command line, which a rule covers only by writing it out` });
  };
  let i = 1;
  for (; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (w.dynamic && w.lead) { risks.push({ index: i, text: v.replaceAll(DYNAMIC_CHAR, '…'), why: 'is known only at run time and may be an option that runs code' }); continue; }
    if (w.dynamic || !v.startsWith('-') || v === '-') break;
    if (v === '--') { i++; break; }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = eq === -1 ? v.slice(2) : v.slice(2, eq);
      const kind = Object.hasOwn(spec.long, name) ? spec.long[name]! : spec.unknownLong === 'risky' ? 'riskyFlag' : 'flag';
      if (!Object.hasOwn(spec.long, name) && spec.unknownLong === 'risky') { risks.push({ index: i, text: v, why: `is a ${tool} option rein does not know to be harmless` }); continue; }
      const takes = kind === 'value' || kind === 'code' || kind === 'risky' || kind === 'end' || kind === 'codeEnd';
      const valueIndex = eq === -1 && takes ? i + 1 : i;
      const value = eq === -1 ? (takes ? words[i + 1] : undefined) : { ...w, value: v.slice(eq + 1) };
      if (kind === 'info') info = true;
      if (kind === 'code' || kind === 'codeEnd') code(value, valueIndex);
      if (kind === 'risky' || kind === 'riskyFlag') risks.push({ index: i, text: v, why: why(name, 'loads or runs other code, or writes files') });
      if (eq === -1 && takes) i++;
      if (kind === 'end' || kind === 'codeEnd') { i++; coded = true; break; }
      continue;
    }
    // A cluster of one-letter options (`-pi.bak`, `-ne`, `-Mstrict`).
    let ended = false;
    if (spec.detached) {
      // `node -pe CODE`: every letter is an option; one value, the next word, serves the cluster.
      let takes = false;
      let isCode = false;
      for (const c of v.slice(1)) {
        const kind = Object.hasOwn(spec.short, c) ? spec.short[c]! : undefined;
        if (!kind) { risks.push({ index: i, text: v, why: `is a ${tool} option rein does not know to be harmless (-${c})` }); continue; }
        if (kind === 'info') info = true;
        if (kind === 'riskyFlag' || kind === 'risky') risks.push({ index: i, text: v, why: why(c, 'loads or runs other code, or writes files') });
        if (kind === 'code' || kind === 'codeEnd') isCode = true;
        if (kind !== 'flag' && kind !== 'info' && kind !== 'riskyFlag') takes = true;
      }
      if (isCode) code(words[i + 1], i + 1);
      if (takes) i++;
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const c = v[k]!;
      const kind = Object.hasOwn(spec.short, c) ? spec.short[c]! : undefined;
      if (!kind) { risks.push({ index: i, text: v, why: `is a ${tool} option rein does not know to be harmless (-${c})` }); break; }
      if (kind === 'flag') continue;
      if (kind === 'info') { info = true; continue; }
      if (kind === 'riskyFlag') { risks.push({ index: i, text: v, why: why(c, 'reads code from standard input') }); continue; }
      const rest = v.slice(k + 1);
      if (kind === 'rest' || kind === 'riskyRest') {
        if (c === 'i') inPlace = true;
        if (kind === 'riskyRest') risks.push({ index: i, text: v, why: why(c, 'loads or runs other code, or writes files') });
        break;
      }
      // The option takes a value: the rest of the word, or the next word.
      const attached = rest !== '';
      const value = attached ? { ...w, value: rest } : words[i + 1];
      const valueIndex = attached ? i : i + 1;
      if (kind === 'code' || kind === 'codeEnd') code(value, valueIndex);
      else if (kind === 'risky') risks.push({ index: i, text: v, why: why(c, 'loads or runs other code, or writes files') });
      if (!attached) i++;
      if (kind === 'end' || kind === 'codeEnd') { ended = true; coded = true; }
      break;
    }
    if (ended) { i++; break; }
  }
  // No program named and none given: the interpreter reads its program from standard input
  // (`python3 <<EOF`, `echo … | perl`), which no rule's text shows.
  const script = words[i];
  const stdin = script === undefined ? !coded && !info : !coded && !script.dynamic && (script.value === '-' || /^\/(dev\/(stdin|fd\/)|proc\/(self|\d+)\/fd\/)/.test(script.value));
  if (stdin) risks.push({ index: words.length, text: `${words[0]!.value} reading its program from standard input`, why: 'runs code the command line does not show' });
  return { risks, rest: i, coded, inPlace };
}

/** The risky options and inline programs of a script interpreter (perl, ruby, python, node, php, lua): `words[0]` is the interpreter. */
export function interpreterRisks(words: readonly ShellWord[]): Finding[] {
  const tool = interpreterOf(commandNameOf(words[0]));
  const spec = tool ? INTERPRETERS[tool] : undefined;
  return spec ? scanInterpreter(words, spec, tool!).risks : [];
}

/** The files `perl -i` / `ruby -i` edit in place: the arguments after the program. */
function inPlaceEdits(words: readonly ShellWord[], tool: string): ShellWord[] {
  const s = scanInterpreter(words, INTERPRETERS[tool]!, tool);
  if (!s.inPlace) return [];
  return words.slice(s.coded ? s.rest : s.rest + 1);
}

function commandNameOf(w: ShellWord | undefined): string {
  const v = w?.value ?? '';
  return v.slice(v.lastIndexOf('/') + 1);
}
