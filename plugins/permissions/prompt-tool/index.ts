/**
 * `permissions/prompt-tool`: answers `ask` decisions by calling a tool, normally an MCP tool named
 * with `--permission-prompt-tool mcp__server__tool` (Claude Code's headless protocol). The tool
 * gets `{ tool_name, input, tool_use_id }` and returns JSON text: `{"behavior":"allow",
 * "updatedInput":{…}}` or `{"behavior":"deny","message":"…"}`. A missing tool, an error or an
 * unreadable answer denies the call.
 */
import { z } from 'zod';
import { definePlugin, type ContentBlock, type ToolOutput } from '../../../kernel/index.js';
import { checkAnswer, type PermissionResult } from '../shared/callback.js';
import { REQUEST_STAGE } from '../shared/stages.js';

export const promptToolOptions = z.object({
  /** Name of the tool to ask (`mcp__approvals__permission_prompt`). */
  tool: z.string().min(1).register(z.globalRegistry, { description: 'The tool that answers `ask` decisions (`--permission-prompt-tool`), e.g. `mcp__approvals__permission_prompt`; a missing tool, an error or an unreadable answer denies the call.' }),
}).strict();

function outputText(out: ToolOutput): { text: string; isError: boolean } {
  const isError = typeof out === 'object' && !Array.isArray(out) && out.isError === true;
  const content = typeof out === 'object' && !Array.isArray(out) ? out.content : out;
  const text = typeof content === 'string' ? content : content.map((b: ContentBlock) => (b.type === 'text' ? b.text : '')).join('');
  return { text, isError };
}

/** Reads the tool's answer; throws with a clear message when it is not an allow or deny object. */
export function parsePromptAnswer(text: string): PermissionResult {
  let v: unknown;
  try {
    v = JSON.parse(text.trim());
  } catch {
    throw new Error(`the answer is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
  const o = v as Record<string, unknown>;
  if (o?.behavior === 'allow') {
    if (o.updatedInput !== undefined && (typeof o.updatedInput !== 'object' || o.updatedInput === null || Array.isArray(o.updatedInput))) throw new Error('updatedInput must be an object');
    return { behavior: 'allow', updatedInput: o.updatedInput as Record<string, unknown> | undefined };
  }
  if (o?.behavior === 'deny') return { behavior: 'deny', message: typeof o.message === 'string' ? o.message : '' };
  throw new Error(`behavior must be "allow" or "deny", got ${JSON.stringify(o?.behavior)}`);
}

export default definePlugin({
  name: 'permissions/prompt-tool',
  description: 'Answers permission asks by calling a tool (--permission-prompt-tool), fail closed.',
  options: promptToolOptions,
  apply(kernel, options) {
    const source = `the permission prompt tool ${options.tool}`;
    // The model must not call the approval tool itself.
    kernel.hooks.toolDefinitions.tap('permissions/prompt-tool', (tools) => tools.filter((t) => t.name !== options.tool));
    kernel.hooks.permissionRequest.tapPromise({ name: 'permissions/prompt-tool', stage: REQUEST_STAGE.HOST }, async (ask, ctx) => {
      const deny = (why: string) => ({ behavior: 'deny' as const, message: `Permission to use ${ask.toolName} was denied: ${source} ${why}.`, reason: `${source} ${why}`, source });
      const tool = kernel.tools.get(options.tool);
      if (!tool) return deny('is not available');
      let out: ToolOutput;
      try {
        out = await tool.call({ tool_name: ask.toolName, input: ask.input, tool_use_id: ask.toolUseId }, kernel.toolContext(ask.toolUseId, ctx));
      } catch (err) {
        return deny(`failed: ${(err as Error).message}`);
      }
      const { text, isError } = outputText(out);
      if (isError) return deny(`returned an error: ${text.slice(0, 200)}`);
      let answer: PermissionResult;
      try {
        answer = parsePromptAnswer(text);
      } catch (err) {
        return deny(`gave an unreadable answer: ${(err as Error).message}`);
      }
      return checkAnswer(kernel, ask, answer, source);
    });
  },
});
