/**
 * Permission rule strings: `Tool` or `Tool(specifier)`, as Claude Code writes them in `allow`,
 * `ask` and `deny`. The specifier may contain parentheses (`Bash(python -c "print(1)")`); a `\(` or
 * `\)` inside it stands for a literal parenthesis. `Tool()` and `Tool(*)` mean the whole tool, like
 * a bare `Tool` (Claude Code behaviour).
 */

/** Which list a rule came from. */
export type RuleBehavior = 'allow' | 'ask' | 'deny';

/** A parsed rule. `content` is undefined for a tool-level rule. */
export interface PermissionRule {
  /** The rule as written, for reasons and error messages. */
  text: string;
  behavior: RuleBehavior;
  toolName: string;
  content?: string;
}

/** A rule string that cannot be read. */
export class RuleSyntaxError extends Error {
  constructor(readonly rule: string, message: string) {
    super(`permission rule ${JSON.stringify(rule)}: ${message}`);
    this.name = 'RuleSyntaxError';
  }
}

const TOOL_NAME = /^[A-Za-z_][\w.-]*$/;

/**
 * Parses one rule string. Throws RuleSyntaxError for an empty string, a bad tool name, unbalanced
 * parentheses or text after the closing parenthesis.
 */
export function parseRule(text: string, behavior: RuleBehavior): PermissionRule {
  const s = text.trim();
  if (!s) throw new RuleSyntaxError(text, 'empty rule');
  const open = s.indexOf('(');
  if (open === -1) {
    if (s.includes(')')) throw new RuleSyntaxError(text, 'a ")" without "("');
    if (!TOOL_NAME.test(s)) throw new RuleSyntaxError(text, 'a tool name is letters, digits, "_", "-" and "."');
    return { text: s, behavior, toolName: s };
  }
  const toolName = s.slice(0, open).trim();
  if (!TOOL_NAME.test(toolName)) throw new RuleSyntaxError(text, 'a tool name is letters, digits, "_", "-" and "."');
  if (!s.endsWith(')')) throw new RuleSyntaxError(text, 'the specifier must end with ")" (escape a literal one as "\\)")');
  const inner = s.slice(open + 1, -1);
  // Unescaped parentheses inside must balance, so `Bash(a) b)` is rejected rather than misread.
  let depth = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '\\' && (inner[i + 1] === '(' || inner[i + 1] === ')')) { i++; continue; }
    if (c === '(') depth++;
    else if (c === ')' && --depth < 0) throw new RuleSyntaxError(text, 'unbalanced ")" in the specifier');
  }
  if (depth !== 0) throw new RuleSyntaxError(text, 'unbalanced "(" in the specifier');
  const content = inner.replace(/\\([()])/g, '$1').trim();
  if (content === '' || content === '*') return { text: s, behavior, toolName };
  return { text: s, behavior, toolName, content };
}

/** The rule as a string again (`Tool` or `Tool(content)` with parentheses escaped). */
export function formatRule(rule: Pick<PermissionRule, 'toolName' | 'content'>): string {
  if (rule.content === undefined) return rule.toolName;
  return `${rule.toolName}(${rule.content.replace(/[()]/g, '\\$&')})`;
}
