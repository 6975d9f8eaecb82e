/**
 * What happens between "this skill is invoked" and the text the model reads:
 *
 * - `` !`command` `` in the body runs before the model sees it, and its output replaces the
 *   pattern (Claude Code's dynamic context injection: https://code.claude.com/docs/en/skills).
 *   Each command is a `Bash` call made through the agent's own tool pipeline, so the permission
 *   rules, the active skill's `allowed-tools`, PreToolUse / PostToolUse hooks and the sandbox all
 *   apply. A command that is denied or fails leaves an error in the loaded text, saying which
 *   command and why; nothing runs silently and nothing is skipped silently.
 * - A `context: fork` skill runs in a child agent (the `Task` tool, `subagent_type` from the
 *   skill's `agent` field, default `general-purpose`) with the expanded body as its task; the
 *   child's report is what comes back.
 */
import { runToolCalls, type Kernel, type RunContext, type ToolResultBlock } from '../../../kernel/index.js';
import type { Skill } from './load.js';

/** `` !`command` ``: an exclamation mark right before a backtick-quoted command. */
const SHELL_PATTERN = /!`([^`\n]+)`/g;

let calls = 0;

/** The text of a tool result block. */
function resultText(b: ToolResultBlock): string {
  const c = b.content;
  if (typeof c === 'string') return c;
  return (c ?? []).map((x) => (x.type === 'text' ? x.text : `[${x.type}]`)).join('');
}

/**
 * `text` with every `` !`command` `` replaced by the command's output, each run as a Bash call of
 * `kernel` (in order, one at a time). A denied or failed command becomes
 * `[command failed: !`cmd`: reason]` in place.
 */
export async function expandShell(kernel: Kernel, text: string, ctx: RunContext): Promise<string> {
  const found = [...text.matchAll(SHELL_PATTERN)];
  if (!found.length) return text;
  let out = '';
  let last = 0;
  for (const m of found) {
    const command = m[1]!.trim();
    const { results } = await runToolCalls(kernel, [{ type: 'tool_use', id: `toolu_skill_shell_${++calls}`, name: 'Bash', input: { command } }], ctx);
    const r = results[0]!;
    const body = resultText(r).trimEnd();
    out += text.slice(last, m.index) + (r.is_error ? `[command failed: !\`${command}\`: ${body}]` : body);
    last = m.index! + m[0].length;
  }
  return out + text.slice(last);
}

/** The subagent type a `context: fork` skill runs as. */
export function forkAgentOf(skill: Skill): string {
  const a = skill.fields.agent;
  return typeof a === 'string' && a.trim() ? a.trim() : 'general-purpose';
}

/**
 * Runs a `context: fork` skill: a `Task` call (through the tool pipeline) with `content` as the
 * child's task. Returns the child's report, or its error.
 */
export async function runForkedSkill(kernel: Kernel, skill: Skill, content: string, ctx: RunContext): Promise<{ text: string; isError: boolean }> {
  if (!kernel.tools.has('Task')) return { text: `The skill "${skill.name}" runs in a separate agent (context: fork), and this agent has no Task tool to start one.`, isError: true };
  const { results } = await runToolCalls(kernel, [{ type: 'tool_use', id: `toolu_skill_fork_${++calls}`, name: 'Task', input: { description: `skill ${skill.name}`, prompt: content, subagent_type: forkAgentOf(skill) } }], ctx);
  const r = results[0]!;
  return { text: resultText(r), isError: r.is_error === true };
}
