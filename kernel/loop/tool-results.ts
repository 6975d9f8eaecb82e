/**
 * Turns a tool's output into the tool_result block the model sees: an empty result becomes a short
 * placeholder, and a result over the tool's cap is replaced by what `services.persistResult` makes
 * of it (rein's saves it to the session directory and leaves a preview). Keeping all results of
 * one message within a shared budget is the `tool-result-budget` plugin's job.
 */
import type { RunContext } from '../hook-payloads.js';
import type { Kernel } from '../kernel.js';
import { DEFAULT_MAX_RESULT_SIZE_CHARS, type Tool, type ToolOutput } from '../tool.js';
import type { ContentBlock, ToolResultBlock } from '../types.js';

/** Global ceiling on one result, characters (Claude Code: 50,000). */
export const MAX_RESULT_CHARS = DEFAULT_MAX_RESULT_SIZE_CHARS;

type ResultContent = Extract<ToolResultBlock['content'], unknown[]>;

/** The tool_result block for `output`. */
export async function finalizeResult(
  kernel: Kernel, tool: Tool, toolUseId: string, output: ToolOutput, isError: boolean, _ctx: RunContext,
): Promise<ToolResultBlock> {
  const raw = typeof output === 'object' && !Array.isArray(output) ? output.content : output;
  let content: ResultContent = typeof raw === 'string' ? [{ type: 'text', text: raw }] : (raw as ResultContent);
  if (content.length === 0 || content.every((b) => b.type === 'text' && b.text.trim() === '')) {
    content = [{ type: 'text', text: `(${tool.name} completed with no output)` }];
  }
  // `Infinity` opts out (Read bounds its own output); any other cap is clamped to 50,000.
  const cap = Number.isFinite(tool.maxResultSizeChars) ? Math.min(tool.maxResultSizeChars, MAX_RESULT_CHARS) : Infinity;
  const textLen = content.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0);
  if (Number.isFinite(cap) && textLen > cap && content.every((b) => b.type === 'text')) {
    const full = content.map((b) => (b as { text: string }).text).join('\n');
    content = [{ type: 'text', text: kernel.services.persistResult(kernel.sessionDir(), toolUseId, full) }];
  }
  const block: ToolResultBlock = { type: 'tool_result', tool_use_id: toolUseId, content: content as ContentBlock[] as ResultContent };
  if (isError) block.is_error = true;
  return block;
}
