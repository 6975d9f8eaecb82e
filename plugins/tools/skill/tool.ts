/**
 * `Skill`: loads a skill's instructions into the conversation when the model calls it by name.
 * The tool's description never names a skill (the listing reaches the model as a reminder message,
 * see index.ts), so adding or activating a skill never changes the request's tool bytes.
 */
import { z } from 'zod';
import { defineTool, ToolError, type Tool, type ToolContext, type ToolOutput } from '../../../kernel/index.js';
import type { Skill } from './load.js';
import { INPUT_JSON_SCHEMAS } from '../shared/generated/input-schemas.js';

export const skillInput = z.lazy(() => z.strictObject({
  skill: z.string().min(1).describe('The skill name, as listed (e.g. "pdf" or "review-pr")'),
  args: z.string().optional().describe('Optional arguments for the skill'),
}));

export type SkillInput = z.output<typeof skillInput>;

const DESCRIPTION = `Loads a skill: a folder of instructions (and files beside them) for a particular kind of task.

The skills you can use are listed in a system reminder in the conversation ("The following skills are available for use with the Skill tool"). When a request matches a skill's description, call this tool with the skill's name before doing the work yourself; its instructions come back as the result. Files the instructions mention are in the skill's base directory: read them with your normal tools when you need them.

- Pass the name exactly as listed; pass anything the user gave the skill as args.
- Do not call a skill that is already loaded in this conversation; follow the instructions you have.
- Only skills from the listing exist: do not guess names.`;

/**
 * The body as the model receives it: a line with the base directory, then the body with
 * `$ARGUMENTS`, `${CLAUDE_SKILL_DIR}` and `${CLAUDE_SESSION_ID}` replaced. Arguments given to a body
 * that has no `$ARGUMENTS` are appended on their own line (Claude Code does the same).
 */
export function expandSkill(skill: Skill, args: string | undefined, sessionId: string): string {
  let body = skill.body
    .replaceAll('${CLAUDE_SKILL_DIR}', skill.dir)
    .replaceAll('${CLAUDE_SESSION_ID}', sessionId);
  const a = args?.trim() ?? '';
  if (body.includes('$ARGUMENTS')) body = body.replaceAll('$ARGUMENTS', a);
  else if (a) body = `${body}\n\nARGUMENTS: ${a}`;
  return `Base directory for this skill: ${skill.dir}\n\n${body}`;
}

export interface SkillToolHost {
  /** The skill the model may call by this name now (listed, or activated by its paths), else undefined. */
  find(name: string): Skill | undefined;
  /** Names the model may call now. */
  names(): string[];
  /**
   * Invokes the skill: expands its body (arguments, `` !`command` ``), records the invocation (for
   * allowed-tools and re-injection after compaction) and returns what the model gets: the body, or
   * for a `context: fork` skill the child agent's report.
   */
  invoke(skill: Skill, args: string | undefined, ctx: ToolContext): Promise<ToolOutput>;
}

/** Builds the Skill tool over `host`. */
export function createSkillTool(host: SkillToolHost): Tool<SkillInput> {
  return defineTool<SkillInput>({
    name: 'Skill',
    description: DESCRIPTION,
    inputSchema: skillInput,
    inputJsonSchema: INPUT_JSON_SCHEMAS.skillInput,
    isReadOnly: () => true,
    // Invoking changes which tools may run next: one at a time, in order.
    isConcurrencySafe: () => false,
    maxResultSizeChars: 100_000,
    async call(input, ctx) {
      const name = input.skill.trim().replace(/^\//, '');
      const skill = host.find(name);
      if (!skill) {
        const known = host.names();
        throw new ToolError(`Unknown skill "${name}". ${known.length ? `Available: ${known.join(', ')}.` : 'No skills are available.'}`);
      }
      return host.invoke(skill, input.args, ctx);
    },
  });
}
