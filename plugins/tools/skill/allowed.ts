/**
 * `allowed-tools` entries, written like permission rules: `Read` (the tool), `mcp__server__*`
 * (every tool of a server), `Bash(git log:*)` (a Bash command starting with `git log`), `Read(src/**)`
 * style specifiers with a trailing `*` (the input's first string field starts with what precedes it)
 * or an exact specifier. Rule syntax: https://code.claude.com/docs/en/iam#tool-specific-permission-rules
 */

/** The input field a rule's specifier is compared with. */
function subject(input: Record<string, unknown>): string | undefined {
  for (const k of ['command', 'file_path', 'path', 'pattern', 'url', 'skill', 'subagent_type']) if (typeof input[k] === 'string') return input[k] as string;
  return undefined;
}

/** True when one of `rules` lets `toolName` run with `input`. */
export function allowedBy(rules: readonly string[], toolName: string, input: Record<string, unknown>): boolean {
  return rules.some((rule) => {
    const m = /^([^()]+)(?:\((.*)\))?$/.exec(rule.trim());
    if (!m) return false;
    const [, name, spec] = m;
    const nameOk = name!.endsWith('*') ? toolName.startsWith(name!.slice(0, -1)) : toolName === name;
    if (!nameOk) return false;
    if (spec === undefined || spec === '*' || spec === '') return true;
    const value = subject(input);
    if (value === undefined) return false;
    const prefix = spec.endsWith(':*') ? spec.slice(0, -2) : spec.endsWith('*') ? spec.slice(0, -1) : undefined;
    return prefix !== undefined ? value.startsWith(prefix) : value === spec;
  });
}
