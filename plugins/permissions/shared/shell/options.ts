/**
 * Options that make a common tool run another program, or change what it runs, where. A prefix
 * rule such as `Bash(npm test:*)` matches any arguments after its prefix, so in Claude Code it
 * also allows `npm test --script-shell=./evil.sh` (npm then runs the script through that file)
 * and `npm test --prefix=../other` (another project's test script). rein does not let the `*` or
 * `:*` tail of an allow rule cover these options: the option must be written in the rule's own
 * text (`Bash(npm test --prefix=packages/a:*)`), or the call is not allowed by that rule.
 *
 * Sources for each option: the tools' manuals (npm-config(7) `script-shell`, `prefix`,
 * `workspace`, `node-options`, `userconfig`; git(1) `-c`, `--exec-path`, git-fetch(1)
 * `--upload-pack`, git-push(1) `--receive-pack`, git-rebase(1) `--exec`, git-grep(1)
 * `--open-files-in-pager`; make(1) `-f`, `--eval` and variable overrides; tar(1)
 * `--to-command`, `--use-compress-program`; rsync(1) `--rsh`; ssh_config(5) `ProxyCommand` through
 * `-o`; sort(1) `--compress-program`; rg(1) `--pre`; curl(1) `--output`, `--config`; wget(1)
 * `--execute`; zip(1) `--unzip-command`; go help build `-toolexec`, `-exec`; node(1) `--require`,
 * `--import`; pytest `-p`, `-o`).
 */
import { awkRisks, interpreterOf, interpreterRisks, jqRisks, sedRisks } from './programs.js';
import { DYNAMIC, type ShellWord } from './words.js';

/** One option (or group of spellings) of a tool. */
export interface OptionSpec {
  /** Long spellings without dashes (`script-shell`). Abbreviations count as well, as npm and git accept unambiguous ones. */
  long?: readonly string[];
  /** Short spellings with the dash (`-C`); also matched with the value attached (`-C../x`). */
  short?: readonly string[];
  /** The option takes a value (`--opt value` or `--opt=value`, `-o value` or `-ovalue`). Default true. */
  value?: boolean;
  /** The value is a directory or file: the option is risky only when the value leaves the working directories (or is known only at run time). */
  path?: boolean;
  /** Only after one of these subcommands (the first word that is not an option); `[]` for options before any subcommand. */
  subcommands?: readonly string[];
  /** Values that make the option harmless (`-o -` writes to stdout, `-o /dev/null` nowhere). */
  harmless?: readonly string[];
  /** Why it is risky, for messages. */
  why: string;
}

/** What rein knows about one tool's risky options. */
export interface ToolOptions {
  options: readonly OptionSpec[];
  /** Options before the subcommand that take a value (so the subcommand is found: `git -C dir status`). */
  globalWithValue?: readonly string[];
  /** Long options are written with one dash (`-toolexec`, Go's flag package; `--toolexec` works too). No clusters. */
  singleDashLong?: boolean;
  /** Long options must be spelled out (the tool does not accept abbreviations: Go, node, cargo, rg). */
  exactLong?: boolean;
  /** Options are whole words: no clusters of short options, no attached values (find). */
  wholeWords?: boolean;
  /** Options end at the first positional word (node, python: what follows belongs to the script). */
  stopAtPositional?: boolean;
  /** Subcommands (and sub-subcommands) whose words are a command to run (`git bisect run`, `git submodule foreach`). */
  runsCommand?: readonly (readonly string[])[];
  /** `NAME=value` arguments override variables that recipes run (make). */
  assignmentArgs?: boolean;
  /** Subcommands that change what later runs unless used only to read (`git config`); see `readOnly`. */
  writesConfig?: { subcommand: string; readOnly: readonly string[] };
  /** The tool runs a script language of its own (sed, awk, jq): its script and options are checked by this function instead (programs.ts). */
  program?: (words: readonly ShellWord[]) => RiskyOption[];
  /** The first positional word is a package or program whose own options are checked too (`npx prettier --plugin=…`). */
  runsPositional?: boolean;
}

const TO_STDOUT = ['-', '/dev/null', '/dev/stdout', '/dev/stderr'];

const NPM_RUNNERS: readonly OptionSpec[] = [
  { long: ['script-shell', 'shell'], why: 'runs scripts through another program' },
  { long: ['node-options'], why: 'makes node load other code' },
  { long: ['userconfig', 'globalconfig'], why: 'reads another config file, which can set script-shell' },
  { long: ['git', 'editor', 'browser', 'viewer', 'node-gyp', 'init-module', 'onload-script'], why: 'runs another program' },
  { long: ['registry'], why: 'installs packages from another registry' },
  { long: ['prefix', 'workspace'], short: ['-C', '-w'], path: true, why: 'runs in another directory' },
  { long: ['call', 'package'], short: ['-c'], why: 'runs another command' },
];

const PIP: ToolOptions = { options: [{ long: ['index-url', 'extra-index-url', 'find-links'], short: ['-i', '-f'], why: 'installs packages from another source' }] };
/** perl, ruby, python, node, php, lua: their options and inline programs are read by programs.ts. */
const INTERPRETER: ToolOptions = { options: [], stopAtPositional: true, program: interpreterRisks };

/** Tools and their risky options, by command name. */
export const RISKY_OPTIONS: Readonly<Record<string, ToolOptions>> = Object.freeze({
  npm: { options: NPM_RUNNERS },
  npx: { options: [...NPM_RUNNERS, { short: ['-p'], why: 'installs and runs another package' }], stopAtPositional: true, runsPositional: true },
  pnpm: {
    options: [
      { long: ['script-shell', 'shell-emulator'], why: 'runs scripts through another program' },
      { long: ['node-options'], why: 'makes node load other code' },
      { long: ['config'], why: 'sets configuration that can run other programs' },
      { long: ['registry'], why: 'installs packages from another registry' },
      { long: ['dir', 'prefix'], short: ['-C'], path: true, why: 'runs in another directory' },
      { long: ['shell-mode'], short: ['-c'], value: false, why: 'runs the words as a shell command' },
    ],
  },
  yarn: {
    options: [
      { long: ['cwd'], path: true, why: 'runs in another directory' },
      { long: ['use-yarnrc', 'rc-filename', 'script-shell'], why: 'reads other configuration or runs scripts through another program' },
      { long: ['registry'], why: 'installs packages from another registry' },
    ],
  },
  git: {
    globalWithValue: ['-c', '-C', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env', '--super-prefix'],
    options: [
      { short: ['-c'], long: ['config-env'], why: 'sets configuration (core.pager, core.fsmonitor, alias.*) that runs programs', subcommands: [] },
      { long: ['exec-path'], why: 'runs git commands from another directory', subcommands: [] },
      { short: ['-C'], long: ['git-dir', 'work-tree'], path: true, why: 'works on another repository', subcommands: [] },
      { long: ['upload-pack'], short: ['-u'], subcommands: ['fetch', 'pull', 'clone', 'ls-remote'], why: 'runs another program on the remote side' },
      { long: ['upload-pack'], subcommands: ['archive', 'submodule'], why: 'runs another program on the remote side' },
      { long: ['receive-pack'], subcommands: ['push', 'send-pack'], why: 'runs another program on the remote side' },
      { long: ['exec'], subcommands: ['push', 'fetch', 'pull', 'archive', 'send-pack', 'ls-remote'], why: 'runs another program on the remote side' },
      { long: ['exec'], short: ['-x'], subcommands: ['rebase'], why: 'runs a command after each commit' },
      { long: ['extcmd'], short: ['-x'], subcommands: ['difftool'], why: 'runs another program as the diff tool' },
      { long: ['open-files-in-pager'], short: ['-O'], subcommands: ['grep'], why: 'runs another program on the files' },
      { long: ['output'], subcommands: ['diff', 'log', 'show', 'format-patch', 'whatchanged', 'range-diff', 'diff-tree', 'diff-index', 'diff-files'], why: 'writes a file' },
      { long: ['output-directory'], short: ['-o'], subcommands: ['format-patch'], path: true, why: 'writes files in another directory' },
      { long: ['template', 'separate-git-dir'], subcommands: ['clone', 'init'], why: 'installs hooks or moves the repository' },
      { long: ['config'], short: ['-c'], subcommands: ['clone', 'submodule'], why: 'sets configuration that runs programs' },
    ],
    runsCommand: [['bisect', 'run'], ['submodule', 'foreach'], ['filter-branch'], ['filter-repo']],
    writesConfig: { subcommand: 'config', readOnly: ['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--get-color', '--get-colorbool', '--list', '-l'] },
  },
  make: {
    options: [
      { long: ['file', 'makefile'], short: ['-f'], why: 'runs another makefile' },
      { long: ['directory'], short: ['-C'], path: true, why: 'runs in another directory' },
      { long: ['eval'], short: ['-E'], why: 'evaluates more make code' },
      { long: ['include-dir'], short: ['-I'], why: 'includes makefiles from another directory' },
    ],
    assignmentArgs: true,
  },
  cargo: {
    exactLong: true,
    options: [
      { long: ['config'], why: 'sets configuration (build.rustc-wrapper, target runners) that runs programs' },
      { short: ['-Z'], why: 'turns on unstable behaviour' },
      { long: ['manifest-path'], path: true, why: 'builds another package' },
      { short: ['-C'], path: true, why: 'runs in another directory' },
    ],
  },
  go: {
    singleDashLong: true,
    exactLong: true,
    options: [
      { long: ['toolexec', 'exec'], why: 'runs the build tools or test binaries through another program' },
      { long: ['overlay'], why: 'replaces source files' },
      { long: ['modfile'], path: true, why: 'uses another module file' },
      { long: ['C'], path: true, why: 'runs in another directory' },
    ],
  },
  node: INTERPRETER,
  python: INTERPRETER,
  python3: INTERPRETER,
  perl: INTERPRETER,
  ruby: INTERPRETER,
  php: INTERPRETER,
  lua: INTERPRETER,
  pytest: {
    options: [
      { short: ['-p'], why: 'loads a plugin' },
      { long: ['config-file'], short: ['-c'], why: 'reads another configuration' },
      { long: ['override-ini'], short: ['-o'], why: 'overrides configuration (addopts can load plugins)' },
      { long: ['rootdir', 'confcutdir'], path: true, why: 'reads configuration from another directory' },
    ],
  },
  tar: {
    options: [
      { long: ['to-command', 'use-compress-program', 'rsh-command', 'rmt-command', 'info-script', 'new-volume-script', 'checkpoint-action'], short: ['-I', '-F'], why: 'runs another program' },
      { long: ['index-file', 'volno-file'], why: 'writes a file', harmless: TO_STDOUT },
      { long: ['directory'], short: ['-C'], path: true, why: 'works in another directory' },
    ],
  },
  rsync: { options: [{ long: ['rsh', 'rsync-path'], short: ['-e'], why: 'runs another program' }] },
  ssh: { options: [{ short: ['-o', '-F'], why: 'sets ProxyCommand or LocalCommand, which run programs' }], stopAtPositional: true },
  scp: { options: [{ short: ['-o', '-F', '-S'], why: 'sets a program to run (ProxyCommand, -S)' }] },
  sftp: { options: [{ short: ['-o', '-F', '-S'], why: 'sets a program to run (ProxyCommand, -S)' }] },
  sort: {
    options: [
      { long: ['compress-program'], why: 'runs another program' },
      { long: ['output'], short: ['-o'], why: 'writes a file', harmless: TO_STDOUT },
    ],
  },
  rg: { exactLong: true, options: [{ long: ['pre', 'hostname-bin'], why: 'runs another program on each file' }] },
  curl: {
    options: [
      { long: ['output', 'output-dir', 'dump-header', 'cookie-jar', 'trace', 'trace-ascii', 'libcurl', 'stderr'], short: ['-o', '-D', '-c'], why: 'writes a file', harmless: TO_STDOUT },
      { long: ['remote-name', 'remote-name-all'], short: ['-O'], value: false, why: 'writes a file' },
      { long: ['config'], short: ['-K'], why: 'reads options from a file' },
    ],
  },
  wget: {
    options: [
      { long: ['output-document', 'output-file', 'append-output', 'directory-prefix'], short: ['-O', '-o', '-a', '-P'], why: 'writes a file', harmless: TO_STDOUT },
      { long: ['execute', 'config'], short: ['-e'], why: 'runs wgetrc commands' },
      { long: ['use-askpass'], why: 'runs another program' },
    ],
  },
  zip: { options: [{ long: ['unzip-command'], short: ['-TT'], why: 'runs another program' }] },
  man: {
    options: [
      { long: ['pager', 'html', 'gxditview'], short: ['-P', '-H', '-X'], why: 'runs another program' },
      { long: ['config-file'], short: ['-C'], why: 'reads another man configuration, which names the programs man runs' },
    ],
  },
  // less(1): a log file gets a copy of the input; a lesskey file can set LESSOPEN (an input
  // preprocessor command) in its #env section; `+cmd`/`-p` commands include `!` shell escapes.
  less: {
    options: [
      { long: ['log-file', 'LOG-FILE'], short: ['-o', '-O'], why: 'writes a file' },
      { long: ['lesskey-file', 'lesskey-src', 'lesskey-content'], short: ['-k'], why: 'reads key bindings and environment (LESSOPEN) from another file' },
      { long: ['tag', 'tag-file'], short: ['-t', '-T'], why: 'opens files named by a tags file' },
    ],
  },
  // Prettier CLI (https://prettier.io/docs/cli): plugins and config files are code it loads;
  // --write rewrites the files it is given, anywhere.
  prettier: {
    exactLong: true,
    options: [
      { long: ['plugin', 'plugin-search-dir', 'config', 'cache-location'], why: 'loads code or writes a file it names' },
      { long: ['write'], short: ['-w'], value: false, why: 'rewrites the files it is given' },
    ],
  },
  // ESLint CLI (https://eslint.org/docs/latest/use/command-line-interface).
  eslint: {
    exactLong: true,
    options: [
      { long: ['config', 'rulesdir', 'plugin', 'resolve-plugins-relative-to', 'output-file', 'cache-location', 'format'], short: ['-c', '-o', '-f'], why: 'loads code or writes a file it names' },
      { long: ['fix', 'fix-type'], value: false, why: 'rewrites the files it is given' },
    ],
  },
  // split(1) (coreutils manual, "split invocation"): `--filter=COMMAND` runs COMMAND through the
  // shell for each piece.
  split: { options: [{ long: ['filter'], why: 'runs a shell command for each piece' }] },
  // install(1): `--strip-program` is the program `-s` runs on each file.
  install: { options: [{ long: ['strip-program'], why: 'runs another program' }] },
  sed: { options: [], program: sedRisks },
  awk: { options: [], program: awkRisks },
  gawk: { options: [], program: awkRisks },
  mawk: { options: [], program: awkRisks },
  nawk: { options: [], program: awkRisks },
  jq: { options: [], program: jqRisks },
  pip: PIP,
  pip3: PIP,
  // bash(1) "hash": `-p FILE NAME` makes NAME run FILE from then on, whatever PATH says.
  hash: { options: [{ short: ['-p'], why: 'makes a command name run another program' }] },
  find: {
    wholeWords: true,
    exactLong: true,
    options: [
      { short: ['-fprint', '-fprint0', '-fprintf', '-fls'], why: 'writes a file' },
      { short: ['-delete'], value: false, why: 'deletes the files it finds' },
    ],
  },
});

/**
 * Environment variables that change which program runs or what it loads. An `export` or
 * `declare -x` of one of them changes every later command, so a rule's `*` tail does not cover it.
 */
export const RUN_CHANGING_ENV = /^(PATH|EXECIGNORE|BASH_CMDS|BASH_ALIASES|BASH_LOADABLES_PATH|BASH_XTRACEFD|LD_\w+|DYLD_\w+|BASH_ENV|ENV|BASH_FUNC_\w*|SHELLOPTS|BASHOPTS|PROMPT_COMMAND|PS[0-4]|IFS|CDPATH|GLOBIGNORE|HOME|XDG_CONFIG_HOME|GIT_\w+|NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PYTHONINSPECT|PYTHONWARNINGS|PERL5OPT|PERL5LIB|PERLLIB|PERL5DB|RUBYOPT|RUBYLIB|PHPRC|PHP_INI_SCAN_DIR|LUA_INIT\w*|LUA_PATH\w*|LUA_CPATH\w*|npm_config_\w+|NPM_CONFIG_\w+|GCONV_PATH|PAGER|MANPAGER|GIT_PAGER|EDITOR|VISUAL|BROWSER|LESSOPEN|LESSCLOSE|LESS|LESSKEY|LESSKEYIN|LESSKEY_CONTENT|LESSKEY_SYSTEM|MANOPT|RIPGREP_CONFIG_PATH|TAR_OPTIONS|AWKPATH|AWKLIBPATH|GREP_OPTIONS|SSH_ASKPASS|SUDO_ASKPASS|TMPDIR|POSIXLY_CORRECT|SIMPLE_BACKUP_SUFFIX|VERSION_CONTROL)$/;

/** What rein knows about a tool's risky options, by command name (`python3.12`, `perl5.36` and `nodejs` are their interpreters). */
export function toolOptions(name: string): ToolOptions | undefined {
  if (Object.hasOwn(RISKY_OPTIONS, name)) return RISKY_OPTIONS[name];
  return interpreterOf(name) ? INTERPRETER : undefined;
}

/** A risky option found in a command. */
export interface RiskyOption {
  /** Index of the word (in the command's words) where the option is written. */
  index: number;
  /** The option as written. */
  text: string;
  why: string;
  /** For path options: the value, judged against the working directories when the rule is applied. */
  path?: ShellWord;
}

function isRiskyLong(given: string, names: readonly string[], exact: boolean): boolean {
  // `--script_shell` is read as `--script-shell`; `--script-sh` is an abbreviation npm, git and
  // getopt_long tools accept (any unambiguous prefix).
  const g = given.replace(/_/g, '-');
  return g.length > 0 && names.some((n) => (exact ? n === g : n.startsWith(g)));
}

/**
 * The risky options in `words` (words[0] is the command). `words` are the words an allow rule is
 * matched against, so each finding's index says which word an allow rule's literal text must
 * include to cover it.
 */
export function riskyOptions(words: readonly ShellWord[], name: string): RiskyOption[] {
  const tool = toolOptions(name);
  if (!tool) return [];
  if (tool.program) return tool.program(words);
  const out: RiskyOption[] = [];
  let sub: string | undefined;
  const positionals: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (v === '--') break;
    const isOption = v.startsWith('-') && v !== '-' && !w.dynamic;
    if (!isOption) {
      if (w.dynamic && v.startsWith('-')) out.push({ index: i, text: v.replaceAll(DYNAMIC, '…'), why: 'is an option known only at run time' });
      if (sub === undefined) sub = v;
      positionals.push(v);
      if (tool.assignmentArgs && /^[.A-Za-z_][.\w]*=/.test(v)) out.push({ index: i, text: v, why: 'overrides a variable the recipes run' });
      if (tool.stopAtPositional) {
        // `npx prettier --plugin=./x.mjs`: the package's own options, at their index here.
        const pkg = tool.runsPositional && !w.dynamic ? v.replace(/@[^/@]*$/, '').replace(/^.*\//, '') : undefined;
        if (pkg && pkg !== name) out.push(...riskyOptions(words.slice(i), pkg).map((r) => ({ ...r, index: r.index + i })));
        break;
      }
      continue;
    }
    const found = matchOption(tool, v, sub);
    if (found) {
      const { spec, attached } = found;
      const takesValue = spec.value !== false;
      const valueWord = takesValue ? (attached !== undefined ? { ...w, value: attached } : words[i + 1]) : undefined;
      const harmless = valueWord && !valueWord.dynamic && spec.harmless?.includes(valueWord.value);
      if (spec.path) out.push({ index: i, text: v, why: spec.why, path: valueWord ?? { value: '', dynamic: true, glob: false } });
      else if (!harmless) out.push({ index: i, text: v, why: spec.why });
      if (takesValue && attached === undefined) i++;
      continue;
    }
    // A global option with a separate value, before the subcommand: skip its value.
    if (sub === undefined && tool.globalWithValue?.includes(v)) i++;
  }
  if (sub !== undefined && tool.runsCommand) {
    for (const path of tool.runsCommand) {
      if (path.every((p, k) => positionals[k] === p)) out.push({ index: 1, text: path.join(' '), why: 'runs the command given in its words' });
    }
  }
  if (tool.writesConfig && sub === tool.writesConfig.subcommand) {
    const reads = words.some((w) => tool.writesConfig!.readOnly.includes(w.value));
    // `git config NAME` reads; `git config NAME VALUE` (or --add, --unset, ...) writes.
    if (!reads && positionals.length !== 2) out.push({ index: 1, text: sub, why: 'changes configuration that decides which programs run' });
  }
  return out;
}

function applies(spec: OptionSpec, sub: string | undefined): boolean {
  if (!spec.subcommands) return true;
  return spec.subcommands.length === 0 ? sub === undefined : sub !== undefined && spec.subcommands.includes(sub);
}

/**
 * The risky option `v` is (or holds), with a value attached to it: `--opt=value`, an
 * abbreviation, `-C../x`, or a short option inside a cluster (`-sSLo file`: `-o`, its value is the
 * rest of the cluster or the next word).
 */
function matchOption(tool: ToolOptions, v: string, sub: string | undefined): { spec: OptionSpec; attached?: string } | undefined {
  const specs = tool.options.filter((spec) => applies(spec, sub));
  const longForm = v.startsWith('--') ? v.slice(2) : tool.singleDashLong && v.startsWith('-') ? v.slice(1) : undefined;
  if (longForm !== undefined) {
    const eq = longForm.indexOf('=');
    const given = eq === -1 ? longForm : longForm.slice(0, eq);
    const spec = specs.find((s) => s.long && isRiskyLong(given, s.long, tool.exactLong === true));
    if (spec) return { spec, attached: eq === -1 ? undefined : longForm.slice(eq + 1) };
    if (v.startsWith('--')) return undefined;
  }
  for (const spec of specs) if (spec.short?.includes(v)) return { spec };
  if (tool.wholeWords || tool.singleDashLong) return undefined;
  // A cluster of one-letter options, or one with its value attached.
  for (let k = 1; k < v.length; k++) {
    const s = `-${v[k]}`;
    const spec = specs.find((x) => x.short?.includes(s));
    if (spec) return { spec, attached: spec.value === false ? undefined : v.slice(k + 1) || undefined };
  }
  return undefined;
}
