/**
 * Allow rules too broad for auto mode: an allow rule resolves before the classifier
 * runs, so `Bash(python:*)` would let any code through unjudged. On entering auto mode such rules
 * are set aside: every Bash rule for the whole tool, and interpreter-wide rules of the shapes
 * `X:*`, `X *` and `X -*` for the commands below.
 */
import type { CompiledRule } from '../shared/rules.js';

/** Commands that run arbitrary code given in their arguments (the list Claude Code's auto mode uses). */
export const DANGEROUS_COMMANDS: readonly string[] = Object.freeze([
  'python', 'python3', 'node', 'ruby', 'perl', 'php', 'lua', 'npx', 'bunx', 'npm run', 'bash', 'sh', 'ssh', 'zsh',
  'fish', 'eval', 'exec', 'env', 'xargs', 'sudo',
]);

/** True when an allow rule would let arbitrary code past the classifier. */
export function isDangerousAllow(rule: CompiledRule): boolean {
  if (rule.toolName !== 'Bash') return false;
  if (rule.kind === 'tool') return true;
  if (rule.kind !== 'shell') return false;
  const m = rule.shell;
  if (m.kind === 'prefix') return DANGEROUS_COMMANDS.includes(m.prefix.toLowerCase());
  if (m.kind === 'wildcard') {
    const p = m.pattern.trim().toLowerCase();
    return p === '*' || DANGEROUS_COMMANDS.some((c) => p === `${c} *` || p === `${c} -*`);
  }
  return false;
}
