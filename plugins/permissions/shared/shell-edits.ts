/**
 * acceptEdits and shell commands that only make files and folders: Claude Code's acceptEdits
 * mode lets `mkdir` and `touch` run without asking when every path they name is inside the
 * working directories, as it lets file edits there run. Anything else in the command (another
 * program, a redirection, a `$VAR` or `$(…)` argument, a path outside or a protected one such as
 * `.git/`) leaves the call to the rules.
 */
import type { PermissionQuery } from '../../../kernel/index.js';
import type { PermissionContext } from './config.js';
import { absolutePath, resolveForms, shellBase } from './paths.js';
import { freelyWritable } from './safety.js';
import { parseCommand } from './shell/parse.js';
import { DYNAMIC, splitCanonical } from './shell/words.js';
import { SHELL_TOOL } from './tools.js';

/** Commands that only create (folders, empty files or timestamps) and the options that take no path. */
const MAKERS: Readonly<Record<string, RegExp>> = Object.freeze({
  // mkdir [-p] [-v] [-m MODE]: the mode is written joined (-m755) or as the next word.
  mkdir: /^(-p|-v|-pv|-vp|--parents|--verbose|-m\d{3,4}|--mode=\d{3,4})$/,
  // touch [-a] [-c] [-m]: no -r/-d/-t (they take values that are not paths).
  touch: /^(-a|-c|-m|-ac|-am|-cm|-acm|--no-create)$/,
});

/**
 * `allow` when the call is a Bash command made only of `mkdir` / `touch` whose every path is freely
 * writable (inside the working directories, not protected); undefined otherwise.
 */
export function shellEditDecision(mode: string, pc: PermissionContext, q: PermissionQuery): { behavior: 'allow'; reason: string; source: string } | undefined {
  if (q.toolName !== SHELL_TOOL || typeof q.input.command !== 'string') return undefined;
  const parsed = parseCommand(q.input.command);
  if (!parsed.ok || parsed.parts.length === 0) return undefined;
  const paths: string[] = [];
  // Paths are relative to where the shell is (a `cd` in an earlier call carries over).
  const base = shellBase(pc.base);
  for (const part of parsed.parts) {
    if (part.kind !== 'command' || part.allow === undefined || part.nested || part.writes.length) return undefined;
    const [name, ...args] = splitCanonical(part.allow);
    const options = name ? MAKERS[name] : undefined;
    if (!options) return undefined;
    let afterDashDash = false;
    let expectMode = false;
    for (const a of args) {
      if (a.includes(DYNAMIC)) return undefined;
      if (expectMode) { if (!/^\d{3,4}$/.test(a)) return undefined; expectMode = false; continue; }
      if (!afterDashDash && a === '--') { afterDashDash = true; continue; }
      if (!afterDashDash && a.startsWith('-')) {
        if (name === 'mkdir' && a === '-m') { expectMode = true; continue; }
        if (!options.test(a)) return undefined;
        continue;
      }
      paths.push(absolutePath(a, base.cwd, base.home));
    }
    if (expectMode) return undefined;
  }
  if (!paths.length || !paths.every((p) => freelyWritable(pc, resolveForms(p, base)))) return undefined;
  return { behavior: 'allow', reason: `mkdir/touch inside the working directories (mode ${mode})`, source: `permissions/${mode}` };
}
