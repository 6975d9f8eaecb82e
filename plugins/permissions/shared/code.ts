/**
 * Files of the project that rein itself runs as code, protected like rein's configuration: a
 * write to one is asked about in every mode, because what it runs next (the next `rein` run, or
 * the next hook event of this one) runs before any permission check.
 *
 * - Plugin code: the files the preset loader loaded for a plugin named by path or package
 *   (`plugins: ./x.ts`), the modules loaded with it, and, where the loader cannot show the whole
 *   graph, the plugin's folder. The loader puts them in `kernel.preset.codeFiles`
 *   (agent/preset/load.ts codeFiles, resolve-plugins.ts importWithGraph).
 * - Hook scripts: the files a command hook's words name (`./scripts/check.sh`,
 *   `bash scripts/guard.sh`, `node tools/hook.mjs`), found with the same shell parser as the
 *   permission rules (mvdan/sh, shell/parse.ts).
 */
import { lstatSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Kernel } from '../../../kernel/index.js';
import { absolutePath, exactPathMatcher, isRegularFile, type PathBase, type PathMatcher } from './paths.js';
import { parseCommand } from './shell/parse.js';
import type { ShellWord } from './shell/words.js';

/** A file rein runs as code, as the preset loader gives it (agent/preset/load.ts CodeFile). */
interface CodeFile { path: string; dir?: boolean; why: string }

function isCodeFile(x: unknown): x is CodeFile {
  const c = x as Partial<CodeFile> | null;
  return !!c && typeof c === 'object' && typeof c.path === 'string' && c.path !== '' && typeof c.why === 'string' && (c.dir === undefined || typeof c.dir === 'boolean');
}

/**
 * Variables a hook's command sees set to the project directory (plugins/hooks/shell):
 * `"$CLAUDE_PROJECT_DIR"/scripts/x.sh` names a file of the project.
 */
const PROJECT_DIR_VARS = /\$(?:\{(?:CLAUDE|REIN)_PROJECT_DIR\}|(?:CLAUDE|REIN)_PROJECT_DIR\b)/g;

/**
 * What the project-directory variables are replaced with before parsing: a plain word, the same
 * in and out of quotes, put back as the directory in the parsed words.
 */
const PROJECT_DIR_TOKEN = 'REIN_PROJECT_DIR_4b1f9e';

/** The command strings of every `command` hook in a hooks setting (event → matcher groups). */
function hookCommands(hooks: unknown): { event: string; command: string }[] {
  const out: { event: string; command: string }[] = [];
  if (!hooks || typeof hooks !== 'object' || Array.isArray(hooks)) return out;
  for (const [event, groups] of Object.entries(hooks as Record<string, unknown>)) {
    if (!Array.isArray(groups)) continue;
    for (const g of groups) {
      const list = (g as { hooks?: unknown } | null)?.hooks;
      if (!Array.isArray(list)) continue;
      for (const h of list) {
        const { type, command } = (h ?? {}) as { type?: unknown; command?: unknown };
        if (type === 'command' && typeof command === 'string') out.push({ event, command });
      }
    }
  }
  return out;
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * The files a hook command may run: every literal word of every command in it (the command
 * words, their arguments, the scripts of `sh -c`, wrappers looked through) that names an existing
 * file, resolved from where the hook runs (`cwd`; a literal `cd dir` earlier in the command moves
 * it); a word with a slash that names nothing yet (`./check.sh`, `bash scripts/guard.sh`) counts
 * too, since creating the file is what would make the hook run it. A data file a hook reads (`jq -f f.jq`) counts
 * too: what it says changes what the hook does. Absolute paths. A word known only at run time
 * (`"$f"`, most often a value from the event) names no file here.
 *
 * @returns the paths, or `unreadable` (the parser's reason) for a command the shell parser
 *   rejects or that is over its limits (shell/parse.ts MAX_COMMAND_CHARS, MAX_PARTS).
 */
export function hookScriptPaths(command: string, cwd: string, home: string): string[] | { unreadable: string } {
  const parsed = parseCommand(command.replace(PROJECT_DIR_VARS, PROJECT_DIR_TOKEN));
  if (!parsed.ok) return { unreadable: parsed.error };
  const out = new Set<string>();
  let dir = cwd;
  for (const part of parsed.parts) {
    const words: ShellWord[] = [...(part.head ? [part.head] : []), ...(part.args ?? [])];
    if (part.changesDir && part.program === 'cd') {
      const to = part.args?.find((w) => !w.value.startsWith('-'));
      if (to && !to.dynamic && !to.glob) dir = absolutePath(to.value.replaceAll(PROJECT_DIR_TOKEN, cwd), dir, home);
      continue;
    }
    for (const w of words) {
      if (w.dynamic || w.glob) continue;
      const value = w.value.replaceAll(PROJECT_DIR_TOKEN, cwd);
      // `--config=tools/x.js`: the value after `=` may be the file.
      for (const v of [...(value.startsWith('-') ? [] : [value]), ...(value.includes('=') ? [value.slice(value.indexOf('=') + 1)] : [])]) {
        if (v === '' || v === '.' || v === '..') continue;
        const p = v.startsWith('~') ? absolutePath(v, dir, home) : resolve(dir, v);
        // A missing path: a word with a slash and no blank (an `sh -c` script is not one).
        if (isRegularFile(p) || (v.includes('/') && !/\s/.test(v) && !exists(p))) out.add(p);
      }
    }
  }
  return [...out];
}

/**
 * Protected-path matchers for the code rein runs: the plugin code the loader recorded in
 * `kernel.preset.codeFiles`, and the scripts of the command hooks in `kernel.preset.hooks` and
 * in the options of a listed `hooks/shell` plugin. Each names why in a denial
 * (`… is code rein runs (plugin ./x.ts named in rein.config.yaml)`).
 *
 * @throws Error when `codeFiles` is present but not a list of `{ path, why }` entries: a guard
 *   that cannot read what it protects fails closed (the run does not start).
 */
export function codeMatchers(kernel: Kernel, base: PathBase): PathMatcher[] {
  const out: PathMatcher[] = [];
  const code = kernel.preset.codeFiles;
  if (code !== undefined) {
    if (!Array.isArray(code) || !code.every(isCodeFile)) throw new Error('preset codeFiles: expected a list of { path, why } entries (the plugin code to protect)');
    for (const c of code) out.push(exactPathMatcher(c.path, `code rein runs (${c.why})`, c.dir === true));
  }
  const listed = (kernel.preset.plugins as Record<string, unknown> | undefined)?.['hooks/shell'];
  const hooks = [...hookCommands(kernel.preset.hooks), ...hookCommands(listed)];
  if (hooks.length) out.push(lazyMatchers('the scripts command hooks run', () => hooks.flatMap(({ event, command }) => {
    const hook = `the ${event} hook \`${command.length > 80 ? `${command.slice(0, 77)}...` : command}\``;
    const paths = hookScriptPaths(command, base.cwd, base.home);
    // A command rein cannot read may run any file where it runs: fail closed, the whole folder.
    if (!Array.isArray(paths)) return [exactPathMatcher(base.cwd, `in the folder where ${hook} runs, and rein cannot read that command to tell which files it runs (${paths.unreadable})`, true)];
    return paths.map((p) => exactPathMatcher(p, `code rein runs (run by ${hook})`));
  })));
  return out;
}

/**
 * One matcher standing for the matchers `build` makes, built on the first check: reading hook
 * commands loads the shell parser (~150 ms, shell/ast.ts), which a run otherwise loads only when a
 * shell command first needs a decision, so a run with hooks does not pay for it at start-up.
 */
function lazyMatchers(spec: string, build: () => PathMatcher[]): PathMatcher {
  let list: PathMatcher[] | undefined;
  const hit = (p: string) => (list ??= build()).find((m) => m.test(p));
  return {
    spec,
    test: (p) => hit(p) !== undefined,
    describe: (p) => {
      const m = hit(p);
      return m?.describe ? m.describe(p) : `protected (${m?.spec ?? spec})`;
    },
  };
}
