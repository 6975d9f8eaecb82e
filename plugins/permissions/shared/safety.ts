/**
 * Writes that no mode, classifier or hook may allow without asking, not even bypassPermissions
 * (Claude Code calls these checks bypass-immune): writes to protected paths (git internals, rein's and
 * editors' configuration, shell start-up files) and writes outside the working directories. A
 * write outside the working directories that an explicit `Edit(…)`/`Write(…)` allow rule names is
 * let through to the rules; a protected path never is.
 *
 * Shell commands are checked through their output redirections (`> file`); what a program writes
 * by itself (`cp a ~/.bashrc`) is for rules and modes to judge.
 */
import type { PermissionQuery, PermissionDecision } from '../../../kernel/index.js';
import type { PermissionContext } from './config.js';
import { absolutePath, insideWorkingDirs, pathForms, protectedReason } from './paths.js';
import { callPathForms, editAllowedByRule, parsedCommandOf } from './rules.js';
import { isFileWrite, SHELL_TOOL } from './tools.js';

function ask(q: PermissionQuery, why: string): PermissionDecision {
  return { behavior: 'ask', message: `${q.toolName} needs approval: ${why}.`, reason: why, source: 'permissions' };
}

/** Judges one absolute write target; undefined when nothing stands against it. */
function checkTarget(pc: PermissionContext, abs: string, q: PermissionQuery): PermissionDecision | undefined {
  const prot = protectedReason(abs, pc.protect);
  if (prot) return ask(q, `writing ${prot}`);
  if (!insideWorkingDirs(abs, pc.workingDirs) && !editAllowedByRule(pc.rules, abs)) {
    return ask(q, `${abs} is outside the working directories (${pc.workingDirs.join(', ')})`);
  }
  return undefined;
}

/** The safety check for one call: `ask` for a protected or outside write, else undefined. */
export function safetyDecision(pc: PermissionContext, q: PermissionQuery): PermissionDecision | undefined {
  if (q.toolName === SHELL_TOOL) {
    const parsed = parsedCommandOf(q);
    if (!parsed.ok) return undefined; // the ask stage handles commands it cannot read
    for (const part of parsed.parts) {
      for (const w of part.writes) {
        if (w.dynamic) return ask(q, `the command writes to a file whose name is known only at run time (${part.source})`);
        const d = checkTarget(pc, absolutePath(w.value, pc.base.cwd, pc.base.home), q);
        if (d) return d;
      }
    }
    return undefined;
  }
  if (!isFileWrite(q)) return undefined;
  const forms = callPathForms(q, pc.base);
  if (!forms) return undefined;
  for (const f of forms) {
    const d = checkTarget(pc, f, q);
    if (d) return d;
  }
  return undefined;
}

/** True when every form of `abs` is inside the working directories and none is protected. */
export function freelyWritable(pc: PermissionContext, abs: string): boolean {
  return protectedReason(abs, pc.protect) === undefined && pathForms(abs).every((f) => insideWorkingDirs(f, pc.workingDirs));
}
