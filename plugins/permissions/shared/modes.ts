/**
 * What each permission mode answers for a call that no rule decided (Claude Code's permission
 * modes, https://docs.anthropic.com/en/docs/claude-code/iam).
 * These are plain functions so plan mode can hand over to another mode and the classifier can ask
 * "would acceptEdits allow this?" without loading another plugin.
 */
import type { PermissionQuery, PermissionDecision } from '../../../kernel/index.js';
import type { PermissionContext, PermissionMode } from './config.js';
import { formsInside } from './paths.js';
import { callPathForms, explainShell, shellAllowOperandWrites, shellAllowWithEdits } from './rules.js';
import { freelyWritable } from './safety.js';
import { shellEditDecision } from './shell-edits.js';
import { isFileWrite, isReadOnlyCall, SHELL_TOOL } from './tools.js';

/** Modes answered by a plain function (auto is answered by the classifier plugin). */
export type RuleMode = Exclude<PermissionMode, 'auto'>;

const allow = (mode: string, why: string): PermissionDecision => ({ behavior: 'allow', reason: `${why} (mode ${mode})`, source: `permissions/${mode}` });
const ask = (mode: string, q: PermissionQuery, why: string): PermissionDecision => ({ behavior: 'ask', message: `${q.toolName} needs approval: ${why}.`, reason: `${why} (mode ${mode})`, source: `permissions/${mode}` });
const deny = (mode: string, message: string, why: string): PermissionDecision => ({ behavior: 'deny', message, reason: `${why} (mode ${mode})`, source: `permissions/${mode}` });

/**
 * Read-only calls: allowed inside the working directories, `ask` outside them; undefined for calls
 * that are not read-only. Shell commands are never read-only here: only rules allow them.
 */
export function readDecision(mode: string, pc: PermissionContext, q: PermissionQuery): PermissionDecision | undefined {
  if (!isReadOnlyCall(q)) return undefined;
  const forms = callPathForms(q, pc.base);
  if (!forms || formsInside(forms, pc.workingDirs)) return allow(mode, 'read-only call');
  return ask(mode, q, `reading ${forms[forms.length - 1]} outside the working directories`);
}

/** File edits inside the working directories (protected paths excluded); undefined otherwise. */
export function editDecision(mode: string, pc: PermissionContext, q: PermissionQuery): PermissionDecision | undefined {
  if (!isFileWrite(q)) return undefined;
  const forms = callPathForms(q, pc.base);
  if (forms && forms.length && freelyWritable(pc, forms)) return allow(mode, 'file edit inside the working directories');
  return undefined;
}

/**
 * A Bash command its rules allow except for the files it writes (`cp a b` under `Bash(cp:*)`
 * without an Edit rule), when each of those files is inside the working directories and not
 * protected: in acceptEdits, a file edit there. Undefined otherwise.
 */
export function shellWriteDecision(mode: string, pc: PermissionContext, q: PermissionQuery): PermissionDecision | undefined {
  const d = shellAllowWithEdits(pc.rules, q, pc.base, pc.workingDirs, (forms) => freelyWritable(pc, forms));
  return d ? allow(mode, `${d.reason}, writing inside the working directories`) : undefined;
}

/**
 * A Bash command its rules allow except for the files it writes through its operands (`mkdir
 * build` under `Bash(mkdir:*)` without an Edit rule), when each of those is inside the working
 * directories and not protected: default and dontAsk allow it, as Claude Code does. Undefined
 * otherwise (a redirection or an option's file still needs an Edit rule there).
 */
export function shellOperandDecision(mode: string, pc: PermissionContext, q: PermissionQuery): PermissionDecision | undefined {
  const d = shellAllowOperandWrites(pc.rules, q, pc.base, pc.workingDirs, (forms) => freelyWritable(pc, forms));
  return d ? allow(mode, `${d.reason}, writing inside the working directories`) : undefined;
}

/** Why no rule allowed the call, in words for a reason. */
export function notAllowedWhy(pc: PermissionContext, q: PermissionQuery): string {
  return q.toolName === SHELL_TOOL ? explainShell(pc.rules, q, pc.base, pc.workingDirs) : 'no rule allows it';
}

/** The answer of each rule-based mode. Every function answers (never undefined). */
export const MODE_DECISIONS: Readonly<Record<RuleMode, (pc: PermissionContext, q: PermissionQuery) => PermissionDecision>> = Object.freeze({
  /**
   * Reads in the project run, and so does a command Bash rules allow whose operands it writes are
   * inside the working directories and not protected (`mkdir build` under `Bash(mkdir:*)`, as in
   * Claude Code); everything else needs an answer.
   */
  default: (pc, q) => readDecision('default', pc, q) ?? shellOperandDecision('default', pc, q) ?? ask('default', q, notAllowedWhy(pc, q)),
  /**
   * Reads, file edits, `mkdir`/`touch` and the writes of commands Bash rules allow (`cp`, `tee`,
   * `sed -i`, `> file`) in the project run; everything else needs an answer.
   */
  acceptEdits: (pc, q) => readDecision('acceptEdits', pc, q) ?? editDecision('acceptEdits', pc, q) ?? shellEditDecision('acceptEdits', pc, q) ?? shellWriteDecision('acceptEdits', pc, q) ?? ask('acceptEdits', q, notAllowedWhy(pc, q)),
  /** Reads in the project run; nothing else does (the plan plugin adds ExitPlanMode). */
  plan: (pc, q) => readDecision('plan', pc, q)
    ?? deny('plan', `Plan mode is active: ${q.toolName} cannot run until the plan is approved. Use read-only tools to investigate, then call ExitPlanMode with your plan.`, `${q.toolName} is not read-only`),
  /** What is not allowed is denied (a Bash rule's in-project operand writes are allowed, as in default); nobody is asked. */
  dontAsk: (pc, q) => {
    const d = readDecision('dontAsk', pc, q);
    if (d?.behavior === 'allow') return d;
    const written = shellOperandDecision('dontAsk', pc, q);
    if (written) return written;
    const why = d ? d.reason!.replace(/ \(mode dontAsk\)$/, '') : notAllowedWhy(pc, q);
    return deny('dontAsk', `Permission to use ${q.toolName} was denied: ${why}, and this run does not ask (mode dontAsk).`, why);
  },
  /** Everything the earlier stages did not stop runs. */
  bypassPermissions: () => allow('bypassPermissions', 'permissions bypassed'),
});
