/**
 * The rules engine: `deny`, `ask` and `allow` lists compiled once, then evaluated per call in that
 * order, first match wins (Claude Code behaviour; specificity does not reorder).
 *
 * Deny and ask rules are matched generously (every reading of every part of a shell command, every
 * form of a path, any call of a tool whose specifier rein cannot interpret); allow rules strictly
 * (each part of a shell command must be allowed on its own, every form of a path must match).
 */
import type { PermissionQuery, PermissionDecision } from '../../../kernel/index.js';
import { absolutePath, compilePathSpec, pathForms, type PathBase, type PathMatcher } from './paths.js';
import { parseRule, type PermissionRule, type RuleBehavior } from './rule.js';
import { parseCommand, type ParsedCommand } from './shell/parse.js';
import { compileShellSpec, matchShell, type ShellMatcher } from './shell/match.js';
import { EDIT_TOOLS, filePathOf, READ_TOOLS, SHELL_TOOL } from './tools.js';

/** Tool names whose specifier is a path. */
const PATH_RULE_TOOLS: ReadonlySet<string> = new Set([...READ_TOOLS, ...EDIT_TOOLS]);

export type CompiledRule = PermissionRule & {
  /** True when the rule is about a tool of this name. */
  appliesTo(toolName: string): boolean;
} & (
  | { kind: 'tool' }
  | { kind: 'shell'; shell: ShellMatcher }
  | { kind: 'path'; path: PathMatcher }
  | { kind: 'domain'; domain: string }
  | { kind: 'subagent'; name: string }
  /** A specifier rein cannot interpret for this tool: deny and ask rules match every call, allow rules none. */
  | { kind: 'opaque' }
);

export interface CompiledRules {
  deny: CompiledRule[];
  ask: CompiledRule[];
  allow: CompiledRule[];
}

function nameTest(ruleTool: string, content: boolean): (name: string) => boolean {
  if (content && ruleTool === 'Read') return (n) => READ_TOOLS.has(n);
  if (content && ruleTool === 'Edit') return (n) => EDIT_TOOLS.has(n);
  if (ruleTool.includes('*')) {
    const re = new RegExp(`^${ruleTool.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    return (n) => re.test(n);
  }
  // `mcp__server` covers every tool of that server.
  if (/^mcp__[^_]+(?:_[^_]+)*$/.test(ruleTool) && ruleTool.split('__').length === 2) return (n) => n === ruleTool || n.startsWith(`${ruleTool}__`);
  return (n) => n === ruleTool;
}

/** Compiles one rule. Throws RuleSyntaxError for a bad rule string. */
export function compileRule(text: string, behavior: RuleBehavior, base: PathBase): CompiledRule {
  const rule = parseRule(text, behavior);
  const appliesTo = nameTest(rule.toolName, rule.content !== undefined);
  const c = rule.content;
  if (c === undefined) return { ...rule, appliesTo, kind: 'tool' };
  if (rule.toolName === SHELL_TOOL) return { ...rule, appliesTo, kind: 'shell', shell: compileShellSpec(c) };
  if (PATH_RULE_TOOLS.has(rule.toolName)) return { ...rule, appliesTo, kind: 'path', path: compilePathSpec(c, base) };
  if (rule.toolName === 'WebFetch' && c.startsWith('domain:')) return { ...rule, appliesTo, kind: 'domain', domain: c.slice(7).trim().toLowerCase() };
  if (rule.toolName === 'Task' || rule.toolName === 'Agent') return { ...rule, appliesTo: (n) => n === 'Task' || n === 'Agent', kind: 'subagent', name: c };
  return { ...rule, appliesTo, kind: 'opaque' };
}

/** Compiles the three lists. Throws RuleSyntaxError naming the first bad rule. */
export function compileRules(lists: { allow: string[]; ask: string[]; deny: string[] }, base: PathBase): CompiledRules {
  return {
    deny: lists.deny.map((r) => compileRule(r, 'deny', base)),
    ask: lists.ask.map((r) => compileRule(r, 'ask', base)),
    allow: lists.allow.map((r) => compileRule(r, 'allow', base)),
  };
}

const parsedCache = new WeakMap<object, ParsedCommand>();

/** The parsed `command` of a Bash call, parsed once per input object. */
export function parsedCommandOf(q: PermissionQuery): ParsedCommand {
  let p = parsedCache.get(q.input);
  if (!p) {
    const command = q.input.command;
    p = typeof command === 'string' ? parseCommand(command) : { ok: false, error: 'the command is not a string' };
    parsedCache.set(q.input, p);
  }
  return p;
}

/** Absolute forms of the path a call touches (as written, and with symlinks resolved). */
export function callPathForms(q: PermissionQuery, base: PathBase): string[] | undefined {
  const p = filePathOf(q);
  if (p === undefined) return q.toolName === 'Glob' || q.toolName === 'Grep' ? [base.cwd] : undefined;
  return pathForms(absolutePath(p, base.cwd, base.home));
}

function hostOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

function domainMatches(host: string, domain: string): boolean {
  if (domain.startsWith('*.')) return host.endsWith(domain.slice(1));
  return host === domain;
}

/** What a generous match found: the rule and the text or path it matched. */
export interface RuleHit { rule: CompiledRule; subject: string }

/** Deny/ask matching: any reading of the call matches. */
function matchLoose(rule: CompiledRule, q: PermissionQuery, base: PathBase): string | undefined {
  switch (rule.kind) {
    case 'tool': return q.toolName;
    case 'opaque': return `${q.toolName} (the specifier ${JSON.stringify(rule.content)} cannot be checked, so it covers every call)`;
    case 'shell': {
      const parsed = parsedCommandOf(q);
      if (!parsed.ok) {
        const raw = String(q.input.command ?? '').trim().replace(/\s+/g, ' ');
        return matchShell(rule.shell, raw) ? raw : undefined;
      }
      for (const part of parsed.parts) for (const form of part.deny) if (matchShell(rule.shell, form)) return part.source;
      return undefined;
    }
    case 'path': {
      const forms = callPathForms(q, base);
      return forms?.find((f) => rule.path.test(f));
    }
    case 'domain': {
      const host = hostOf(q.input.url);
      // A URL rein cannot read is treated as matching: deny and ask fail closed.
      return host === undefined ? String(q.input.url) : domainMatches(host, rule.domain) ? host : undefined;
    }
    case 'subagent': {
      const t = q.input.subagent_type;
      return t === undefined || t === rule.name ? String(t ?? 'general-purpose') : undefined;
    }
  }
}

/** First rule of `rules` that matches the call generously. */
export function firstLooseMatch(rules: readonly CompiledRule[], q: PermissionQuery, base: PathBase): RuleHit | undefined {
  for (const rule of rules) {
    if (!rule.appliesTo(q.toolName)) continue;
    const subject = matchLoose(rule, q, base);
    if (subject !== undefined) return { rule, subject };
  }
  return undefined;
}

/** Deny stage: a matching deny rule denies. */
export function denyDecision(rules: CompiledRules, q: PermissionQuery, base: PathBase): PermissionDecision | undefined {
  const hit = firstLooseMatch(rules.deny, q, base);
  if (!hit) return undefined;
  return {
    behavior: 'deny',
    message: `Permission to use ${q.toolName} was denied by the rule ${hit.rule.text}${hit.subject !== q.toolName ? ` (it matches ${JSON.stringify(hit.subject)})` : ''}.`,
    reason: `deny rule ${hit.rule.text} matches ${hit.subject}`,
    source: 'permissions',
  };
}

/** Ask stage: a matching ask rule asks; a shell command (or a script inside it) the parser cannot read asks too. */
export function askDecision(rules: CompiledRules, q: PermissionQuery, base: PathBase): PermissionDecision | undefined {
  const hit = firstLooseMatch(rules.ask, q, base);
  if (hit) return { behavior: 'ask', message: `${q.toolName} needs approval: the rule ${hit.rule.text} asks for it.`, reason: `ask rule ${hit.rule.text} matches ${hit.subject}`, source: 'permissions' };
  if (q.toolName === SHELL_TOOL) {
    const parsed = parsedCommandOf(q);
    if (!parsed.ok) return { behavior: 'ask', message: `The command needs approval: ${parsed.error}.`, reason: `command not understood: ${parsed.error}`, source: 'permissions' };
    const unknown = parsed.parts.find((p) => p.kind === 'unknown');
    if (unknown) return { behavior: 'ask', message: `The command needs approval: ${unknown.why}.`, reason: `command not understood: ${unknown.why} (${JSON.stringify(unknown.source)})`, source: 'permissions' };
  }
  return undefined;
}

/** True when an allow rule for an editing tool covers every form of `abs`. */
export function editAllowedByRule(rules: CompiledRules, abs: string): CompiledRule | undefined {
  const forms = pathForms(abs);
  return rules.allow.find((r) => r.kind === 'path' && (r.appliesTo('Edit') || r.appliesTo('Write')) && forms.every((f) => r.path.test(f)));
}

/** Allow stage: the call is allowed when allow rules cover all of it. */
export function allowDecision(rules: CompiledRules, q: PermissionQuery, base: PathBase): PermissionDecision | undefined {
  const applicable = rules.allow.filter((r) => r.appliesTo(q.toolName));
  if (!applicable.length) return undefined;
  const toolLevel = applicable.find((r) => r.kind === 'tool');
  if (toolLevel) return allowed(toolLevel.text);
  if (q.toolName === SHELL_TOOL) return shellAllow(applicable, rules, q, base);
  for (const rule of applicable) {
    switch (rule.kind) {
      case 'path': {
        const forms = callPathForms(q, base);
        if (forms && forms.every((f) => rule.path.test(f))) return allowed(rule.text);
        break;
      }
      case 'domain': {
        const host = hostOf(q.input.url);
        if (host !== undefined && domainMatches(host, rule.domain)) return allowed(rule.text);
        break;
      }
      case 'subagent':
        if (q.input.subagent_type === rule.name) return allowed(rule.text);
        break;
      default:
        break;
    }
  }
  return undefined;
}

function allowed(...rules: string[]): PermissionDecision {
  return { behavior: 'allow', reason: `allow rule ${[...new Set(rules)].join(', ')}`, source: 'permissions' };
}

/** Every part of the command must be allowed on its own, and every file it writes must be allowed for editing. */
function shellAllow(applicable: CompiledRule[], rules: CompiledRules, q: PermissionQuery, base: PathBase): PermissionDecision | undefined {
  const parsed = parsedCommandOf(q);
  if (!parsed.ok) return undefined;
  const used: string[] = [];
  for (const part of parsed.parts) {
    if (part.kind === 'unknown') return undefined;
    if (part.kind === 'command') {
      if (part.allow === undefined) return undefined;
      const rule = applicable.find((r) => r.kind === 'shell' && matchShell(r.shell, part.allow!));
      if (!rule) return undefined;
      used.push(rule.text);
    }
    for (const w of part.writes) {
      if (w.dynamic) return undefined;
      const rule = editAllowedByRule(rules, absolutePath(w.value, base.cwd, base.home));
      if (!rule) return undefined;
      used.push(rule.text);
    }
  }
  return used.length ? allowed(...used) : undefined;
}

/**
 * Why allow rules do not cover a Bash call: the first part no rule allows, for the reason a mode
 * gives when it asks or denies.
 */
export function explainShell(rules: CompiledRules, q: PermissionQuery, base: PathBase): string {
  const parsed = parsedCommandOf(q);
  if (!parsed.ok) return `the command was not understood (${parsed.error})`;
  const shellRules = rules.allow.filter((r) => r.kind === 'shell' && r.appliesTo(q.toolName));
  for (const part of parsed.parts) {
    if (part.kind === 'unknown') return `${JSON.stringify(part.source)} was not understood (${part.why})`;
    if (part.kind === 'command') {
      if (part.allow === undefined) return `no rule can allow ${JSON.stringify(part.source)}: ${part.why}`;
      if (!shellRules.some((r) => r.kind === 'shell' && matchShell(r.shell, part.allow!))) return `no allow rule covers ${JSON.stringify(part.source)}`;
    }
    for (const w of part.writes) {
      if (w.dynamic || !editAllowedByRule(rules, absolutePath(w.value, base.cwd, base.home))) return `${JSON.stringify(part.source)} writes to ${JSON.stringify(w.value.replaceAll('\u0000', '…'))}, which no Edit allow rule covers`;
    }
  }
  return 'no allow rule covers the command';
}

/** Tool names removed from the request by a bare deny rule. */
export function bareDeniedTools(rules: CompiledRules): CompiledRule[] {
  return rules.deny.filter((r) => r.kind === 'tool');
}
