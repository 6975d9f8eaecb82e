/**
 * Writes that no mode, classifier or hook may allow without asking, not even bypassPermissions
 * (Claude Code calls these checks bypass-immune): writes to protected paths (git internals, rein's and
 * editors' configuration, shell start-up files), to a file with more than one name (a hard link to
 * `.git/config` or `~/.bashrc` is that file) and outside the working directories. A
 * write outside the working directories that an explicit `Edit(…)`/`Write(…)` allow rule names is
 * let through to the rules; a protected path never is.
 *
 * Shell commands are checked through every file they write: output redirections (`> file`) and the
 * files programs write through their arguments (`sed -i f`, `cp a ~/.bashrc`, `tee f`; see
 * rules.ts writesOf).
 */
import { lstatSync } from 'node:fs';
import type { PermissionQuery, PermissionDecision } from '../../../kernel/index.js';
import type { PermissionContext } from './config.js';
import { formsInside, outsideMessage, protectedReason } from './paths.js';
import { callPathForms, editAllowedByRule, parsedCommandOf, pathFormsOf, writesOf } from './rules.js';
import { filePathOf, isFileWrite, SHELL_TOOL } from './tools.js';

function ask(q: PermissionQuery, why: string): PermissionDecision {
  return { behavior: 'ask', message: `${q.toolName} needs approval: ${why}.`, reason: why, source: 'permissions' };
}

/**
 * Judges one write target by all its forms (as written, each link, the real target); undefined
 * when nothing stands against it.
 */
function checkTarget(pc: PermissionContext, asWritten: string, forms: readonly string[], q: PermissionQuery): PermissionDecision | undefined {
  const prot = protectedReason(forms, pc.protect);
  if (prot) return ask(q, `writing ${prot}`);
  const names = hardLinks(forms.at(-1));
  if (names > 1) return ask(q, `${forms[0]} is a file with ${names} names (hard links): writing it writes the others, which may be protected or outside the working directories`);
  if (!formsInside(forms, pc.workingDirs) && !editAllowedByRule(pc.rules, forms)) {
    return ask(q, outsideMessage(asWritten, forms, pc.workingDirs));
  }
  return undefined;
}

/** The safety check for one call: `ask` for a protected or outside write, else undefined. */
export function safetyDecision(pc: PermissionContext, q: PermissionQuery): PermissionDecision | undefined {
  if (q.toolName === SHELL_TOOL) {
    const parsed = parsedCommandOf(q);
    if (!parsed.ok) return undefined; // the ask stage handles commands it cannot read
    for (const part of parsed.parts) {
      for (const w of writesOf(q, part, pc.base)) {
        if (w.dynamic) return ask(q, `the command writes to ${w.why ?? 'a file whose name is known only at run time'} (${part.source})`);
        const d = checkTarget(pc, w.value, pathFormsOf(q, w.value, pc.base), q);
        if (d) return d;
      }
    }
    return undefined;
  }
  if (!isFileWrite(q)) return undefined;
  const forms = callPathForms(q, pc.base);
  return forms ? checkTarget(pc, filePathOf(q) ?? forms[0]!, forms, q) : undefined;
}

/**
 * True when every one of a path's `forms` is inside the working directories, none is protected,
 * and the file is not one with other names: a hard link (`ln .git/config notes`, or a link to a
 * file outside the project on the same file system) is the same file as the other name, which no
 * path form shows, so writing it writes `.git/config` (link(2)). Such a file is asked about.
 */
export function freelyWritable(pc: PermissionContext, forms: readonly string[]): boolean {
  return protectedReason(forms, pc.protect) === undefined && formsInside(forms, pc.workingDirs) && hardLinks(forms.at(-1)) < 2;
}

/** How many names (hard links, lstat `nlink`) the regular file at `real` (a resolved path) has; 0 when it is none. */
function hardLinks(real: string | undefined): number {
  if (real === undefined) return 0;
  try {
    const st = lstatSync(real);
    return st.isFile() ? st.nlink : 0;
  } catch {
    return 0;
  }
}
